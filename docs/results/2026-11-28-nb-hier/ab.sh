#!/bin/bash
# A/B: nonblocking collectives flat vs node-aware, 3 test hosts x 2 ranks
cd /work/main
OUT=${OUT:-/tmp/nbh_ab}; mkdir -p $OUT; : > $OUT/raw.csv
for r in $(seq 1 ${ROUNDS:-6}); do
  for h in 0 1; do
    [ $((r % 2)) = 0 ] && h=$((1 - h))
    tests/hosts/launch dmpi-h1 build/bin/mpiexec --launcher-exec tests/hosts/launch -hosts dmpi-h1:2,dmpi-h2:2,dmpi-h3:2 -n 6 \
      -env DMPI_COLL_HIER $h build/bench/coll_bench --nb -t barrier,bcast,allreduce,reduce -m 8,1K,64K -s 30 --csv 2>&1 \
      | grep -E '^[a-z]+,[0-9]+,' | sed "s/^/$h,$r,/" >> $OUT/raw.csv
  done
  echo "round $r done $(cut -d' ' -f1 /proc/loadavg)"
done
