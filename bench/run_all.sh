#!/usr/bin/env bash
# run_all.sh: the whole side-by-side suite in one command (also `make bench`).
# Builds dmpi when it is missing, then runs bench/compare.sh (which installs
# the peer MPIs into the cache, builds dmpi_bench_pt2pt with every MPI's
# wrapper and alternates the MPIs round by round) over latency, bandwidth,
# bi-bandwidth, multi-pair bandwidth and message rate; prints the tables of
# bench/compare_summary.py and writes into results/<date>-<time>/ the raw
# samples, the medians as CSV, the tables and a PNG plot
# (bench/plot_results.py, matplotlib from a venv in the cache).
# See bench/README.md.
set -u -o pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
DMPI_PREFIX=
TESTS=lat,bw,bibw,mbw,msgrate
SIZES=1,4,16,64,256,1K,4K,16K,64K,256K,1M,4M,16M
RATE_SIZES=1,8,64,512
ROUNDS=10
SAMPLES=20
QUICK=0
PAIR_RANKS=
SKIP=
OUTDIR=
PLOT=1
RUN_TIMEOUT=300
SET=" "   # options given on the command line (--quick leaves those alone)

usage() {
    cat <<EOF
usage: bench/run_all.sh [options]        (or: make bench BENCH_ARGS="options")
  --quick             short run: sizes 1,64,4K,256K,16M, message rate at 8 B,
                      3 rounds x 10 samples (a few minutes on 2 cores)
  --tests LIST        of lat, bw, bibw, mbw, msgrate (default all)
  --sizes LIST        sizes for lat, bw, bibw, mbw (default $SIZES)
  --rate-sizes LIST   sizes for msgrate (default $RATE_SIZES)
  --rounds N          rounds of alternation between the MPIs (default $ROUNDS)
  --samples N         samples per size in each run (default $SAMPLES)
  --ranks N           ranks of mbw and msgrate, paired i <-> i+N/2 (default:
                      the online cores, $(nproc 2>/dev/null || echo '?') here)
  --dmpi-prefix DIR   dmpi to test: DIR/bin/mpicc, DIR/bin/mpiexec (default
                      <repo>/build, built with make when missing)
  --skip LIST         leave out some of: dmpi mpich5 ompi5 mpich4
  --out-dir DIR       where the results go (default results/<date>-<time>)
  --timeout S         limit for one benchmark run (default $RUN_TIMEOUT s)
  --no-plot           no PNG (and no matplotlib install)
Environment: DMPI_CACHE (default <repo>/.cache): peers, benchmark binaries and
the venv with matplotlib.  Progress on stderr, tables on stdout.
EOF
}

log() { printf '%s\n' "run_all: $*" >&2; }
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/cache_lib.sh"
die() { log "error: $*"; exit 2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            -h|--help) usage; exit 0 ;;
            --quick) QUICK=1; shift; continue ;;
            --no-plot) PLOT=0; shift; continue ;;
        esac
        [ $# -ge 2 ] || { usage >&2; die "option $1 needs a value"; }
        case $1 in
            --tests) TESTS=$2 ;;
            --sizes) SIZES=$2 ;;
            --rate-sizes) RATE_SIZES=$2 ;;
            --rounds) ROUNDS=$2 ;;
            --samples) SAMPLES=$2 ;;
            --ranks) PAIR_RANKS=$2 ;;
            --dmpi-prefix) DMPI_PREFIX=$2 ;;
            --skip) SKIP=$2 ;;
            --out-dir) OUTDIR=$2 ;;
            --timeout) RUN_TIMEOUT=$2 ;;
            *) usage >&2; die "unknown option $1" ;;
        esac
        SET+="$1 "
        shift 2
    done
    if [ "$QUICK" = 1 ]; then
        [[ $SET == *" --sizes "* ]] || SIZES=1,64,4K,256K,16M
        [[ $SET == *" --rate-sizes "* ]] || RATE_SIZES=8
        [[ $SET == *" --rounds "* ]] || ROUNDS=3
        [[ $SET == *" --samples "* ]] || SAMPLES=10
    fi
}

