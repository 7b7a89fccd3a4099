#!/usr/bin/env bash
# tests/slurm/run_slurm.sh: dmpi under a real Slurm. Brings up a private
# cluster with tests/slurm/slurm.sh (this machine as node "local" and, when
# test hosts can be made, 2 test hosts as partition "hosts"), runs the
# cases below and takes the cluster down again on exit. One line per case:
# PASS, FAIL (with the tail of its output) or SKIP, then "N passed, N failed"
# (", N skipped" when some were). Exit status 1 if any case failed; 0 with
# the line "SKIP: slurm: <why>" where the daemons cannot run here.
#
# Cases, for --mpi=pmi2 and --mpi=pmix (M):
#   srun --mpi=M -n K PROG    K = 1..4, a dozen programs of tests/mpi
#                             (p2p, collectives, comm split, RMA) and
#                             slurm_prog hello K: exit 0 and exactly one
#                             " No Errors" (K singletons would print K)
#   sbatch --wait             one batch job running slurm_prog hello 4 with
#                             srun --mpi=M for each M, then with mpiexec;
#                             each one's part of the output file checked
#   abort                     MPI_Abort(MPI_COMM_WORLD, 3) on the last of 4
#                             ranks: srun ends nonzero within 30 s
#   kill -K1                  the last of 4 ranks SIGKILLs itself under
#                             srun --kill-on-bad-exit: ends nonzero in 30 s
#   kill (no -K)              as kill, without --kill-on-bad-exit: the
#                             ranks themselves must end the job (30 s)
# and once:
#   salloc -n 4 mpiexec -n 4  mpiexec inside an allocation (forking the
#                             ranks itself), and with --launcher srun
# Across 2 test hosts (-N 2 -n 4: 3 ranks on dmpi-h1, 1 on dmpi-h2; RMA
# programs left out as in tests/hosts/run_hosts.sh): the srun cases,
# sbatch (with mpiexec in the batch script on dmpi-h1), salloc with mpiexec
# run on dmpi-h1 (also spawning processes: they must run on both hosts), abort, kill -K1, kill without -K (-n 3, the killed rank
# alone on dmpi-h2); slurm_prog's ranks must name both hosts.
# After every case: no process of the build or of slurm_prog that Slurm
# started for this cluster is left, nothing new named dmpi* in /dev/shm
# (nor in each test host's private /dev/shm).
#
# Usage: tests/slurm/run_slurm.sh [BUILD_DIR] [FILTER]
#   FILTER  extended regex: only cases whose label matches
# Environment: DMPI_SLURM_MPI (default "pmi2 pmix"), DMPI_SLURM_HOSTS (test
# hosts, default 2; 0 for none), DMPI_SLURM_DIR (default
# /run/dmpi-slurm-check) and DMPI_SLURM_PORT (default 6927): a cluster of
# its own, apart from one brought up by hand with slurm.sh (6917).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
S=$ROOT/tests/slurm/slurm.sh
H=$ROOT/tests/hosts/hosts.sh
BUILD=${1:-$ROOT/build}
FILTER=${2:-}
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
BUILD=${BUILD%/}
MPIS=${DMPI_SLURM_MPI:-pmi2 pmix}
NHOSTS=${DMPI_SLURM_HOSTS:-2}
export DMPI_SLURM_DIR=${DMPI_SLURM_DIR:-/run/dmpi-slurm-check}
export DMPI_SLURM_PORT=${DMPI_SLURM_PORT:-6927}
LIMIT=30       # seconds per MPI run
END_LIMIT=30   # abort / kill: the job must end within this
if [ ! -x "$BUILD/bin/mpicc" ] || [ ! -d "$BUILD/tests/mpi" ]; then
    echo "usage: $0 [BUILD_DIR with bin/mpicc and tests/mpi] [FILTER]" >&2
    exit 2
fi

