#!/bin/bash
# rt.sh label pat np busy [env...]: per-rank user sys voluntary involuntary csw
label=$1 pat=$2 np=$3 busy=$4; shift 4
pids=(); for ((b=0;b<busy;b++)); do sh -c 'while :; do :; done' & pids+=($!); done
T="/usr/bin/time -f RANK_%U_%S_%w_%c"
if [ $label = mpich ]; then P=/work/main/.cache/peers/mpich-5.0.2; out=$(env "$@" $P/bin/mpiexec -launcher fork -n $np $T /tmp/e23/ap_mpich -p $pat 2>&1)
else BB=/work/wt23/build; [[ $label == old* ]] && BB=/tmp/e23/build_before
out=$(env "$@" LD_LIBRARY_PATH=$BB/lib:$BB $BB/bin/mpiexec -n $np $T /tmp/e23/ap_dmpi -p $pat 2>&1); fi
kill ${pids[@]} 2>/dev/null; wait ${pids[@]} 2>/dev/null
echo "$label $(grep "^$pat" <<<"$out" | cut -d, -f3) $(grep RANK_ <<<"$out" | sed 's/RANK_//' | tr '\n' ' ')"
