#!/bin/bash
# run_tests.sh: runs dmpi's tests and prints one line per run, ending with
# "N passed, N failed" (", N skipped" when some were skipped).
#
#  - MPI tests: every entry of tests/mpi/testlist, under mpiexec, once per
#    rank count; see tests/mpi/README.md for the list format.
#  - Fortran MPI tests: tests/fortran/testlist, programs in
#    <build>/tests/fortran (one SKIP line, "no Fortran compiler", when the
#    build has no Fortran bindings); not run with --list or --bindir.
#  - the application suite: every entry of tests/apps/testlist (same
#    format), programs from <build>/apps; an app that CMake left out for a
#    missing library (<build>/apps/NAME.skipped) is reported as SKIP.  Runs
#    unless --list or --bindir is given.
#  - unit tests: every executable <build>/tests/unit/test_*.
#  - if present and executable: tests/abi/check_abi.sh,
#    tests/abi/check_exports.sh <build>/libmpi_abi.so.1,
#    tests/abi/cross_abi.sh <build>,
#    tests/launcher/test_launcher.sh <build>/bin,
#    tests/pmi/test_pmi_client.sh <build> (PMI-2 client, bad launchers),
#    tests/integration/test_cmake_pkgconfig.sh <build> (CMake, pkg-config,
#    compiler wrappers, install tree), tests/integration/check_env_doc.sh,
#    tests/profile/test_profile.sh <build> (mpiexec --profile at 1-4 ranks),
#    tests/dynproc/test_two_runs.sh <build> (connect/accept between two runs),
#    tests/faults/run_faults.sh <build> (fault-injection matrix) and
#    tests/fuzz/run_fuzz.sh --replay (fuzzer regression corpus).
# Exit status 77 from a unit test or script means SKIP.  Every run has a
# timeout; on expiry its whole process group is killed.  Exits 1 if anything
# failed.
set -u

usage() {
    cat <<'EOF'
usage: tests/run_tests.sh [options] [FILTER]
  FILTER            extended regex; only tests whose name matches run
  -b, --build DIR   build directory (default: $DMPI_BUILD or <repo>/build)
  --mpiexec CMD     launcher, may include options (default: <build>/bin/mpiexec)
  --bindir DIR      where the MPI test programs are (default: <build>/tests/mpi)
  --np LIST         only these rank counts, e.g. 1,2 (default: the list's)
  --timeout S       default timeout per run in seconds (default: 60)
  --list FILE       test list (default: tests/mpi/testlist, then
                    tests/fortran/testlist; with --list only FILE)
  --no-fortran      leave out tests/fortran/testlist
  --mpi-only        skip unit tests and the abi / launcher scripts
  -v, --verbose     show the output of passing runs too
  -k, --keep        keep the output of every run (directory printed at the end)
  -h, --help        this text
Example with another MPI:
  tests/run_tests.sh --mpiexec /opt/mpich/bin/mpiexec --bindir /tmp/bin --mpi-only
EOF
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${DMPI_BUILD:-$ROOT/build}
MPIEXEC=""
BINDIR=""
NP_ONLY=""
DEFAULT_TIMEOUT=60
LIST=$ROOT/tests/mpi/testlist
FORTRAN=1
APPS_LIST=$ROOT/tests/apps/testlist
MPI_ONLY=0
VERBOSE=0
KEEP=0
FILTER=""

while [ $# -gt 0 ]; do
    case "$1" in
    -b|--build) BUILD=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --bindir) BINDIR=$2; FORTRAN=0; APPS_LIST=""; shift 2 ;;
    --np) NP_ONLY=$2; shift 2 ;;
    --timeout) DEFAULT_TIMEOUT=$2; shift 2 ;;
    --list) LIST=$2; FORTRAN=0; APPS_LIST=""; shift 2 ;;
    --no-fortran) FORTRAN=0; shift ;;
    --mpi-only) MPI_ONLY=1; shift ;;
    -v|--verbose) VERBOSE=1; shift ;;
    -k|--keep) KEEP=1; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "run_tests.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) FILTER=$1; shift ;;
    esac