# dmpi: the given prefix, or <repo>/build, built with `make` when missing.
setup_dmpi() {
    [[ ",$SKIP," == *",dmpi,"* ]] && return 0
    if [ -n "$DMPI_PREFIX" ]; then
        [ -x "$DMPI_PREFIX/bin/mpicc" ] && [ -x "$DMPI_PREFIX/bin/mpiexec" ] \
            || die "no dmpi at $DMPI_PREFIX (needs bin/mpicc and bin/mpiexec)"
        return 0
    fi
    DMPI_PREFIX=$REPO/build
    if [ ! -x "$DMPI_PREFIX/bin/mpicc" ] || [ ! -x "$DMPI_PREFIX/bin/mpiexec" ]; then
        log "no dmpi in $DMPI_PREFIX: building it with make (log: $OUTDIR/build.log)"
        nice make -C "$REPO" build >"$OUTDIR/build.log" 2>&1 \
            || { tail -n 20 "$OUTDIR/build.log" >&2; die "building dmpi failed"; }
    fi
}


main() {
    parse_args "$@"
    command -v python3 >/dev/null || die "python3 is needed"
    [ -n "$OUTDIR" ] || OUTDIR=$REPO/results/$(date +%Y%m%d-%H%M%S)
    mkdir -p "$OUTDIR" || die "cannot create $OUTDIR"
    OUTDIR=$(cd -- "$OUTDIR" && pwd)
    setup_dmpi

    local t rate=0
    for t in ${TESTS//,/ }; do [ "$t" = msgrate ] && rate=1; done
    local -a args=(--suite pt2pt --tests "$TESTS" --sizes "$SIZES" --rounds "$ROUNDS"
                   --samples "$SAMPLES" --timeout "$RUN_TIMEOUT" --out "$OUTDIR/samples.csv")
    [ "$rate" = 1 ] && args+=(--test-sizes "msgrate=$RATE_SIZES")
    [ -n "$PAIR_RANKS" ] && args+=(--pair-ranks "$PAIR_RANKS")
    [ -n "$DMPI_PREFIX" ] && args+=(--dmpi-prefix "$DMPI_PREFIX")
    [ -n "$SKIP" ] && args+=(--skip "$SKIP")

    {
        echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
        echo "host: $(uname -srm), $(nproc) online cores"
        echo "command: bench/run_all.sh $*"
        echo "compare.sh ${args[*]}"
        echo "dmpi: ${DMPI_PREFIX:-skipped}"
    } >"$OUTDIR/info.txt"
    log "results go to $OUTDIR"

    local t0=$SECONDS rc=0
    # compare.sh: peers, builds, the alternating rounds, the tables (stdout)
    "$REPO/bench/compare.sh" "${args[@]}" 2> >(tee "$OUTDIR/progress.log" >&2) \
        | tee "$OUTDIR/summary.txt" || rc=$?
    [ -s "$OUTDIR/samples.csv" ] && [ "$(wc -l <"$OUTDIR/samples.csv")" -gt 1 ] \
        || die "no samples were taken (see above)"
    if [[ ",$SKIP," != *",dmpi,"* ]] && ! grep -q '^dmpi,' "$OUTDIR/samples.csv"; then
        log "WARNING: dmpi took no part (its benchmark build or every run failed, see above):"
        log "the tables show the peers only"
        rc=1
    fi

    local order
    order=$(awk -F, 'NR > 1 && !seen[$1]++ { printf "%s%s", n++ ? "," : "", $1 }' "$OUTDIR/samples.csv")
    python3 "$REPO/bench/compare_summary.py" --order "$order" \
        --medians-csv "$OUTDIR/medians.csv" "$OUTDIR/samples.csv" >/dev/null \
        || log "writing medians.csv failed"

    local plot="plot skipped (--no-plot)"
    if [ "$PLOT" = 1 ]; then
        local py
        if py=$(plot_python) && "$py" "$REPO/bench/plot_results.py" --order "$order" \
                -o "$OUTDIR/plot.png" "$OUTDIR/samples.csv" >/dev/null; then
            plot="$OUTDIR/plot.png"
        else
            plot="PLOT SKIPPED: matplotlib could not be installed or the plot failed (see above); rerun later with: <python with matplotlib> bench/plot_results.py $OUTDIR/samples.csv"
        fi
    fi

    echo
    echo "results ($(( (SECONDS - t0) / 60 )) min $(( (SECONDS - t0) % 60 )) s): $OUTDIR"
    echo "  samples.csv  every sample (mpi,round,test,size,sample,us)"
    echo "  medians.csv  median, p99 and ratio to the best peer per test, size and MPI"
    echo "  summary.txt  the tables above; progress.log, info.txt"
    echo "  plot:        $plot"
    [ "$rc" = 0 ] || log "some runs failed (see progress.log); the tables leave them out"
    return "$rc"
}

main "$@"
