#!/bin/bash
# ab_intra.sh ROUNDS: 2 ranks on this host, libmpi_abi before (/tmp/lib-pre) and after (build), alternating
cd /work/main
for r in $(seq 1 $1); do
  for v in pre new; do
    [ $((r%2)) = 0 ] && { [ $v = pre ] && v=new || v=pre; }
    [ $v = pre ] && lp=/tmp/lib-pre || lp=$PWD/build
    for t in "lat 8" "bw 4M" "msgrate 8" "bibw 4M"; do set -- $t
      LD_LIBRARY_PATH=$lp build/bin/mpiexec -n 2 build/bench/dmpi_bench_pt2pt -t $1 -m $2 --csv 2>/dev/null | grep -E "^$1," | sed "s/^/$v,$r,/"
    done
  done
done
