#!/bin/bash
# Build-system integration: a user's project finds and uses dmpi.
#  1. examples/cmake (find_package(MPI), ctest under dmpi's mpiexec) with
#     MPI_C_COMPILER=<build>/bin/mpicc, and again with MPI_HOME=<build>;
#  2. a program built with `cc $(pkg-config --cflags --libs mpi)` (and
#     dmpi) from <build>/lib/pkgconfig runs without LD_LIBRARY_PATH;
#  3. mpicc / mpicxx: -show and -showme:* forms, MPICC_CC override, rpath;
#  4. a `cmake --install` into a temporary prefix that is then moved: its
#     mpicc, mpi.pc, dmpi-info and dmpi-info --mpit still work, and the
#     example builds against it through MPI_HOME;
#  5. Fortran, when dmpi was built with its Fortran bindings
#     (DMPI_HAVE_FORTRAN; otherwise one SKIP line): mpifort / mpif90 /
#     mpif77 -show forms, programs using mpif.h, use mpi and use mpi_f08
#     built by mpifort and by `pkg-config mpi-fort`, the example with
#     find_package(MPI COMPONENTS C Fortran) and MPI::MPI_Fortran (through
#     MPI_Fortran_COMPILER and MPI_HOME), and the same from the moved
#     install tree.
# Usage: tests/integration/test_cmake_pkgconfig.sh <dmpi-build-dir>
# Exit 0 passed, 1 failed, 77 skipped (no cmake, pkg-config or C compiler).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$repo/build}" 2>/dev/null && pwd) || { echo "no build directory ${1:-}"; exit 1; }
for tool in cmake ctest pkg-config cc; do
    command -v $tool >/dev/null 2>&1 || { echo "test_cmake_pkgconfig: SKIP: $tool not found"; exit 77; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-integ.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }
# run NAME CMD...: runs CMD quietly, shows its output if it fails
run() {
    local name=$1
    shift
    if "$@" >"$tmp/out" 2>&1; then
        pass "$name"
    else
        fail "$name (exit status $?): $*"
        tail -n 20 "$tmp/out" | sed 's/^/    | /'
        return 1
    fi
}
unset LD_LIBRARY_PATH MPI_HOME MPICC_CC MPICC_CFLAGS MPICC_LDFLAGS MPIFORT_FC MPIFORT_FFLAGS MPIFORT_LDFLAGS FC
# Fortran checks only when dmpi has its Fortran bindings (and gfortran is here)
fortran=0
if grep -q '^DMPI_HAVE_FORTRAN:[A-Z]*=ON$' "$build/CMakeCache.txt" 2>/dev/null; then
    if command -v gfortran >/dev/null 2>&1; then
        fortran=1
    else
        echo "SKIP Fortran checks: dmpi has Fortran bindings but no gfortran is found now"
    fi
else
    echo "SKIP Fortran checks: no Fortran compiler (dmpi was built without its Fortran bindings)"
fi

# ------------------------------------------------- 1. CMake find_package
example() { # NAME BUILDDIR CMAKE-ARGS...
    local name=$1 dir=$2
    shift 2
    run "cmake example ($name): configure" cmake -S "$repo/examples/cmake" -B "$dir" "$@" &&
        run "cmake example ($name): build" cmake --build "$dir" &&
        run "cmake example ($name): ctest" ctest --test-dir "$dir" --output-on-failure --timeout 60 &&
        if "$build/bin/mpiexec" -n 1 "$dir/ring" 2>&1 | grep -q "(dmpi "; then
            pass "cmake example ($name): the program ran on dmpi's library"
        else
            fail "cmake example ($name): the program did not report dmpi's library"
        fi
}
example "MPI_C_COMPILER" "$tmp/ex-cc" -DMPI_C_COMPILER="$build/bin/mpicc" \
    -DMPIEXEC_EXECUTABLE="$build/bin/mpiexec"
example "MPI_HOME" "$tmp/ex-home" -DMPI_HOME="$build"
if grep -q "^MPIEXEC_EXECUTABLE:FILEPATH=$build/bin/mpiexec$" "$tmp/ex-home/CMakeCache.txt"; then
    pass "find_package(MPI) with MPI_HOME picks dmpi's mpiexec"
