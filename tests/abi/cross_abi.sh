#!/usr/bin/env bash
# Binary compatibility through the MPI-5 standard ABI, both ways:
#  1. cross_prog.c built with MPICH 5.0.2's mpicc_abi runs under dmpi's
#     mpiexec with dmpi's libmpi_abi.so.1 first on LD_LIBRARY_PATH;
#  2. the same source built with dmpi's mpicc runs under MPICH's mpiexec
#     with MPICH's libmpi_abi.so.1 first on LD_LIBRARY_PATH.
# Each run must print PASSED and name the library that really ran it.
# Usage: tests/abi/cross_abi.sh <dmpi-build-dir>   (exit 77: MPICH unavailable)
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" && pwd)
cache="${DMPI_CACHE:-$repo/.cache}"
ver=5.0.2
PY=${PYTHON:-python3}
dir="$cache/mpich-$ver-wheel"
if [ ! -x "$dir/bin/mpicc_abi" ]; then
    whl=$(ls "$cache"/mpich-$ver-*.whl 2>/dev/null | head -n 1)
    if [ -z "$whl" ]; then
        mkdir -p "$cache"
        "$PY" -m pip download --quiet --no-deps --only-binary=:all: "mpich==$ver" -d "$cache" >&2 ||
            { echo "cross_abi: SKIP: cannot obtain mpich==$ver"; exit 77; }
        whl=$(ls "$cache"/mpich-$ver-*.whl | head -n 1)
    fi
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" &&
        "$PY" -m zipfile -e "$whl" "$dir.tmp" >/dev/null || { echo "cross_abi: SKIP: cannot unpack $whl"; exit 77; }
    rm -rf "$dir" && mv "$dir.tmp"/mpich-$ver.data/data "$dir" && rm -rf "$dir.tmp"
    chmod +x "$dir"/bin/*
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # name expected-library-word output-file status
    if [ "$4" = 0 ] && grep -q "cross_prog: PASSED" "$3" && grep -qi "library: .*$2" "$3"; then
        echo "PASS cross_abi: $1"
    else
        echo "FAIL cross_abi: $1 (exit $4)"; sed 's/^/    /' "$3" | tail -n 8; fail=1
    fi
}
# 1. MPICH-compiled binary on dmpi.
if "$dir/bin/mpicc_abi" "$repo/tests/abi/cross_prog.c" -o "$tmp/prog_mpich" 2>"$tmp/cc1"; then
    for np in 1 2 4; do
        LD_LIBRARY_PATH="$build${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" timeout 60 \
            "$build/bin/mpiexec" -n $np "$tmp/prog_mpich" >"$tmp/out1" 2>&1
        check "mpicc_abi binary on dmpi, np=$np" dmpi "$tmp/out1" $?
    done
else
    echo "FAIL cross_abi: mpicc_abi could not build cross_prog.c"; cat "$tmp/cc1"; fail=1
fi
# 2. dmpi-compiled binary on MPICH.
if "$build/bin/mpicc" "$repo/tests/abi/cross_prog.c" -o "$tmp/prog_dmpi" 2>"$tmp/cc2"; then
    for np in 1 2; do
        LD_LIBRARY_PATH="$dir/lib" timeout 60 "$dir/bin/mpiexec" -launcher fork -n $np \
            "$tmp/prog_dmpi" >"$tmp/out2" 2>&1
        check "dmpi mpicc binary on MPICH $ver, np=$np" MPICH "$tmp/out2" $?
    done
else
    echo "FAIL cross_abi: dmpi's mpicc could not build cross_prog.c"; cat "$tmp/cc2"; fail=1
fi
exit $fail
