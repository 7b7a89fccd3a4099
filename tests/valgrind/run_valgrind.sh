#!/usr/bin/env bash
# Valgrind memcheck on a representative subset of the MPI tests: every rank
# runs under valgrind; a run passes when the test passes, memcheck reports
# no invalid access, and no memory is definitely lost at exit (after
# MPI_Finalize).
# Usage: tests/valgrind/run_valgrind.sh BUILD_DIR [TEST[:NP] ...]
# Exit status: 0 passed, 1 failed, 77 no valgrind (skipped).
set -u
if [ $# -lt 1 ] || [ ! -x "$1/bin/mpiexec" ]; then
    echo "usage: $0 BUILD_DIR [TEST[:NP] ...]" >&2
    exit 2
fi
BUILD=$(cd "$1" && pwd)
shift
if ! command -v valgrind >/dev/null 2>&1; then
    echo "SKIP: valgrind is not installed"
    exit 77
fi
TESTS=("$@")
[ ${#TESTS[@]} -gt 0 ] || TESTS=(init_basic:2 p2p_modes:2 p2p_nonblocking:2 p2p_sizes:2 p2p_probe:2
    p2p_persistent:2 coll_bcast:2 coll_reduce:3 coll_alltoall:2 comm_split:2 comm_dup:2
    intercomm_create:2 info_basic:1 attr_comm:2 topo_cart:2 errors_table:2 status_count:1)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-valgrind.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# Undefined-value errors are off: an MPI library copies whole messages,
# padding bytes of the user's structs included (the application's
# business); invalid reads and writes, bad frees and definite leaks count.
VG=(valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
    --errors-for-leak-kinds=definite --undef-value-errors=no --num-callers=20)
npass=0 nfail=0
for t in "${TESTS[@]}"; do
    name=${t%%:*} np=2
    [ "$name" != "$t" ] && np=${t#*:}
    prog=$BUILD/tests/mpi/$name
    args=""
    [ "$name" = info_basic ] && args="alpha beta"
    if [ ! -x "$prog" ]; then
        echo "FAIL $name: $prog not built"
        nfail=$((nfail + 1))
        continue
    fi
    log=$TMP/$name.log
    # shellcheck disable=SC2086
    # memcheck must see every malloc: no malloc library (DMPI_SHM_MALLOC)
    DMPI_SHM_MALLOC=0 timeout 600 "$BUILD/bin/mpiexec" -n "$np" "${VG[@]}" "$prog" $args >"$log" 2>&1 </dev/null
    st=$?
    if [ $st = 0 ] && grep -q 'No Errors' "$log"; then
        echo "PASS $name (np=$np)"
        npass=$((npass + 1))
    else
        echo "FAIL $name (np=$np, exit status $st):"
        grep -E '==[0-9]+==|check failed|Found' "$log" | head -40 | sed 's/^/    | /'
        nfail=$((nfail + 1))
    fi
done
echo "valgrind: $npass passed, $nfail failed"
[ $nfail = 0 ]