else
    fail "find_package(MPI) with MPI_HOME picked $(grep '^MPIEXEC_EXECUTABLE:' "$tmp/ex-home/CMakeCache.txt")"
fi

# ------------------------------------------------------ 2. pkg-config
for pc in mpi dmpi; do
    flags=$(PKG_CONFIG_PATH=$build/lib/pkgconfig pkg-config --cflags --libs $pc 2>"$tmp/pcerr")
    if [ -z "$flags" ]; then
        fail "pkg-config $pc: $(cat "$tmp/pcerr")"
        continue
    fi
    # shellcheck disable=SC2086 # flags are words
    run "pkg-config $pc: build ($flags)" cc "$repo/examples/cmake/ring.c" -o "$tmp/ring-$pc" $flags &&
        run "pkg-config $pc: run on 2 ranks without LD_LIBRARY_PATH" \
            "$build/bin/mpiexec" -n 2 "$tmp/ring-$pc"
done
v=$(PKG_CONFIG_PATH=$build/lib/pkgconfig pkg-config --modversion mpi)
[ -n "$v" ] && pass "pkg-config --modversion mpi: $v" || fail "pkg-config --modversion mpi"

# --------------------------------------------------- 3. mpicc, mpicxx
mpicc=$build/bin/mpicc
check_eq() { # NAME GOT WANT
    if [ "$2" = "$3" ]; then pass "$1"; else fail "$1: got '$2', want '$3'"; fi
}
check_eq "mpicc -showme:compile" "$("$mpicc" -showme:compile)" "-I$repo/include"
check_eq "mpicc -showme:link" "$("$mpicc" -showme:link)" "-L$build -Wl,-rpath,$build -lmpi_abi"
check_eq "mpicc -show -c x.c" "$(CC=gcc "$mpicc" -show -c x.c)" "gcc -I$repo/include -c x.c"
check_eq "mpicc -showme x.c" "$(MPICC_CC=clang-ish "$mpicc" -showme x.c -o x)" \
    "clang-ish -I$repo/include x.c -o x -L$build -Wl,-rpath,$build -lmpi_abi"
check_eq "mpicc -compile_info" "$(MPICC_CC=cc "$mpicc" -compile_info)" "cc -I$repo/include"
check_eq "mpicc -link_info" "$(MPICC_CC=cc "$mpicc" -link_info)" \
    "cc -I$repo/include -L$build -Wl,-rpath,$build -lmpi_abi"
check_eq "CC=mpicc does not loop" "$(CC=$mpicc "$mpicc" -show -c x.c)" "cc -I$repo/include -c x.c"
check_eq "MPICC_CFLAGS" "$(MPICC_CC=cc MPICC_CFLAGS=-DX=1 "$mpicc" -show -c x.c)" \
    "cc -I$repo/include -DX=1 -c x.c"
check_eq "mpicc --version is the compiler's" "$(MPICC_CC=cc "$mpicc" --version 2>&1 | head -n 1)" \
    "$(cc --version 2>&1 | head -n 1)"
case $("$mpicc" -showme:version) in "mpicc (dmpi) "*) pass "mpicc -showme:version" ;;
*) fail "mpicc -showme:version: $("$mpicc" -showme:version)" ;; esac
run "mpicc builds and links (rpath, no LD_LIBRARY_PATH)" "$mpicc" "$repo/examples/cmake/ring.c" -o "$tmp/ring-mpicc" &&
    run "mpicc-built program runs on 3 ranks" "$build/bin/mpiexec" -n 3 "$tmp/ring-mpicc"
if command -v c++ >/dev/null 2>&1; then
    cat >"$tmp/hello.cpp" <<'EOF'
#include <mpi.h>
#include <cstdio>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) std::printf("c++: %s\n", sum == size * (size - 1) / 2 ? "OK" : "WRONG");
    MPI_Finalize();
    return 0;
}
EOF
    check_eq "mpicxx -showme:compile" "$("$build/bin/mpicxx" -showme:compile)" "-I$repo/include"
    check_eq "mpicxx default compiler" "$(env -u CXX "$build/bin/mpicxx" -show -c a.cpp)" \
        "c++ -I$repo/include -c a.cpp"
    run "mpicxx builds a C++ program" "$build/bin/mpicxx" -Wall -Wextra -Werror "$tmp/hello.cpp" -o "$tmp/hello" &&
        run "mpicxx-built program runs on 2 ranks" "$build/bin/mpiexec" -n 2 "$tmp/hello" &&
        { grep -q "c++: OK" "$tmp/out" && pass "c++ program output" || fail "c++ program output: $(cat "$tmp/out")"; }
