#!/bin/bash
# run_mpi4py.sh: builds mpi4py from its source distribution against a dmpi
# build (through dmpi's mpicc) into a virtual environment inside that build
# tree, runs two of mpi4py's bench programs, then mpi4py's own test suite
# under dmpi's mpiexec at several rank counts. Areas dmpi does not implement
# yet are excluded by name, with the reason, from tests/mpi4py/excludes.
# Prints one line per step and, last, "N passed, N failed, N skipped" (tests
# summed over the rank counts). Exits 0 when nothing failed, 77 when it
# cannot run here (no python3 / venv, or mpi4py cannot be fetched).
# See docs/mpi4py.md.
set -u

usage() {
    cat <<'EOF'
usage: tests/mpi4py/run_mpi4py.sh [options] [BUILD] [-- main.py args]
  BUILD              dmpi build directory (default: $DMPI_BUILD or <repo>/build)
  --np LIST          rank counts for the test suite (default: 1,2,3,4)
  --mpi4py SPEC      mpi4py version to build (default: 4.1.*)
  --rebuild          rebuild mpi4py even when the build looks up to date
  --build-only       build mpi4py and stop
  --no-suite         build, run the bench programs, skip the test suite
  --no-excludes      run the whole suite (shows what dmpi still lacks)
  --timeout S        limit per mpiexec run in seconds (default: 900)
  -v, --verbose      show every test's result line
  -h, --help         this text
Arguments after -- go to mpi4py's test/main.py (e.g. -i test_p2p to run
only the point-to-point modules, or -k pattern).
Environment: PYTHON (default python3), PIP_CACHE_DIR (default:
BUILD/mpi4py/pip-cache), MPI4PY_NUMPY=1 also installs numpy so that the
suite exercises numpy buffers too.
EOF
}

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${DMPI_BUILD:-$ROOT/build}
NPS=1,2,3,4
SPEC='4.1.*'
REBUILD=0 BUILD_ONLY=0 SUITE=1 EXCLUDES=1 VERBOSE=0 TIMEOUT=900
EXTRA=()
while [ $# -gt 0 ]; do
    case $1 in
    --np) NPS=$2; shift 2 ;;
    --mpi4py) SPEC=$2; shift 2 ;;
    --rebuild) REBUILD=1; shift ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --no-suite) SUITE=0; shift ;;
    --no-excludes) EXCLUDES=0; shift ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -v | --verbose) VERBOSE=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; EXTRA=("$@"); break ;;
    -*) echo "run_mpi4py.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) BUILD=$1; shift ;;
    esac
done

BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "run_mpi4py.sh: no build directory $BUILD" >&2; exit 2; }
MPICC=$BUILD/bin/mpicc
MPIEXEC=$BUILD/bin/mpiexec
for f in "$MPICC" "$MPIEXEC" "$BUILD/libmpi_abi.so.1"; do
    [ -e "$f" ] || { echo "run_mpi4py.sh: $f missing: build dmpi first" >&2; exit 2; }
done
PYTHON=${PYTHON:-python3}
if ! command -v "$PYTHON" >/dev/null 2>&1 || ! "$PYTHON" -c 'import venv, ensurepip' 2>/dev/null; then
    echo "run_mpi4py.sh: SKIP: needs $PYTHON with the venv and ensurepip modules"
    exit 77
fi

WORK=$BUILD/mpi4py
VENV=$WORK/venv
LOGS=$WORK/logs
export PIP_CACHE_DIR=${PIP_CACHE_DIR:-$WORK/pip-cache}
export PIP_DISABLE_PIP_VERSION_CHECK=1
mkdir -p "$WORK" "$LOGS" || exit 2

step() { printf '%s\n' "== $*"; }
tail_log() { tail -n "${2:-20}" "$1" | sed 's/^/    | /'; }

