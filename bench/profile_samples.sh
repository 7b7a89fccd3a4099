#!/usr/bin/env bash
# profile_samples.sh: the MPI profile's own CPU time per call in an app,
# measured by sampling rather than by the app's wall clock (which a loaded
# machine makes noisy): `perf record -e cpu-clock` of the app under the
# profile library of BUILD and, alternating, of BASE (an earlier
# libdmpi_profile.so; none: only BUILD), counting the samples that fall in
# libdmpi_profile.so; ns per call = samples x sampling period / the calls
# the profile reports for the app's most frequent function (the one of its
# top-10 list with the most calls). Writes
# OUT/samples.csv (round,lib,calls,profile_samples,mpi_samples,ns_per_call,load1)
# and prints the medians.
#   bench/profile_samples.sh BUILD [BASE] [ROUNDS] [RANKS] [APP ARGS...]
#   (defaults: no base, 8 rounds, 2 ranks, bfs -s 16 -r 16; OUT=. ; needs perf)
set -u
BUILD=$(cd "${1:?usage: profile_samples.sh BUILD [BASE] [ROUNDS] [RANKS] [APP ARGS...]}" && pwd)
BASE=${2:-} ROUNDS=${3:-8} NP=${4:-2}
shift $(($# < 4 ? $# : 4))
if [ $# -gt 0 ]; then APP=("$@"); else APP=(bfs -s 16 -r 16); fi
command -v perf >/dev/null || { echo "profile_samples: perf not installed (linux-perf)" >&2; exit 77; }
if [ -n "$BASE" ]; then
  BASE=$(cd "$BASE" && pwd) && [ -f "$BASE/libdmpi_profile.so" ] ||
    { echo "profile_samples: BASE ${2:-} has no libdmpi_profile.so" >&2; exit 2; }
fi
OUT=$(mkdir -p "${OUT:-.}" && cd "${OUT:-.}" && pwd)
FREQ=20000 # samples per second: 50 us each
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "round,lib,calls,profile_samples,mpi_samples,ns_per_call,load1" >"$OUT/samples.csv"
for r in $(seq "$ROUNDS"); do
  for lib in ${BASE:+"$BASE"} "$BUILD"; do
    # the library preloaded by hand, DMPI_PROFILE unset: mpiexec adds none of its own
    (cd "$tmp" && env -u DMPI_PROFILE LD_PRELOAD="$lib/libdmpi_profile.so" DMPI_PROFILE_FILE="$tmp/m.csv" \
      perf record -q -F $FREQ -e cpu-clock -o "$tmp/p.data" \
      "$BUILD/bin/mpiexec" -n "$NP" "$BUILD/apps/${APP[0]}" "${APP[@]:1}" >"$tmp/out" 2>&1) ||
      { echo "profile_samples: the run failed" >&2; tail -5 "$tmp/out" >&2; exit 1; }
    calls=$(awk '/^top calls by time/ { t = 1; next } t && $1 ~ /^MPI_/ && $2 + 0 > c { c = $2 + 0 } END { print c + 0 }' "$tmp/out")
    read -r ps ms < <(perf report -i "$tmp/p.data" -n --sort dso --stdio 2>/dev/null |
      awk '$3 == "libdmpi_profile.so" { p = $2 } $3 ~ /^libmpi_abi/ { m = $2 } END { print p + 0, m + 0 }')
    name=$([ "$lib" = "$BUILD" ] && echo build || echo base)
    echo "$r,$name,$calls,$ps,$ms,$(awk -v s="$ps" -v c="$calls" -v f=$FREQ 'BEGIN { printf "%.2f", c ? s * 1e9 / f / c : 0 }'),$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/samples.csv"
  done
done
python3 - "$OUT/samples.csv" <<'PY'
import csv, statistics as st, sys
d = {}
for r in csv.DictReader(open(sys.argv[1])):
    d.setdefault(r['lib'], []).append(float(r['ns_per_call']))
for k, v in d.items():
    print('%-6s %2d runs: profile CPU per call of the top function: median %.2f ns, least %.2f ns' % (k, len(v), st.median(v), min(v)))
PY
