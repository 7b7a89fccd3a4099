#!/usr/bin/env bash
# ab_builds.sh: before/after figures of two dmpi builds on the intra-node
# paths, alternating the builds round by round (same benchmark source,
# each build's own dmpi_bench_pt2pt and mpiexec): 8 B latency, 4 MiB
# bandwidth and 8 B message rate at 2 ranks by default. Prints, per test
# and size, the median over rounds of each build's per-run median and p99,
# and the ratio after/before.
#   bench/ab_builds.sh BEFORE_BUILD AFTER_BUILD [ROUNDS]
set -euo pipefail
A=$1 B=$2 ROUNDS=${3:-10}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() { # build label
    local b=$1 l=$2
    "$b/bin/mpiexec" -n 2 "$b/bench/dmpi_bench_pt2pt" -t lat -m 8 --csv | sed "s/^/$l,/"
    "$b/bin/mpiexec" -n 2 "$b/bench/dmpi_bench_pt2pt" -t bw -m 4M --csv | sed "s/^/$l,/"
    "$b/bin/mpiexec" -n 2 "$b/bench/dmpi_bench_pt2pt" -t msgrate -m 8 --csv | sed "s/^/$l,/"
}
for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then run "$A" before; run "$B" after; else run "$B" after; run "$A" before; fi >>"$out"
done
python3 - "$out" <<'PY'
import sys, statistics as st
rows = {}
for line in open(sys.argv[1]):
    f = line.strip().split(',')
    if len(f) < 5 or not f[3].replace('.', '', 1).isdigit(): continue
    label, test, size, med, p99 = f[0], f[1], f[2], float(f[3]), float(f[4])
    rows.setdefault((test, size), {}).setdefault(label, []).append((med, p99))
print(f"{'test':8} {'size':>8} {'before med':>11} {'p99':>8} {'after med':>10} {'p99':>8} {'after/before':>12}  (us per message, median over rounds)")
for (test, size), d in rows.items():
    b = d.get('before', []); a = d.get('after', [])
    if not a or not b: continue
    bm, bp = st.median(x[0] for x in b), st.median(x[1] for x in b)
    am, ap = st.median(x[0] for x in a), st.median(x[1] for x in a)
    print(f"{test:8} {size:>8} {bm:11.3f} {bp:8.3f} {am:10.3f} {ap:8.3f} {am/bm:12.3f}")
print(f"rounds: {len(next(iter(rows.values()))['before'])}")
PY
