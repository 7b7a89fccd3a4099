#!/bin/bash
# sweep_env.sh VAR "v1 v2 ..." TESTS SIZES [ROUNDS]: dmpi alone, dmpi_bench_pt2pt
# at 2 ranks with VAR set to each value in turn (alternating, ROUNDS rounds,
# default 3), then a table of the median over rounds of each run's median
# time per message (us). Used to set the thresholds of docs/environment.md.
# Needs a built tree in build/ (or DMPI_BUILD).
cd "$(dirname "$0")/.."; B=${DMPI_BUILD:-build}
VAR=$1; VALS=$2; TESTS=$3; SIZES=$4; R=${5:-3}
tmp=$(mktemp)
for r in $(seq $R); do
  for v in $VALS; do
    env $VAR=$v $B/bin/mpiexec -n 2 $B/bench/dmpi_bench_pt2pt -t $TESTS -m $SIZES -s 20 --csv 2>/dev/null | grep -v '^#' | sed "s/^/$v,/" >> $tmp
  done
done
python3 - "$tmp" "$VAR" <<'PY'
import sys,statistics,collections
d=collections.defaultdict(list)
for line in open(sys.argv[1]):
    f=line.strip().split(',')
    if len(f)<5: continue
    v,t,size,med=f[0],f[1],f[2],f[3]
    try: d[(t,int(size),v)].append(float(med))
    except: pass
vals=[]; 
for k in d:
    if k[2] not in vals: vals.append(k[2])
keys=sorted(set((k[0],k[1]) for k in d))
print(f"{sys.argv[2]}: median over runs of the per-run median time per message (us)")
print("%-6s %9s " % ("test","size") + " ".join("%10s"%v for v in vals))
for t,s in keys:
    print("%-6s %9d " % (t,s) + " ".join("%10.3f"%statistics.median(d[(t,s,v)]) if d.get((t,s,v)) else "%10s"%"-" for v in vals))
PY
rm -f $tmp
