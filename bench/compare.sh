#!/usr/bin/env bash
# compare.sh: side-by-side benchmark of dmpi against peer MPIs on this
# machine.  Installs the peers into a cache (MPICH 5.0.2 and Open MPI 5.0.11
# from PyPI; Debian's MPICH 4.0.2 is used when /usr/bin/mpicc.mpich exists),
# builds the bench/ sources with every MPI's compiler wrapper, runs the MPIs
# in alternation (round 1: dmpi, peer, peer, ...; round 2: ...), pools the
# samples of all rounds and prints one table per test (bench/compare_summary.py).
# Raw samples go to results/compare-<time>.csv.  See bench/README.md.
# --suite coll runs bench/coll_bench.c instead, at 2, 4 and 8 ranks.
# The pt2pt tests mbw and msgrate run on --pair-ranks ranks (default: the
# online cores) and are named mbw/npN, msgrate/npN.  bench/run_all.sh drives
# this script for the all-in-one suite.
set -u -o pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
DMPI_PREFIX=$REPO/build
SUITE=pt2pt
TESTS=
SIZES=
NPS=
ROUNDS=5
SAMPLES=20
ITERS=
WARMUP=
SKIP=
OUT=
RUN_TIMEOUT=300
NRANKS=2
PAIR_RANKS=
declare -A TEST_SIZES   # --test-sizes TEST=LIST: sizes for one test

# The MPIs, in the order they run within a round.  key: label in tables.
ALL_MPIS="dmpi mpich5 ompi5 mpich4"
declare -A NAME=([dmpi]=dmpi [mpich5]=mpich-5.0.2 [ompi5]=openmpi-5.0.11 [mpich4]=mpich-4.0.2-debian)
declare -A CC_OF MPIEXEC_OF   # filled by setup_* for the MPIs that are usable

usage() {
    cat <<EOF
usage: bench/compare.sh [options]
  --suite NAME        pt2pt (dmpi_bench_pt2pt, 2 ranks; default), coll
                      (coll_bench: collective latency at several rank counts) or
                      rma (rma_bench: one-sided latency with flush, 2 ranks)
  --tests LIST        tests, comma-separated: pt2pt: lat, bw, bibw, mbw, msgrate
                      (default lat,bw,bibw);
                      coll: barrier, bcast, allreduce, reduce, allgather, alltoall
                      (default all)
  --sizes LIST        message sizes: a,b,c or min:max, K/M suffixes (default
                      pt2pt 0,8,1K,8K,64K,1M,4M; coll 8,1K,64K,1M)
  --test-sizes T=LIST sizes for test T only (repeatable), e.g. msgrate=1,8,64
  --nps LIST          coll: rank counts (default 2,4,8)
  --pair-ranks N      pt2pt mbw, msgrate: ranks, paired i <-> i+N/2 (default:
                      online cores, at least 2)
  --rounds N          rounds of alternation (default $ROUNDS)
  --samples N         samples per size in each run (default $SAMPLES); the table
                      pools rounds x samples per MPI
  --iters N           iterations per sample (default: the benchmark's)
  --warmup N          warm-up iterations per size (default: the benchmark's)
  --dmpi-prefix DIR   dmpi to test: DIR/bin/mpicc, DIR/bin/mpiexec (default $DMPI_PREFIX)
  --skip LIST         leave out some of: $ALL_MPIS
  --out FILE          raw CSV (default results/compare-<date>-<time>.csv)
  --timeout S         limit for one benchmark run (default $RUN_TIMEOUT s)
Environment: DMPI_CACHE (default <repo>/.cache) holds the peer installs and the
benchmark binaries.  Progress goes to stderr, the tables to stdout.
EOF
}

log() { printf '%s\n' "compare: $*" >&2; }
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/cache_lib.sh"
die() { log "error: $*"; exit 2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in -h|--help) usage; exit 0 ;; esac
        [ $# -ge 2 ] || { usage >&2; die "option $1 needs a value"; }
        case $1 in
            --suite) SUITE=$2 ;;
            --tests) TESTS=$2 ;;
            --nps) NPS=$2 ;;
            --pair-ranks) PAIR_RANKS=$2 ;;
            --test-sizes)
                [[ $2 == ?*=?* ]] || die "--test-sizes wants TEST=LIST, got $2"
                TEST_SIZES[${2%%=*}]=${2#*=} ;;
            --sizes) SIZES=$2 ;;
            --rounds) ROUNDS=$2 ;;
            --samples) SAMPLES=$2 ;;
            --iters) ITERS=$2 ;;
            --warmup) WARMUP=$2 ;;
            --dmpi-prefix) DMPI_PREFIX=$(cd -- "$2" 2>/dev/null && pwd) || die "no directory $2" ;;
            --skip) SKIP=$2 ;;
            --out) OUT=$2 ;;
            --timeout) RUN_TIMEOUT=$2 ;;
            *) usage >&2; die "unknown option $1" ;;
        esac
        shift 2
    done
    if [ -z "$PAIR_RANKS" ]; then
        PAIR_RANKS=$(nproc 2>/dev/null || echo 2)
        [ "$PAIR_RANKS" -ge 2 ] || PAIR_RANKS=2
    fi
    for n in "$ROUNDS" "$SAMPLES" "$RUN_TIMEOUT" "$PAIR_RANKS" ${ITERS:+"$ITERS"} ${WARMUP:+"$WARMUP"}; do
        [[ $n =~ ^[0-9]+$ ]] || die "not a number: $n"
    done
    [ "$PAIR_RANKS" -ge 2 ] || die "--pair-ranks needs at least 2"
    case $SUITE in
        pt2pt)
            BENCH=dmpi_bench_pt2pt
            TESTS=${TESTS:-lat,bw,bibw}
            SIZES=${SIZES:-0,8,1K,8K,64K,1M,4M}
            NPS=2
            for t in ${TESTS//,/ }; do
                case $t in lat|bw|bibw|mbw|msgrate) ;;
                    *) die "unknown test $t (lat, bw, bibw, mbw, msgrate)" ;;
                esac
            done ;;
        coll)
            BENCH=coll_bench
            TESTS=${TESTS:-barrier,bcast,allreduce,reduce,allgather,alltoall}
            SIZES=${SIZES:-8,1K,64K,1M}
            NPS=${NPS:-2,4,8}
            for t in ${TESTS//,/ }; do
                case $t in barrier|bcast|allreduce|reduce|allgather|alltoall) ;;
                    *) die "unknown test $t (barrier, bcast, allreduce, reduce, allgather, alltoall)" ;;
                esac
            done
            for n in ${NPS//,/ }; do [[ $n =~ ^[0-9]+$ ]] || die "not a rank count: $n"; done ;;
        rma)
            BENCH=rma_bench
            TESTS=${TESTS:-put,get,acc,fop,cas,put_bw,get_bw}
            SIZES=${SIZES:-64K,4M}
            NPS=2
            for t in ${TESTS//,/ }; do
                case $t in put|get|acc|fop|cas|put_bw|get_bw) ;;
                    *) die "unknown test $t (put, get, acc, fop, cas, put_bw, get_bw)" ;;
                esac
            done ;;
        *) die "unknown suite $SUITE (pt2pt, coll, rma)" ;;
    esac
}

