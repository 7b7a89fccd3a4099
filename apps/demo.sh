#!/usr/bin/env bash
# apps/demo.sh: `make demo`: runs the application suite (apps/) on dmpi at
# small sizes, at 2 and 4 ranks (DEMO_NPS), and prints one table: app,
# ranks, result check, time, figure of merit.  Apps CMake skipped for a
# missing library get a row saying which package would enable them.
# Usage: apps/demo.sh [BUILD_DIR]   (default: build)
set -u
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${1:-$REPO/build}
MPIEXEC=$BUILD/bin/mpiexec
NPS=${DEMO_NPS:-2 4}
# name|program and arguments (one-rank-checked sizes of a few seconds)
. "$REPO/apps/configs.sh"
CONFIGS=("${APP_CONFIGS_SMALL[@]}")
[ -x "$MPIEXEC" ] || { echo "demo: no $MPIEXEC (run make first)" >&2; exit 2; }
rows=() failed=0 t_start=$SECONDS
for np in $NPS; do
  for c in "${CONFIGS[@]}"; do
    name=${c%%|*} cmd=${c#*|} prog=${cmd%% *}
    if [ ! -x "$BUILD/apps/$prog" ]; then
      why=$(cat "$BUILD/apps/$prog.skipped" 2>/dev/null || echo "$prog not built")
      rows+=("$name|$np|SKIPPED|-|${why#* skipped: }")
      continue
    fi
    echo "demo: mpiexec -n $np apps/$cmd" >&2
    # shellcheck disable=SC2086 # cmd holds words
    out=$(timeout 300 "$MPIEXEC" -n "$np" "$BUILD"/apps/$cmd 2>&1)
    rc=$?
    line=$(grep '^RESULT ' <<<"$out" | tail -n 1)
    if [ -z "$line" ]; then
      rows+=("$name|$np|FAILED (exit $rc)|-|-")
      failed=1
      tail -n 5 <<<"$out" | sed 's/^/    /' >&2
      continue
    fi
    declare -A f=()
    for kv in $line; do [[ $kv == *=* ]] && f[${kv%%=*}]=${kv#*=}; done
    [ "${f[check]}" = PASSED ] && [ $rc = 0 ] || failed=1
    rows+=("$name|$np|${f[check]}|$(printf '%.3f' "${f[time_s]}")|$(printf '%.4g' "${f[fom]}") ${f[unit]}")
    unset f
  done
done
echo
printf '%-25s %5s  %-8s %9s  %s\n' app ranks check time_s "figure of merit"
printf '%-25s %5s  %-8s %9s  %s\n' --- ----- ----- ------ ---------------
for r in "${rows[@]}"; do
  IFS='|' read -r a n c t m <<<"$r"
  printf '%-25s %5s  %-8s %9s  %s\n' "$a" "$n" "$c" "$t" "$m"
done
echo
echo "demo: $(nproc) cores here; ranks beyond that share them. $((SECONDS - t_start)) s in all."
[ "$failed" = 0 ] && echo "demo: every check passed" || echo "demo: some checks FAILED"
exit "$failed"
