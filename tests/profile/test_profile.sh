#!/bin/bash
# test_profile.sh: the MPI profile (mpiexec --profile, libdmpi_profile.so,
# docs/profile.md). Runs tests/mpi/profile_known.c, whose traffic is known
# exactly, at 1-4 ranks and checks every entry of the traffic matrix CSV
# (traffic between MPI_Pcontrol(0) and (1) left out) and the report's parts; DMPI_PROFILE=1 instead of the flag, a directory
# as DMPI_PROFILE_FILE, a singleton under LD_PRELOAD (the srun way), an
# unwritable path (one line, job unharmed, no file), no profile when off,
# a Fortran program (when built), and dmpi-profile-plot.
# Usage: tests/profile/test_profile.sh [BUILD]   (exit 0 ok, 1 failed, 77 skip)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
MPIEXEC=$BUILD/bin/mpiexec
PROG=$BUILD/tests/mpi/profile_known
LIB=$BUILD/libdmpi_profile.so
[ -f "$LIB" ] || { echo "SKIP test_profile: $LIB not built (no python3 at build time)"; exit 77; }
[ -x "$PROG" ] || { echo "FAIL test_profile: $PROG missing"; exit 1; }
T=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-profile-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1
fails=0
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
pass() { echo "ok   $*"; }

# check_csv FILE P: the matrix of profile_known at P ranks, entry by entry
check_csv() {
    python3 - "$1" "$2" <<'PY'
import csv, sys
path, P = sys.argv[1], int(sys.argv[2])
exp = {}
def add(kind, a, b, n, times=1):
    m, by = exp.get((kind, a, b), (0, 0))
    exp[(kind, a, b)] = (m + times, by + times * n)
for r in range(P):
    right, left = (r + 1) % P, (r - 1) % P
    for n in (100, 1000, 10000, 160, 160):
        add('p2p', r, right, n)
    add('p2p', r, left, 64)
    for i in range(P):
        if i != r:
            add('coll', r, i, 32)          # Allreduce 4 doubles
            if r == 0:
                add('coll', r, i, 1000)    # Bcast from 0
    if r != P - 1:
        add('coll', r, P - 1, 16)          # Gather to world rank P-1
    add('rma', r, right, 24)
    add('rma', r, left, 8)
    add('rma', r, right, 4, 5000)          # NACC Accumulates of 4 B, world window
    add('rma', r, left, 4, 5000)           # and on the reversed window
    add('rma', r, right, 12, 600)          # NDT Puts of a 3-int type
    add('rma', r, right, 24, 600)          # and of a 3-double type
got = {}
with open(path, newline='') as f:
    rd = csv.reader(f)
    if next(rd) != ['kind', 'from', 'to', 'messages', 'bytes']:
        sys.exit('bad header')
    for row in rd:
        got[(row[0], int(row[1]), int(row[2]))] = (int(row[3]), int(row[4]))
bad = [(k, exp.get(k), got.get(k)) for k in sorted(set(exp) | set(got)) if exp.get(k) != got.get(k)]
for k, e, g in bad:
    print('  %s %d->%d: expected %s, got %s' % (k + (e, g)))
sys.exit(1 if bad else 0)
PY
}

for np in 1 2 3 4; do
    out=$T/out.$np csv=$T/m$np.csv
    # every function listed: on a loaded machine MPI_Accumulate's short calls
    # may fall out of the top 10 by time
    if ! DMPI_PROFILE_TOP=0 timeout 60 "$MPIEXEC" --profile -n "$np" "$PROG" >"$out" 2>&1 ||
        ! grep -q 'No Errors' "$out"; then
        fail "np=$np: the run failed"; sed 's/^/    | /' "$out" | tail -20; continue
    fi
    mv "$T"/dmpi-profile.*.csv "$csv" 2>/dev/null || { fail "np=$np: no dmpi-profile.<job>.csv in the current directory"; continue; }
    if check_csv "$csv" "$np"; then pass "np=$np: traffic matrix exact"; else fail "np=$np: traffic matrix"; fi
    for part in "==== dmpi profile: profile_known, $np rank" 'only while profiling was on (MPI_Pcontrol)' 'top calls by time' \
        'message sizes' 'traffic matrix: dmpi-profile'; do
        grep -qF -- "$part" "$out" || fail "np=$np: report lacks '$part'"
    done
    # the totals line: 6 p2p messages per rank, 2 + 2 x 5000 + 2 x 600 one-sided
    grep -q "traffic sent, all ranks: p2p $((6 * np)) messages .*; rma $((11202 * np)) messages" "$out" ||
        fail "np=$np: totals line: $(grep 'traffic sent' "$out")"
    # a call in the top list has its exact count
    isend=$(awk '$1 == "MPI_Isend" { print $2 }' "$out")
    [ -z "$isend" ] || [ "$isend" = $((3 * np)) ] || fail "np=$np: MPI_Isend calls '$isend', expected $((3 * np))"
    # the 2 x 5000 Accumulates per rank, most counted untimed (the fast path)
    acc=$(awk '$1 == "MPI_Accumulate" { print $2 }' "$out")
    [ "$acc" = $((10000 * np)) ] || fail "np=$np: MPI_Accumulate calls '$acc', expected $((10000 * np))"
    grep -q '^  MPI_Accumulate .*~' "$out" || fail "np=$np: MPI_Accumulate not sampled (~): the fast path untested"
    # p2p messages of 65-512 B: 100 B once and 160 B twice per rank
    h=$(awk '$1 == "65-512" { print $3 }' "$out")
    [ "$h" = $((3 * np)) ] || fail "np=$np: p2p 65-512 B messages '$h', expected $((3 * np))"
