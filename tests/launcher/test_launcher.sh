#!/usr/bin/env bash
# Tests of mpiexec (tools/mpiexec) with small helper programs that use only
# the PMI client (tests/launcher/pmi_prog.c + src/pmi/*.c, built here with
# cc): exit statuses and messages, killing of the other ranks, /dev/shm
# cleanup, -l labels, untorn output lines, stdin, --timeout, signals to
# mpiexec, bad options; then tests/launcher/test_hosts.sh (many hosts with
# a fake ssh) and tests/launcher/test_slurm_env.sh (in a fake Slurm
# allocation, with a fake srun). Prints one line per case; exits 1 if any failed.
# Usage: tests/launcher/test_launcher.sh <build-bin-dir>
set -u
if [ $# -ne 1 ] || [ ! -x "$1/mpiexec" ]; then
    echo "usage: $0 <build-bin-dir containing mpiexec>" >&2
    exit 2
fi
BIN=$(cd "$1" && pwd)
MPIEXEC=$BIN/mpiexec
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/dmpi-launcher-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$SRC/tests/launcher/common.sh"

# run ARGS...: runs mpiexec with stdin from /dev/null; sets st and ms
run() {
    local t0
    t0=$(now_ms)
    "$MPIEXEC" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    st=$?
    ms=$(($(now_ms) - t0))
}

pids() { awk '$1 == "pid" { print $3 }' "$TMP/err"; }
jobid() { awk '$1 == "pid" { print $4; exit }' "$TMP/err"; }

# check NAME: ok if every condition appended to $why is empty
report() { if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why"; fi; }
want_status() { [ "$st" -eq "$1" ] || why="$why status $st, want $1;"; }
want_err() { grep -q -- "$1" "$TMP/err" || why="$why stderr lacks '$1';"; }
want_fast() { [ "$ms" -lt "$1" ] || why="$why took ${ms} ms (limit $1);"; }
# alive: exists and is not a zombie waiting for its new parent to reap it
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
want_gone() {
    local p
    for p in $(pids); do
        if alive "$p"; then why="$why pid $p still alive;"; fi
    done
}
want_no_shm() {
    local j
    j=$(jobid)
    [ -n "$j" ] || { why="$why no job id printed;"; return; }
    if ls /dev/shm 2>/dev/null | grep -q "^dmpi-$j"; then why="$why /dev/shm/dmpi-$j* left;"; fi
}

# ---------------------------------------------------------------- success
why=""; run -n 4 "$P" ok
want_status 0; [ "$(grep -c ' ok$' "$TMP/out")" -eq 4 ] || why="$why not 4 ok lines;"; want_no_shm
report "4 ranks: put/fence/get/finalize"

why=""; run -np 64 "$P" ok
want_status 0; [ "$(grep -c ' ok$' "$TMP/out")" -eq 64 ] || why="$why not 64 ok lines;"
report "64 ranks: put/fence/get/finalize"

why=""; run -l -n 3 "$P" ok
want_status 0
for r in 0 1 2; do grep -qx "\[$r\] rank $r of 3 ok" "$TMP/out" || why="$why no labelled line of rank $r;"; done
grep -qv '^\[[0-2]\] ' "$TMP/out" && why="$why unlabelled stdout line;"
grep -q '^\[[0-2]\] pid ' "$TMP/err" || why="$why stderr not labelled;"
report "-l labels stdout and stderr"

why=""; run -n 3 true
want_status 0
report "non-MPI program exiting 0 is success"

why=""; run -n 1 printf abc
want_status 0; [ "$(cat "$TMP/out")" = "abc" ] || why="$why output '$(cat "$TMP/out")';"
[ "$(wc -c <"$TMP/out")" -eq 3 ] || why="$why output not byte-exact;"
report "partial last line flushed at EOF"

why=""; run -l -n 2 printf abc
want_status 0; grep -qx '\[0\] abc' "$TMP/out" && grep -qx '\[1\] abc' "$TMP/out" || why="$why got '$(tr '\n' '|' <"$TMP/out")';"
report "-l ends a partial last line"

why=""; run -n 2 "$P" garbage
want_status 0; want_err "malformed PMI command"; [ "$(grep -c ' ok$' "$TMP/out")" -eq 2 ] || why="$why not 2 ok lines;"
report "malformed PMI lines are answered with errors, job goes on"

why=""; HOME=/h/ome run -n 2 -env FOO bar -genv BAZ "q u x" -x HOME -x QQ=1 "$P" env FOO BAZ HOME QQ PMI_SIZE DMPI_LOCAL_SIZE DMPI_LOCAL_RANK DMPI_JOBID
want_status 0
for l in FOO=bar "BAZ=q u x" HOME=/h/ome QQ=1 PMI_SIZE=2 DMPI_LOCAL_SIZE=2 DMPI_LOCAL_RANK=0 DMPI_LOCAL_RANK=1; do
    grep -qx "$l" "$TMP/out" || why="$why no '$l';"
done
grep -qE '^DMPI_JOBID=[0-9a-f]{16}$' "$TMP/out" || why="$why bad DMPI_JOBID;"
report "-env/-genv/-x and the PMI/DMPI variables"

# --------------------------------------------------------------- failures
fail_case() { # NAME MODE STATUS MESSAGE
    why=""; run -n 4 "$P" "$2"
    want_status "$3"; want_err "$4"; want_fast 2000; want_gone; want_no_shm
    report "$1"
}
fail_case "rank exits with code 3" exit3 3 "rank 1 (pid [0-9]*) exited with code 3"
fail_case "rank killed by SIGKILL" kill 137 "rank 1 (pid [0-9]*) killed by signal 9 (SIGKILL)"
fail_case "rank killed by SIGSEGV" segv 139 "rank 1 (pid [0-9]*) killed by signal 11 (SIGSEGV)"
fail_case "rank exits 0 without finalize" nofin 1 "rank 1 (pid [0-9]*) exited without calling MPI_Finalize"
fail_case "rank calls abort" abort 5 "rank 1 (pid [0-9]*) called MPI_Abort with code 5"
fail_case "rank closes its PMI fd" closefd 1 "rank 1 (pid [0-9]*) closed its PMI connection"

why=""; run -n 3 false
want_status 1; want_err "exited with code 1"
report "non-MPI program exiting 1 fails the job"

why=""; run -n 2 "$P" finbar
want_status 4; want_fast 3000
report "fence after another rank finalized fails instead of hanging"

why=""; run -n 3 "$P" shm
want_status 0; want_no_shm; [ -n "$(jobid)" ] || why="$why no job id;"
report "/dev/shm/dmpi-<jobid>* removed after a clean run"

why=""; run -n 3 "$P" shm die
want_status 137; want_no_shm
report "/dev/shm/dmpi-<jobid>* removed after a failed run"

# ------------------------------------------------------------ timeouts
why=""; run --timeout 1 -n 3 "$P" sleep
want_status 124; want_err "timed out"; want_fast 3000; want_gone
report "--timeout kills the job"

why=""; MPIEXEC_TIMEOUT=1 run -n 2 "$P" sleep
want_status 124; want_fast 3000; want_gone
report "MPIEXEC_TIMEOUT kills the job"

# ----------------------------------------------------- signals to mpiexec
# start in the background, wait for every rank to print its pid
bg_start() { # N MODE
    "$MPIEXEC" -n "$1" "$P" "$2" >"$TMP/out" 2>"$TMP/err" </dev/null &
    bgpid=$!
    local i
    for i in $(seq 300); do   # up to 15 s: slow on a loaded machine
        [ "$(pids | wc -l)" -ge "$1" ] && return 0
        sleep 0.05
    done
    return 1
}
for sig in TERM INT HUP; do
    why=""
    bg_start 3 sleep || why="ranks did not start;"
    t0=$(now_ms)
    kill -s $sig $bgpid
    wait $bgpid
    st=$?
    ms=$(($(now_ms) - t0))
    case $sig in TERM) want_status 143 ;; INT) want_status 130 ;; HUP) want_status 129 ;; esac
    want_fast 2000; want_gone; want_err "received SIG$sig"
    report "SIG$sig to mpiexec kills the job"
