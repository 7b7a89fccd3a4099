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
# configs (e.g. ONLY=bfs).
#   bench/profile_overhead.sh [BUILD] [ROUNDS] [RANKS...]   (OUT=$OUT or ./profile-overhead)
set -u
REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$REPO/build}" && pwd)
ROUNDS=${2:-7}
shift 2 2>/dev/null
NPS=${*:-2}
OUT=$(mkdir -p "${OUT:-profile-overhead}" && cd "${OUT:-profile-overhead}" && pwd)
CONFIGS=(
  "stencil3d-funneled|stencil -n 96 -i 100"
  "stencil2d-multiple-pers|stencil -d 2 -n 1024 -i 100 -t multiple -p"
  "fft2d-alltoall|fft2d -n 1024 -i 5"
  "fft2d-p2p|fft2d -n 1024 -i 5 -t p2p"
  "presta_com|presta_com -M 4M -s 10"
  "lu|lu -n 1024 -b 64"
  "bfs|bfs -s 16 -r 16"
)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "config,ranks,round,profile,time_s" >"$OUT/raw.csv"
echo "round,profile,call,ns_per_call" >"$OUT/percall.csv"
echo "round,load1" >"$OUT/load.csv"
percall() { # round on|off
  local pre=()
  [ "$2" = on ] && pre=(env "LD_PRELOAD=$BUILD/libdmpi_profile.so" "DMPI_PROFILE_FILE=$tmp/p.csv")
  [ -x "$BUILD/bench/profile_percall" ] || return 0
  (cd "$tmp" && "${pre[@]}" "$BUILD/bench/profile_percall" -n 300000 --csv 2>/dev/null) |
    grep -v '^ ' | sed "s/^/$1,$2,/" >>"$OUT/percall.csv"
}
one() { # config ranks round on|off cmd
  local flag=() t
  [ "$4" = on ] && flag=(--profile)
  # shellcheck disable=SC2086 # $5 holds words
  (cd "$tmp" && DMPI_PROFILE_FILE=$tmp/m.csv timeout 300 "$BUILD/bin/mpiexec" "${flag[@]}" -n "$2" "$BUILD"/apps/$5 >"$tmp/out" 2>&1)
  t=$(grep '^RESULT ' "$tmp/out" | sed -n 's/.* time_s=\([0-9.e+-]*\).*/\1/p' | tail -n 1)
  grep -q 'check=PASSED' "$tmp/out" || { echo "profile_overhead: $1 np=$2 $4 failed" >&2; tail -n 5 "$tmp/out" >&2; return; }
  echo "$1,$2,$3,$4,$t" >>"$OUT/raw.csv"
  [ "$4" = on ] && cp "$tmp/out" "$OUT/report-$1-$2.txt" && cp "$tmp/m.csv" "$OUT/matrix-$1-$2.csv"
}
for r in $(seq "$ROUNDS"); do
  for np in $NPS; do
    for c in "${CONFIGS[@]}"; do
      name=${c%%|*} cmd=${c#*|}
      [ -x "$BUILD/apps/${cmd%% *}" ] || continue
      [ -z "${ONLY:-}" ] || [[ $name =~ $ONLY ]] || continue
      if [ $((r % 2)) = 1 ]; then one "$name" "$np" "$r" off "$cmd"; one "$name" "$np" "$r" on "$cmd"
      else one "$name" "$np" "$r" on "$cmd"; one "$name" "$np" "$r" off "$cmd"; fi
    done
  done
  if [ $((r % 2)) = 1 ]; then percall "$r" off; percall "$r" on; else percall "$r" on; percall "$r" off; fi
  echo "$r,$(cut -d' ' -f1 /proc/loadavg)" >>"$OUT/load.csv"
  echo "profile_overhead: round $r of $ROUNDS done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
python3 - "$OUT" <<'PY'
import csv, statistics as st, sys, os
out = sys.argv[1]
d = {}
for r in csv.DictReader(open(os.path.join(out, 'raw.csv'))):
    d.setdefault((r['config'], int(r['ranks'])), {}).setdefault(r['profile'], []).append(float(r['time_s']))
rows = [('config', 'ranks', 'rounds', 'off_s', 'on_s', 'on/off')]
for (c, n), v in d.items():
    if v.get('on') and v.get('off'):
        off, on = st.median(v['off']), st.median(v['on'])
        rows.append((c, n, min(len(v['on']), len(v['off'])), '%.4f' % off, '%.4f' % on, '%.3f' % (on / off)))
with open(os.path.join(out, 'overhead.csv'), 'w', newline='') as f:
    csv.writer(f).writerows(rows)
for r in rows:
    print('%-24s %5s %6s %9s %9s %7s' % r)
pc = {}
for r in csv.DictReader(open(os.path.join(out, 'percall.csv'))):
    pc.setdefault(r['call'], {}).setdefault(r['profile'], []).append(float(r['ns_per_call']))
rows = [('call', 'off_ns', 'on_ns', 'added_ns', 'off_min', 'on_min')]
for c, v in pc.items():
    if v.get('on') and v.get('off'):
        off, on = st.median(v['off']), st.median(v['on'])
        rows.append((c, '%.1f' % off, '%.1f' % on, '%.1f' % (on - off), '%.1f' % min(v['off']), '%.1f' % min(v['on'])))
if len(rows) > 1:
    with open(os.path.join(out, 'percall_summary.csv'), 'w', newline='') as f:
        csv.writer(f).writerows(rows)
    print()
    for r in rows:
        print('%-28s %8s %8s %9s %8s %8s' % r)
PY