done

# DMPI_PROFILE=1 instead of --profile; a directory as DMPI_PROFILE_FILE
mkdir "$T/d"
if DMPI_PROFILE=1 DMPI_PROFILE_FILE=$T/d timeout 60 "$MPIEXEC" -n 2 "$PROG" >"$T/env.out" 2>&1 &&
    check_csv "$(find "$T/d" -name "dmpi-profile.*.csv" | head -1)" 2 && grep -q '==== dmpi profile' "$T/env.out"; then
    pass "DMPI_PROFILE=1, DMPI_PROFILE_FILE=<directory>"
else
    fail "DMPI_PROFILE=1 with a directory as DMPI_PROFILE_FILE"; tail -5 "$T/env.out"
fi

# the way of other launchers: LD_PRELOAD + DMPI_PROFILE=1 (here a singleton)
if (unset DMPI_JOBID; LD_PRELOAD=$LIB DMPI_PROFILE=1 DMPI_PROFILE_FILE=$T/single.csv timeout 60 "$PROG") >"$T/single.out" 2>&1 &&
    check_csv "$T/single.csv" 1; then
    pass "singleton with LD_PRELOAD=libdmpi_profile.so DMPI_PROFILE=1"
else
    fail "singleton with LD_PRELOAD"; tail -5 "$T/single.out"
fi

# an unwritable path: one line naming it, the job completes, no file
mkdir "$T/empty" && cd "$T/empty" || exit 1
if DMPI_PROFILE_FILE=$T/no/such/dir/m.csv timeout 60 "$MPIEXEC" --profile -n 2 "$PROG" >"$T/bad.out" 2>&1 &&
    grep -q 'No Errors' "$T/bad.out" && [ "$(grep -c 'cannot write' "$T/bad.out")" = 1 ] &&
    grep -q "cannot write the traffic matrix to $T/no/such/dir/m.csv" "$T/bad.out" &&
    [ ! -e "$T/no" ] && [ -z "$(ls -A "$T/empty")" ]; then
    pass "unwritable DMPI_PROFILE_FILE: one line, exit 0, nothing left"
else
    fail "unwritable DMPI_PROFILE_FILE"; cat "$T/bad.out"
fi

# off: no report, no file
if timeout 60 "$MPIEXEC" -n 2 "$PROG" >"$T/off.out" 2>&1 && ! grep -q 'dmpi profile' "$T/off.out" &&
    [ -z "$(ls -A "$T/empty")" ]; then
    pass "without --profile: no report, no file"
else
    fail "without --profile"
fi
cd "$T" || exit 1

# Fortran (libmpifort_abi calls the C MPI_* functions, which the profile wraps)
F=$BUILD/tests/fortran/f_p2p_usempi
if [ -x "$F" ]; then
    if DMPI_PROFILE_FILE=$T/f.csv timeout 60 "$MPIEXEC" --profile -n 2 "$F" >"$T/f.out" 2>&1 &&
        grep -q '^p2p,0,1,' "$T/f.csv" && grep -q '^p2p,1,0,' "$T/f.csv" && grep -q '==== dmpi profile: f_p2p_usempi' "$T/f.out"; then
        pass "Fortran program profiled (f_p2p_usempi)"
    else
        fail "Fortran program not profiled"; tail -5 "$T/f.out"
    fi
fi

# the heat map script (text without matplotlib, PNG with it)
if "$BUILD/bin/dmpi-profile-plot" "$T/m2.csv" -o "$T/m2.png" >"$T/plot.out" 2>&1; then
    pass "dmpi-profile-plot"
else
    fail "dmpi-profile-plot"; cat "$T/plot.out"
fi

[ $fails = 0 ] && echo "PASS test_profile" && exit 0
echo "FAIL test_profile: $fails check(s) failed"
exit 1