else
    echo "SKIP mpicxx checks: no c++ compiler"
fi

# ------------------------------------------------------------ 5. Fortran
# (build tree here; the installed tree in section 4 via fortran_installed)
fsrc=$repo/examples/cmake
# fortran_programs LABEL WRAPPER MPIEXEC: the three rings built with the
# wrapper (mpifort, mpif90, mpif77 in turn) and run on 2 ranks
fortran_programs() {
    local label=$1 fc=$2 mpiexec=$3 prog w=0 tag=${1// /-}
    local wrappers=("$fc" "$(dirname "$fc")/mpif90" "$(dirname "$fc")/mpif77")
    for prog in ring_f08 ring_mpi ring_mpifh; do
        local wr=${wrappers[$w]}
        w=$((w + 1))
        run "$label: $(basename "$wr") builds $prog.f90" \
            sh -c 'cd "$1" && "$2" "$3" -o "$4"' sh "$tmp" "$wr" "$fsrc/$prog.f90" "$tmp/$prog-$tag" &&
            run "$label: $prog runs on 2 ranks without LD_LIBRARY_PATH" "$mpiexec" -n 2 "$tmp/$prog-$tag" &&
            { grep -q "^$prog: 2 processes, token 0+1+...=1 OK" "$tmp/out" && pass "$label: $prog output" ||
                fail "$label: $prog output: $(cat "$tmp/out")"; }
    done
}
fortran_build_tree() {
    local mpifort=$build/bin/mpifort finc=$build/fortran/include f
    for f in bin/mpifort bin/mpif90 bin/mpif77 fortran/include/mpif.h fortran/include/mpi.mod \
        fortran/include/mpi_f08.mod lib/pkgconfig/mpi-fort.pc lib/pkgconfig/dmpi-fort.pc \
        libmpifort_abi.so.1; do
        [ -e "$build/$f" ] || fail "build tree lacks $f"
    done
    check_eq "mpifort -showme:compile" "$("$mpifort" -showme:compile)" "-I$finc"
    check_eq "mpifort -showme:link" "$("$mpifort" -showme:link)" \
        "-L$build -Wl,-rpath,$build -lmpifort_abi -lmpi_abi"
    check_eq "mpifort -showme:libs" "$("$mpifort" -showme:libs)" "mpifort_abi mpi_abi"
    check_eq "mpifort -show -c x.f90" "$(FC=gfortran "$mpifort" -show -c x.f90)" "gfortran -I$finc -c x.f90"
    check_eq "mpif90 -showme x.f90 (MPIFORT_FC)" "$(MPIFORT_FC=gf-ish "$build/bin/mpif90" -showme x.f90 -o x)" \
        "gf-ish -I$finc x.f90 -o x -L$build -Wl,-rpath,$build -lmpifort_abi -lmpi_abi"
    check_eq "mpif77 -show (default compiler)" "$("$build/bin/mpif77" -show x.f)" \
        "gfortran -I$finc x.f -L$build -Wl,-rpath,$build -lmpifort_abi -lmpi_abi"
    check_eq "mpifort -compile-info" "$("$mpifort" -compile-info)" "gfortran -I$finc"
    check_eq "mpifort -link-info" "$("$mpifort" -link-info)" \
        "gfortran -I$finc -L$build -Wl,-rpath,$build -lmpifort_abi -lmpi_abi"
    check_eq "FC=mpifort does not loop" "$(FC=$mpifort "$mpifort" -show -c x.f90)" "gfortran -I$finc -c x.f90"
    check_eq "MPIFORT_FFLAGS" "$(MPIFORT_FFLAGS=-O3 "$mpifort" -show -c x.f90)" "gfortran -I$finc -O3 -c x.f90"
    case $("$build/bin/mpif90" -showme:version) in "mpif90 (dmpi) "*) pass "mpif90 -showme:version" ;;
    *) fail "mpif90 -showme:version: $("$build/bin/mpif90" -showme:version)" ;; esac
    check_eq "mpifort --version is the compiler's" "$("$mpifort" --version 2>&1 | head -n 1)" \
        "$(gfortran --version 2>&1 | head -n 1)"
    fortran_programs "mpifort" "$mpifort" "$build/bin/mpiexec"

    local pc flags
    for pc in mpi-fort dmpi-fort; do
        flags=$(PKG_CONFIG_PATH=$build/lib/pkgconfig pkg-config --cflags --libs $pc 2>"$tmp/pcerr")
        if [ -z "$flags" ]; then
            fail "pkg-config $pc: $(cat "$tmp/pcerr")"
            continue
        fi
        # shellcheck disable=SC2086 # flags are words
        run "pkg-config $pc: build ring_f08.f90 ($flags)" gfortran "$fsrc/ring_f08.f90" -o "$tmp/ring-$pc" $flags &&
            run "pkg-config $pc: run on 2 ranks without LD_LIBRARY_PATH" "$build/bin/mpiexec" -n 2 "$tmp/ring-$pc"
    done

    example "Fortran, MPI_Fortran_COMPILER" "$tmp/ex-fc" -DWITH_FORTRAN=ON \
        -DMPI_C_COMPILER="$build/bin/mpicc" -DMPI_Fortran_COMPILER="$mpifort" \
        -DMPIEXEC_EXECUTABLE="$build/bin/mpiexec" &&
        { grep -q "^MPI_Fortran_COMPILER:[A-Z]*=$mpifort$" "$tmp/ex-fc/CMakeCache.txt" &&
            pass "find_package(MPI COMPONENTS Fortran) uses dmpi's mpifort" ||
            fail "find_package(MPI COMPONENTS Fortran): $(grep '^MPI_Fortran_COMPILER:' "$tmp/ex-fc/CMakeCache.txt")"; }
    example "Fortran, MPI_HOME" "$tmp/ex-fhome" -DWITH_FORTRAN=ON -DMPI_HOME="$build"
}
# fortran_installed PREFIX: the moved install tree
fortran_installed() {
    local p=$1 f
    for f in bin/mpifort bin/mpif90 bin/mpif77 include/mpif.h include/mpi.mod include/mpi_f08.mod \
        lib/libmpifort_abi.so.1 lib/pkgconfig/mpi-fort.pc lib/pkgconfig/dmpi-fort.pc; do
        [ -e "$p/$f" ] || fail "installed tree lacks $f"
    done
    check_eq "installed mpifort -showme:compile" "$("$p/bin/mpifort" -showme:compile)" "-I$p/include"
    # the linker drops -lmpi_abi from programs that call only Fortran
    # entry points (--as-needed, the default of many distributions' gcc), so
    # the installed libmpifort_abi must find libmpi_abi beside it itself
    if command -v readelf >/dev/null 2>&1; then
        if readelf -d "$p/lib/libmpifort_abi.so.1" | grep -Eq 'R(UN)?PATH.*\$ORIGIN'; then
            pass "installed libmpifort_abi.so.1 has the rpath \$ORIGIN (finds libmpi_abi.so.1 beside it)"
        else
            fail "installed libmpifort_abi.so.1 has no rpath \$ORIGIN: programs linked --as-needed do not find libmpi_abi.so.1"
        fi
    fi
    check_eq "installed mpif90 -showme:link" "$("$p/bin/mpif90" -showme:link)" \
        "-L$p/lib -Wl,-rpath,$p/lib -lmpifort_abi -lmpi_abi"
    fortran_programs "installed mpifort" "$p/bin/mpifort" "$p/bin/mpiexec"
    local flags
    flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs mpi-fort)
    # shellcheck disable=SC2086
    run "installed mpi-fort.pc builds ($flags)" gfortran "$fsrc/ring_mpi.f90" -o "$tmp/ring-fpc-inst" $flags &&
        run "installed mpi-fort.pc program runs" "$p/bin/mpiexec" -n 2 "$tmp/ring-fpc-inst"
    example "installed, MPI_HOME, Fortran" "$tmp/ex-finst" -DWITH_FORTRAN=ON -DMPI_HOME="$p"
}
[ $fortran = 1 ] && fortran_build_tree

