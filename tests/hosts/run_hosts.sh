#!/bin/bash
# The MPI test suite across test hosts (tests/hosts/hosts.sh): every test
# program at its usual rank counts, placed in blocks over 2 and then 3
# hosts (so 1 to 4 ranks per host), ranks on different hosts talking over
# libfabric, ranks on one host over shared memory. After each pass, every
# host must have an empty /dev/shm and no process left. Exits 77 with a
# SKIP line where the hosts cannot be made (no root, no namespaces) or the
# build has no libfabric.
#   run_hosts.sh [BUILD] [FILTER]
#   run_hosts.sh --one-host [BUILD] [FILTER]: no namespaces; on this host,
#       ranks told (DMPI_PROCESS_MAPPING) that they are on 3 nodes in turn,
#       so that they talk over libfabric (comm_split_type, which tells
#       hosts by processor name, is left out there).
set -u
ONE_HOST=0
if [ "${1:-}" = --one-host ]; then ONE_HOST=1; shift; fi
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build}
FILTER=${2:-}
H=$ROOT/tests/hosts/hosts.sh
case "$BUILD" in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac

if ! grep -q '^DMPI_HAVE_OFI:INTERNAL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "SKIP: $BUILD was built without libfabric: no tests across hosts"
    exit 77
fi

# Two RMA programs run on one host only (the single-host suite):
# rma_shared puts MPI_Win_allocate_shared on MPI_COMM_WORLD, which needs one
# node; rma_passive has a target that never calls MPI while a rank on
# another node accesses it, and across nodes (tcp;ofi_rxm, manual progress)
# the target's progress engine must run (docs/network.md): only its
# DMPI_ASYNC_PROGRESS=1 form (args=async) runs here.
list=$(mktemp)
trap 'rm -f "$list"' EXIT
out_of_scope='rma_shared|rma_passive[[:space:]]+[0-9,]+[[:space:]]*$'
[ $ONE_HOST = 1 ] && out_of_scope="$out_of_scope|comm_split_type"
grep -vE "^[[:space:]]*($out_of_scope)([[:space:]]|\$)" "$ROOT/tests/mpi/testlist" >"$list"
# To keep CI short, the 3-host pass runs the whole list and the others
# ($short) leave out the two slowest RMA programs across nodes (many small
# round trips) and, in the 2-host pass and on one host, the collective
# algorithm matrix
# (coll_* but the node-aware coll_hier*: the 3-host pass runs it, with
# uneven ranks per host).
short=$(mktemp)
trap 'rm -f "$list" "$short"' EXIT
grep -vE "^[[:space:]]*(rma_dynamic_many|rma_acc_atomic)([[:space:]]|\$)" "$list" >"$short"
short2=$(mktemp)
trap 'rm -f "$list" "$short" "$short2"' EXIT
{ grep -vE "^[[:space:]]*coll_" "$short"; grep -E "^[[:space:]]*coll_hier" "$short"; } >"$short2"

if [ $ONE_HOST = 1 ]; then
    echo "== one host, ranks on 3 nodes in turn (DMPI_PROCESS_MAPPING)"
    DMPI_PROCESS_MAPPING='(vector,(0,3,1))' "$ROOT/tests/run_tests.sh" --build "$BUILD" \
        --mpi-only --list "$short2" $FILTER
    exit $?
fi

# Hosts that are up already (someone else's run) stay up afterwards.
if "$H" list 2>/dev/null | grep -q dmpi-h3; then
    trap 'rm -f "$list" "$short" "$short2"' EXIT
else
    "$H" up 3 >/dev/null || exit $?
    trap '"$H" down >/dev/null 2>&1; rm -f "$list" "$short" "$short2"' EXIT
fi

# mpiexec itself runs on dmpi-h1, as on a cluster's first node: the agents
# call it back at that host's address, and every rank's network interface
# has the same name (eth0).
L=$ROOT/tests/hosts/launch
failed=0
for hosts in dmpi-h1,dmpi-h2 dmpi-h1,dmpi-h2,dmpi-h3; do
    echo "== across $hosts"
    l=$short2
    [ "${hosts//[^,]/}" = ",," ] && l=$list
    "$ROOT/tests/run_tests.sh" --build "$BUILD" --mpi-only --list "$l" \
        --mpiexec "$L dmpi-h1 $BUILD/bin/mpiexec --launcher-exec $L -hosts $hosts" \
        $FILTER | tee /tmp/dmpi-hosts-run.$$ | grep -v '^PASS'
    tail -1 /tmp/dmpi-hosts-run.$$ | grep -q ' 0 failed' || failed=1
    rm -f /tmp/dmpi-hosts-run.$$
    # Where spawned processes go (docs/dynproc.md, "Across hosts"): 2
    # parents (one on each of the first two hosts) spawn commands of 1 and 3
    # processes; each goes to the least loaded host, the first on a tie.
    if [ -z "$FILTER" ] || [[ dynproc_where =~ $FILTER ]]; then
        if [ "${hosts//[^,]/}" = ",," ]; then want="dmpi-h3 dmpi-h1 dmpi-h2 dmpi-h3"
        else want="dmpi-h1 dmpi-h1 dmpi-h2 dmpi-h2"; fi
        got=$("$L" dmpi-h1 timeout 60 "$BUILD/bin/mpiexec" --launcher-exec "$L" -hosts "$hosts" -n 2 \
            "$BUILD/tests/mpi/dynproc_where" report 2>&1 | awk '$2 == "child" {print $5}' |
            while read -r a; do "$H" list | awk -v a="$a" '$2 == a {print $1}'; done | tr '\n' ' ')
        if [ "${got% }" = "$want" ]; then echo "PASS spawn placement across $hosts: $want"
        else echo "FAIL spawn placement across $hosts: children on '${got% }', want '$want'"; failed=1; fi
    fi
    for h in ${hosts//,/ }; do
        left=$("$H" shm "$h" | grep '^dmpi-')
        # processes of this build only: other jobs may share the hosts
        procs=$("$H" ps "$h" | tail -n +2 | grep -F "$BUILD/")
        if [ -n "$left" ] || [ -n "$procs" ]; then
            echo "FAIL left behind on $h: /dev/shm: ${left:-nothing}; processes: ${procs:-none}"
            failed=1
        fi
    done
done
exit $failed
