#!/usr/bin/env bash
# Checks dmpi's PMI-2 client and the choice between backends against a
# scripted launcher (tests/pmi/fake_pmi2.py), including replies a real
# launcher never sends: each bad reply must end MPI_Init with a message
# naming the backend and the problem, within the bounded wait, never hang.
# The real launchers (dmpi's mpiexec, srun --mpi=pmi2|pmix) are exercised
# by tests/launcher and tests/slurm. Needs python3 (skipped without).
# Usage: tests/pmi/test_pmi_client.sh <build-dir>
set -u
BUILD=$(cd "${1:?usage: $0 <build-dir>}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
FAKE=$HERE/fake_pmi2.py
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 0; }
TMP=$(mktemp -d /tmp/dmpi-pmi-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
cat >"$TMP/prog.c" <<'C'
/* one rank: init, a reduction, finalize; "abort" calls MPI_Abort */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    int r, s, x, y = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    if (argc > 1 && strcmp(argv[1], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 7);
    x = r + 5;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    printf("prog: rank %d of %d sum %d\n", r, s, y);
    MPI_Finalize();
    return y == 5 ? 0 : 1;
}
C
"$BUILD/bin/mpicc" "$TMP/prog.c" -o "$TMP/prog" || { echo "FAIL: cannot build the test program"; exit 1; }

npass=0 nfail=0
# case MODE WANT_STATUS(0|nonzero) PATTERN [PROG ARGS]: runs the fake
# launcher, checks the exit status, the output and that it took < 15 s
case_() {
    local mode=$1 want=$2 pat=$3
    shift 3
    local t0=$SECONDS out rc
    out=$(timeout 30 python3 "$FAKE" "$mode" "$TMP/prog" "$@" 2>&1)
    rc=$?
    local took=$((SECONDS - t0)) why=""
    if [ "$want" = 0 ] && [ $rc != 0 ]; then why="exit status $rc"; fi
    if [ "$want" != 0 ] && [ $rc = 0 ]; then why="exit status 0, expected a failure"; fi
    if ! grep -qE -- "$pat" <<<"$out"; then why="${why:+$why; }no line matching '$pat'"; fi
    if grep -q 'protocol error' <<<"$out"; then why="${why:+$why; }$(grep 'protocol error' <<<"$out" | head -1)"; fi
    if [ $took -ge 15 ]; then why="${why:+$why; }took $took s"; fi
    if [ -z "$why" ]; then
        echo "PASS: pmi2 $mode"
        npass=$((npass + 1))
    else
        echo "FAIL: pmi2 $mode: $why"
        sed 's/^/    /' <<<"$out" | tail -8
        nfail=$((nfail + 1))
    fi
}

case_ ok 0 'prog: rank 0 of 1 sum 5'
case_ ok 0 'fake_pmi2: finalized'
case_ pmi1only 0 'prog: rank 0 of 1 sum 5'
case_ truncated 1 'PMI-2: the fullinit-response was cut short: 10 of 60 bytes'
case_ malformed 1 "PMI-2: malformed fullinit-response from the launcher"
case_ badlen 1 "PMI-2: malformed length field 'abcdef'"
case_ silent 1 'PMI-2: no fullinit-response from the launcher within 3 s'
case_ badmap 1 "PMI-2: the launcher's PMI_process_mapping .* is malformed"
case_ wrongrank 1 'PMI-2: the launcher says rank 3 of 1'
case_ abort 1 'fake_pmi2: abort isworld=TRUE msg=.*MPI_Abort' abort
# forcing a backend: DMPI_PMI=pmi1 must not offer PMI-2
DMPI_PMI=pmi1 case_ ok 0 'finalized \(PMI-1\)'
DMPI_PMI=bogus case_ ok 1 "DMPI_PMI='bogus': expected pmix, pmi2, pmi1 or singleton"
# a PMIx environment without a reachable server: an error, not a hang
PMIX_NAMESPACE=nosuch PMIX_RANK=0 PMIX_SERVER_URI41='nosuch;tcp4://127.0.0.1:1' \
    PMIX_SERVER_URI4='nosuch;tcp4://127.0.0.1:1' PMIX_SERVER_URI3='nosuch;tcp4://127.0.0.1:1' \
    PMIX_SERVER_URI2='nosuch;tcp4://127.0.0.1:1' case_ ok 1 'PMIx'
echo "$npass passed, $nfail failed"
[ $nfail = 0 ]
