#!/usr/bin/env bash
# Fault-injection matrix: for 2, 4 and 8 ranks of tests/faults/fault_prog,
# injects each fault several times at random delays and checks that
#   - the job ends within 2 s of the fault (FAULT_LIMIT_MS),
#   - mpiexec exits nonzero and names the failed rank and how it failed,
#   - no rank process survives,
#   - no /dev/shm/dmpi-<jobid>* file remains (none is even linked once the
#     ranks are up: segments are unlinked as soon as every rank mapped them).
# Faults: a rank killed with SIGKILL while the others communicate with it
# (point-to-point, collectives, RMA epochs when windows work), a rank that
# exits (code 0 or 3) without MPI_Finalize, MPI_Abort from a nonzero rank,
# SIGINT / SIGTERM / SIGKILL to mpiexec, and SIGKILL to mpiexec with the
# ranks' PR_SET_PDEATHSIG cleared (only the library's own check of the PMI
# link can end them then), also together with a rank they wait for.
#
# With --hosts N (2 or 3) the same matrix runs across N test hosts
# (tests/hosts/hosts.sh; brought up if they are not, and taken down at the
# end only then): mpiexec on dmpi-h1 through tests/hosts/launch, the ranks
# spread in blocks over the hosts (earlier hosts one more), one agent per
# host. The victim is the last rank (on the last host, not mpiexec's) in
# every other run, a random rank otherwise. Checked besides: the job ends
# within the limit everywhere (mpiexec, every rank and every agent gone),
# mpiexec names the victim's host, no process of this build survives on any
# host and no /dev/shm/dmpi-<jobid>* remains on any host. Cases added:
# SIGKILL to a remote agent (its ranks with or without PR_SET_PDEATHSIG:
# mpiexec must end the job naming the host), and SIGKILL to mpiexec under
# an ssh-like launcher (tests/faults/detached_launch: the agents outlive
# mpiexec and must kill their ranks themselves). kill-rma runs only where
# windows work across hosts. Exit 77 with one SKIP line where the hosts
# cannot be made or the build has no libfabric. The hosts are machine-wide:
# a run during which someone else took them down is noted, not counted.
#
# Usage: tests/faults/run_faults.sh [options] BUILD_DIR
#   --reps N      runs per case and rank count (default 5, or $FAULT_REPS)
#   --soak        long mode: 20 runs per case (same as --reps 20)
#   --np LIST     rank counts (default 2,4,8)
#   --only REGEX  only cases whose name matches
#   --seed S      random seed (default: from the clock; printed)
#   --hosts N     across N test hosts (2 or 3); rank counts default to 2,4
#   -v            print every run, not only failures
# Exit status: 0 all passed, 1 some failed, 2 usage, 77 skipped (--hosts).
set -u

REPS=${FAULT_REPS:-5} NPS="2,4,8" ONLY="" SEED="" VERBOSE=0 BUILD="" NHOSTS="" NPS_SET=0
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) REPS=$2; shift 2 ;;
    --soak) REPS=20; shift ;;
    --np) NPS=$2; NPS_SET=1; shift 2 ;;
    --hosts) NHOSTS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -v) VERBOSE=1; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_faults.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
    esac
done
if [ -z "$BUILD" ] || [ ! -x "$BUILD/bin/mpiexec" ]; then
    echo "usage: $0 [options] BUILD_DIR (with bin/mpiexec)" >&2
    exit 2
fi
case "$NHOSTS" in
"" | 2 | 3) ;;
*) echo "run_faults.sh: --hosts takes 2 or 3" >&2; exit 2 ;;
esac
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MPIEXEC=$BUILD/bin/mpiexec
PROG=$BUILD/tests/faults/fault_prog
if [ ! -x "$PROG" ]; then
    echo "FAIL: $PROG not built"
    exit 1
