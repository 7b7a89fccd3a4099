#!/bin/bash
# docs/environment.md is the one list of the DMPI_* environment variables
# (dmpi-info prints it): every "DMPI_..." name the sources read must be in
# it, and every variable it lists must still be read somewhere.
# Usage: tests/integration/check_env_doc.sh   (exit 0 ok, 1 mismatch)
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
doc=$repo/docs/environment.md
[ -r "$doc" ] || { echo "check_env_doc: $doc missing"; exit 1; }
used=$(grep -rhoE '"DMPI_[A-Z0-9_]+"' "$repo/src" "$repo/tools" --include='*.c' --include='*.h' |
    tr -d '"' | sort -u)
documented=$(grep -oE '`DMPI_[A-Z0-9_]+`' "$doc" | tr -d '`' | sort -u)
bad=0
for v in $used; do
    if ! printf '%s\n' "$documented" | grep -qx "$v"; then
        echo "FAIL $v is read by dmpi but not documented in docs/environment.md:"
        grep -rlE "\"$v\"" "$repo/src" "$repo/tools" --include='*.c' --include='*.h' | sed "s|^$repo/|    |"
        bad=1
    fi
done
for v in $documented; do
    if ! printf '%s\n' "$used" | grep -qx "$v"; then
        echo "FAIL $v is documented in docs/environment.md but nothing reads it"
        bad=1
    fi
done
n=$(printf '%s\n' "$used" | grep -c .)
[ $bad = 0 ] && echo "PASS check_env_doc: all $n DMPI_* variables read by dmpi are documented"
exit $bad