done
[ -n "$MPIEXEC" ] || MPIEXEC=$BUILD/bin/mpiexec
[ -n "$BINDIR" ] || BINDIR=$BUILD/tests/mpi
read -r -a MPIEXEC_CMD <<<"$MPIEXEC"

LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-tests.XXXXXX") || exit 2
PASSED=0 FAILED=0 SKIPPED=0
FAILED_NAMES=()
CURRENT_PGID=""

cleanup() {
    if [ -n "$CURRENT_PGID" ]; then
        kill -KILL -- "-$CURRENT_PGID" 2>/dev/null
    fi
}
trap 'cleanup; [ "$KEEP" = 1 ] || rm -rf "$LOGDIR"; echo "run_tests.sh: interrupted" >&2; exit 130' INT TERM

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# run_cmd TIMEOUT LOGFILE CMD...: runs CMD in its own process group (made by
# timeout(1)); kills the group on expiry and any leftovers afterwards.
# Sets RC (124 on timeout) and SECS.
run_cmd() {
    local limit=$1 log=$2
    shift 2
    local t0 t1
    t0=$(now)
    timeout -k 5 "$limit" "$@" >"$log" 2>&1 </dev/null &
    CURRENT_PGID=$!
    wait "$CURRENT_PGID"
    RC=$?
    kill -KILL -- "-$CURRENT_PGID" 2>/dev/null # stragglers of this run
    CURRENT_PGID=""
    t1=$(now)
    SECS=$(elapsed "$t0" "$t1")
}

show_tail() {
    tail -n 15 "$1" | sed 's/^/    | /'
}

# report STATUS LABEL DETAIL LOG
report() {
    local status=$1 label=$2 detail=$3 log=$4
    echo "$status $label ($detail)"
    case "$status" in
    PASS) PASSED=$((PASSED + 1)); [ "$VERBOSE" = 1 ] && show_tail "$log" ;;
    SKIP) SKIPPED=$((SKIPPED + 1)) ;;
    *) FAILED=$((FAILED + 1)); FAILED_NAMES+=("$label"); show_tail "$log" ;;
    esac
}

# in_list N LIST: is N one of the comma-separated LIST?
in_list() {
    case ",$2," in *",$1,"*) return 0 ;; esac
    return 1
}

matches_filter() {
    [ -z "$FILTER" ] || printf '%s\n' "$1" | grep -Eq -- "$FILTER"
}