fi
FAULT_LIMIT_MS=${FAULT_LIMIT_MS:-2000}
START_LIMIT_S=30 # ranks must be up by then (slow under sanitizers)
[ -n "$SEED" ] || SEED=$(( $(date +%s%N) % 32768 ))
RANDOM=$SEED
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-faults.XXXXXX")
BGPID=""
# across hosts (--hosts N)
H=$SRC/tests/hosts/hosts.sh L=$SRC/tests/hosts/launch DETACHED=$SRC/tests/faults/detached_launch
HOSTS_MADE=0 AGENT_PIDS="" HOSTLIST="" NINTERF=0
declare -a RHOST=()
declare -A AGENT=()
# processes run from this build (mpiexec, agents, ranks; the agents' path
# is mpiexec's /proc/self/exe): the regex does not match its own grep
# shellcheck disable=SC2016
BUILD_RE=$(readlink -f "$BUILD" | sed 's/[].[\*^$()+?{|]/\\&/g')
BUILD_RE="$BUILD_RE/(bin/mpiexec|tests/faults/fault_prog)"
cleanup() {
    [ -n "$BGPID" ] && kill -KILL "$BGPID" 2>/dev/null
    kill_leftovers
    rm -rf "$TMP"
    if [ "$HOSTS_MADE" = 1 ]; then "$H" down >/dev/null 2>&1; HOSTS_MADE=0; fi
}
trap 'cleanup; exit 130' INT TERM
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }
rank_pids() { cat "$RUN"/rank.* 2>/dev/null | awk '{ print $1 }'; }
jobid() { cat "$RUN"/rank.* 2>/dev/null | awk '{ print $2; exit }'; }
# alive PID [COMM]: a running (not zombie) instance of COMM (fault_prog)
alive() {
    local st c=${2:-fault_prog}
    { read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
    case "$st" in *"($c) Z"*) return 1 ;; *"($c) "*) return 0 ;; esac
    return 1
}
kill_leftovers() {
    local p
    [ -n "${RUN:-}" ] || return 0
    for p in $(rank_pids); do alive "$p" && kill -KILL "$p" 2>/dev/null; done
    if [ -n "$NHOSTS" ]; then
        for p in $AGENT_PIDS; do alive "$p" mpiexec && kill -KILL "$p" 2>/dev/null; done
        for p in $(own_procs); do kill -KILL "$p" 2>/dev/null; done
    fi
    return 0
}

