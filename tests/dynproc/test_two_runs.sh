#!/bin/bash
# test_two_runs.sh: MPI_Comm_accept / MPI_Comm_connect and MPI_Comm_join
# between two separately started mpiexec runs on this host
# (docs/dynproc.md). Starts a server run and a client run of
# tests/mpi/dynproc_tworuns (the port goes through a file) and checks:
# point-to-point both ways, collectives on the intercommunicator and
# MPI_Intercomm_merge at 1+1, 2+3 and 4+2 ranks (also with simulated
# nodes, and under FI_PROVIDER=net and 'tcp;ofi_rxm'), finalize without
# disconnect, two client runs connecting at once, MPI_Comm_join, a client
# that aborts (the server must end,
# not hang), a port that is never accepted (DMPI_CONNECT_TIMEOUT), the
# port of a run that has ended, bad port strings, two runs with different
# providers; and that nothing is left in /dev/shm or running.
# Usage: tests/dynproc/test_two_runs.sh [BUILD]   (exit 0 ok, 1 failed, 77 skip)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
MPIEXEC=$BUILD/bin/mpiexec
PROG=$BUILD/tests/mpi/dynproc_tworuns
[ -x "$PROG" ] || { echo "FAIL test_two_runs: $PROG missing"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-tworuns-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { echo "ok   $*"; }
shm_before=$(ls /dev/shm | grep -c '^dmpi-' || true)

# pair LABEL NS NC SMODE CMODE WANT_S WANT_C [ENV...]: a server run of NS
# ranks and a client run of NC; WANT_*: "ok" (exit 0 and " No Errors") or
# "fail:PATTERN" (non-zero exit, PATTERN in its output). Each run has 60 s.
pair() {
    local label=$1 ns=$2 nc=$3 sm=$4 cm=$5 ws=$6 wc=$7
    shift 7
    rm -f "$T/port"
    env "$@" timeout 60 "$MPIEXEC" -n "$ns" "$PROG" server "$T/port" "$nc" $sm >"$T/s.log" 2>&1 &
    local spid=$!
    env "$@" timeout 60 "$MPIEXEC" -n "$nc" "$PROG" client "$T/port" "$ns" $cm >"$T/c.log" 2>&1
    local crc=$?
    wait "$spid"
    local src=$? ok=1
    check_run "$ws" "$src" "$T/s.log" || ok=0
    check_run "$wc" "$crc" "$T/c.log" || ok=0
    if [ $ok = 1 ]; then
        pass "$label"
    else
        fail "$label (server exit $src, client exit $crc)"
        sed 's/^/    server: /' "$T/s.log" | head -20
        sed 's/^/    client: /' "$T/c.log" | head -20
    fi
}

check_run() { # WANT RC LOG
    case "$1" in
    ok) [ "$2" = 0 ] && grep -q ' No Errors' "$3" ;;
    fail:*) [ "$2" != 0 ] && [ "$2" != 124 ] && [ "$2" != 137 ] && grep -q "${1#fail:}" "$3" ;;
    esac
}

# client RANKS LABEL PORT-TEXT [ENV...]: a client run whose connect must
# fail with MPI_ERR_PORT, within 30 s.
client_port_error() {
    local n=$1 label=$2 text=$3
    shift 3
    echo "$text" >"$T/bad"
    if env "$@" timeout 30 "$MPIEXEC" -n "$n" "$PROG" client "$T/bad" 1 porterror >"$T/c.log" 2>&1 &&
        grep -q ' No Errors' "$T/c.log"; then
        pass "$label"
    else
        fail "$label"
        sed 's/^/    /' "$T/c.log" | head -10
    fi
}

for sizes in "1 1" "2 3" "4 2"; do
    set -- $sizes
    pair "$1+$2 ranks: p2p, collectives, merge" "$1" "$2" "" "" ok ok
done
pair "4+2 ranks, server on 2 simulated nodes" 4 2 "" "" ok ok "DMPI_PROCESS_MAPPING=(vector,(0,2,2))"
for prov in net 'tcp;ofi_rxm'; do
    if fi_info -p "${prov%%;*}" >/dev/null 2>&1 || ! command -v fi_info >/dev/null; then
        pair "2+3 ranks, FI_PROVIDER=$prov" 2 3 "" "" ok ok "FI_PROVIDER=$prov"
    else
        echo "skip FI_PROVIDER=$prov (libfabric lacks it)"
    fi