# ---------------------------------------------------------------- MPI tests
# run_mpi_tests [LIST BINDIR]: the entries of LIST (default $LIST), programs
# in BINDIR (default $BINDIR).
run_mpi_tests() {
    local LIST=${1:-$LIST} BINDIR=${2:-$BINDIR}
    if [ ! -r "$LIST" ]; then
        echo "run_tests.sh: no test list $LIST" >&2
        FAILED=$((FAILED + 1))
        return
    fi
    local lineno=0 line
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        line=${line%%[[:space:]]#*}
        case "$line" in ''|'#'*) continue ;; esac
        local -a f
        read -r -a f <<<"$line"
        [ ${#f[@]} -gt 0 ] || continue
        local name=${f[0]} nps="1,2,4,8" limit=$DEFAULT_TIMEOUT expect=pass match="" args=""
        local i=1
        if [ ${#f[@]} -gt 1 ] && [[ ${f[1]} =~ ^[0-9]+(,[0-9]+)*$ ]]; then
            nps=${f[1]}
            i=2
        fi
        local bad=0
        for (( ; i < ${#f[@]}; i++)); do
            case "${f[$i]}" in
            timeout=*) limit=${f[$i]#timeout=} ;;
            expect=fail) expect=fail ;;
            expect=pass) expect=pass ;;
            match=*) match=${f[$i]#match=} ;;
            args=*) args=${f[$i]#args=}; args=${args//,/ } ;;
            *) bad="unknown field '${f[$i]}'" ;;
            esac
        done
        local label=$name
        [ -n "$args" ] && label="${name}[${args// /,}]"
        matches_filter "$label" || continue
        if [ "$bad" != 0 ]; then
            echo "FAIL $label ($LIST:$lineno: $bad)"
            FAILED=$((FAILED + 1)); FAILED_NAMES+=("$label")
            continue
        fi
        local np
        for np in ${nps//,/ }; do
            if [ -n "$NP_ONLY" ] && ! in_list "$np" "$NP_ONLY"; then
                continue
            fi
            run_mpi_one "$name" "$label" "$np" "$limit" "$expect" "$match" "$args"
        done
    done <"$LIST"
}

run_mpi_one() {
    local name=$1 label=$2 np=$3 limit=$4 expect=$5 match=$6 args=$7
    local bin=$BINDIR/$name log=$LOGDIR/$label.np$np.log
    if [ ! -x "$bin" ] && [ -f "$bin.skipped" ]; then
        cp "$bin.skipped" "$log"
        report SKIP "$label" "np=$np, $(head -n 1 "$bin.skipped")" "$log"
        return
    fi
    if [ ! -x "$bin" ]; then
        : >"$log"
        report FAIL "$label" "np=$np, not built: $bin missing" "$log"
        return
    fi
    # shellcheck disable=SC2086 # args are words
    run_cmd "$limit" "$log" "${MPIEXEC_CMD[@]}" -n "$np" "$bin" $args
    local d="np=$np, $SECS s"
    if [ "$RC" = 124 ] || [ "$RC" = 137 ]; then
        report FAIL "$label" "$d, timed out after $limit s" "$log"
    elif [ "$expect" = fail ]; then
        if [ "$RC" = 0 ]; then
            report FAIL "$label" "$d, exited 0 but was expected to fail" "$log"
        elif [ -n "$match" ] && ! grep -Eq -- "$match" "$log"; then
            report FAIL "$label" "$d, failed as expected but the output lacks /$match/" "$log"
        else
            report PASS "$label" "$d, failed as expected" "$log"
        fi
    elif [ "$RC" != 0 ]; then
        report FAIL "$label" "$d, exit status $RC" "$log"
    elif ! grep -q '^ *No Errors' "$log"; then
        report FAIL "$label" "$d, exit status 0 but no \"No Errors\" line" "$log"
    elif [ -n "$match" ] && ! grep -Eq -- "$match" "$log"; then
        report FAIL "$label" "$d, output lacks /$match/" "$log"
    else
        report PASS "$label" "$d" "$log"
    fi
}

# ------------------------------------------------- unit tests and scripts
# run_plain LABEL CMD...: exit 0 passes, 77 skips, anything else fails.
# The time limit is $DEFAULT_TIMEOUT, or $PLAIN_LIMIT when set.
run_plain() {
    local label=$1 limit=${PLAIN_LIMIT:-$DEFAULT_TIMEOUT}
    shift
    matches_filter "$label" || return 0
    local log=$LOGDIR/${label//\//_}.log
    run_cmd "$limit" "$log" "$@"
    case "$RC" in
    0) report PASS "$label" "$SECS s" "$log" ;;
    77) report SKIP "$label" "$SECS s" "$log" ;;
    124|137) report FAIL "$label" "$SECS s, timed out after $limit s" "$log" ;;
    *) report FAIL "$label" "$SECS s, exit status $RC" "$log" ;;
    esac
    # a script's own summary line (counts of what it ran) goes in our log
    [ "$RC" = 0 ] && [ "$VERBOSE" = 0 ] && grep -E '^(fault matrix: [0-9]+ runs|PASS fuzz_)' "$log" | sed 's/^/    /'
    return 0
}

run_others() {
    local t
    for t in "$BUILD"/tests/unit/test_*; do
        if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
        run_plain "unit/$(basename "$t")" "$t"
    done
    local s=$ROOT/tests/abi/check_abi.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "abi/check_abi.sh" "$s"
    s=$ROOT/tests/abi/check_exports.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "abi/check_exports.sh" "$s" "$BUILD/libmpi_abi.so.1"
    s=$ROOT/tests/abi/cross_abi.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "abi/cross_abi.sh" "$s" "$BUILD"
    s=$ROOT/tests/launcher/test_launcher.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "launcher/test_launcher.sh" "$s" "$BUILD/bin"
    s=$ROOT/tests/pmi/test_pmi_client.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "pmi/test_pmi_client.sh" "$s" "$BUILD"
    # CMake find_package(MPI), pkg-config, mpicc/mpicxx, install tree; env docs
    s=$ROOT/tests/integration/test_cmake_pkgconfig.sh
    [ -f "$s" ] && [ -x "$s" ] && PLAIN_LIMIT=300 run_plain "integration/test_cmake_pkgconfig.sh" "$s" "$BUILD"
    s=$ROOT/tests/integration/check_env_doc.sh
    [ -f "$s" ] && [ -x "$s" ] && run_plain "integration/check_env_doc.sh" "$s"
    # the MPI profile: traffic known exactly at 1-4 ranks, bad paths
    s=$ROOT/tests/profile/test_profile.sh
    [ -f "$s" ] && [ -x "$s" ] && PLAIN_LIMIT=300 run_plain "profile/test_profile.sh" "$s" "$BUILD"
    # connect/accept and join between two separate mpiexec runs
    s=$ROOT/tests/dynproc/test_two_runs.sh
    [ -f "$s" ] && [ -x "$s" ] && PLAIN_LIMIT=300 run_plain "dynproc/test_two_runs.sh" "$s" "$BUILD"
    # fault-injection matrix (about a minute) and the fuzzers' regression
    # corpus (builds them with clang the first time; skipped without clang)
    s=$ROOT/tests/faults/run_faults.sh
    [ -f "$s" ] && [ -x "$s" ] && PLAIN_LIMIT=300 run_plain "faults/run_faults.sh" "$s" "$BUILD"
    s=$ROOT/tests/fuzz/run_fuzz.sh
    [ -f "$s" ] && [ -x "$s" ] && PLAIN_LIMIT=600 run_plain "fuzz/run_fuzz.sh" "$s" --replay
    return 0
}

# The Fortran list: its programs exist only when the build has the Fortran
# bindings (DMPI_HAVE_FORTRAN in the CMake cache); otherwise one SKIP line
# for the whole list (if the filter selects any of it).
run_fortran_tests() {
    local flist=$ROOT/tests/fortran/testlist fbin=$BUILD/tests/fortran
    [ -r "$flist" ] || return 0
    if [ -d "$fbin" ] || grep -q '^DMPI_HAVE_FORTRAN:[A-Z]*=ON$' "$BUILD/CMakeCache.txt" 2>/dev/null; then
        run_mpi_tests "$flist" "$fbin"
        return
    fi
    local names
    names=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$flist" | awk '{ print $1 }' | sort -u)
    if [ -n "$FILTER" ]; then
        names=$(printf '%s\n' "$names" | grep -E -- "$FILTER")
    fi
    [ -n "$names" ] || return 0
    echo "SKIP fortran (no Fortran compiler: the build has no Fortran bindings;" \
        "$(printf '%s\n' "$names" | wc -l) programs of tests/fortran/testlist not run)"
    SKIPPED=$((SKIPPED + 1))
}

run_mpi_tests
[ "$FORTRAN" = 1 ] && run_fortran_tests
[ -n "$APPS_LIST" ] && [ -r "$APPS_LIST" ] && run_mpi_tests "$APPS_LIST" "$BUILD/apps"
[ "$MPI_ONLY" = 1 ] || run_others

if [ "$FAILED" -gt 0 ]; then
    echo "failed: ${FAILED_NAMES[*]}"
fi
if [ "$KEEP" = 1 ] || [ "$FAILED" -gt 0 ]; then
    echo "logs: $LOGDIR"
else
    rm -rf "$LOGDIR"
fi
summary="$PASSED passed, $FAILED failed"
[ "$SKIPPED" -gt 0 ] && summary="$summary, $SKIPPED skipped"
echo "$summary"
[ "$FAILED" -eq 0 ]
