#!/bin/bash
# run.sh ROUNDS PATTERN NP BUSY "label=ENV..." ...   ("mpich" label runs MPICH)
R=$1 pat=$2 np=$3 busy=$4; shift 4
B=${DMPI_B:-/work/wt23/build}
P=/work/main/.cache/peers/mpich-5.0.2
for ((r=1;r<=R;r++)); do
 for cfg in "$@"; do
  label=${cfg%%=*}; envs=${cfg#*=}; [ "$cfg" = "$label" ] && envs=
  pids=(); for ((b=0;b<busy;b++)); do sh -c 'while :; do :; done' & pids+=($!); done
  if [[ $label == mpich* ]]; then out=$(env $envs timeout 120 $P/bin/mpiexec -launcher fork -n $np /tmp/e23/ap_mpich -p $pat </dev/null 2>&1)
  else BB=$B; [[ $label == old* ]] && BB=/tmp/e23/build_before; W=; [[ $label == *ss ]] && W="setsid -w"
  out=$(env $envs LD_LIBRARY_PATH=$BB/lib:$BB timeout 120 $BB/bin/mpiexec -n $np $W ${AP:-/tmp/e23/ap_dmpi} -p $pat </dev/null 2>&1); fi
  kill ${pids[@]} 2>/dev/null; wait ${pids[@]} 2>/dev/null
  echo "$label $(sed -n "s/^$pat,$np,//p" <<<"$out" | head -1)"
 done
done | python3 -c '
import sys,statistics as S
v={}
for l in sys.stdin:
    print(l.rstrip(),flush=True); k,*x=l.split()
    v.setdefault(k,[]).append(float(x[0]) if x else float("nan"))
for k,a in v.items(): print("== %-14s med %.3f max %.3f  all %s"%(k,S.median(a),max(a)," ".join("%.2f"%t for t in a)))
'
