#!/usr/bin/env bash
# Tests of mpiexec on many "hosts" without a network: --launcher-exec
# tests/launcher/fake_ssh.sh runs each agent here, so "-hosts a,b" is two
# agents on this machine. Covers placement and PMI_process_mapping, KVS and
# barriers across agents, output and stdin forwarding, exit statuses, a
# rank killed on host b, signals to mpiexec, a wrong key, hostfile and
# placement errors, and launchers that fail or never connect. Prints one
# line per case; exits 1 if any failed. Run by test_launcher.sh.
# Usage: tests/launcher/test_hosts.sh <build-bin-dir>
set -u
if [ $# -ne 1 ] || [ ! -x "$1/mpiexec" ]; then
    echo "usage: $0 <build-bin-dir containing mpiexec>" >&2
    exit 2
fi
BIN=$(cd "$1" && pwd)
MPIEXEC=$BIN/mpiexec
SRC=$(cd "$(dirname "$0")/../.." && pwd)
FAKE=$SRC/tests/launcher/fake_ssh.sh
TMP=$(mktemp -d /tmp/dmpi-hosts-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
LABEL="hosts: "
. "$SRC/tests/launcher/common.sh"

run() { # ARGS...: mpiexec with the fake launcher, stdin from /dev/null; sets st and ms
    local t0
    t0=$(now_ms)
    "$MPIEXEC" --launcher-exec "$FAKE" "$@" >"$TMP/out" 2>"$TMP/err" </dev/null
    st=$?
    ms=$(($(now_ms) - t0))
}
pids() { awk '$1 == "pid" { print $3 }' "$TMP/err"; }
jobid() { awk '$1 == "pid" { print $4; exit }' "$TMP/err"; }
report() { if [ -z "$why" ]; then pass "$1"; else fail "$1" "$why"; fi; }
want_status() { [ "$st" -eq "$1" ] || why="$why status $st, want $1;"; }
want_err() { grep -q -- "$1" "$TMP/err" || why="$why stderr lacks '$1';"; }
want_out() { grep -qxF -- "$1" "$TMP/out" || why="$why stdout lacks '$1';"; }
want_fast() { [ "$ms" -lt "$1" ] || why="$why took ${ms} ms (limit $1);"; }
alive() { kill -0 "$1" 2>/dev/null && ! grep -q '^[0-9]* (.*) Z' "/proc/$1/stat" 2>/dev/null; }
want_gone() {
    local p
    for p in $(pids) "$@"; do alive "$p" && why="$why pid $p still alive;"; done
}
# no agent of ours left: nothing runs with our key's job id in its command line
want_no_agents() {
    pgrep -f "$TMP/pmi_prog|--agent --connect .* --key" >/dev/null 2>&1 &&
        pgrep -af -- "--agent --connect" | grep -q "$MPIEXEC" && why="$why an agent is still running;"
    return 0
}

# -------------------------------------------------------- placement, PMI
why=""; run -hosts a,b -n 5 "$P" map
want_status 0
for r in 0 1 2; do want_out "map $r (vector,(0,1,3),(1,1,2)) $r 3"; done
for r in 3 4; do want_out "map $r (vector,(0,1,3),(1,1,2)) $((r - 3)) 2"; done
[ "$(grep -c ' ok$' "$TMP/out")" -eq 5 ] || why="$why not 5 ok lines (KVS across agents);"
report "-hosts a,b -n 5: blocks of 3+2, mapping, local ranks, KVS across agents"

why=""; run -hosts a -n 3 "$P" map
want_status 0; want_out "map 2 (vector,(0,1,3)) 2 3"
report "one host: (vector,(0,1,N))"

why=""; run -hosts a:1,b:2,c -n 4 "$P" map
want_status 0; want_out "map 0 (vector,(0,1,1),(1,1,2),(2,1,1)) 0 1"; want_out "map 3 (vector,(0,1,1),(1,1,2),(2,1,1)) 0 1"
report "slot counts fill hosts in order"

why=""; run -hosts a,b,c -ppn 2 -n 5 "$P" map
want_status 0; want_out "map 4 (vector,(0,2,2),(2,1,1)) 0 1"
report "-ppn 2 over three hosts"

printf '# a hostfile\na slots=2\n\n  b:1   # trailing comment\n' >"$TMP/hosts"
why=""; run --hostfile "$TMP/hosts" "$P" map
want_status 0; want_out "map 2 (vector,(0,1,2),(1,1,1)) 0 1"
report "--hostfile with slots, comments, blank lines; -n defaults to the slots"

why=""; run -hosts a:1,b:1 --oversubscribe -n 4 "$P" map
want_status 0; want_out "map 3 (vector,(0,2,2)) 1 2"
report "--oversubscribe spreads the extra ranks"

why=""; HOME=/h/ome run -hosts a,b -n 2 -env FOO bar -x HOME -iface lo "$P" env FOO HOME DMPI_OFI_IFACE PMI_SIZE DMPI_JOBID
want_status 0
for l in FOO=bar HOME=/h/ome DMPI_OFI_IFACE=lo PMI_SIZE=2; do [ "$(grep -cx "$l" "$TMP/out")" -eq 2 ] || why="$why not 2 '$l';"; done
[ "$(grep '^DMPI_JOBID=' "$TMP/out" | sort -u | wc -l)" -eq 1 ] || why="$why DMPI_JOBID differs between hosts;"
report "-env/-x/-iface reach every host; one DMPI_JOBID"

why=""; t0=$(now_ms); "$MPIEXEC" --launcher-exec "env  $FAKE" -hosts a,b -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?
want_status 0; [ "$(grep -c ' ok$' "$TMP/out")" -eq 2 ] || why="$why not 2 ok lines;"
report "--launcher-exec with several words"

# ---------------------------------------------------------------- output
why=""; run -l -hosts a,b -n 4 "$P" ok
want_status 0
for r in 0 1 2 3; do want_out "[$r] rank $r of 4 ok"; done
grep -q '^\[3\] pid 3 ' "$TMP/err" || why="$why stderr of rank 3 not labelled;"
report "-l labels stdout and stderr from both hosts"

why=""; run -hosts a,b -n 4 "$P" spam 300
want_status 0
cat "$TMP/out" "$TMP/err" | awk '/pid |of [0-9]+ ok$/ { next }
    { if (NF != 4 || length($4) != $3) bad++; else seen[$1]++ }
    END { for (r = 0; r < 4; r++) if (seen[r] != 300) bad++; exit bad > 0 }' || why="$why torn or missing lines;"
report "4 ranks on 2 hosts x 300 long lines: no torn lines"

why=""; seq 1 100000 >"$TMP/in"
"$MPIEXEC" --launcher-exec "$FAKE" -hosts a,b -n 3 "$P" stdin <"$TMP/in" >"$TMP/out" 2>"$TMP/err"; st=$?
want_status 0; want_out "rank 0 stdin $(wc -c <"$TMP/in") bytes 100000 lines"; want_out "rank 2 stdin 0 bytes 0 lines"
report "stdin forwarded to rank 0 through its agent"

# -------------------------------------------------------------- failures
fail_case() { # NAME MODE FAIL_RANK STATUS MESSAGE
    why=""; run -hosts a,b -n 4 -env FAIL_RANK "$3" "$P" "$2"
    want_status "$4"; want_err "$5"; want_fast 2000; want_gone
    j=$(jobid); [ -n "$j" ] && ls /dev/shm 2>/dev/null | grep -q "^dmpi-$j" && why="$why /dev/shm/dmpi-$j* left;"
    report "$1"
}
fail_case "rank 3 on host b killed: job ends within 2 s" kill 3 137 "host b: rank 3 (pid [0-9]*) killed by signal 9 (SIGKILL)"
fail_case "rank 2 on host b exits 3" exit3 2 3 "host b: rank 2 (pid [0-9]*) exited with code 3"
fail_case "rank 1 on host a aborts" abort 1 5 "host a: rank 1 (pid [0-9]*) called MPI_Abort with code 5"
fail_case "rank 3 on host b exits without finalize" nofin 3 1 "host b: rank 3 (pid [0-9]*) exited without calling MPI_Finalize"

why=""; run -hosts a,b -n 4 "$P" shm die
want_status 137; j=$(jobid); ls /dev/shm | grep -q "^dmpi-$j" && why="$why /dev/shm/dmpi-$j* left;"
report "agents remove /dev/shm/dmpi-<jobid>* after a failure"

why=""; run -hosts a,b -n 2 "$P" finbar
want_status 4; want_fast 3000
report "barrier across hosts fails after a rank finalized"

why=""; run --timeout 1 -hosts a,b -n 4 "$P" sleep
want_status 124; want_err "timed out"; want_fast 3000; want_gone
report "--timeout across hosts"

for sig in INT TERM KILL; do
    why=""
    "$MPIEXEC" --launcher-exec "$FAKE" -hosts a,b -n 4 "$P" sleep >"$TMP/out" 2>"$TMP/err" </dev/null &
    bg=$!
    # up to 15 s: a loaded machine starts 4 ranks through fake ssh slowly
    for i in $(seq 300); do [ "$(pids | wc -l)" -ge 4 ] && break; sleep 0.05; done
    [ "$(pids | wc -l)" -ge 4 ] || why="ranks did not start;"
    exec 3>&2 2>/dev/null
    kill -s $sig $bg
    wait $bg
    st=$?
    exec 2>&3 3>&-
    for i in $(seq 20); do left=0; for p in $(pids); do alive "$p" && left=1; done; [ $left = 0 ] && break; sleep 0.1; done
    case $sig in INT) want_status 130 ;; TERM) want_status 143 ;; esac
    want_gone; want_no_agents
    report "SIG$sig to mpiexec: every rank on every host ends"