# ------------------------------------------------------------ build mpi4py
# The sdist is fetched once (it also carries the test suite) and built from
# its unpacked directory: pip never caches wheels built from a local
# directory, so a rebuild always compiles against the current mpi.h.
# Equivalent one-liner: MPICC=BUILD/bin/mpicc pip install --no-binary mpi4py 'mpi4py==4.1.*'
if [ ! -x "$VENV/bin/python" ]; then
    step "creating virtual environment $VENV"
    "$PYTHON" -m venv "$VENV" >"$LOGS/venv.log" 2>&1 || { tail_log "$LOGS/venv.log"; exit 2; }
fi
PY=$VENV/bin/python

src=$(ls -d "$WORK"/src/mpi4py-* 2>/dev/null | tail -n 1)
if [ -z "$src" ] || ! "$PY" -c "import sys, fnmatch; sys.exit(not fnmatch.fnmatch('${src##*/mpi4py-}', '$SPEC'))"; then
    step "fetching the mpi4py $SPEC source distribution (pip download)"
    rm -rf "$WORK/sdist" "$WORK/src"
    mkdir -p "$WORK/sdist" "$WORK/src"
    if ! "$PY" -m pip download --no-deps --no-binary mpi4py "mpi4py==$SPEC" -d "$WORK/sdist" \
        >"$LOGS/download.log" 2>&1; then
        tail_log "$LOGS/download.log"
        echo "run_mpi4py.sh: SKIP: cannot fetch mpi4py $SPEC (no network or package index?)"
        exit 77
    fi
    tarball=$(ls "$WORK"/sdist/mpi4py-*.tar.gz | tail -n 1)
    tar -xzf "$tarball" -C "$WORK/src" || exit 2
    src=$(ls -d "$WORK"/src/mpi4py-* | tail -n 1)
fi
version=${src##*/mpi4py-}

# Rebuild when mpi.h, mpicc's flags or the mpi4py version changed (or on
# --rebuild).
stamp_now=$( {
    cat "$ROOT/include/mpi.h"
    "$MPICC" -showme:compile
    "$MPICC" -showme:link
    echo "$version $PY"
} | sha256sum | cut -c1-16)
stamp_old=$(cat "$WORK/build.stamp" 2>/dev/null)
if [ "$REBUILD" = 1 ] || [ "$stamp_now" != "$stamp_old" ] || ! "$PY" -c 'import mpi4py.MPI' 2>/dev/null; then
    step "building mpi4py $version with MPICC=$MPICC (log: $LOGS/build.log)"
    rm -f "$WORK/build.stamp"
    rm -rf "$src/build" # setuptools would reuse objects: it does not track mpi.h
    t0=$SECONDS
    if ! MPICC=$MPICC "$PY" -m pip install -v --force-reinstall --no-deps "$src" \
        >"$LOGS/build.log" 2>&1; then
        tail_log "$LOGS/build.log" 30
        echo "FAIL mpi4py build"
        echo "0 passed, 1 failed"
        exit 1
    fi
    echo "$stamp_now" >"$WORK/build.stamp"
    echo "   built in $((SECONDS - t0)) s"
else
    step "mpi4py $version already built against this dmpi ($VENV)"
fi
"$PY" -c 'import mpi4py; mpi4py.rc.initialize = False; from mpi4py import MPI
print("   mpi4py", mpi4py.__version__, "on", MPI.Get_library_version().strip())'
if [ "${MPI4PY_NUMPY:-0}" = 1 ] && ! "$PY" -c 'import numpy' 2>/dev/null; then
    step "installing numpy (MPI4PY_NUMPY=1)"
    "$PY" -m pip install numpy >"$LOGS/numpy.log" 2>&1 || { tail_log "$LOGS/numpy.log"; echo "note: numpy not installed"; }
fi
[ "$BUILD_ONLY" = 1 ] && exit 0

# ------------------------------------------------------------ run things
PASSED=0 FAILED=0 SKIPPED=0
FAILED_WHAT=() SUMMARY=()
LAST_RC=0
# run_mpi LOG NP CMD...: runs CMD under dmpi's mpiexec with a time limit
run_mpi() {
    local log=$1 np=$2
    shift 2
    timeout -k 10 $((TIMEOUT + 30)) "$MPIEXEC" --timeout "$TIMEOUT" -n "$np" "$@" >"$log" 2>&1 </dev/null
    LAST_RC=$?
}

bench() { # bench NP NAME CHECK-REGEX
    local np=$1 name=$2 want=$3 log=$LOGS/bench-$2-np$1.log
    run_mpi "$log" "$np" "$PY" -m mpi4py.bench "$name"
    if [ "$LAST_RC" = 0 ] && grep -Eq -- "$want" "$log"; then
        echo "PASS mpiexec -n $np python -m mpi4py.bench $name"
        [ "$VERBOSE" = 1 ] && tail_log "$log"
    else
        echo "FAIL mpiexec -n $np python -m mpi4py.bench $name (exit status $LAST_RC)"
        tail_log "$log"
        FAILED=$((FAILED + 1)); FAILED_WHAT+=("bench-$name")
    fi
}
step "mpi4py bench programs"
bench 2 helloworld 'Hello, World! I am process 1 of 2'
bench 4 ringtest 'time for 1 loops'
if [ "$SUITE" = 0 ]; then
    echo "$PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]; exit
fi

# Exclusions: tests/mpi4py/excludes, one per line: "module REGEX reason" or
# "test PATTERN reason" (see that file).
xargs_=()
if [ "$EXCLUDES" = 1 ]; then
    step "excluded (tests/mpi4py/excludes)"
    while read -r kind pat reason; do
        case $kind in '' | '#'*) continue ;; esac
        case $kind in
        module) xargs_+=(-e "$pat") ;;
        test) xargs_+=(-x "$pat") ;;
        *) echo "run_mpi4py.sh: bad line in excludes: $kind $pat" >&2; exit 2 ;;
        esac
        printf '   %-6s %-46s %s\n' "$kind" "$pat" "$reason"
    done <"$ROOT/tests/mpi4py/excludes"
