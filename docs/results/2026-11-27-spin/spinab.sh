#!/bin/bash
# spinab.sh ROUNDS: issue-23 cases with a core per rank (2 ranks, 0 or 2 busy shells), libmpi_abi
# before the spinning limit (/tmp/lib-pre) and after (build), alternating; seconds (slowest rank)
cd /work/main
for r in $(seq ${1:-3}); do
 for c in alltosome:2:0 alltosome:2:2 latemix:2:0 latemix:2:2 poll:4:0; do
  IFS=: read p n b <<< "$c"
  for v in pre new; do
    [ $v = pre ] && lp=/tmp/lib-pre || lp=$PWD/build
    pids=(); for k in $(seq $b); do (while :; do :; done) & pids+=($!); done
    t=$(LD_LIBRARY_PATH=$lp timeout 60 build/bin/mpiexec -n $n build/bench/app_patterns -p $p 2>&1 | tail -1 | cut -d, -f3)
    [ ${#pids[@]} -gt 0 ] && kill ${pids[@]} 2>/dev/null; wait ${pids[@]} 2>/dev/null
    echo "$r $c $v $t"
  done
 done
done
