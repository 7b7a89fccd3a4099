#!/usr/bin/env bash
# hosts_provider_ab.sh: dmpi between two test hosts with two libfabric
# providers, alternating run by run: the point-to-point benchmark
# (dmpi_bench_pt2pt: lat 8 B and 64 KiB, bw/bibw 4 MiB, msgrate 8 B) with
# FI_PROVIDER=A and FI_PROVIDER=B, ROUNDS times, the order flipped every
# round. Prints, per measurement, the median over rounds of each run's
# median and the ratio B/A. Needs root (tests/hosts/hosts.sh).
#   bench/hosts_provider_ab.sh BUILD [ROUNDS] [A] [B] > table
set -euo pipefail
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd -- "${1:?usage: hosts_provider_ab.sh BUILD [ROUNDS] [A] [B]}" && pwd)
ROUNDS=${2:-7}
A=${3:-tcp;ofi_rxm}
B=${4:-net}
HOSTS=$REPO/tests/hosts/hosts.sh
"$HOSTS" up 2 >/dev/null
out=$(mktemp)
trap 'rm -f "$out"' EXIT
one() { # provider round
    "$HOSTS" exec dmpi-h1 env DMPI_BIND=0 FI_PROVIDER="$1" "$BUILD/bin/mpiexec" \
        --launcher-exec "$REPO/tests/hosts/launch" -hosts dmpi-h1,dmpi-h2 -n 2 \
        "$BUILD/bench/dmpi_bench_pt2pt" -t lat,bw,bibw,msgrate -m 8,64K,4M -s 30 --csv |
        grep -v '^#' | sed "s/^/$1,$2,/" >>"$out"
}
for r in $(seq 1 "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then one "$A" "$r"; one "$B" "$r"; else one "$B" "$r"; one "$A" "$r"; fi
done
python3 - "$out" "$A" "$B" <<'PY'
import csv, statistics, sys
from collections import defaultdict
path, a, b = sys.argv[1:4]
med = defaultdict(list)   # (prov, test, size) -> per-run medians (us)
p99 = defaultdict(list)
for row in csv.reader(open(path)):
    if len(row) < 6 or row[2] == 'test':
        continue
    prov, _, test, size, m, p = row[:6]
    med[(prov, test, size)].append(float(m))
    p99[(prov, test, size)].append(float(p))
print(f"| test | size | {a} median / p99 us | {b} median / p99 us | {b} / {a} |")
print("|---|---|---|---|---|")
for (prov, test, size) in sorted(k for k in med if k[0] == a):
    ma = statistics.median(med[(a, test, size)]); mb = statistics.median(med[(b, test, size)])
    pa = statistics.median(p99[(a, test, size)]); pb = statistics.median(p99[(b, test, size)])
    print(f"| {test} | {size} | {ma:.2f} / {pa:.1f} | {mb:.2f} / {pb:.1f} | {mb / ma:.2f} |")
PY