# live processes of this build that belong to this matrix: inside a test
# host (the hosts are this script's while it runs), or with this run's
# directory on their command line. Not the same build's processes of other
# work on this machine outside the test hosts (other jobs, other tests).
own_procs() {
    local f p
    # shellcheck disable=SC2013
    for f in $(grep -lsaE -- "$BUILD_RE" /proc/[0-9]*/cmdline 2>/dev/null); do
        p=${f#/proc/}
        p=${p%/cmdline}
        [ "$p" = "$BGPID" ] && continue # still to be reaped by us
        case $(host_of "$p") in
        gone) continue ;;
        here) grep -qsaF -- "$TMP" "$f" || continue ;;
        esac
        echo "$p"
    done
}
hosts_intact() {
    local k
    for ((k = 1; k <= NHOSTS; k++)); do
        [ -e "/run/netns/dmpi-h$k" ] && mountpoint -q "/run/dmpi-hosts/h$k.mnt" || return 1
    done
}
# identity of the hosts: changes when someone else takes them down (and up)
hosts_sig() {
    local k
    for ((k = 1; k <= NHOSTS; k++)); do
        stat -L -c %i "/run/netns/dmpi-h$k" "/run/dmpi-hosts/h$k.mnt" 2>/dev/null | tr '\n' ' '
    done
}
# the test host whose network namespace PID is in ("here" if none)
host_of() {
    local ns k
    ns=$(readlink "/proc/$1/ns/net" 2>/dev/null) || { echo gone; return; }
    for ((k = 1; k <= NHOSTS; k++)); do
        [ "$ns" = "net:[$(stat -L -c %i "/run/netns/dmpi-h$k" 2>/dev/null)]" ] && { echo "dmpi-h$k"; return; }
    done
    echo here
}
ppid_of() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $2 }'; }
# brings the hosts up where they are not; SKIP (exit 77) where they cannot be
ensure_hosts() {
    local out rc k any=0
    hosts_intact && return 0
    for ((k = 1; k <= NHOSTS; k++)); do [ -e "/run/netns/dmpi-h$k" ] && any=1; done
    out=$("$H" up "$NHOSTS" 2>&1)
    rc=$?
    if [ $rc != 0 ] || ! hosts_intact; then
        [ $any = 0 ] && "$H" down >/dev/null 2>&1
        if printf '%s\n' "$out" | grep -q '^SKIP: '; then
            printf '%s\n' "$out" | grep -m1 '^SKIP: '
        else
            echo "SKIP: cannot make $NHOSTS test hosts: $(printf '%s\n' "$out" | tail -1)"
        fi
        exit 77
    fi
    # taken down at the end only if no host of ours was there before
    [ $any = 0 ] && HOSTS_MADE=1
    return 0
}
# placement of NP ranks: blocks over the hosts, earlier hosts one more;
# sets HOSTLIST (-hosts h:n,...) and RHOST[rank]
place() {
    local np=$1 k i c r=0 list=""
    RHOST=()
    for ((k = 1; k <= NHOSTS; k++)); do
        c=$((np / NHOSTS + (k <= np % NHOSTS ? 1 : 0)))
        [ $c -gt 0 ] || continue
        list="$list,dmpi-h$k:$c"
        for ((i = 0; i < c; i++)); do RHOST[r]=dmpi-h$k; r=$((r + 1)); done
    done
    HOSTLIST=${list#,}
}

NRUN=0 NPASS=0 NSKIP=0 WORST=""
declare -A CASE_RUN CASE_PASS CASE_WORST

# one CASE NP [REP]: a single run with a random victim and delay
one() {
    local case=$1 np=$2 rep=${3:-0}
    local mode victim delay extra="" inject="" want_st="" want_msg=""
    local launcher=$L target="" vhost="" sig0=""
    delay=$((RANDOM % 300))
    victim=$((RANDOM % np))
    case $case in
    kill-recv) mode=recv; inject=rank ;;
    kill-coll) mode=coll; inject=rank ;;
    kill-rma) mode=rma; inject=rank ;;
    exit0-nofinalize) mode=exit0 ;;
    exit3-nofinalize) mode=exit3 ;;
    abort-nonzero) mode=abort; victim=$((1 + RANDOM % (np - 1))) ;;
    sigint-mpiexec) mode=recv; inject=INT ;;
    sigterm-mpiexec) mode=recv; inject=TERM ;;
    sigkill-mpiexec) mode=recv; inject=KILL ;;
    sigkill-mpiexec-nopdeath) mode=recv; inject=KILL; extra=nopdeath ;;
    sigkill-rank+mpiexec-nopdeath) mode=recv; inject=KILL+rank; extra=nopdeath ;;
    sigkill-agent) mode=recv; inject=agent ;;
    sigkill-agent-nopdeath) mode=recv; inject=agent; extra=nopdeath ;;
    sigkill-mpiexec-detached) mode=recv; inject=KILL; launcher=$DETACHED ;;
    sigkill-mpiexec-nopdeath-detached) mode=recv; inject=KILL; extra=nopdeath; launcher=$DETACHED ;;
    esac
    if [ -n "$NHOSTS" ]; then
        place "$np"
        # every other run the last rank, on the last host (not mpiexec's)
        [ $((rep % 2)) = 0 ] && victim=$((np - 1))
        vhost=${RHOST[victim]}
        if [ "$inject" = agent ]; then # an agent not on mpiexec's host
            local r cands
            cands=$(printf '%s\n' "${RHOST[@]}" | grep -vx dmpi-h1 | sort -u)
            if [ $((rep % 2)) = 0 ]; then
                target=${RHOST[np - 1]}
            else
                # shellcheck disable=SC2086
                set -- $cands
                shift $((RANDOM % $#))
                target=$1
            fi
        fi
    fi
    case $case in
    sigkill-agent*) want_st=1; want_msg="lost the connection to the agent on host $target" ;;
    kill-*) want_st=137; want_msg="rank $victim \\(pid [0-9]+\\) killed by signal 9 \\(SIGKILL\\)" ;;
    exit0-*) want_st=1; want_msg="rank $victim \\(pid [0-9]+\\) (exited without calling MPI_Finalize|closed its PMI connection without calling MPI_Finalize)" ;;
    exit3-*) want_st=3; want_msg="rank $victim \\(pid [0-9]+\\) exited with code 3" ;;
    abort-*) want_st=7; want_msg="rank $victim \\(pid [0-9]+\\) called MPI_Abort with code 7" ;;
    sigint-*) want_st=130; want_msg="received SIGINT; killing the job" ;;
    sigterm-*) want_st=143; want_msg="received SIGTERM; killing the job" ;;
    sigkill-*) want_st=137 ;;
    esac
    case $case in kill-* | exit* | abort-*) [ -n "$vhost" ] && want_msg="host $vhost: $want_msg" ;; esac
    RUN=$TMP/run
    rm -rf "$RUN"
    mkdir -p "$RUN"
    local label="$case np=$np victim=$victim delay=${delay}ms${extra:+ $extra}"
    [ -n "$NHOSTS" ] && label="$label hosts=$HOSTLIST${vhost:+ victim on $vhost}${target:+ agent on $target}"
    local why="" t_fault="" t_end st

    if [ -n "$NHOSTS" ]; then
        ensure_hosts
        sig0=$(hosts_sig)
        AGENT=() AGENT_PIDS=""
        # shellcheck disable=SC2086
        "$L" dmpi-h1 "$MPIEXEC" --launcher-exec "$launcher" -hosts "$HOSTLIST" -n "$np" \
            "$PROG" "$mode" "$victim" "$RUN" "$delay" $extra >"$RUN/out" 2>"$RUN/err" </dev/null &
    else
        # shellcheck disable=SC2086
        "$MPIEXEC" -n "$np" "$PROG" "$mode" "$victim" "$RUN" "$delay" $extra \
            >"$RUN/out" 2>"$RUN/err" </dev/null &
    fi
    BGPID=$!
    exec 3>&2 2>/dev/null # until it is reaped: hide bash's "Killed" notice
    local i ready=0
    for ((i = 0; i < START_LIMIT_S * 100; i++)); do
        if [ -e "$RUN/ready" ]; then ready=1; break; fi
        kill -0 "$BGPID" 2>/dev/null || break
        sleep 0.01
    done
    if [ $ready = 1 ]; then
        # every shared-memory segment is unlinked once the ranks are up
        local j0
        j0=$(jobid)
        if [ -z "$NHOSTS" ] && [ -n "$j0" ] && ls /dev/shm 2>/dev/null | grep -q "^dmpi-$j0"; then
            why="$why /dev/shm/dmpi-$j0* still linked while the job runs;"
        fi
    fi
    if [ $ready = 1 ] && [ -n "$NHOSTS" ]; then
        # every rank on its host, a child of that host's agent (those
        # still there: a victim that faults by itself may be gone already)
        local r rp pp h
        for ((r = 0; r < np; r++)); do
            rp=$(awk '{ print $1 }' "$RUN/rank.$r")
            h=$(host_of "$rp")
            [ "$h" = gone ] && continue
            [ "$h" = "${RHOST[r]}" ] || why="$why rank $r runs on $h, not ${RHOST[r]};"
            pp=$(ppid_of "$rp")
            if [ -n "$pp" ] && tr '\0' ' ' <"/proc/$pp/cmdline" 2>/dev/null | grep -q -- ' --agent '; then
                AGENT[${RHOST[r]}]=$pp
            elif alive "$rp"; then
                why="$why rank $r (pid $rp) is not a child of an agent (parent ${pp:-?});"
            fi
        done
        AGENT_PIDS="${AGENT[*]}"
        if [ -n "$j0" ]; then
            for h in $(printf '%s\n' "${RHOST[@]}" | sort -u); do
                "$H" shm "$h" 2>/dev/null | grep -q "^dmpi-$j0" &&
                    why="$why /dev/shm/dmpi-$j0* on $h still linked while the job runs;"
            done
        fi
    fi
    if [ $ready = 0 ]; then
        why="ranks did not start;"
    elif [ -n "$inject" ]; then
        sleep "$(awk -v d="$delay" 'BEGIN { printf "%.3f", d / 1000 }')"
        t_fault=$(now_ms)
        if [ "$inject" = rank ] || [ "$inject" = KILL+rank ]; then
            local vp
            vp=$(awk '{ print $1 }' "$RUN/rank.$victim")
            kill -KILL "$vp"
        fi
        if [ "$inject" = agent ]; then
            if [ -n "${AGENT[$target]:-}" ]; then
                kill -KILL "${AGENT[$target]}"
            else
                why="$why no agent found on $target;"
                kill -TERM "$BGPID"
            fi
        elif [ "$inject" = KILL+rank ]; then
            kill -KILL "$BGPID"
        elif [ "$inject" != rank ]; then
            kill -s "$inject" "$BGPID"
        fi
    fi
    # wait for mpiexec (10 s at most)
    for ((i = 0; i < 1000; i++)); do
        kill -0 "$BGPID" 2>/dev/null || break
        sleep 0.01
    done
    t_end=$(now_ms)
    if kill -0 "$BGPID" 2>/dev/null; then
        why="$why mpiexec still running 10 s after the fault;"
        kill -KILL "$BGPID" 2>/dev/null
    fi
    wait "$BGPID"
    st=$?
    exec 2>&3 3>&-
    BGPID=""
    if [ "$inject" = KILL ] || [ "$inject" = KILL+rank ]; then
        # mpiexec is gone at once; the ranks must follow it
        for ((i = 0; i < 500; i++)); do
            local left=0 p
            for p in $(rank_pids); do alive "$p" && left=1; done
            [ $left = 0 ] && break
            sleep 0.01
        done
        t_end=$(now_ms)
    fi
    if [ -n "$NHOSTS" ]; then
        # the job is over when every rank and every agent is gone too
        local t_stop=$(($(now_ms) + 5000))
        while [ "$(now_ms)" -lt "$t_stop" ]; do
            local left=0 p
            for p in $(rank_pids); do alive "$p" && left=1; done
            for p in $AGENT_PIDS; do alive "$p" mpiexec && left=1; done
            [ $left = 0 ] && break
            sleep 0.01
        done
        t_end=$(now_ms)
        if [ "$(hosts_sig)" != "$sig0" ]; then
            # someone else took the hosts down (hosts.sh down kills all)
            echo "NOTE $label: the test hosts were taken down or remade during the run (another hosts.sh user?); not counted"
            NINTERF=$((NINTERF + 1))
            kill_leftovers
            return 0
        fi
    fi
    if [ -z "$t_fault" ] && [ -e "$RUN/fault" ]; then
        t_fault=$(($(cat "$RUN/fault") / 1000000))
    fi

    if [ $ready = 1 ]; then
        if [ -z "$t_fault" ]; then
            why="$why the fault never happened;"
        elif [ $((t_end - t_fault)) -gt "$FAULT_LIMIT_MS" ]; then
            why="$why job ended $((t_end - t_fault)) ms after the fault (limit $FAULT_LIMIT_MS);"
        fi
        if [ -n "$NHOSTS" ] && [ -n "$t_fault" ]; then
            local d=$((t_end - t_fault))
            [ "$d" -gt "${WORST:--1}" ] && WORST=$d
            [ "$d" -gt "${CASE_WORST[$case]:--1}" ] && CASE_WORST[$case]=$d
        fi
    fi
    if [ "$st" = 0 ]; then
        why="$why mpiexec exited 0;"
    elif [ -n "$want_st" ] && [ "$st" != "$want_st" ]; then
        why="$why mpiexec exit status $st, want $want_st;"
    fi
    if [ -n "$want_msg" ] && ! grep -Eq -- "$want_msg" "$RUN/err"; then
        why="$why stderr lacks /$want_msg/;"
    fi
    local p
    if [ -z "$NHOSTS" ]; then
        for p in $(rank_pids); do
            if alive "$p"; then why="$why rank pid $p survived;"; fi
        done
    else
        for p in $(own_procs); do
            why="$why $(host_of "$p"): pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60)) survived;"
        done
    fi
    kill_leftovers
    local j
    j=$(jobid)
    if [ -z "$NHOSTS" ] && [ -n "$j" ] && [ "$j" != - ] && ls /dev/shm 2>/dev/null | grep -q "^dmpi-$j"; then
        why="$why /dev/shm/dmpi-$j* left;"
        rm -f /dev/shm/dmpi-"$j"*
    fi
    if [ -n "$NHOSTS" ] && [ -n "$j" ] && [ "$j" != - ]; then
        local k left
        for ((k = 1; k <= NHOSTS; k++)); do
            left=$("$H" shm "dmpi-h$k" 2>/dev/null | grep "^dmpi-$j" | tr '\n' ' ')
            if [ -n "$left" ]; then
                why="$why on dmpi-h$k /dev/shm: $left left;"
                "$H" exec "dmpi-h$k" sh -c "rm -f /dev/shm/dmpi-$j*"
            fi
        done
    fi

    NRUN=$((NRUN + 1))
    CASE_RUN[$case]=$((${CASE_RUN[$case]:-0} + 1))
    if [ -z "$why" ]; then
        NPASS=$((NPASS + 1))
        CASE_PASS[$case]=$((${CASE_PASS[$case]:-0} + 1))
        [ "$VERBOSE" = 1 ] && echo "PASS $label ($((t_end - ${t_fault:-t_end})) ms)"
    else
        echo "FAIL $label:$why"
        sed 's/^/    | /' "$RUN/err" | tail -n 12
    fi
    return 0
}