done

why=""
bg_start 3 sleep || why="ranks did not start;"
exec 3>&2 2>/dev/null # hide bash's "Killed" notice
kill -s KILL $bgpid
wait $bgpid
exec 2>&3 3>&-
for i in $(seq 20); do # up to 2 s
    left=0
    for p in $(pids); do alive "$p" && left=1; done
    [ $left = 0 ] && break
    sleep 0.1
done
want_gone
report "SIGKILL to mpiexec: ranks die with it"

# ------------------------------------------------------------ output
spam_check() { # NAME LABEL(0/1) NRANKS NLINES
    why=""
    if [ "$2" = 1 ]; then run -l -n "$3" "$P" spam "$4"; else run -n "$3" "$P" spam "$4"; fi
    want_status 0
    cat "$TMP/out" "$TMP/err" | awk -v label="$2" -v n="$3" -v lines="$4" '
        /pid |of [0-9]+ ok$/ { next }
        {
            if (label == 1) {
                if (substr($0, 1, 1) != "[") { bad++; next }
                lab = substr($1, 2, length($1) - 2); sub(/^\[[0-9]+\] /, "")
            }
            r = $1; i = $2; len = $3; p = $4
            if (NF != 4 || length(p) != len) { bad++; next }
            if (label == 1 && lab != r) { bad++; next }
            c = substr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", (r + i) % 26 + 1, 1)
            gsub(c, "", p); if (p != "") { bad++; next }
            seen[r]++
        }
        END {
            for (r = 0; r < n; r++) if (seen[r] != lines) { print "rank " r " has " seen[r] " lines"; bad++ }
            if (bad) { print bad " bad lines"; exit 1 }
        }' >"$TMP/awk" 2>&1 || why="$why $(head -3 "$TMP/awk" | tr '\n' ' ')"
    report "$1"
}
spam_check "16 ranks x 400 long lines: no torn lines" 0 16 400
spam_check "-l with 8 ranks x 400 long lines: no torn lines" 1 8 400