# The programs of the srun cases: name[:args], the smallest rank count.
PROGS="init_basic:1 p2p_nonblocking:1 p2p_sizes:1 p2p_rendezvous:1 p2p_wildcard:2
coll_barrier:1 coll_bcast:1 coll_reduce:1 coll_alltoall:1 coll_forms,i:1
comm_split:1 comm_split_type:1 rma_windows:1 rma_ops:1 slurm_prog,hello:1"

T_START=$SECONDS
TMPD=$(mktemp -d /tmp/dmpi-slurm-test.XXXXXX) || exit 2
chmod 755 "$TMPD" # the batch output is written by the job
cleanup() { "$S" down >/dev/null 2>&1; rm -rf "$TMPD"; }
trap cleanup EXIT
trap 'echo "run_slurm.sh: interrupted" >&2; exit 130' INT TERM

# --mpi=pmix needs dmpi's PMIx client, built where the PMIx headers were
# found (libpmix-dev): without it the pmix cases are skipped.
NO_PMIX=""
if grep -q '^DMPI_HAVE_PMIX:INTERNAL=OFF' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    NO_PMIX="$BUILD was built without the PMIx client (no PMIx headers: libpmix-dev)"
fi

# ------------------------------------------------------------ the cluster
HOSTS=0 hosts_note=""
if [ "$NHOSTS" -gt 0 ]; then
    out=$("$S" up --hosts "$NHOSTS" 2>&1)
    rc=$?
    if [ $rc = 0 ]; then
        HOSTS=$NHOSTS
    elif [ $rc = 77 ]; then
        hosts_note="no cluster with test hosts ($(echo "$out" | grep -m1 '^SKIP' | sed 's/^SKIP: //')): local cases only"
    else
        echo "$out"
        echo "FAIL slurm.sh up --hosts $NHOSTS (exit status $rc)"
        echo "0 passed, 1 failed"
        exit 1
    fi
fi
if [ "$HOSTS" = 0 ]; then
    out=$("$S" up 2>&1)
    rc=$?
    if [ $rc = 77 ]; then
        echo "$out" | grep -m1 '^SKIP' || echo "SKIP: slurm: the daemons cannot start here"
        exit 0
    elif [ $rc != 0 ]; then
        echo "$out"
        echo "FAIL slurm.sh up (exit status $rc)"
        echo "0 passed, 1 failed"
        exit 1
    fi
    [ -n "$hosts_note" ] && echo "note: $hosts_note"
fi
# our cluster only: no job or step of an outer Slurm (run inside a job)
for v in $(compgen -e | grep '^SLURM_'); do unset "$v"; done
eval "$("$S" env)" # SLURM_CONF
LOCAL=$(hostname -s 2>/dev/null || hostname)
echo "== Slurm $(sinfo --version | awk '{print $2}') in $DMPI_SLURM_DIR: $(sinfo -h -N -o '%N(%P)' | sort -u | tr '\n' ' ')"
echo "== srun --mpi=list: $(srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]\+//p' | grep -v '^MPI plugin' | tr '\n' ' ')"

# ------------------------------------------------------------ helpers
NPASS=0 NFAIL=0 NSKIP=0 NCASE=0
FAILED=()
now_ms() { echo $(($(date +%s%N) / 1000000)); }
matches() { [ -z "$FILTER" ] || printf '%s\n' "$1" | grep -Eq -- "$FILTER"; }
pass() { echo "PASS $1 ($2)"; NPASS=$((NPASS + 1)); }
skip() { echo "SKIP $1 ($2)"; NSKIP=$((NSKIP + 1)); }
fail() {
    echo "FAIL $1 ($2)"
    NFAIL=$((NFAIL + 1)); FAILED+=("$1")
    [ -s "${LOG:-}" ] && tail -n 12 "$LOG" | sed 's/^/    | /'
}

