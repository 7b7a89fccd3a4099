#!/bin/sh
# Checks that include/mpi.h is the MPI-5.0 standard ABI: every constant,
# type, struct layout and function prototype of the reference header
# (MPICH 5.0.2's mpi_abi.h) must be present in ours with the same value,
# size and type. Exit 0: equal; 1: differences (listed); 77: no reference.
#
#   tests/abi/check_abi.sh            (reference from the cache or PyPI)
#   DMPI_ABI_REF=/path/mpi_abi.h tests/abi/check_abi.sh
#   DMPI_CACHE=/dir  (default <repo>/.cache) where the wheel is kept
#   CC, CXX          compilers (default gcc, g++)
set -u

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
ours="$repo/include/mpi.h"
cache="${DMPI_CACHE:-$repo/.cache}"
CC="${CC:-gcc}"
CXX="${CXX:-g++}"
PY="${PYTHON:-python3}"
ver=5.0.2

work=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-abi.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

# ---- 1. the reference header -------------------------------------------
find_reference() {
    if [ -n "${DMPI_ABI_REF:-}" ]; then
        [ -f "$DMPI_ABI_REF" ] && { echo "$DMPI_ABI_REF"; return 0; }
        echo "abi: DMPI_ABI_REF=$DMPI_ABI_REF does not exist" >&2
        return 1
    fi
    hdr="$cache/mpich-$ver/mpi_abi.h"
    [ -f "$hdr" ] && { echo "$hdr"; return 0; }
    whl=$(ls "$cache"/mpich-$ver-*.whl 2>/dev/null | head -n 1)
    if [ -z "$whl" ]; then
        mkdir -p "$cache" || return 1
        echo "abi: downloading mpich==$ver from PyPI into $cache" >&2
        "$PY" -m pip download --quiet --no-deps --only-binary=:all: \
            "mpich==$ver" -d "$cache" >&2 || return 1
        whl=$(ls "$cache"/mpich-$ver-*.whl 2>/dev/null | head -n 1)
        [ -n "$whl" ] || return 1
    fi
    mkdir -p "$cache/mpich-$ver" || return 1
    "$PY" - "$whl" "$hdr" <<'EOF' || return 1
import sys, zipfile
whl, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(whl) as z:
    names = [n for n in z.namelist() if n.endswith('/include/mpi_abi.h')]
    if not names:
        sys.exit('abi: no include/mpi_abi.h in ' + whl)
    open(out, 'wb').write(z.read(names[0]))
EOF
    echo "$hdr"
}

ref=$(find_reference) || {
    echo "abi: SKIP: reference mpi_abi.h (MPICH $ver) not in $cache and not downloadable"
    exit 77
}
echo "abi: reference $ref"
echo "abi: checking  $ours"

fail=0
probe="$here/abi_probe.py"

# ---- 2. names: nothing missing, nothing extra ---------------------------
if ! "$PY" "$probe" names "$ref" "$ours" > "$work/names.txt"; then
    sed 's/^/abi: /' "$work/names.txt"
    fail=1
fi

# ---- 3. values, sizes, offsets and types, printed by one probe program --
"$PY" "$probe" probe "$ref" "$work/probe.c" || exit 1
cp "$work/probe.c" "$work/probe.cc"
run_probe() { # compiler lang header output
    if ! $1 -w -I"$(dirname "$3")" -DDMPI_ABI_HEADER="\"$3\"" \
            -o "$work/probe.$2.bin" "$work/probe.$2" 2> "$work/cc.err"; then
        echo "abi: probe ($2) does not compile against $3:"
        head -n 20 "$work/cc.err" | sed 's/^/    /'
        return 1
    fi
    "$work/probe.$2.bin" > "$4"
}
for lang in c cc; do
    if [ "$lang" = c ]; then comp="$CC -std=c11"; else comp="$CXX -std=c++11"; fi
    run_probe "$comp" $lang "$ref" "$work/ref.$lang.txt" || { fail=1; continue; }
    run_probe "$comp" $lang "$ours" "$work/ours.$lang.txt" || { fail=1; continue; }
    if ! diff "$work/ref.$lang.txt" "$work/ours.$lang.txt" > "$work/diff.$lang.txt"; then
        echo "abi: differences ($lang probe; '<' reference, '>' ours):"
        sed 's/^/    /' "$work/diff.$lang.txt" | head -n 60
        fail=1
    fi
done

# ---- 4. prototypes: the reference declarations repeated after ours -------
"$PY" "$probe" redecl "$ref" "$work/redecl.c" || exit 1
if ! $CC -std=c11 -pedantic-errors -fsyntax-only -DDMPI_ABI_HEADER="\"$ours\"" \
        "$work/redecl.c" 2> "$work/redecl.err"; then
    echo "abi: declarations incompatible with the reference:"
    grep -E 'error' "$work/redecl.err" | head -n 30 | sed 's/^/    /'
    fail=1
fi

# ---- 5. our header on its own: clean C and C++ ----------------------------
printf '#include <mpi.h>\nint main(void) { return MPI_SUCCESS; }\n' > "$work/plain.c"
cp "$work/plain.c" "$work/plain.cc"
if ! $CC -std=c11 -Wall -Wextra -pedantic -Werror -I"$repo/include" -fsyntax-only "$work/plain.c" 2> "$work/plain.err" ||
   ! $CXX -std=c++11 -Wall -Wextra -pedantic -Werror -I"$repo/include" -fsyntax-only "$work/plain.cc" 2>> "$work/plain.err"; then
    echo "abi: include/mpi.h does not compile cleanly:"
    head -n 20 "$work/plain.err" | sed 's/^/    /'
    fail=1
fi

set -- $("$PY" "$probe" count "$ref")
if [ $fail -ne 0 ]; then
    echo "abi: FAIL ($1 constants, $2 functions in the reference)"
    exit 1
fi
echo "abi: $1 constants, $2 functions checked: OK"
exit 0
