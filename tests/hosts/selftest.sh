#!/usr/bin/env bash
# tests/hosts/selftest.sh: checks the test hosts of tests/hosts/hosts.sh
# from scratch: up 3 (twice: idempotent), host names and hosts files, argv
# passed through exec untouched, exec from inside a host, TCP between every
# pair of hosts by name and on each host's loopback, /dev/shm private to
# each host and kept between commands, ps, down killing what still runs,
# and nothing left behind. Prints one PASS/FAIL line per check; exit 0 when
# all pass, 1 when one fails, 77 (with the SKIP line of hosts.sh) where
# network namespaces cannot be made here.
# Needs root and python3 (the TCP echo server); with a tcp_limit binary
# (argument, or build/bench/tcp_limit) it also runs a short tcp_limit over
# the veth link.
#   tests/hosts/selftest.sh [path/to/tcp_limit]
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
H=$HERE/hosts.sh
TCP_LIMIT=${1:-$HERE/../../build/bench/tcp_limit}
N=3
PORT=17472

npass=0
nfail=0
pass() { echo "PASS: $1"; npass=$((npass + 1)); }
fail() { echo "FAIL: $1${2:+: $2}"; nfail=$((nfail + 1)); }
check() { # check NAME CMD...: PASS when CMD succeeds
    local name=$1; shift
    if "$@"; then pass "$name"; else fail "$name"; fi
}

if [ -e /run/dmpi-hosts ] || ls /run/netns/dmpi-h* >/dev/null 2>&1; then
    echo "FAIL: test hosts are already up (someone may be using them); run: $H down"
    exit 1
fi

out=$("$H" up $N 2>&1)
rc=$?
if [ $rc = 77 ]; then
    echo "$out" | grep '^SKIP' | head -1
    exit 77
fi
trap '"$H" down >/dev/null 2>&1' EXIT
if [ $rc != 0 ]; then
    echo "$out"
    echo "FAIL: up $N (exit status $rc)"
    exit 1
fi
pass "up $N"
out=$("$H" up $N 2>&1)
check "up $N again (idempotent, nothing new made)" \
    test $? = 0 -a -z "$(echo "$out" | grep '^made')"

# Host names, hosts files, addresses.
for k in $(seq $N); do
    check "dmpi-h$k: hostname" test "$("$H" exec dmpi-h$k hostname)" = "dmpi-h$k"
    check "h$k (alias): hostname" test "$("$H" exec h$k hostname)" = "dmpi-h$k"
    all=$("$H" exec dmpi-h$k getent hosts $(for j in $(seq $N); do echo dmpi-h$j; done) dmpi-head | awk '{print $1}' | tr '\n' ' ')
    want="$(for j in $(seq $N); do printf '10.213.0.%s ' $j; done)10.213.0.254 "
    check "dmpi-h$k: /etc/hosts resolves every host" test "$all" = "$want"
    check "dmpi-h$k: eth0 has 10.213.0.$k, mtu 1500" \
        sh -c "'$H' exec dmpi-h$k ip -o addr show dev eth0 | grep -q 'inet 10.213.0.$k/24' &&
               '$H' exec dmpi-h$k cat /sys/class/net/eth0/mtu | grep -qx 1500"
done
check "exec passes argv untouched" \
    test "$("$H" exec dmpi-h1 printf '[%s]' 'a b' '$HOME' '*' '' ';')" = '[a b][$HOME][*][][;]'
check "exec keeps the working directory" test "$(cd /tmp && "$H" exec dmpi-h2 pwd)" = /tmp
"$H" exec dmpi-h1 sh -c 'exit 7'
check "exec passes the exit status" test $? = 7
check "exec from inside a host (dmpi-h1 -> dmpi-h3)" \
    test "$("$H" exec dmpi-h1 "$H" exec dmpi-h3 hostname)" = dmpi-h3

# TCP by name: an echo server on host B (python3), a bash /dev/tcp client
# on host A; the server answers with its host name.
serve_once() { # HOST ADDR: answers one connection with "from <hostname>"
    "$H" exec "$1" python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); s.settimeout(10)
