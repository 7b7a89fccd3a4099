#!/usr/bin/env bash
# coll_tune.sh: compares dmpi's algorithms for each collective of
# coll_bench.c, to set the rules of src/coll/tuning.c. For every rank count
# and collective it runs coll_bench once per algorithm (forced with
# DMPI_COLL_<NAME>_ALGO) and once with the automatic choice, in turn, and
# prints per size the median microseconds of each, the best marked with *.
# usage: bench/coll_tune.sh [--build DIR] [--nps 2,4,8] [--sizes LIST]
#                           [--samples N] [--tests LIST] [--rounds N]
set -u -o pipefail
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$REPO/build
NPS=2,4,8
SIZES=8,256,1K,4K,16K,64K,256K,1M
SAMPLES=30
ROUNDS=1
TESTS=barrier,bcast,reduce,allreduce,allgather,alltoall
while [ $# -gt 0 ]; do
    case $1 in
        --build) BUILD=$(cd -- "$2" && pwd) ;;
        --nps) NPS=$2 ;;
        --sizes) SIZES=$2 ;;
        --samples) SAMPLES=$2 ;;
        --tests) TESTS=$2 ;;
        --rounds) ROUNDS=$2 ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "coll_tune: unknown option $1" >&2; exit 2 ;;
    esac
    shift 2
done
BENCH=$BUILD/bench/coll_bench
MPIEXEC=$BUILD/bin/mpiexec
[ -x "$BENCH" ] && [ -x "$MPIEXEC" ] || { echo "coll_tune: build $BUILD first (coll_bench, mpiexec)" >&2; exit 2; }

to_bytes() {
    case $1 in
        *K) echo $((${1%K} * 1024)) ;;
        *M) echo $((${1%M} * 1048576)) ;;
        *) echo "$1" ;;
    esac
}

declare -A ALGOS=(
    [barrier]="dissemination tree"
    [bcast]="binomial scatter_ring"
    [reduce]="binomial rabenseifner"
    [allreduce]="recursive_doubling rabenseifner ring"
    [allgather]="recursive_doubling bruck ring"
    [alltoall]="linear pairwise bruck"
)

for np in ${NPS//,/ }; do
    for t in ${TESTS//,/ }; do
        var=DMPI_COLL_${t^^}_ALGO
        declare -A med=()
        cols="auto ${ALGOS[$t]}"
        for ((round = 0; round < ROUNDS; round++)); do
            for a in $cols; do
                out=$(env "$var=$a" timeout 300 "$MPIEXEC" -n "$np" "$BENCH" -t "$t" -m "$SIZES" \
                      -s "$SAMPLES" --csv 2>/dev/null) || { echo "coll_tune: $t $a np=$np failed" >&2; continue; }
                while IFS=, read -r name size m99 rest; do
                    [ "$name" = "$t" ] || continue
                    med[$a,$size]="${med[$a,$size]:+${med[$a,$size]} }$m99"
                done <<<"$(printf '%s\n' "$out" | awk -F, '{print $1","$2","$3}')"
            done
        done
        printf '\n%s, %d ranks: median us per call (best of %d rounds), * = fastest algorithm\n' "$t" "$np" "$ROUNDS"
        printf '%8s' size
        for a in $cols; do printf ' %20s' "$a"; done
        printf '\n'
        sizes=$SIZES
        [ "$t" = barrier ] && sizes=0
        for size in ${sizes//,/ }; do
            size=$(to_bytes "$size")
            best= bestv=
            declare -A v=()
            for a in $cols; do
                x=$(printf '%s\n' ${med[$a,$size]:-} | sort -g | head -1)
                v[$a]=$x
                [ "$a" = auto ] && continue
                if [ -n "$x" ] && { [ -z "$bestv" ] || awk -v a="$x" -v b="$bestv" 'BEGIN{exit !(a<b)}'; }; then
                    best=$a bestv=$x
                fi
            done
            printf '%8s' "$size"
            for a in $cols; do
                mark=' '
                [ "$a" = "$best" ] && mark='*'
                printf ' %19s%s' "${v[$a]:--}" "$mark"
            done
            printf '\n'
            unset v
        done
        unset med
    done
done