skipped() { [[ ",$SKIP," == *",$1,"* ]]; }

# pt2pt tests on all ranks in pairs (the others use 2 ranks)
multi_pair() { [ "$SUITE" = pt2pt ] && { [ "$1" = mbw ] || [ "$1" = msgrate ]; }; }

# Ranks and sizes of one test (for the coll suite the ranks come from --nps).
ranks_for() { if multi_pair "$1"; then echo "$PAIR_RANKS"; else echo "$2"; fi; }
sizes_for() { echo "${TEST_SIZES[$1]:-$SIZES}"; }


setup_dmpi() {
    local d=$DMPI_PREFIX
    if [ -x "$d/bin/mpicc" ] && [ -x "$d/bin/mpiexec" ]; then
        CC_OF[dmpi]=$d/bin/mpicc
        # the library may sit in DIR (a build tree) or DIR/lib (an install)
        MPIEXEC_OF[dmpi]="env LD_LIBRARY_PATH=$d/lib:$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $d/bin/mpiexec"
    else
        log "no dmpi at $d (needs bin/mpicc and bin/mpiexec; see --dmpi-prefix): skipping dmpi"
    fi
}

setup_mpich5() {
    local p
    p=$(install_pip_peer mpich 5.0.2) || return 0
    CC_OF[mpich5]=$p/bin/mpicc_abi   # the standard ABI, the same mpi.h ABI as dmpi
    MPIEXEC_OF[mpich5]="$p/bin/mpiexec -launcher fork"
}

setup_ompi5() {
    local p root_args=
    p=$(install_pip_peer openmpi 5.0.11) || return 0
    [ "$(id -u)" = 0 ] && root_args=--allow-run-as-root
    CC_OF[ompi5]=$p/bin/mpicc
    MPIEXEC_OF[ompi5]="$p/bin/mpiexec $root_args --oversubscribe"
}

setup_mpich4() {
    if [ -x /usr/bin/mpicc.mpich ] && [ -x /usr/bin/mpiexec.mpich ]; then
        CC_OF[mpich4]=/usr/bin/mpicc.mpich
        MPIEXEC_OF[mpich4]="/usr/bin/mpiexec.mpich -launcher fork"
    else
        log "no Debian MPICH (apt-get install mpich libmpich-dev): skipping mpich4"
    fi
}

# Build the benchmark with MPI $1's wrapper into $WORK/$1/.
build_bench() {
    local key=$1 dir=$WORK/$1
    mkdir -p "$dir"
    log "building $BENCH with ${CC_OF[$key]}"
    "${CC_OF[$key]}" -O2 -o "$dir/$BENCH" \
        "$REPO/bench/$BENCH.c" "$REPO/bench/bench_util.c" 2>"$dir/build.log" \
        || { cat "$dir/build.log" >&2; log "build with ${NAME[$key]} failed: skipping it"; return 1; }
}