CASES="kill-recv kill-coll kill-rma exit0-nofinalize exit3-nofinalize abort-nonzero
       sigint-mpiexec sigterm-mpiexec sigkill-mpiexec sigkill-mpiexec-nopdeath
       sigkill-rank+mpiexec-nopdeath"

WHERE=""
if [ -n "$NHOSTS" ]; then
    CASES="$CASES sigkill-agent sigkill-agent-nopdeath sigkill-mpiexec-detached
           sigkill-mpiexec-nopdeath-detached"
    [ "$NPS_SET" = 1 ] || NPS="2,4"
    if ! "$BUILD/bin/dmpi-info" 2>/dev/null | grep -Eq 'libfabric \(network\) +yes'; then
        echo "SKIP: $BUILD was built without libfabric: no jobs across hosts"
        exit 77
    fi
    ensure_hosts
    WHERE=" across $NHOSTS test hosts (mpiexec on dmpi-h1)"
fi

# RMA: only once windows exist (src/api/rma.c) and work
RMA_NOTE=""
if [ ! -e "$SRC/src/api/rma.c" ]; then
    RMA_NOTE="kill-rma skipped: no src/api/rma.c yet"
elif [ -n "$NHOSTS" ]; then
    RUN=$TMP/probe
    mkdir -p "$RUN"
    if ! timeout 30 "$L" dmpi-h1 "$MPIEXEC" --launcher-exec "$L" -hosts dmpi-h1:1,dmpi-h2:1 -n 2 \
        "$PROG" probe-rma 0 "$RUN" 0 2>&1 </dev/null | grep -q "rma ok"; then
        RMA_NOTE="kill-rma skipped: windows across hosts do not work yet"
    fi
