#!/usr/bin/env bash
# fortran_compare.sh: what the Fortran bindings cost. Runs, alternating
# round by round, C (bench/dmpi_bench_pt2pt) and Fortran mpi_f08
# (bench/fortran_pt2pt) at 2 ranks: 8 B latency, 8 B and 64 KiB
# streaming (where a call's own cost shows); prints per test the median over rounds of each one's median
# and p99 and the ratio Fortran/C.
#   bench/fortran_compare.sh [BUILD] [ROUNDS]
set -euo pipefail
B=${1:-build} ROUNDS=${2:-10}
[ -x "$B/bench/fortran_pt2pt" ] || { echo "no $B/bench/fortran_pt2pt: built without Fortran"; exit 77; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
c_run() { "$B/bin/mpiexec" -n 2 "$B/bench/dmpi_bench_pt2pt" -t "$1" -m "$2" --csv | tail -n +2 | sed 's/^/C,/'; }
f_run() { "$B/bin/mpiexec" -n 2 "$B/bench/fortran_pt2pt" "$1" "$2" | sed 's/^/Fortran,/'; }
for r in $(seq "$ROUNDS"); do
    for t in "lat 8" "bw 8" "bw 65536"; do
        # shellcheck disable=SC2086 # test and size
        if [ $((r % 2)) = 1 ]; then c_run $t; f_run $t; else f_run $t; c_run $t; fi
    done
done >"$out"
python3 - "$out" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) < 5: continue
    rows.setdefault((f[1], int(f[2])), {}).setdefault(f[0], []).append((float(f[3]), float(f[4])))
print('| test | size | C median / p99 (us) | Fortran median / p99 (us) | Fortran/C (median) |')
print('|---|---|---|---|---|')
for (test, size), by in sorted(rows.items()):
    c = [st.median(x[i] for x in by['C']) for i in (0, 1)]
    f = [st.median(x[i] for x in by['Fortran']) for i in (0, 1)]
    print(f'| {test} | {size} | {c[0]:.3f} / {c[1]:.3f} | {f[0]:.3f} / {f[1]:.3f} | {f[0] / c[0]:.3f} |')
PY
