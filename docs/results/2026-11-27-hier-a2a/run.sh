#!/bin/bash
# run.sh: node-aware alltoall(v) / allgatherv against flat, 4 ranks told
# they are 2 nodes x 2 (DMPI_PROCESS_MAPPING), alternating the modes in
# every round: flat (DMPI_COLL_HIER=0), hier (the default choice) and
# comb (every pair of nodes combined: DMPI_COLL_HIER_ALLTOALL=1e9, to find
# where combining stops paying). Writes raw.csv (round,mode,test,size,
# median_us,p99_us) and prints the table of medians (summary.py).
# Usage: docs/results/2026-11-27-hier-a2a/run.sh [BUILD] [ROUNDS] [OUT]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
rounds=${2:-3}
out=${3:-$here/raw.csv}
sizes=${SIZES:-8,64,256,1K,4K,16K,64K,256K}
tests=${TESTS:-alltoall,alltoallv,allgatherv}
echo "round,mode,test,size,median_us,p99_us" >"$out"
for r in $(seq 1 "$rounds"); do
    for mode in flat hier comb; do
        case $mode in
        flat) env=(DMPI_COLL_HIER=0) ;;
        hier) env=(DMPI_COLL_HIER=1) ;;
        comb) env=(DMPI_COLL_HIER=1 DMPI_COLL_HIER_ALLTOALL=1000000000) ;;
        esac
        env "${env[@]}" DMPI_PROCESS_MAPPING='(vector,(0,2,2))' \
            "$build/bin/mpiexec" -n 4 "$build/bench/coll_bench" -t "$tests" -m "$sizes" \
            -s 15 -i 10 -x 3 --csv |
            grep -v '^test,' | sed "s/^/$r,$mode,/" | cut -d, -f1-6 >>"$out"
        echo "round $r $mode done" >&2
    done
done
python3 "$here/summary.py" "$out"