c, _ = s.accept(); c.sendall(("from %s\n" % socket.gethostname()).encode()); c.close()
' "$2" $PORT &
}
ask() { # HOST TARGET: the server's line, retrying while it starts
    "$H" exec "$1" bash -c '
for i in $(seq 50); do
    if exec 3<>/dev/tcp/$0/$1; then read -r line <&3; echo "$line"; exit 0; fi 2>/dev/null
    sleep 0.1
done; exit 1' "$2" $PORT
}
if command -v python3 >/dev/null; then
    for a in $(seq $N); do
        for b in $(seq $N); do
            [ $a = $b ] && continue
            serve_once dmpi-h$b 0.0.0.0
            got=$(ask dmpi-h$a dmpi-h$b)
            wait
            check "TCP dmpi-h$a -> dmpi-h$b by name" test "$got" = "from dmpi-h$b"
        done
        serve_once dmpi-h$a 127.0.0.1
        got=$(ask dmpi-h$a localhost)
        wait
        check "TCP on dmpi-h$a's loopback" test "$got" = "from dmpi-h$a"
    done
    serve_once dmpi-h1 127.0.0.1
    got=$(ask dmpi-h2 dmpi-h1 2>/dev/null)
    kill $! 2>/dev/null; wait
    check "dmpi-h1's loopback is not reachable from dmpi-h2" test -z "$got"
else
    fail "TCP between hosts" "no python3 for the echo server"
fi
if [ -x "$TCP_LIMIT" ]; then
    "$H" exec dmpi-h1 "$TCP_LIMIT" -s --once >/dev/null &
    out=$("$H" exec dmpi-h2 "$TCP_LIMIT" -c dmpi-h1 --csv -i 200 -x 20 -r 2 -B 16M 2>&1)
    wait
    check "tcp_limit dmpi-h2 -> dmpi-h1" test "$(echo "$out" | grep -c '^[a-z]*,[0-9]')" = 4
    echo "$out" | sed 's/^/    /'
else
    echo "NOTE: no tcp_limit binary ($TCP_LIMIT), its check is left out"
fi

# /dev/shm: private to each host, the same for every command on a host.
"$H" exec dmpi-h1 sh -c 'echo x > /dev/shm/dmpi-selftest-h1'
check "/dev/shm: a file made on dmpi-h1 is there for the next command on it" \
    sh -c "'$H' shm dmpi-h1 | grep -qx dmpi-selftest-h1"
check "/dev/shm: it is not on dmpi-h2" sh -c "! '$H' shm dmpi-h2 | grep -q dmpi-selftest"
check "/dev/shm: it is not in the root namespace" test ! -e /dev/shm/dmpi-selftest-h1
check "/dev/shm: dmpi-h2's is empty" test -z "$("$H" shm dmpi-h2)"
check "/dev/shm: a tmpfs of its own on dmpi-h3" \
    sh -c "'$H' exec dmpi-h3 df /dev/shm | grep -q dmpi-shm-h3"

# ps, then down with something still running.
"$H" exec dmpi-h2 sleep 300 &
sleeper=$!
sleep 0.5
check "ps dmpi-h2 shows the sleep" sh -c "'$H' ps dmpi-h2 | grep -q 'sleep 300'"
check "ps dmpi-h1 does not" sh -c "! '$H' ps dmpi-h1 | grep -q 'sleep 300'"
out=$("$H" down 2>&1)
check "down (killing a process left on dmpi-h2)" test $? = 0
wait $sleeper 2>/dev/null
trap - EXIT
check "down: the sleep is gone" sh -c "! kill -0 $sleeper 2>/dev/null"
check "down: no namespaces" sh -c '! ls /run/netns/dmpi-h* >/dev/null 2>&1'
check "down: no links" sh -c '! ip -o link show | grep -q dmpi'
check "down: no mounts" sh -c '! grep -q dmpi /proc/self/mountinfo'
check "down: no /run/dmpi-hosts, /etc/netns/dmpi-h*" \
    sh -c '! ls -d /run/dmpi-hosts /etc/netns/dmpi-h* >/dev/null 2>&1'
check "down again (idempotent)" "$H" down

echo "selftest: $npass passed, $nfail failed"
[ $nfail = 0 ]
