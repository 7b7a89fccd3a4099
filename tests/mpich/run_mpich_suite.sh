#!/bin/bash
# run_mpich_suite.sh: runs MPICH's own MPI test suite (test/mpi of the
# MPICH source that Debian ships, 4.0.2 on bookworm) against a dmpi build:
# fetches the source with `apt-get source` (into a private apt state, the
# system's sources are not touched), configures the suite with dmpi's
# mpicc and mpiexec, builds and runs the chosen directories through the
# suite's own `runtests`, and prints per directory how many tests ran,
# passed and failed. Tests that are MPICH's own business (MPIX_ calls,
# MPICH's control variables, behaviour the standard leaves open) are left
# out by name from tests/mpich/excludes, each with its reason.
#
# Nothing of MPICH is kept in this repository: the suite lives under
# BUILD/mpich-suite. The runs are long (an hour and more for every
# directory on 2 cores), so this is not part of CI; see docs/conformance.md.
#
# Usage: tests/mpich/run_mpich_suite.sh [options] [BUILD]
#   --dirs LIST     comma-separated suite directories (default: attr,
#                   coll,comm,datatype,errhan,group,info,init,pt2pt,rma,topo)
#   --src DIR       an MPICH source tree to use instead of fetching one
#   --maxnp N       largest rank count to run (default 8)
#   --timeout S     MPITEST_TIMEOUT, seconds per test (default 180)
#   --no-excludes   run every test of the testlists
# Exit status: 0 no test failed, 1 some failed, 2 usage, 77 cannot run here.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
DIRS=attr,coll,comm,datatype,errhan,group,info,init,pt2pt,rma,topo
SRC="" MAXNP=8 TMO=180 EXCLUDES=1
while [ $# -gt 0 ]; do
    case $1 in
    --dirs) DIRS=$2; shift 2 ;;
    --src) SRC=$2; shift 2 ;;
    --maxnp) MAXNP=$2; shift 2 ;;
    --timeout) TMO=$2; shift 2 ;;
    --no-excludes) EXCLUDES=0; shift ;;
    -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_mpich_suite.sh: unknown option $1" >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
    esac
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "run_mpich_suite.sh: no build directory $1" >&2; exit 2; }
[ -x "$BUILD/bin/mpicc" ] && [ -x "$BUILD/bin/mpiexec" ] || { echo "run_mpich_suite.sh: $BUILD has no bin/mpicc and bin/mpiexec" >&2; exit 2; }
WORK=$BUILD/mpich-suite
mkdir -p "$WORK"

# The MPICH source: Debian's source package, fetched once.
fetch_source() {
    local apt=$WORK/apt
    mkdir -p "$apt/lists/partial" "$apt/parts" "$WORK/dl"
    [ -r /etc/apt/sources.list.d/debian.sources ] || return 1
    sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > "$apt/parts/src.sources"
    local o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/parts" -o "Dir::State::Lists=$apt/lists")
    apt-get "${o[@]}" update -qq >"$WORK/apt.log" 2>&1 || return 1
    (cd "$WORK/dl" && apt-get "${o[@]}" source --download-only mpich) >>"$WORK/apt.log" 2>&1 || return 1
    local tarball
    tarball=$(ls "$WORK"/dl/mpich_*.orig.tar.* 2>/dev/null | head -1)
    [ -n "$tarball" ] || return 1
    tar -xf "$tarball" -C "$WORK" --wildcards 'mpich-*/test/mpi' || return 1
}
if [ -z "$SRC" ]; then
    SRC=$(ls -d "$WORK"/mpich-* 2>/dev/null | head -1)
    if [ -z "$SRC" ]; then
        echo "== fetching MPICH's source package (apt-get source mpich)"
        fetch_source || { echo "SKIP: cannot fetch the MPICH source package (log: $WORK/apt.log)"; exit 77; }
        SRC=$(ls -d "$WORK"/mpich-* | head -1)
    fi
