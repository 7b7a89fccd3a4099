#!/usr/bin/env bash
# profile_overhead.sh: the cost of the MPI profile when on (issue 21 item
# 3): every app of apps/ at the small sizes of apps/demo.sh, run with and
# without `mpiexec --profile`, alternating (the order flips every round),
# medians of the apps' own time_s (RESULT line). Keeps each app's last
# profile report (its communication share). Writes OUT/raw.csv
# (config,ranks,round,profile,time_s), OUT/overhead.csv (medians and
# on/off), OUT/report-<config>-<ranks>.txt and matrix-<config>-<ranks>.csv
# (the last profiled run's), OUT/load.csv (load average each round) and,
# each round, bench/profile_percall with and without the profile
# (OUT/percall.csv: ns per call); prints the tables. ONLY=REGEX limits the
# configs (e.g. ONLY=bfs). BASE=DIR adds a third setting, "base": the
# profile library DIR/libdmpi_profile.so (an earlier version, to compare
# with) in LD_PRELOAD instead of --profile; the three settings then take
# turns to run first in a round.
#   bench/profile_overhead.sh [BUILD] [ROUNDS] [RANKS...]   (OUT=$OUT or ./profile-overhead)
set -u
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$REPO/build}" && pwd)
ROUNDS=${2:-7}
shift 2 2>/dev/null
NPS=${*:-2}
OUT=$(mkdir -p "${OUT:-profile-overhead}" && cd "${OUT:-profile-overhead}" && pwd)
SETTINGS=(off on)
if [ -n "${BASE:-}" ]; then
  BASE=$(cd "$BASE" && pwd) && [ -f "$BASE/libdmpi_profile.so" ] ||
    { echo "profile_overhead: BASE=$BASE has no libdmpi_profile.so" >&2; exit 2; }
  SETTINGS=(off on base)
fi
. "$REPO/apps/configs.sh"
CONFIGS=("${APP_CONFIGS_SMALL[@]}")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "config,ranks,round,profile,time_s" >"$OUT/raw.csv"
echo "round,profile,call,ns_per_call" >"$OUT/percall.csv"
echo "round,load1" >"$OUT/load.csv"
percall() { # round on|off|base
  local pre=()
  [ "$2" = on ] && pre=(env "LD_PRELOAD=$BUILD/libdmpi_profile.so" "DMPI_PROFILE_FILE=$tmp/p.csv")
  [ "$2" = base ] && pre=(env "LD_PRELOAD=$BASE/libdmpi_profile.so" "DMPI_PROFILE_FILE=$tmp/p.csv")
  [ -x "$BUILD/bench/profile_percall" ] || return 0
  (cd "$tmp" && "${pre[@]}" "$BUILD/bench/profile_percall" -n 300000 --csv 2>/dev/null) |
    grep -v '^ ' | sed "s/^/$1,$2,/" >>"$OUT/percall.csv"
}
one() { # config ranks round on|off|base cmd
  local flag=() pre=() t
  [ "$4" = on ] && flag=(--profile)
  # base: preloaded here, DMPI_PROFILE unset, or mpiexec would preload BUILD's too (first)
  [ "$4" = base ] && pre=(env -u DMPI_PROFILE "LD_PRELOAD=$BASE/libdmpi_profile.so")
  # shellcheck disable=SC2086 # $5 holds words
  (cd "$tmp" && DMPI_PROFILE_FILE=$tmp/m.csv "${pre[@]}" timeout 300 "$BUILD/bin/mpiexec" "${flag[@]}" -n "$2" "$BUILD"/apps/$5 >"$tmp/out" 2>&1)
  t=$(grep '^RESULT ' "$tmp/out" | sed -n 's/.* time_s=\([0-9.e+-]*\).*/\1/p' | tail -n 1)
  grep -q 'check=PASSED' "$tmp/out" || { echo "profile_overhead: $1 np=$2 $4 failed" >&2; tail -n 5 "$tmp/out" >&2; return; }
  echo "$1,$2,$3,$4,$t" >>"$OUT/raw.csv"
  [ "$4" = on ] && cp "$tmp/out" "$OUT/report-$1-$2.txt" && cp "$tmp/m.csv" "$OUT/matrix-$1-$2.csv"
}
setting() { # round k: the k-th setting of the round (the first one rotates)
  local n=${#SETTINGS[@]}
  echo "${SETTINGS[$((($1 - 1 + $2) % n))]}"
}
for r in $(seq "$ROUNDS"); do
  for np in $NPS; do
    for c in "${CONFIGS[@]}"; do
      name=${c%%|*} cmd=${c#*|}
      [ -x "$BUILD/apps/${cmd%% *}" ] || continue
      [ -z "${ONLY:-}" ] || [[ $name =~ $ONLY ]] || continue
      for k in "${!SETTINGS[@]}"; do one "$name" "$np" "$r" "$(setting "$r" "$k")" "$cmd"; done
    done
  done
  for k in "${!SETTINGS[@]}"; do percall "$r" "$(setting "$r" "$k")"; done
  echo "$r,$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/load.csv"
  echo "profile_overhead: round $r of $ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
python3 - "$OUT" <<'PY'
import csv, statistics as st, sys, os
out = sys.argv[1]
d = {}
for r in csv.DictReader(open(os.path.join(out, 'raw.csv'))):
    d.setdefault((r['config'], int(r['ranks'])), {}).setdefault(r['profile'], []).append(float(r['time_s']))
base = any('base' in v for v in d.values())
rows = [('config', 'ranks', 'rounds', 'off_s', 'on_s', 'on/off') + (('base_s', 'base/off') if base else ())]
for (c, n), v in d.items():
    if v.get('on') and v.get('off'):
        off, on = st.median(v['off']), st.median(v['on'])
        row = (c, n, min(len(v['on']), len(v['off'])), '%.4f' % off, '%.4f' % on, '%.3f' % (on / off))
        if base:
            b = st.median(v['base']) if v.get('base') else float('nan')
            row += ('%.4f' % b, '%.3f' % (b / off))
        rows.append(row)
with open(os.path.join(out, 'overhead.csv'), 'w', newline='') as f:
    csv.writer(f).writerows(rows)
for r in rows:
    print(('%-24s %5s %6s %9s %9s %7s' + ' %9s %8s' * base) % r)
pc = {}
for r in csv.DictReader(open(os.path.join(out, 'percall.csv'))):
    pc.setdefault(r['call'], {}).setdefault(r['profile'], []).append(float(r['ns_per_call']))
rows = [('call', 'off_ns', 'on_ns', 'added_ns', 'off_min', 'on_min') + (('base_ns', 'base_added_ns') if base else ())]
for c, v in pc.items():
    if v.get('on') and v.get('off'):
        off, on = st.median(v['off']), st.median(v['on'])
        row = (c, '%.1f' % off, '%.1f' % on, '%.1f' % (on - off), '%.1f' % min(v['off']), '%.1f' % min(v['on']))
        if base:
            b = st.median(v['base']) if v.get('base') else float('nan')
            row += ('%.1f' % b, '%.1f' % (b - off))
        rows.append(row)
if len(rows) > 1:
    with open(os.path.join(out, 'percall_summary.csv'), 'w', newline='') as f:
        csv.writer(f).writerows(rows)
    print()
    for r in rows:
        print(('%-28s %8s %8s %9s %8s %8s' + ' %8s %13s' * base) % r)
PY
