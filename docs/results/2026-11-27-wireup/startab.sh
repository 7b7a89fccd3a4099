#!/bin/bash
# startab.sh ROUNDS: wall time of finalize_first_contact (MPI_Init + MPI_Finalize) across
# test hosts, build-old (before wire-up) vs build, alternating; hangs (20 s) counted.
cd /work/main; L=$PWD/tests/hosts/launch; R=${1:-10}
prog=$PWD/build/tests/mpi/finalize_first_contact
for r in $(seq 1 $R); do
  for v in old new; do
    [ $v = old ] && lib=$PWD/build-old || lib=$PWD/build
    for cfg in "dmpi-h1,dmpi-h2 8" "dmpi-h1,dmpi-h2,dmpi-h3 12"; do
      set -- $cfg
      s=$(date +%s.%N)
      timeout 20 $L dmpi-h1 env LD_LIBRARY_PATH=$lib $lib/bin/mpiexec --launcher-exec $L -hosts $1 -n $2 $prog >/dev/null 2>&1; rc=$?
      echo "$v,$2,$r,$rc,$(echo "$(date +%s.%N) - $s" | bc)"
    done
  done
done