fi
SUITE=$SRC/test/mpi
[ -x "$SUITE/configure" ] || { echo "run_mpich_suite.sh: no test/mpi/configure under $SRC" >&2; exit 2; }
echo "== MPICH test suite from $SRC against $BUILD"

if ! grep -qs "with-mpi=$BUILD" "$SUITE/config.log"; then
    echo "== configuring the suite (log: $WORK/configure.log)"
    # no GPU tests: a machine with the CUDA toolkit but no GPU would make
    # every buffer allocation of the suite's helpers assert
    (cd "$SUITE" && ./configure --with-mpi="$BUILD" --enable-strictmpi --disable-cxx \
        --enable-fortran=none --enable-romio --enable-threads=multiple --without-cuda \
        --without-ze) >"$WORK/configure.log" 2>&1 ||
        { echo "FAIL: configure (see $WORK/configure.log)"; exit 1; }
    make -C "$SUITE/util" >"$WORK/util.log" 2>&1 && make -C "$SUITE/dtpools" >>"$WORK/util.log" 2>&1 ||
        { echo "FAIL: building the suite's helpers (see $WORK/util.log)"; exit 1; }
fi
# MPI_Type_hvector/hindexed for the suite's dtpools (tests/mpich/mpi1_shim.c)
"$BUILD/bin/mpicc" -c -o "$WORK/mpi1_shim.o" "$ROOT/tests/mpich/mpi1_shim.c" ||
    { echo "FAIL: compiling tests/mpich/mpi1_shim.c"; exit 1; }

# DIR/testlist without the excluded tests: tests/mpich/excludes has lines
# "DIR TEST reason..." ('#' comments); a test is left out at every rank count.
filtered_testlist() {
    local dir=$1 out=$2
    if [ "$EXCLUDES" = 0 ]; then
        cp "$SUITE/$dir/testlist" "$out"
        return
    fi
    awk -v dir="$dir" -v list="$(grep -v '^#' "$ROOT/tests/mpich/excludes")" '
        BEGIN { n = split(list, l, "\n"); for (i = 1; i <= n; i++) { split(l[i], f, " "); if (f[1] == dir) skip[f[2]] = 1 } }
        { if ($1 in skip) print "# excluded by dmpi: " $0; else print }' "$SUITE/$dir/testlist" >"$out"
}

total_run=0 total_fail=0
summary=()
for dir in ${DIRS//,/ }; do
    [ -r "$SUITE/$dir/testlist" ] || { echo "run_mpich_suite.sh: no directory $dir in the suite" >&2; exit 2; }
    echo "== $dir: building (log: $WORK/build-$dir.log)"
    make -C "$SUITE/$dir" -k -j2 LIBS="$WORK/mpi1_shim.o" >"$WORK/build-$dir.log" 2>&1
    filtered_testlist "$dir" "$SUITE/$dir/testlist.dmpi"
    echo "== $dir: running (log: $WORK/run-$dir.log)"
    (cd "$SUITE/$dir" && MPITEST_TIMEOUT=$TMO ../runtests -srcdir=. -tests=testlist.dmpi -testdirs=. \
        -mpiexec="$BUILD/bin/mpiexec" -maxnp="$MAXNP" -tapfile="$WORK/run-$dir.tap") >"$WORK/run-$dir.log" 2>&1
    run=$(grep -Ec '^(not )?ok ' "$WORK/run-$dir.tap")
    failed=$(grep -Ec '^not ok ' "$WORK/run-$dir.tap")
    grep -E '^not ok ' "$WORK/run-$dir.tap" | sed "s/^/   $dir: /"
    line="$dir: ran $run, passed $((run - failed)), failed $failed"
    echo "   $line"
    summary+=("$line")
    total_run=$((total_run + run))
    total_fail=$((total_fail + failed))
done
echo "== summary (logs and TAP files: $WORK)"
printf '   %s\n' "${summary[@]}"
echo "$((total_run - total_fail)) passed, $total_fail failed"
[ "$total_fail" = 0 ]