done

# ----------------------------------------------------------- admission
cat >"$TMP/badkey.sh" <<'EOS'
#!/usr/bin/env bash
# connects with a wrong key first, then runs the real agent
shift
for ((i = 1; i <= $#; i++)); do [ "${!i}" = --connect ] && { j=$((i + 1)); c=${!j}; }; done
exec 3<>"/dev/tcp/${c%:*}/${c##*:}" && printf 'dmpi-agent 0123456789abcdef 0\n' >&3
sleep 0.2
exec "$@"
EOS
chmod +x "$TMP/badkey.sh"
why=""; t0=$(now_ms); "$MPIEXEC" --launcher-exec "$TMP/badkey.sh" -hosts a,b -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?
want_status 0; want_err "agent connection with a wrong key from [0-9.:]* refused"
[ "$(grep -c ' ok$' "$TMP/out")" -eq 2 ] || why="$why not 2 ok lines;"
report "a connection with a wrong key is refused, the job goes on"

why=""; "$MPIEXEC" --launcher-exec false -hosts a,b -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?
want_status 1; want_err "cannot start the agent on host [ab]: the launcher 'false' exited with code 1"
report "--launcher-exec false: clear message"

cat >"$TMP/noagent.sh" <<'EOS'
#!/bin/sh
# the agent binary is missing on the "remote" side
shift; shift
exec /no/such/dir/mpiexec "$@"
EOS
chmod +x "$TMP/noagent.sh"
why=""; "$MPIEXEC" --launcher-exec "$TMP/noagent.sh" -hosts a -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?
want_status 1; want_err "cannot start the agent on host a: the launcher .* exited with code 127"; want_err "/no/such/dir/mpiexec"
report "agent binary missing on the host"

cat >"$TMP/hang.sh" <<'EOS'
#!/bin/sh
# a launcher that never starts the agent
echo $$ >>"$PIDFILE"
exec sleep 30
EOS
chmod +x "$TMP/hang.sh"
why=""; t0=$(now_ms)
PIDFILE=$TMP/hang.pids "$MPIEXEC" --launcher-exec "$TMP/hang.sh" --agent-timeout 1 -hosts a,b -n 2 "$P" ok >"$TMP/out" 2>"$TMP/err" </dev/null; st=$?
ms=$(($(now_ms) - t0))
want_status 1; want_err "cannot start the agent on host [ab]: the agent did not connect within 1 s"; want_fast 4000
want_gone $(cat "$TMP/hang.pids" 2>/dev/null)
report "an agent that never connects: timeout, launcher killed"

why=""; run -hosts nosuchhost.invalid -n 1 --launcher-exec "ssh -o BatchMode=yes -o ConnectTimeout=5" true
[ "$st" -ne 0 ] || why="status 0;"; want_err "cannot start the agent on host nosuchhost.invalid"
report "unreachable host (ssh)"

# ------------------------------------------------------------ bad usage
usage_case() { # MESSAGE ARGS...
    local msg=$1
    shift
    why=""; run "$@"; want_status 2; want_err "$msg"
    report "rejects: $*"
}
printf 'a\nb slots=2\nc slots=x\n' >"$TMP/bad1"
usage_case "$TMP/bad1:3: malformed line" -f "$TMP/bad1" -n 2 true
printf 'a b c\n' >"$TMP/bad2"
usage_case "$TMP/bad2:1: malformed line" --hostfile "$TMP/bad2" -n 2 true
usage_case "cannot read hostfile" -f "$TMP/none" -n 2 true
usage_case "use --oversubscribe" -hosts a:1,b:1 -n 3 true
usage_case "use --oversubscribe" -hosts a,b -ppn 1 -n 3 true
usage_case "bad slot count" -hosts a:0 -n 1 true
usage_case "bad host name" -hosts 'a;b' -n 1 true
usage_case "no network interface named" -hosts a -iface nosuchif0 -n 1 true

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