else
    RUN=$TMP/probe
    mkdir -p "$RUN"
    if ! timeout 30 "$MPIEXEC" -n 2 "$PROG" probe-rma 0 "$RUN" 0 2>&1 </dev/null | grep -q "rma ok"; then
        RMA_NOTE="kill-rma skipped: MPI_Win_create does not work yet"
    fi
fi

echo "fault matrix$WHERE: seed $SEED, $REPS run(s) per case and rank count, np $NPS"
t0=$(now_ms)
for c in $CASES; do
    if [ -n "$ONLY" ] && ! printf '%s\n' "$c" | grep -Eq -- "$ONLY"; then continue; fi
    if [ "$c" = kill-rma ] && [ -n "$RMA_NOTE" ]; then
        echo "SKIP $RMA_NOTE"
        NSKIP=$((NSKIP + 1))
        continue
    fi
    for np in ${NPS//,/ }; do
        for ((rep = 0; rep < REPS; rep++)); do one "$c" "$np" "$rep"; done
    done
    echo "case $c: ${CASE_PASS[$c]:-0} of ${CASE_RUN[$c]:-0} passed${CASE_WORST[$c]:+ (worst end ${CASE_WORST[$c]} ms after the fault)}"
done
NLEFT=0
if [ -n "$NHOSTS" ]; then
    # last sweep: nothing of this build runs on any host
    for ((k = 1; k <= NHOSTS; k++)); do
        left=$("$H" ps "dmpi-h$k" 2>/dev/null | grep -E -- "$BUILD_RE")
        if [ -n "$left" ]; then
            echo "FAIL left running on dmpi-h$k after the matrix:"
            printf '%s\n' "$left" | sed 's/^/    | /'
            NLEFT=1
        fi
    done
    [ "$NINTERF" = 0 ] || echo "NOTE: $NINTERF run(s) not counted: the test hosts were taken down or remade meanwhile"
fi
echo "fault matrix$WHERE: $NRUN runs, $NPASS passed, $((NRUN - NPASS)) failed, $NSKIP case(s) skipped ($(( ($(now_ms) - t0) / 1000 )) s, seed $SEED${WORST:+, worst end ${WORST} ms after the fault})"
[ "$NPASS" -eq "$NRUN" ] && [ "$NLEFT" = 0 ]