done
pair "2+2 ranks, finalize without disconnect" 2 2 nodisc nodisc ok ok

# two client runs connecting at once to one server run, which accepts twice
rm -f "$T/port"
timeout 60 "$MPIEXEC" -n 2 "$PROG" server "$T/port" 2 twice >"$T/s.log" 2>&1 &
spid=$!
timeout 60 "$MPIEXEC" -n 2 "$PROG" client "$T/port" 2 >"$T/c1.log" 2>&1 &
c1=$!
timeout 60 "$MPIEXEC" -n 2 "$PROG" client "$T/port" 2 >"$T/c2.log" 2>&1
c2rc=$?
wait "$c1"
c1rc=$?
wait "$spid"
src=$?
if check_run ok $src "$T/s.log" && check_run ok $c1rc "$T/c1.log" && check_run ok $c2rc "$T/c2.log"; then
    pass "two client runs at once, one server run accepting twice"
else
    fail "two client runs at once (server exit $src, clients $c1rc $c2rc)"
    cat "$T/s.log" "$T/c1.log" "$T/c2.log" | head -20 | sed 's/^/    /'
fi
pair "1+1 MPI_Comm_join" 1 1 join join ok ok
pair "client aborts: the server ends, not hangs" 2 2 hang abort \
    "fail:ended without disconnecting" "fail:MPI_Abort"

# a port nobody accepts on: MPI_ERR_PORT after DMPI_CONNECT_TIMEOUT
rm -f "$T/port"
timeout 60 "$MPIEXEC" -n 1 "$PROG" server "$T/port" 1 noaccept >"$T/s.log" 2>&1 &
spid=$!
for _ in $(seq 500); do [ -f "$T/port" ] && break; sleep 0.01; done
start=$(date +%s)
client_port_error 2 "a port never accepted: MPI_ERR_PORT after DMPI_CONNECT_TIMEOUT=1" "$(cat "$T/port")" \
    DMPI_CONNECT_TIMEOUT=1
[ $(($(date +%s) - start)) -lt 4 ] || fail "the connect timeout took $(($(date +%s) - start)) s"
wait "$spid" || fail "the server that never accepted failed: $(cat "$T/s.log")"
client_port_error 1 "the port of a run that has ended: MPI_ERR_PORT" "$(cat "$T/port")"
client_port_error 1 "bad port string 'nonsense'" "nonsense"
client_port_error 1 "bad port string 'dmpi:abc'" "dmpi:abc"
client_port_error 1 "bad port string, TCP port 0" "dmpi:0123456789abcdef:0:1:127.0.0.1:0"
client_port_error 1 "bad port string, TCP port 70000" "dmpi:0123456789abcdef:0:1:127.0.0.1:70000"
client_port_error 1 "bad port string, trailing text" "dmpi:0123456789abcdef:0:1:127.0.0.1:5000x"

# two runs with different providers: a clear error on both sides
if command -v fi_info >/dev/null && fi_info -p net >/dev/null 2>&1 && fi_info -p tcp >/dev/null 2>&1; then
    rm -f "$T/port"
    FI_PROVIDER=net timeout 60 "$MPIEXEC" -n 1 "$PROG" server "$T/port" 1 >"$T/s.log" 2>&1 &
    spid=$!
    FI_PROVIDER='tcp;ofi_rxm' timeout 60 "$MPIEXEC" -n 1 "$PROG" client "$T/port" 1 >"$T/c.log" 2>&1
    crc=$?
    wait "$spid"
    src=$?
    if [ $crc != 0 ] && [ $src != 0 ] && [ $src != 124 ] && grep -q "set the same FI_PROVIDER" "$T/c.log" &&
        grep -q "set the same FI_PROVIDER" "$T/s.log"; then
        pass "different providers: a clear error"
    else
        fail "different providers (server exit $src, client exit $crc)"
    fi
fi

shm_after=$(ls /dev/shm | grep -c '^dmpi-' || true)
[ "$shm_after" -le "$shm_before" ] || fail "left in /dev/shm: $(ls /dev/shm | grep '^dmpi-' | tr '\n' ' ')"
if pgrep -f "$PROG" >/dev/null; then fail "processes left: $(pgrep -af "$PROG")"; fi
if [ $fails = 0 ]; then echo "PASS test_two_runs"; exit 0; fi
echo "FAIL test_two_runs: $fails failed"
exit 1