fi

testdir=$src/test
for np in ${NPS//,/ }; do
    step "mpi4py test suite, $np rank(s): mpiexec -n $np python test/main.py -v ..."
    rm -f "$LOGS/suite-np$np".*
    t0=$SECONDS
    # every rank writes its own log: rank r -> suite-npN.r
    M4P_LOG=$LOGS/suite-np$np run_mpi "$LOGS/suite-np$np.mpiexec" "$np" /bin/sh -c \
        'cd "$1" && shift && exec "$@" >"$M4P_LOG.$PMI_RANK" 2>&1' sh \
        "$testdir" "$PY" main.py --no-builddir -v "${xargs_[@]}" "${EXTRA[@]}"
    rc=$LAST_RC
    # summarize prints "ran R passed P skipped S failed F" and the details
    out=$("$PY" "$ROOT/tests/mpi4py/summarize.py" "$np" "$LOGS/suite-np$np" "$rc" "$VERBOSE")
    sumrc=$?
    printf '%s\n' "$out" | sed -n '2,$p'
    read -r _ ran _ pass _ skip _ fail <<<"$(printf '%s\n' "$out" | head -n 1)"
    line="np=$np: ran $ran, passed $pass, skipped $skip, failed $fail ($((SECONDS - t0)) s, mpiexec exit status $rc)"
    PASSED=$((PASSED + pass)); SKIPPED=$((SKIPPED + skip)); FAILED=$((FAILED + fail))
    if [ "$sumrc" = 0 ]; then
        echo "PASS mpi4py suite $line"
    else
        echo "FAIL mpi4py suite $line"
        FAILED_WHAT+=("suite-np$np")
        [ "$fail" = 0 ] && FAILED=$((FAILED + 1)) # the run itself failed
        tail_log "$LOGS/suite-np$np.mpiexec" 10
    fi
    SUMMARY+=("$line")
done

step "summary (logs: $LOGS)"
for l in "${SUMMARY[@]}"; do echo "   $l"; done
[ ${#FAILED_WHAT[@]} -gt 0 ] && echo "failed: ${FAILED_WHAT[*]}"
echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
[ "$FAILED" -eq 0 ]