# ------------------------------------- 4. installed, then moved, tree
if [ -f "$build/cmake_install.cmake" ]; then
    if run "cmake --install into a temporary prefix" cmake --install "$build" --prefix "$tmp/inst"; then
        mv "$tmp/inst" "$tmp/moved" # the tree must work wherever it lands
        p=$tmp/moved
        for f in bin/mpicc bin/mpicxx bin/mpiexec bin/dmpi-info include/mpi.h lib/libmpi_abi.so.1 \
            lib/pkgconfig/mpi.pc lib/pkgconfig/dmpi.pc share/dmpi/environment.md; do
            [ -e "$p/$f" ] || fail "installed tree lacks $f"
        done
        check_eq "installed mpicc -showme:compile" "$("$p/bin/mpicc" -showme:compile)" "-I$p/include"
        run "installed mpicc builds" "$p/bin/mpicc" "$repo/examples/cmake/ring.c" -o "$tmp/ring-inst" &&
            run "installed mpiexec runs it on 2 ranks" "$p/bin/mpiexec" -n 2 "$tmp/ring-inst"
        flags=$(PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config --cflags --libs mpi)
        # shellcheck disable=SC2086
        run "installed mpi.pc builds ($flags)" cc "$repo/examples/cmake/ring.c" -o "$tmp/ring-pc-inst" $flags &&
            run "installed mpi.pc program runs" "$p/bin/mpiexec" -n 2 "$tmp/ring-pc-inst"
        run "installed dmpi-info" "$p/bin/dmpi-info" &&
            { grep -q "DMPI_EAGER_MAX" "$tmp/out" && grep -q "$p/lib/libmpi_abi.so.1" "$tmp/out" &&
                pass "installed dmpi-info lists variables and the moved library" ||
                fail "installed dmpi-info output: $(head -n 30 "$tmp/out")"; }
        run "installed dmpi-info --mpit" "$p/bin/dmpi-info" --mpit &&
            { grep -Eq "^  DMPI_EAGER_MAX += 32768" "$tmp/out" && grep -q "dmpi_send_eager_shm" "$tmp/out" &&
                pass "installed dmpi-info --mpit lists control and performance variables" ||
                fail "installed dmpi-info --mpit output: $(head -n 30 "$tmp/out")"; }
        example "installed, MPI_HOME" "$tmp/ex-inst" -DMPI_HOME="$p"
        [ $fortran = 1 ] && fortran_installed "$p"
    fi
