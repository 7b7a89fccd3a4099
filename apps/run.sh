#!/usr/bin/env bash
# apps/run.sh: the application suite (apps/) on dmpi and on the peer MPIs
# (MPICH 5.0.2 and Open MPI 5.0.11 from PyPI, installed into the cache as
# bench/compare.sh does), each app built from the same source by each MPI's
# own compiler wrapper.  Runs alternate between the MPIs (the first MPI of a
# round rotates), N rounds; every run's RESULT line goes to raw.csv, and
# apps/summarize.py writes the medians, the dmpi / best-peer table
# (summary.md) and, when matplotlib is there, PNG plots, all under
# docs/results/<date>-apps/ (or --out).  With --hosts N the jobs span N
# test hosts (tests/hosts/hosts.sh, network namespaces; needs root), ranks
# in blocks, every MPI with the settings of bench/hosts_lib.sh.
set -u -o pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
DMPI_PREFIX=$REPO/build
NPS=2,4
ROUNDS=5
APPS=
SKIP=
OUT=
RUN_TIMEOUT=300
SIZE=small
HOSTS=0

usage() {
    cat <<USAGE
usage: apps/run.sh [options]
  --nps LIST          rank counts (default $NPS)
  --rounds N          alternating rounds; the table shows medians (default $ROUNDS)
  --apps LIST         configurations to run (default all): stencil3d-funneled,
                      stencil2d-multiple-pers, fft2d-alltoall, fft2d-p2p,
                      presta_com, lu, bfs
  --size small|tiny   problem sizes (default small: about a second each;
                      tiny: the test sizes, for trying the script)
  --skip LIST         leave out some of: dmpi mpich5 ompi5
  --dmpi-prefix DIR   dmpi to test: DIR/bin/mpicc and DIR/bin/mpiexec (default build/)
  --out DIR           output folder (default docs/results/<date>-apps)
  --timeout S         limit for one run (default $RUN_TIMEOUT s)
  --hosts N           spread each job over N test hosts (2 or 3; root), ranks in
                      blocks (each rank count a multiple of N); default: this host
Environment: DMPI_CACHE (default <repo>/.cache) holds the peer installs.
USAGE
}

log() { printf '%s\n' "run.sh: $*" >&2; }
die() { log "error: $*"; exit 2; }
# shellcheck source=bench/cache_lib.sh
. "$REPO/bench/cache_lib.sh"

while [ $# -gt 0 ]; do
    case $1 in -h|--help) usage; exit 0 ;; esac
    [ $# -ge 2 ] || die "option $1 needs a value (see --help)"
    case $1 in
        --nps) NPS=$2 ;;
        --rounds) ROUNDS=$2 ;;
        --apps) APPS=$2 ;;
        --size) SIZE=$2 ;;
        --skip) SKIP=$2 ;;
        --dmpi-prefix) DMPI_PREFIX=$(cd -- "$2" 2>/dev/null && pwd) || die "no directory $2" ;;
        --out) OUT=$2 ;;
        --timeout) RUN_TIMEOUT=$2 ;;
        --hosts) HOSTS=$2 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift 2
done
[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "--rounds wants a positive number, got $ROUNDS"
[[ $NPS =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--nps wants a list of rank counts, got $NPS"
case $HOSTS in 0|2|3) ;; *) die "--hosts wants 2 or 3 (test hosts), got $HOSTS" ;; esac
if [ "$HOSTS" != 0 ]; then
    [ "$(id -u)" = 0 ] || { echo "SKIP: apps/run.sh --hosts needs root (network namespaces)"; exit 77; }
    for np in ${NPS//,/ }; do
        [ $((np % HOSTS)) = 0 ] || die "--nps: $np ranks do not divide over $HOSTS hosts"
    done
fi

# configuration name -> program and arguments
. "$REPO/apps/configs.sh"
case $SIZE in
    small) configs=("${APP_CONFIGS_SMALL[@]}") ;;
    tiny) configs=("${APP_CONFIGS_TINY[@]}") ;;
    *) die "--size wants small or tiny, got $SIZE" ;;