why=""
seq 1 200000 >"$TMP/in"
"$MPIEXEC" -n 2 "$P" stdin <"$TMP/in" >"$TMP/out" 2>"$TMP/err"
st=$?
want_status 0
grep -qx "rank 0 stdin $(wc -c <"$TMP/in") bytes 200000 lines" "$TMP/out" || why="$why rank 0 got $(grep 'rank 0 stdin' "$TMP/out");"
grep -qx "rank 1 stdin 0 bytes 0 lines" "$TMP/out" || why="$why rank 1 got input;"
report "stdin (a file) forwarded to rank 0 only"

why=""
cat "$TMP/in" | "$MPIEXEC" -n 3 "$P" stdin >"$TMP/out" 2>"$TMP/err"
st=$?
want_status 0
grep -qx "rank 0 stdin $(wc -c <"$TMP/in") bytes 200000 lines" "$TMP/out" || why="$why rank 0 got $(grep 'rank 0 stdin' "$TMP/out");"
[ "$(grep -c 'stdin 0 bytes 0 lines' "$TMP/out")" -eq 2 ] || why="$why other ranks got input;"
report "stdin (a pipe) forwarded to rank 0 only"

# ------------------------------------------------------------ bad usage
usage_case() { # WANT_STATUS MESSAGE ARGS...
    local want=$1 msg=$2
    shift 2
    why=""; run "$@"
    want_status "$want"; want_err "$msg"
    report "rejects: mpiexec $*"
}
usage_case 2 "no program" -n 2
usage_case 2 "at least 1" -n 0 true
usage_case 2 "at least 1" -n -3 true
usage_case 2 "bad process count" -n 2x true
usage_case 2 "bad process count" -np "" true
usage_case 2 "more than the maximum" -n 100000 true
usage_case 2 "needs a process count" -n
usage_case 2 "unknown option" --bogus true
usage_case 2 "needs NAME VALUE" -env FOO
usage_case 2 "bad environment variable name" -env 1FOO x true
usage_case 2 "bad timeout" --timeout -1 true
usage_case 2 "bad timeout" --timeout abc true
usage_case 2 "need hosts" -ppn 2 -n 2 true
usage_case 2 "needs a host list" -n 2 -hosts
usage_case 2 "takes no value" -l=1 -n 1 true
usage_case 2 "bad environment variable name" -x 9X=1 -n 1 true
usage_case 2 "bad process count" -n=two true
usage_case 2 "no program" -n 2 --
usage_case 127 "not found" -n 2 /no/such/program
usage_case 127 "not found in PATH" -n 2 no-such-program-dmpi
usage_case 126 "not an executable" -n 1 /etc/passwd
usage_case 126 "not an executable" -n 1 /tmp

why=""; MPIEXEC_TIMEOUT=soon run -n 1 true
want_status 2; want_err "bad MPIEXEC_TIMEOUT"
report "rejects a bad MPIEXEC_TIMEOUT"

why=""; run --help; want_status 0; grep -q "Usage: mpiexec" "$TMP/out" || why="$why no usage text;"
report "--help"
why=""; run --version; want_status 0; grep -q "dmpi" "$TMP/out" || why="$why no version;"
report "--version"
if [ -e "$BIN/mpirun" ]; then
    why=""; "$BIN/mpirun" -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?; want_status 0
    report "mpirun is mpiexec"
fi

# ------------------------------------------- many hosts (test_hosts.sh)
"$SRC/tests/launcher/test_hosts.sh" "$BIN" >"$TMP/hosts.log" 2>&1
grep -E '^(PASS|FAIL)' "$TMP/hosts.log"
npass=$((npass + $(grep -c '^PASS' "$TMP/hosts.log")))
nfail=$((nfail + $(grep -c '^FAIL' "$TMP/hosts.log")))
tail -1 "$TMP/hosts.log" | grep -q ' passed, 0 failed$' || { [ "$(grep -c '^FAIL' "$TMP/hosts.log")" -gt 0 ] || {
    echo "FAIL: test_hosts.sh did not finish: $(tail -3 "$TMP/hosts.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); }; }

# ------------------------------ in a Slurm allocation (test_slurm_env.sh)
"$SRC/tests/launcher/test_slurm_env.sh" "$BIN" >"$TMP/slurm.log" 2>&1
grep -E '^(PASS|FAIL)' "$TMP/slurm.log"
npass=$((npass + $(grep -c '^PASS' "$TMP/slurm.log")))
nfail=$((nfail + $(grep -c '^FAIL' "$TMP/slurm.log")))
tail -1 "$TMP/slurm.log" | grep -q ' passed, 0 failed$' || { [ "$(grep -c '^FAIL' "$TMP/slurm.log")" -gt 0 ] || {
    echo "FAIL: test_slurm_env.sh did not finish: $(tail -3 "$TMP/slurm.log" | tr '\n' ' ')"; nfail=$((nfail + 1)); }; }

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