else
    echo "SKIP install checks: $build/cmake_install.cmake missing"
fi

# --------------------------------------------------------- dmpi-info
run "dmpi-info --version" "$build/bin/dmpi-info" --version &&
    { grep -q "^dmpi [0-9]" "$tmp/out" && pass "dmpi-info version line" || fail "dmpi-info --version: $(cat "$tmp/out")"; }
DMPI_EAGER_MAX=4k DMPI_NO_SUCH_KNOB=1 "$build/bin/dmpi-info" --env >"$tmp/out" 2>&1
if grep -Eq "^  DMPI_EAGER_MAX +4k " "$tmp/out" && grep -q "DMPI_NO_SUCH_KNOB .*UNKNOWN" "$tmp/out"; then
    pass "dmpi-info --env shows current values and flags unknown DMPI_* variables"
else
    fail "dmpi-info --env:"; sed 's/^/    | /' "$tmp/out"
fi

DMPI_EAGER_MAX=4k DMPI_PMI=pmi1 "$build/bin/dmpi-info" --mpit >"$tmp/out" 2>&1
if grep -Eq "^  DMPI_EAGER_MAX += 4096 " "$tmp/out" && grep -Eq "^  DMPI_PMI += 3 \(pmi1\)" "$tmp/out" &&
    grep -q "^category dmpi_p2p" "$tmp/out"; then
    pass "dmpi-info --mpit shows control variables with their values (MPI_T)"
else
    fail "dmpi-info --mpit:"; sed 's/^/    | /' "$tmp/out"
fi

echo "test_cmake_pkgconfig: $fails failed"
[ $fails -eq 0 ]
