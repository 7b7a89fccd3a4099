#!/usr/bin/env bash
# Builds the libFuzzer harnesses of tests/fuzz (clang, -fsanitize=fuzzer
# with ASan+UBSan) and runs them:
#   fuzz_pmi_wire  the PMI wire parser, builder and line reader
#                  (src/pmi/pmi_wire.c)
#   fuzz_shm_rx    the shared-memory receive path (src/p2p/recv.c) fed
#                  arbitrary packets; linked with the library's sources
#
# Usage: tests/fuzz/run_fuzz.sh [--replay | --time S] [--jobs N] [OUTDIR]
#   --replay   (default) run every file of tests/fuzz/corpus/<harness>/
#              once: the seeds and every crash found before (regressions)
#   --time S   fuzz each harness for S seconds (-max_total_time) starting
#              from the corpus; a crash is saved as
#              tests/fuzz/corpus/<harness>/crash-<sha1> and fails the run
#   OUTDIR     where to build (default: build-fuzz in the repository)
# Exit status: 0 passed, 1 a harness failed (or a crash was found), 77 no
# usable clang/libFuzzer (skipped).
#   DMPI_FUZZ_INSTALL=1 lets the script apt-get libclang-rt-14-dev when the
#   fuzzer runtime is missing and it runs as root (CI).
set -u
SRC=$(cd "$(dirname "$0")/../.." && pwd)
MODE=replay SECS=30 OUT=""
while [ $# -gt 0 ]; do
    case "$1" in
    --replay) MODE=replay; shift ;;
    --time) MODE=fuzz; SECS=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) OUT=$1; shift ;;
    esac
done
[ -n "$OUT" ] || OUT=$SRC/build-fuzz
mkdir -p "$OUT/obj" || exit 1
OUT=$(cd "$OUT" && pwd)
CC=${FUZZ_CC:-clang}

# --- is there a compiler with libFuzzer?
probe() {
    echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' >"$OUT/probe.c"
    "$CC" -fsanitize=fuzzer,address,undefined "$OUT/probe.c" -o "$OUT/probe" >/dev/null 2>&1
}
if ! command -v "$CC" >/dev/null 2>&1; then
    echo "SKIP: no $CC (the fuzzers need clang with libFuzzer)"
    exit 77
fi
if ! probe; then
    if [ "${DMPI_FUZZ_INSTALL:-0}" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing the libFuzzer runtime (libclang-rt-14-dev)"
        apt-get install -y libclang-rt-14-dev >/dev/null 2>&1
    fi
    if ! probe; then
        echo "SKIP: $CC cannot link -fsanitize=fuzzer (install libclang-rt-14-dev)"
        exit 77
    fi
fi

# --- build (incremental: an object is rebuilt when its source or any
# header is newer)
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -DDMPI_VERSION_STRING=\"fuzz\" -fvisibility=hidden -I$SRC/include -I$SRC/src -w"
newest_header=$(find "$SRC/src" "$SRC/include" -name '*.h' -printf '%T@\n' | sort -n | tail -1)
objs=()
nfail=0
# (the harnesses are single-node: the libfabric transport stays out, its
# stand-in src/transport/ofi/absent.c goes in)
for c in $(cd "$SRC" && find src -name '*.c' ! -path 'src/transport/ofi/ofi*' | sort); do
    o=$OUT/obj/$(echo "$c" | tr / _).o
    if [ ! -f "$o" ] || [ "$SRC/$c" -nt "$o" ] ||
       awk -v h="$newest_header" -v t="$(stat -c %Y "$o")" 'BEGIN { exit !(h > t) }'; then
        # a file clang cannot compile is built by cc without instrumentation;
        # one that does not compile at all (work in progress elsewhere)
        # only matters if a harness needs it: the link says so
        if ! $CC $CFLAGS $SAN -fsanitize=fuzzer-no-link -c "$SRC/$c" -o "$o" 2>"$o.log" &&
           ! ${HOST_CC:-cc} $CFLAGS -c "$SRC/$c" -o "$o" 2>>"$o.log"; then # e.g. _Float128: gcc only
            rm -f "$o"
            nfail=$((nfail + 1))
            continue
        fi
    fi
    objs+=("$o")
done
[ "$nfail" -gt 0 ] && echo "note: $nfail library source(s) did not compile; see $OUT/obj/*.log"
rm -f "$OUT/libdmpi_fuzz.a"
ar rcs "$OUT/libdmpi_fuzz.a" "${objs[@]}" || exit 1

build() { # NAME SOURCES/FLAGS...
    local name=$1
    shift
    if ! $CC $CFLAGS $SAN -fsanitize=fuzzer "$@" -o "$OUT/$name" 2>"$OUT/$name.log"; then
        echo "FAIL: cannot build $name:"
        tail -n 20 "$OUT/$name.log" | sed 's/^/    | /'
        return 1
    fi
}
status=0
build fuzz_pmi_wire -I"$SRC/src/pmi" "$SRC/tests/fuzz/fuzz_pmi_wire.c" "$SRC/src/pmi/pmi_wire.c" || status=1
build fuzz_shm_rx "$SRC/tests/fuzz/fuzz_shm_rx.c" "$OUT/libdmpi_fuzz.a" \
    -Wl,--wrap=dmpi_protocol_error -Wl,--wrap=dmpi_abort_job -lpthread -lrt || status=1
[ $status = 0 ] || exit 1

# --- run
# a peer may announce a huge message: allocations past 256 MiB fail (the
# job would end with "out of memory"), they do not exhaust the fuzzer
# (our own settings, whatever a sanitizer run around us exported)
export ASAN_OPTIONS=${FUZZ_ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=256:detect_leaks=0}
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for name in fuzz_pmi_wire fuzz_shm_rx; do
    corpus=$SRC/tests/fuzz/corpus/${name#fuzz_}
    mkdir -p "$corpus"
    log=$OUT/$name.run.log
    if [ "$MODE" = replay ]; then
        files=("$corpus"/*)
        if [ ! -e "${files[0]}" ]; then
            echo "PASS $name: no corpus files to replay"
            continue
        fi
        if "$OUT/$name" -runs=1 "${files[@]}" >"$log" 2>&1; then
            echo "PASS $name: replayed ${#files[@]} corpus file(s)"
        else
            echo "FAIL $name: a corpus file fails (log $log):"
            grep -E 'ERROR|SUMMARY|Running:|abort|fuzz_' "$log" | tail -n 15 | sed 's/^/    | /'
            status=1
        fi
    else
        work=$OUT/work-$name
        mkdir -p "$work"
        if "$OUT/$name" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 \
            -artifact_prefix="$corpus/" "$work" "$corpus" >"$log" 2>&1; then
            echo "PASS $name: $(grep -Eo 'Done [0-9]+ runs in [0-9]+ second' "$log" | tail -1)s"
        else
            echo "FAIL $name: crash found, saved under $corpus/ (log $log):"
            grep -E 'ERROR|SUMMARY|Test unit written|fuzz_' "$log" | tail -n 15 | sed 's/^/    | /'
            status=1
        fi
    fi
done
exit $status
