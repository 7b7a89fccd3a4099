#!/bin/sh
# Checks the dynamic symbols of the built library against include/mpi.h:
#  - every function declared there is exported as MPI_X and as PMPI_X,
#  - MPI_X and PMPI_X are the same code (an alias; a weak MPI_X stub left
#    beside a real PMPI_X, or the other way round, is an error),
#  - nothing else is exported except MPIX_/PMPIX_ extensions and the
#    linker's own symbols (_init, _fini, _edata, _end, __bss_start).
# Usage: tests/abi/check_exports.sh path/to/libmpi_abi.so.1
# Exit 0: clean; 1: offenders listed; 2: usage or tool error.
set -u

lib="${1:-}"
if [ -z "$lib" ] || [ ! -f "$lib" ]; then
    echo "usage: $0 path/to/libmpi_abi.so.1" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
header="$here/../../include/mpi.h"
NM="${NM:-nm}"

work=$(mktemp -d "${TMPDIR:-/tmp}/dmpi-exports.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM

# Functions declared in the header: the name on a declaration's first line
# (return type, then MPI_X followed by '('). Typedefs and macros differ.
sed -n 's/^[A-Za-z_][A-Za-z0-9_ ]*[ *]\(MPI_[A-Za-z0-9_]*\)(.*/\1/p' "$header" |
    sort -u > "$work/declared"
if [ ! -s "$work/declared" ]; then
    echo "exports: no functions found in $header" >&2
    exit 2
fi

# Defined dynamic symbols: "address kind name" (version suffix dropped).
if ! "$NM" -D --defined-only "$lib" > "$work/nm.raw" 2> "$work/nm.err"; then
    echo "exports: $NM cannot read $lib:" >&2
    cat "$work/nm.err" >&2
    exit 2
fi
awk 'NF == 3 { sub(/@.*/, "", $3); print $3, $1, $2 }' "$work/nm.raw" |
    sort -k1,1 > "$work/syms"

awk -v declared="$work/declared" '
    BEGIN {
        while ((getline n < declared) > 0) { want[n] = 1; want["P" n] = 1; fn[n] = 1 }
        linker["_init"]; linker["_fini"]; linker["_edata"]; linker["_end"]
        linker["__bss_start"]; linker["_etext"]
    }
    { addr[$1] = $2; kind[$1] = $3 }
    END {
        bad = 0
        for (n in fn) {
            p = "P" n
            if (!(n in addr) && !(p in addr)) { print "not exported: " n " and " p; bad++ }
            else if (!(n in addr)) { print "not exported: " n; bad++ }
            else if (!(p in addr)) { print "not exported: " p; bad++ }
            else if (addr[n] != addr[p])
                { printf "not the same function: %s (%s) and %s (%s)\n", n, kind[n], p, kind[p]; bad++ }
        }
        for (s in addr) {
            if (s in want || s in linker) continue
            if (s ~ /^P?MPIX_/) { print "note: extension exported: " s; continue }
            if (s ~ /^P?MPI_/) print "exported but not declared in include/mpi.h: " s
            else print "exported but not an MPI name: " s
            bad++
        }
        exit bad ? 1 : 0
    }' "$work/syms" | sort > "$work/report"
nbad=$(grep -vc '^note:' "$work/report")
nfn=$(wc -l < "$work/declared")
sed 's/^/exports: /' "$work/report"
if [ "$nbad" -ne 0 ]; then
    echo "exports: FAIL: $nbad problems ($nfn functions declared in include/mpi.h)"
    exit 1
fi
echo "exports: $nfn functions exported as MPI_ and PMPI_, nothing else: OK"
exit 0