esac
declare -A CMD
ORDER=
for c in "${configs[@]}"; do
    CMD[${c%%|*}]=${c#*|}
    ORDER="$ORDER ${c%%|*}"
done
ORDER=${ORDER# }
if [ -n "$APPS" ]; then
    for a in ${APPS//,/ }; do [ -n "${CMD[$a]:-}" ] || die "unknown app configuration $a (see --help)"; done
    ORDER=${APPS//,/ }
fi

# libraries per program, as the wrappers need them
declare -A LIBS=([stencil]="-fopenmp -lm" [fft2d]="-lfftw3 -lm" [presta_com]="" [lu]="-lopenblas -lm" [bfs]="")

ALL_MPIS="dmpi mpich5 ompi5"
declare -A NAME=([dmpi]=dmpi [mpich5]=mpich-5.0.2 [ompi5]=openmpi-5.0.11)
declare -A CC_OF MPIEXEC_OF PREFIX_OF
skipped() { [[ ",$SKIP," == *",$1,"* ]]; }

setup_dmpi() {
    local d=$DMPI_PREFIX
    if [ ! -x "$d/bin/mpicc" ] || [ ! -x "$d/bin/mpiexec" ]; then
        log "no dmpi at $d (make first): skipping dmpi"
        return 0
    fi
    CC_OF[dmpi]=$d/bin/mpicc
    PREFIX_OF[dmpi]=$d
    MPIEXEC_OF[dmpi]="env LD_LIBRARY_PATH=$d/lib:$d${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} $d/bin/mpiexec"
}
setup_mpich5() {
    local p
    p=$(install_pip_peer mpich 5.0.2) || return 0
    CC_OF[mpich5]=$p/bin/mpicc_abi
    PREFIX_OF[mpich5]=$p
    MPIEXEC_OF[mpich5]="$p/bin/mpiexec -launcher fork"
}
setup_ompi5() {
    local p root_args=
    p=$(install_pip_peer openmpi 5.0.11) || return 0
    [ "$(id -u)" = 0 ] && root_args=--allow-run-as-root
    CC_OF[ompi5]=$p/bin/mpicc
    PREFIX_OF[ompi5]=$p
    MPIEXEC_OF[ompi5]="$p/bin/mpiexec $root_args --oversubscribe"
}

[ -n "$OUT" ] || OUT=$REPO/docs/results/$(date +%Y-%m-%d)-apps$([ "$HOSTS" = 0 ] || echo "-hosts$HOSTS")
mkdir -p "$OUT" "$CACHE" || die "cannot create $OUT or $CACHE"
if [ "$HOSTS" = 0 ]; then
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-apps.XXXXXX") || die "no temporary folder"
    trap 'rm -rf "$WORK"' EXIT
else # a folder every test host sees (each has its own /dev/shm only)
    mkdir -p "$CACHE/hosts" && WORK=$(mktemp -d "$CACHE/hosts/apps.XXXXXX") || die "no folder in $CACHE/hosts"
    # shellcheck source=bench/hosts_lib.sh
    . "$REPO/bench/hosts_lib.sh"
    trap 'rm -rf "$WORK"; hosts_down_if_brought_up' EXIT
    ensure_hosts
    write_launcher
    HOSTLIST=$H1,$H2$([ "$HOSTS" = 3 ] && echo ",$H3")
fi
trap 'exit 130' INT TERM

# build every program with every MPI's wrapper
mpis=()
for key in $ALL_MPIS; do
    skipped "$key" && continue
    "setup_$key"
    [ -n "${CC_OF[$key]:-}" ] || continue
    mkdir -p "$WORK/$key"
    for prog in stencil fft2d presta_com lu bfs; do
        # shellcheck disable=SC2086 # LIBS holds words
        "${CC_OF[$key]}" -std=gnu11 -O2 -o "$WORK/$key/$prog" "$REPO/apps/$prog.c" ${LIBS[$prog]} \
            >"$WORK/$key/$prog.build.log" 2>&1 \
            || log "$prog does not build with ${NAME[$key]} (${CC_OF[$key]}): $(head -n 1 "$WORK/$key/$prog.build.log")"
    done
    mpis+=("$key")
done
[ ${#mpis[@]} -gt 0 ] || die "no MPI to run"
log "MPIs: ${mpis[*]}; apps: $ORDER; ranks $NPS$([ "$HOSTS" = 0 ] || echo " over hosts $HOSTLIST"); $ROUNDS rounds; $(nproc) cores; output $OUT"

RAW=$OUT/raw.csv
echo "mpi,app,ranks,round,check,time_s,fom,unit" >"$RAW"
{
    echo "# apps/run.sh $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(uname -m), $ROUNDS rounds, ranks $NPS$([ "$HOSTS" = 0 ] || echo ", hosts $HOSTLIST (ranks in blocks)")"
    if [ "$HOSTS" != 0 ]; then
        for key in "${mpis[@]}"; do make_launch "$key" 1 "$HOSTLIST"; echo "# ${NAME[$key]} launch (for 1 rank per host): ${LAUNCH[*]}"; done
    fi
    for a in $ORDER; do echo "# $a: ${CMD[$a]}"; done
} >"$OUT/commands.txt"
failures=0
n_mpi=${#mpis[@]}
echo "round,when,loadavg_1min,loadavg_5min" >"$OUT/load.csv" # other users' load, for reading the figures
for ((round = 1; round <= ROUNDS; round++)); do
    log "round $round/$ROUNDS"
    read -r l1 l5 _ </proc/loadavg
    echo "$round,$(date -u +%H:%M:%S),$l1,$l5" >>"$OUT/load.csv"
    for np in ${NPS//,/ }; do
        for app in $ORDER; do
            cmd=${CMD[$app]} prog=${CMD[$app]%% *}
            for ((k = 0; k < n_mpi; k++)); do
                key=${mpis[$(((k + round - 1) % n_mpi))]} # rotate who goes first
                bin=$WORK/$key/$prog
                [ -x "$bin" ] || continue
                if [ "$HOSTS" = 0 ]; then
                    read -r -a launch <<<"${MPIEXEC_OF[$key]}"
                    launch+=(-n "$np")
                else
                    make_launch "$key" $((np / HOSTS)) "$HOSTLIST"
                    launch=("${LAUNCH[@]}")
                fi
                # shellcheck disable=SC2086 # the arguments are words
                out=$(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                    timeout "$RUN_TIMEOUT" "${launch[@]}" "$bin" ${cmd#"$prog"} 2>&1 </dev/null)
                rc=$?
                line=$(grep '^RESULT ' <<<"$out" | tail -n 1)
                if [ -z "$line" ] || [ $rc != 0 ]; then
                    log "  ${NAME[$key]} $app np=$np FAILED (exit $rc$([ $rc = 124 ] && echo ", timed out"))"
                    tail -n 3 <<<"$out" | sed 's/^/    /' >&2
                    echo "${NAME[$key]},$app,$np,$round,FAILED,,," >>"$RAW"
                    failures=$((failures + 1))
                    continue
                fi
                declare -A f=()
                for kv in $line; do [[ $kv == *=* ]] && f[${kv%%=*}]=${kv#*=}; done
                echo "${NAME[$key]},$app,$np,$round,${f[check]},${f[time_s]},${f[fom]},${f[unit]}" >>"$RAW"
                log "  ${NAME[$key]} $app np=$np: ${f[check]} ${f[time_s]} s, ${f[fom]} ${f[unit]}"
                unset f
            done
        done
    done
done

read -r l1 l5 _ </proc/loadavg
echo "end,$(date -u +%H:%M:%S),$l1,$l5" >>"$OUT/load.csv"
py=python3
if ! python3 -c 'import matplotlib' 2>/dev/null; then
    if [ -x "$CACHE/venv/bin/python" ] && "$CACHE/venv/bin/python" -c 'import matplotlib' 2>/dev/null; then
        py=$CACHE/venv/bin/python
    else
        log "no matplotlib (python3 -m pip install matplotlib): CSV and table only"
    fi
fi
"$py" "$REPO/apps/summarize.py" "$RAW" "$OUT"
[ "$failures" = 0 ] || { log "$failures runs failed"; exit 1; }