# One benchmark run; appends "mpi,round,test,size,sample,us" lines to $OUT
# (coll suite and pt2pt mbw/msgrate: the test is named test/npN).
run_one() {
    local key=$1 round=$2 test=$3 np=${4:-$NRANKS} tmp=$WORK/$1/run
    local label=$test
    { [ "$SUITE" = coll ] || multi_pair "$test"; } && label=$test/np$np
    RUN_NO=$((RUN_NO + 1))
    local where="[round $round/$ROUNDS, run $RUN_NO/$RUN_TOTAL]"
    local -a cmd
    read -r -a cmd <<<"${MPIEXEC_OF[$key]}"
    cmd+=(-n "$np" "$WORK/$key/$BENCH" -t "$test" -m "$(sizes_for "$test")" -s "$SAMPLES" --raw)
    [ -n "$ITERS" ] && cmd+=(-i "$ITERS")
    [ -n "$WARMUP" ] && cmd+=(-x "$WARMUP")

    local t0=${EPOCHREALTIME:-$SECONDS} rc=0
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        timeout "$RUN_TIMEOUT" "${cmd[@]}" >"$tmp.out" 2>"$tmp.err" </dev/null || rc=$?
    if [ $rc -ne 0 ]; then
        log "  $where ${NAME[$key]} $label FAILED (exit $rc$([ $rc = 124 ] && echo ", timed out after ${RUN_TIMEOUT}s")): ${cmd[*]}"
        tail -n 5 "$tmp.err" | sed 's/^/    /' >&2
        FAILURES+=("${NAME[$key]} $label round $round")
        return 1
    fi
    grep -E '^[a-z_]+,[0-9]+,[0-9]+,' "$tmp.out" \
        | sed "s|^$test,|$label,|; s|^|${NAME[$key]},$round,|" >>"$OUT"
    local secs
    secs=$(awk -v a="$t0" -v b="${EPOCHREALTIME:-$SECONDS}" 'BEGIN { printf "%.1f", b - a }')
    log "  $where ${NAME[$key]} $label: $(($(grep -c . "$tmp.out") - 1)) samples, $secs s"
}

main() {
    parse_args "$@"
    command -v python3 >/dev/null || die "python3 is needed"
    mkdir -p "$CACHE" "$REPO/results" || die "cannot create $CACHE or results/"
    [ -n "$OUT" ] || OUT=$REPO/results/compare-$(date +%Y%m%d-%H%M%S).csv
    # binaries and run outputs of this invocation only: runs side by side
    # (other users of the same cache) must not overwrite each other's
    mkdir -p "$CACHE/compare" || die "cannot create $CACHE/compare"
    WORK=$(mktemp -d "$CACHE/compare/run.XXXXXX") || die "cannot create a folder in $CACHE/compare"
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM

    local key mpis=()
    for key in $ALL_MPIS; do
        skipped "$key" && continue
        "setup_$key"
        [ -n "${CC_OF[$key]:-}" ] && build_bench "$key" && mpis+=("$key")
    done
    [ ${#mpis[@]} -gt 0 ] || die "no MPI to run"
    log "MPIs: $(for k in "${mpis[@]}"; do printf '%s ' "${NAME[$k]}"; done)"
    local t extra=
    for t in ${TESTS//,/ }; do
        [ -n "${TEST_SIZES[$t]:-}" ] && extra+=", $t sizes ${TEST_SIZES[$t]}"
        multi_pair "$t" && extra+=", $t on $PAIR_RANKS ranks"
    done
    log "suite $SUITE: tests $TESTS, sizes $SIZES$extra, ranks $NPS, $ROUNDS rounds x $SAMPLES samples; raw CSV: $OUT"

    FAILURES=()
    RUN_NO=0
    RUN_TOTAL=$((ROUNDS * ${#mpis[@]} * $(wc -w <<<"${NPS//,/ }") * $(wc -w <<<"${TESTS//,/ }")))
    echo "mpi,round,test,size,sample,us" >"$OUT"
    local round test np
    for ((round = 1; round <= ROUNDS; round++)); do
        log "round $round/$ROUNDS"
        for np in ${NPS//,/ }; do
            for test in ${TESTS//,/ }; do
                for key in "${mpis[@]}"; do
                    run_one "$key" "$round" "$test" "$(ranks_for "$test" "$np")"
                done
            done
        done
    done

    local order=
    for key in "${mpis[@]}"; do order+=${order:+,}${NAME[$key]}; done
    python3 "$REPO/bench/compare_summary.py" --order "$order" "$OUT"
    if [ ${#FAILURES[@]} -gt 0 ]; then
        log "${#FAILURES[@]} runs failed: ${FAILURES[*]}"
        exit 1
    fi
}

main "$@"