# dmpi* files in /dev/shm here and on each test host (HOST:NAME)
shm_files() {
    (cd /dev/shm && for f in dmpi*; do [ -e "$f" ] && echo "local:$f"; done)
    local k
    for ((k = 1; k <= HOSTS; k++)); do
        "$H" shm "dmpi-h$k" 2>/dev/null | grep '^dmpi' | sed "s/^/dmpi-h$k:/"
    done
}
# processes of the build or of slurm_prog that Slurm started for us (their
# environment names our SLURM_CONF), as "pid args"
our_procs() {
    local p
    for p in $( (pgrep -f -- "$BUILD/"; pgrep -f -- "$TMPD/") | sort -un); do
        [ "$p" = $$ ] && continue
        { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" || continue
        echo "$p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-100)"
    done
}
# what the last case left behind ("" if nothing), after up to 3 s of grace
left_behind() {
    local i procs new=""
    for ((i = 0; i < 15; i++)); do
        procs=$(our_procs)
        new=$(shm_files | sort | comm -13 "$TMPD/shm.before" -)
        [ -z "$procs$new" ] && return 0
        sleep 0.2
    done
    [ -n "$procs" ] && echo -n "processes left: $(echo "$procs" | tr '\n' ';') "
    [ -n "$new" ] && echo -n "new in /dev/shm: $(echo "$new" | tr '\n' ' ')"
    # end what is left, so that the next case starts clean
    procs=$(echo "$procs" | awk '{print $1}')
    # shellcheck disable=SC2086
    [ -n "$procs" ] && kill -KILL $procs 2>/dev/null
    return 0
}

# run LIMIT CMD...: runs one case's command; sets RC, MS, LOG.
run() {
    local limit=$1 t0
    shift
    NCASE=$((NCASE + 1))
    LOG=$TMPD/case$NCASE.log
    shm_files | sort >"$TMPD/shm.before"
    t0=$(now_ms)
    timeout -k 5 "$limit" "$@" >"$LOG" 2>&1 </dev/null
    RC=$?
    MS=$(($(now_ms) - t0))
}
secs() { awk -v ms="$MS" 'BEGIN { printf "%.1f s", ms / 1000 }'; }
timed_out() { [ "$RC" = 124 ] || [ "$RC" = 137 ] && [ "$MS" -ge $((${1:-$LIMIT} * 1000)) ]; }

# verdict LABEL WHY [NOTE]: PASS (with NOTE) when WHY is empty and nothing
# was left behind, else FAIL saying why
verdict() {
    local label=$1 why=$2 note=${3:-} left
    left=$(left_behind)
    [ -n "$left" ] && why="${why:+$why; }$left"
    if [ -z "$why" ]; then pass "$label" "$(secs)${note:+, $note}"; else fail "$label" "$(secs): $why"; fi
}

# why_mpi K [HOSTLIST]: what is wrong with an MPI run of K ranks that should
# pass ("" if nothing). With HOSTLIST (slurm_prog hello), the ranks must
# have run on exactly those hosts.
why_mpi() {
    local k=$1 want_hosts=${2:-} n why=""
    if timed_out; then echo "timed out after $LIMIT s"; return; fi
    [ "$RC" = 0 ] || why="exit status $RC"
    n=$(grep -c '^ No Errors' "$LOG")
    if [ "$n" != 1 ]; then
        why="${why:+$why; }$n ' No Errors' lines, want 1"
        [ "$n" -gt 1 ] && why="$why (the $k ranks did not form one job: singletons?)"
    fi
    if grep -q '^slurm_prog: rank' "$LOG"; then
        n=$(grep -c "^slurm_prog: rank [0-9]* of $k on " "$LOG")
        [ "$n" = "$k" ] || why="${why:+$why; }$n of $k ranks say 'of $k'"
        if [ -n "$want_hosts" ]; then
            local got
            got=$(sed -n 's/^slurm_prog: rank [0-9]* of [0-9]* on \(.*\)$/\1/p' "$LOG" | sort -u | tr '\n' ',')
            [ "${got%,}" = "$want_hosts" ] || why="${why:+$why; }ranks ran on ${got%,}, want $want_hosts"
        fi
    fi
    echo "$why"
}

# why_end K: an abort / kill case of K ranks must have formed one job of K
# ranks, ended nonzero, within END_LIMIT.
why_end() {
    local k=$1 why="" n
    if timed_out "$END_LIMIT"; then echo "did not end within $END_LIMIT s"; return; fi
    [ "$RC" != 0 ] || why="exit status 0, want nonzero"
    n=$(grep -c "^slurm_prog: rank [0-9]* of $k ready" "$LOG")
    [ "$n" = "$k" ] || why="${why:+$why; }$n of $k ranks said 'of $k ready' (not one job of $k ranks?)"
    echo "$why"
}

# ------------------------------------------------------------ slurm_prog
PROG=$TMPD/slurm_prog
if ! "$BUILD/bin/mpicc" -O2 -o "$PROG" "$ROOT/tests/slurm/slurm_prog.c" >"$TMPD/mpicc.log" 2>&1; then
    LOG=$TMPD/mpicc.log
    fail "build tests/slurm/slurm_prog.c" "mpicc failed"
fi
prog_path() { # NAME -> the program's path
    if [ "$1" = slurm_prog ]; then echo "$PROG"; else echo "$BUILD/tests/mpi/$1"; fi
}

# ------------------------------------------------------------ cases
# srun_cases WHERE: the programs under srun, for each MPI type.
# WHERE: local (-n 1..4 on this machine) or hosts (-N 2 -n 4).
srun_cases() {
    local where=$1 mpi entry name args min k label bin opts hosts want
    for mpi in $MPIS; do
        for entry in $PROGS; do
            name=${entry%%[,:]*}
            min=${entry##*:}
            args=${entry%:*}; args=${args#"$name"}; args=${args//,/ }; args=${args# }
            [ "$where" = hosts ] && [[ $name == rma_* ]] && continue
            bin=$(prog_path "$name")
            for k in 1 2 3 4; do
                [ "$k" -ge "$min" ] || continue
                if [ "$where" = hosts ]; then
                    [ "$k" = 4 ] || continue
                    opts="-p hosts -N 2 -n 4"; hosts=dmpi-h1,dmpi-h2
                else
                    opts="-p local -n $k"; hosts=$LOCAL
                fi
                # slurm_prog hello K: fails unless its world has K ranks;
                # it names the hosts it ran on
                want=""
                [ "$name" = slurm_prog ] && want=$hosts
                label="$where: srun --mpi=$mpi ${opts#-p * } $name${args:+ $args}"
                matches "$label" || continue
                if [ ! -x "$bin" ]; then
                    LOG=""; fail "$label" "not built: $bin"; continue
                fi
                # shellcheck disable=SC2086
                run "$LIMIT" srun --mpi="$mpi" $opts "$bin" $args ${want:+$k}
                verdict "$label" "$(why_mpi "$k" "$want")"
            done
        done
    done
}

# sbatch_case WHERE: one batch job (sbatch --wait polls for the end only
# every 10 s or so) whose script runs slurm_prog hello with srun --mpi=M for
# each M, then with mpiexec (on the allocation's first node, as users do);
# one case for each, read from its part of the job's output file.
sbatch_case() {
    local where=$1 opts want out label why w sub i any=0 keys=() cmds=() labels=()
    if [ "$where" = hosts ]; then opts="-p hosts -N 2 -n 4"; want=dmpi-h1,dmpi-h2
    else opts="-p local -n 4"; want=$LOCAL; fi
    for mpi in $MPIS; do keys+=("srun --mpi=$mpi"); cmds+=("srun --mpi=$mpi '$PROG' hello 4"); done
    keys+=("mpiexec"); cmds+=("'$BUILD/bin/mpiexec' -n 4 '$PROG' hello 4")
    for ((i = 0; i < ${#keys[@]}; i++)); do
        labels+=("$where: sbatch --wait $opts, in it ${keys[$i]} slurm_prog hello")
        matches "${labels[$i]}" && any=1
    done
    [ $any = 1 ] || return
    out=$TMPD/sbatch.$where.out
    {
        echo "#!/bin/sh"
        echo "# batch script of tests/slurm/run_slurm.sh"
        echo "echo \"batch script on \$(hostname), job \$SLURM_JOB_ID, \$SLURM_NTASKS tasks\""
        for ((i = 0; i < ${#keys[@]}; i++)); do
            echo "echo '== ${keys[$i]}'"
            echo "${cmds[$i]}"
            echo "echo \"${keys[$i]} exit status \$?\""
        done
    } >"$TMPD/batch.sh"
    # shellcheck disable=SC2086
    run $((LIMIT + 30)) sbatch --wait $opts -J dmpi-batch -o "$out" "$TMPD/batch.sh"
    why=""
    if timed_out $((LIMIT + 30)); then why="timed out"
    elif [ "$RC" != 0 ]; then why="sbatch exit status $RC"; fi
    [ -s "$out" ] && cat "$out" >>"$LOG"
    local save_log=$LOG save_rc=$RC m
    for ((i = 0; i < ${#keys[@]}; i++)); do
        label=${labels[$i]}
        matches "$label" || continue
        w=$why
        if [ ! -s "$out" ]; then
            w="${w:+$w; }no output file $out"
        else
            # this command's part of the output: its "==" line to its exit status
            sub=$TMPD/sbatch.$where.$i.out
            sed -n "/^== ${keys[$i]}\$/,/^${keys[$i]} exit status/p" "$out" >"$sub"
            RC=$(sed -n "s/^${keys[$i]} exit status //p" "$sub")
            LOG=$sub
            [ -n "$RC" ] || { RC=1; w="${w:+$w; }the batch script did not get to the end of ${keys[$i]}"; }
            m=$(MS=0 why_mpi 4 "$want")
            [ -n "$m" ] && w="${w:+$w; }${keys[$i]} in the batch script: $m"
        fi
        verdict "$label" "$w" # (with this command's part of the output)
        LOG=$save_log RC=$save_rc
    done
}

# end_case WHERE MPI MODE [SRUN OPTIONS]: abort or kill of the last rank of 4.
end_case() {
    local where=$1 mpi=$2 mode=$3 extra=${4:-} opts label
    if [ "$where" = hosts ]; then opts="-p hosts -N 2 -n 4"; else opts="-p local -n 4"; fi
    label="$where: srun --mpi=$mpi${extra:+ $extra} ${opts#-p * } slurm_prog $mode (last rank)"
    matches "$label" || return
    # shellcheck disable=SC2086
    run "$END_LIMIT" srun --mpi="$mpi" $extra $opts "$PROG" "$mode"
    verdict "$label" "$(why_end 4)" "srun exit status $RC"
}

# salloc_case WHERE [MPIEXEC OPTIONS]: mpiexec inside an allocation. On
# this machine's node mpiexec forks the ranks itself, or with --launcher
# srun starts its agent with srun. Across hosts mpiexec runs on dmpi-h1, the
# allocation's first node (tests/hosts/launch), as a batch script would: the
# hosts cannot reach this machine's default address (its host name is
# 127.0.0.1, its first interface not on the hosts' bridge); the ranks must
# run on both hosts, started through srun.
salloc_case() {
    local where=$1 mopts=${2:-} opts want label pre=()
    if [ "$where" = hosts ]; then
        opts="-p hosts -N 2 -n 4"; want=dmpi-h1,dmpi-h2
        pre=("$ROOT/tests/hosts/launch" dmpi-h1)
    else
        opts="-p local -n 4"; want=$LOCAL
    fi
    label="$where: salloc $opts ${pre[*]:+hosts/launch dmpi-h1 }mpiexec${mopts:+ $mopts} -n 4 slurm_prog hello"
    matches "$label" || return
    # shellcheck disable=SC2086
    run "$LIMIT" salloc $opts -J dmpi-salloc "${pre[@]}" "$BUILD/bin/mpiexec" $mopts -n 4 "$PROG" hello 4
    verdict "$label" "$(why_mpi 4 "$want")"
}

# spawn_case: MPI_Comm_spawn_multiple in a job mpiexec started inside an
# allocation across the test hosts (mpiexec on dmpi-h1, as in salloc_case):
# mpiexec starts the spawned processes' agents with srun too, 2 parents
# spawn 1 + 3 processes (tests/mpi/dynproc_where), which must run on both
# hosts.
spawn_case() {
    local label="hosts: salloc -p hosts -N 2 -n 4 hosts/launch dmpi-h1 mpiexec -n 2 dynproc_where (spawns)"
    matches "$label" || return
    run "$LIMIT" salloc -p hosts -N 2 -n 4 -J dmpi-salloc "$ROOT/tests/hosts/launch" dmpi-h1 \
        "$BUILD/bin/mpiexec" -n 2 "$BUILD/tests/mpi/dynproc_where" report
    local why got
    why=$(why_mpi 2)
    got=$(awk '$2 == "child" {print $5}' "$LOG" | sort -u | tr '\n' ' ')
    [ "$(echo "$got" | wc -w)" = 2 ] || why="${why:+$why; }spawned processes on '${got% }', want both hosts"
    verdict "$label" "$why"
}

# kill without --kill-on-bad-exit: Slurm does not end the step when one task
# dies; only the MPI library can notice (the ranks of the dead one's node
# watch its pid, the first rank of the node before it in the ring of nodes
# holds a TCP connection to it: src/transport/ofi/ofi_watch.c). Across
# hosts the killed rank is alone on its node (3 ranks, block: 2 + 1), the
# case only the connection catches.
kill_nok_case() {
    local where=$1 mpi=$2 opts n label
    if [ "$where" = hosts ]; then opts="-p hosts -N 2 -n 3 --distribution=block"; n=3
    else opts="-p local -n 4"; n=4; fi
    label="$where: srun --mpi=$mpi ${opts#-p * } slurm_prog kill (last rank, no -K)"
    matches "$label" || return
    # shellcheck disable=SC2086
    run "$END_LIMIT" srun --mpi="$mpi" -K0 $opts "$PROG" kill
    verdict "$label" "$(why_end "$n")" "srun exit status $RC"
}

if [ -n "$NO_PMIX" ] && [[ " $MPIS " == *" pmix "* ]]; then
    MPIS=$(echo " $MPIS " | sed 's/ pmix / /; s/^ *//; s/ *$//')
    skip "every --mpi=pmix case" "$NO_PMIX"
fi

echo "== on $LOCAL (partition local)"
srun_cases local
sbatch_case local
salloc_case local
salloc_case local "--launcher srun"
for mpi in $MPIS; do
    end_case local "$mpi" abort
    end_case local "$mpi" kill -K1
done
for mpi in $MPIS; do kill_nok_case local "$mpi"; done

if [ "$HOSTS" -ge 2 ]; then
    echo "== across test hosts dmpi-h1, dmpi-h2 (partition hosts)"
    srun_cases hosts
    sbatch_case hosts
    salloc_case hosts
    spawn_case
    for mpi in $MPIS; do
        end_case hosts "$mpi" abort
        end_case hosts "$mpi" kill -K1
        kill_nok_case hosts "$mpi"
    done
else
    skip "hosts: every case across 2 test hosts" \
        "$([ "$NHOSTS" -gt 0 ] && echo "no test hosts" || echo "DMPI_SLURM_HOSTS=$NHOSTS")"
fi

label="no job left in the queue"
if matches "$label"; then
    LOG=$TMPD/squeue.log MS=0
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        squeue -h -t PD,R,CG,S -o '%i %T %j' >"$LOG" 2>&1
        [ -s "$LOG" ] || break
        sleep 1
    done
    if [ -s "$LOG" ]; then fail "$label" "squeue lists $(wc -l <"$LOG") jobs"; else pass "$label" "squeue"; fi
fi

echo "run_slurm.sh: $((SECONDS - T_START)) s"
if [ $NSKIP -gt 0 ]; then
    echo "$NPASS passed, $NFAIL failed, $NSKIP skipped"
else
    echo "$NPASS passed, $NFAIL failed"
fi
[ $NFAIL = 0 ]
