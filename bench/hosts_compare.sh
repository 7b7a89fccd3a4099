#!/usr/bin/env bash
# hosts_compare.sh: dmpi against MPICH 5.0.2 and Open MPI 5.0.11 between
# test hosts (tests/hosts/hosts.sh: network + UTS + mount namespaces on this
# machine), every peer forced onto TCP between hosts, with one TCP
# connection (bench/tcp_limit) as the physical limit beside them.
#
#   2 hosts x 1 rank    dmpi_bench_pt2pt: lat 8 B, 64 KiB; bw, bibw 4 MiB;
#                       msgrate 8 B
#   3 hosts x 2 ranks   coll_bench: allreduce 8 B, 1 MiB; barrier
#   2 hosts x 1 rank    rma_bench: put, get 8 B and 64 KiB (one op + flush)
#   2 hosts             tcp_limit: lat 8 B, 64 KiB; bw, bibw 4 MiB
#
# In every round each suite runs once per MPI (the order rotates from round
# to round), then tcp_limit once. Medians and p99 pool all rounds' samples.
# Writes samples.csv, status.csv, medians.csv, summary.txt, checks.txt,
# info.txt, progress.log and plot.png into the output folder; the table goes
# to stdout too. Brings the test hosts up when they are not (and down at the
# end, only then). Needs root. See bench/README.md ("Across test hosts").
set -u -o pipefail

REPO=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${DMPI_CACHE:-$REPO/.cache}
DMPI_PREFIX=
ROUNDS=3
SAMPLES=30         # pt2pt and rma samples per size and run
COLL_SAMPLES=20
COLL_ITERS=10      # collective calls per sample
TCP_ITERS=2000     # tcp_limit round trips per latency size (each one a sample)
RUN_TIMEOUT=300
OUTDIR=
SKIP=
PLOT=1
SUMMARIZE=        # --summarize DIR: tables and plot again from DIR's CSVs
SUITES="pt2pt coll rma" # --suites LIST: which MPI suites run

ALL_MPIS="dmpi mpich5 ompi5"
declare -A NAME=([dmpi]=dmpi [mpich5]=mpich-5.0.2 [ompi5]=openmpi-5.0.11)
declare -A CC_OF PREFIX_OF
# shellcheck source=bench/hosts_lib.sh
. "$REPO/bench/hosts_lib.sh"

usage() {
    cat <<EOF
usage: bench/hosts_compare.sh [options]     (as root)
  --rounds N          rounds of alternation (default $ROUNDS)
  --samples N         pt2pt and rma samples per size in each run (default $SAMPLES)
  --coll-samples N    coll_bench samples per size in each run (default $COLL_SAMPLES)
  --coll-iters N      collective calls per sample (default $COLL_ITERS)
  --dmpi-prefix DIR   dmpi to test: DIR/bin/mpicc, DIR/bin/mpiexec and
                      DIR/bench/tcp_limit (default <repo>/build-bench, else <repo>/build)
  --skip LIST         leave out some of: $ALL_MPIS tcp
  --suites LIST       MPI suites to run, of: pt2pt coll rma (default all)
  --out-dir DIR       results (default results/hosts-<date>-<time>)
  --timeout S         limit for one run (default $RUN_TIMEOUT s)
  --no-plot           no PNG (and no matplotlib install)
Environment: DMPI_CACHE (default <repo>/.cache): peers in <cache>/peers (as
bench/compare.sh), matplotlib in <cache>/venv (as bench/run_all.sh).
EOF
}

log() { printf '%s\n' "hosts_compare: $*" >&2; [ -n "${LOG:-}" ] && printf '%s %s\n' "$(date +%T)" "$*" >>"$LOG"; return 0; }
. "$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)/cache_lib.sh"
die() { log "error: $*"; exit 2; }

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
            -h|--help) usage; exit 0 ;;
            --no-plot) PLOT=0; shift; continue ;;
            --summarize) [ $# -ge 2 ] || die "--summarize needs a folder"; SUMMARIZE=$2; shift 2; continue ;;
        esac
        [ $# -ge 2 ] || { usage >&2; die "option $1 needs a value"; }
        case $1 in
            --rounds) ROUNDS=$2 ;;
            --samples) SAMPLES=$2 ;;
            --coll-samples) COLL_SAMPLES=$2 ;;
            --coll-iters) COLL_ITERS=$2 ;;
            --dmpi-prefix) DMPI_PREFIX=$(cd -- "$2" 2>/dev/null && pwd) || die "no directory $2" ;;
            --skip) SKIP=$2 ;;
            --suites) SUITES=${2//,/ } ;;
            --out-dir) OUTDIR=$2 ;;
            --timeout) RUN_TIMEOUT=$2 ;;
            *) usage >&2; die "unknown option $1" ;;
        esac
        shift 2
    done
    local n
    for n in "$ROUNDS" "$SAMPLES" "$COLL_SAMPLES" "$COLL_ITERS" "$RUN_TIMEOUT"; do
        [[ $n =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $n"
    done
    if [ -z "$DMPI_PREFIX" ]; then
        DMPI_PREFIX=$REPO/build
        [ -x "$REPO/build-bench/bin/mpiexec" ] && DMPI_PREFIX=$REPO/build-bench
    fi
}

skipped() { [[ ",$SKIP," == *",$1,"* ]]; }

# ---------------------------------------------------------------- hosts

cleanup() {
    [ -n "${WORK:-}" ] && rm -rf "$WORK"
    hosts_down_if_brought_up
}

# ---------------------------------------------------------------- MPIs


setup_mpis() {
    local p
    if ! skipped dmpi; then
        if [ -x "$DMPI_PREFIX/bin/mpicc" ] && [ -x "$DMPI_PREFIX/bin/mpiexec" ]; then
            CC_OF[dmpi]=$DMPI_PREFIX/bin/mpicc
            PREFIX_OF[dmpi]=$DMPI_PREFIX
        else
            log "no dmpi at $DMPI_PREFIX (bin/mpicc, bin/mpiexec): skipping dmpi"
        fi
    fi
    if ! skipped mpich5 && p=$(install_pip_peer mpich 5.0.2); then
        CC_OF[mpich5]=$p/bin/mpicc_abi      # standard ABI, as bench/compare.sh
        PREFIX_OF[mpich5]=$p
    fi
    if ! skipped ompi5 && p=$(install_pip_peer openmpi 5.0.11); then
        CC_OF[ompi5]=$p/bin/mpicc
        PREFIX_OF[ompi5]=$p
    fi
}

BENCHES="dmpi_bench_pt2pt coll_bench rma_bench"

build_benches() { # $1: MPI key; binaries into $WORK/KEY/
    local key=$1 b dir=$WORK/$1
    mkdir -p "$dir"
    for b in $BENCHES; do
        "${CC_OF[$key]}" -O2 -o "$dir/$b" "$REPO/bench/$b.c" "$REPO/bench/bench_util.c" \
            >"$dir/build-$b.log" 2>&1 \
            || { cat "$dir/build-$b.log" >&2; log "building $b with ${NAME[$key]} failed: skipping ${NAME[$key]}"; return 1; }
    done
}

# ---------------------------------------------------------------- runs

# run_suite KEY ROUND SUITE: one benchmark run; its samples go to
# samples.csv as "mpi,round,test,size,sample,us", its outcome to status.csv.
run_suite() {
    local key=$1 round=$2 suite=$3 ppn=1 hosts=$H1,$H2 bench label rc=0
    local -a args
    case $suite in
        pt2pt) bench=dmpi_bench_pt2pt
               args=(-t lat,bw,bibw,msgrate -m 8,64K,4M -s "$SAMPLES" --raw) ;;
        coll)  bench=coll_bench ppn=2 hosts=$H1,$H2,$H3
               args=(-t allreduce,barrier -m 8,1M -s "$COLL_SAMPLES" -i "$COLL_ITERS" --raw) ;;
        rma)   bench=rma_bench
               args=(-t put,get,put_bw,get_bw -m 64K -w 1 -I 20 -s "$SAMPLES" --raw) ;;
    esac
    ensure_hosts
    make_launch "$key" "$ppn" "$hosts"
    local out=$WORK/$key/$suite.out err=$WORK/$key/$suite.err
    RUN_NO=$((RUN_NO + 1))
    label="[round $round/$ROUNDS, run $RUN_NO/$RUN_TOTAL] ${NAME[$key]} $suite"
    local t0=$EPOCHREALTIME
    (cd "$WORK" && timeout -k 10 "$RUN_TIMEOUT" "${LAUNCH[@]}" "$WORK/$key/$bench" "${args[@]}" \
        >"$out" 2>"$err" </dev/null) || rc=$?
    local secs
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    # samples: rename the tests by what they measure here
    grep -E '^[a-z_]+,[0-9]+,[0-9]+,[0-9.]+$' "$out" | awk -F, -v OFS=, -v mpi="${NAME[$key]}" \
        -v round="$round" -v suite="$suite" '{
            if (suite == "coll") $1 = $1 "/np6";
            else if ($1 == "put_bw") $1 = "put";   # -w 1: one put + flush
            else if ($1 == "get_bw") $1 = "get";
            print mpi, round, $0 }' >>"$SAMPLES_CSV"
    local status=ok detail=
    if [ $rc -ne 0 ]; then
        if [ "$key" = dmpi ] && [ "$suite" = rma ] && grep -q 'not implemented' "$err"; then
            status=not_implemented
            detail=$(grep -m1 'not implemented' "$err" | sed 's/^dmpi: rank [0-9]*: //')
            log "  $label: not implemented (expected): $detail"
        else
            status=failed
            [ $rc = 124 ] || [ $rc = 137 ] && status=timeout
            detail="exit $rc: $(grep -v -e '^\s*$' -e setpgid "$err" | tail -n 3 | tr '\n' ' ')"
            log "  $label FAILED ($status, $secs s): $detail"
            log "    command: ${LAUNCH[*]} $WORK/$key/$bench ${args[*]}"
            FAILURES+=("${NAME[$key]} $suite round $round")
        fi
    else
        log "  $label: $(grep -cE '^[a-z_]+,[0-9]+,[0-9]+,' "$out") samples, $secs s"
    fi
    printf '%s,%s,%s,%s,%s,%s,"%s"\n' "${NAME[$key]}" "$round" "$suite" "$status" "$secs" \
        "$(cut -d' ' -f1 /proc/loadavg)" "${detail//\"/\'}" >>"$STATUS_CSV"
}

# tcp_limit between $H1 (server) and $H2 (client), one connection.
run_tcp() {
    local round=$1 tl=$DMPI_PREFIX/bench/tcp_limit srv=$WORK/tcp/server.out
    local out=$WORK/tcp/client.out err=$WORK/tcp/client.err port="" rc=0 i spid
    mkdir -p "$WORK/tcp"
    ensure_hosts
    RUN_NO=$((RUN_NO + 1))
    local label="[round $round/$ROUNDS, run $RUN_NO/$RUN_TOTAL] tcp_limit"
    local t0=$EPOCHREALTIME
    : >"$srv"   # exists before the loop below reads it
    timeout -k 5 "$RUN_TIMEOUT" "$HOSTS_SH" exec "$H1" "$tl" -s -p 0 --once >"$srv" 2>&1 </dev/null &
    spid=$!
    for ((i = 0; i < 100; i++)); do
        port=$(sed -n 's/^tcp_limit: listening on .* port \([0-9]*\)$/\1/p' "$srv")
        [ -n "$port" ] && break
        kill -0 "$spid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -z "$port" ]; then
        kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
        log "  $label FAILED: the server did not start: $(head -3 "$srv" | tr '\n' ' ')"
        FAILURES+=("tcp_limit round $round")
        printf 'tcp_limit,%s,tcp,failed,0,%s,"server did not start"\n' "$round" "$(cut -d' ' -f1 /proc/loadavg)" >>"$STATUS_CSV"
        return 1
    fi
    timeout -k 5 "$RUN_TIMEOUT" "$HOSTS_SH" exec "$H2" "$tl" -c "$H1" -p "$port" -t lat,bw,bibw \
        -m 8,64K -b 4M -i "$TCP_ITERS" --raw >"$out" 2>"$err" </dev/null || rc=$?
    wait "$spid" 2>/dev/null
    local secs
    secs=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
    grep -E '^[a-z_]+,[0-9]+,[0-9]+,[0-9.]+$' "$out" | sed "s/^/tcp_limit,$round,/" >>"$SAMPLES_CSV"
    if [ $rc -ne 0 ]; then
        log "  $label FAILED (exit $rc): $(tail -n 2 "$err" | tr '\n' ' ')"
        FAILURES+=("tcp_limit round $round")
        printf 'tcp_limit,%s,tcp,failed,%s,%s,"exit %s"\n' "$round" "$secs" "$(cut -d' ' -f1 /proc/loadavg)" "$rc" >>"$STATUS_CSV"
    else
        log "  $label: $(grep -cE '^[a-z_]+,[0-9]+,[0-9]+,' "$out") samples, $secs s"
        printf 'tcp_limit,%s,tcp,ok,%s,%s,""\n' "$round" "$secs" "$(cut -d' ' -f1 /proc/loadavg)" >>"$STATUS_CSV"
    fi
}

# ---------------------------------------------------------------- checks

# Which transports the peers use between hosts, kept in checks.txt: UCX's
# protocol table for an MPICH run with our settings and (to show what they
# prevent) with UCX's defaults; dmpi's provider line. The 8-byte latency
# check on the results is in the summary.
# UCX_PROTO_INFO's tables, boiled down: the kinds of endpoint configuration
# (inter-node / intra-node / self) and the transports in their protocol
# lines, with counts; then the benchmark's own lines.
ucx_digest() {
    local t
    t=$(cat)
    echo "   endpoint configurations (lines):"
    grep -oE 'ucp_context_[0-9]+ (inter-node|intra-node|self) cfg#[0-9]+' <<<"$t" \
        | sed 's/ucp_context_[0-9]* //; s/ cfg#[0-9]*//' | sort | uniq -c | sed 's/^/     /'
    echo "   transports in protocol lines:"
    grep -oE '\| (tcp|sysv|posix|cma|xpmem|knem|self|rc_[a-z0-9]+|ud_[a-z0-9]+|dc_[a-z0-9]+)/[A-Za-z0-9_:.-]+ *\|' <<<"$t" \
        | tr -d '| ' | sort | uniq -c | sed 's/^/     /'
    grep -E '^(test|lat),' <<<"$t" | sed 's/^/   /'
}

run_checks() {
    local f=$OUTDIR/checks.txt key
    : >"$f"
    for key in "${MPIS[@]}"; do
        ensure_hosts
        case $key in
            mpich5) EXTRA_ENV=(UCX_PROTO_INFO=y) ;;
            dmpi) EXTRA_ENV=(DMPI_OFI_VERBOSE=1) ;;
        esac
        make_launch "$key" 1 "$H1,$H2"
        EXTRA_ENV=()
        case $key in
            mpich5)
                {
                    echo "== MPICH 5.0.2, 2 hosts x 1 rank, settings of this script:"
                    echo "   ${LAUNCH[*]} ... (UCX_PROTO_INFO=y)"
                    (cd "$WORK" && timeout -k 5 60 "${LAUNCH[@]}" \
                        "$WORK/mpich5/dmpi_bench_pt2pt" -t lat -m 8 -s 3 -i 10 --csv 2>&1) \
                        | ucx_digest
                    echo
                    echo "== the same with UCX's default transports (NOT used for the figures):"
                    (cd "$WORK" && timeout -k 5 60 "$HOSTS_SH" exec "$H1" env UCX_PROTO_INFO=y \
                        "${PREFIX_OF[mpich5]}/bin/mpiexec" -launcher ssh -launcher-exec "$WORK/sshlike" \
                        -iface "$IFACE" -hosts "$H1,$H2" -ppn 1 -n 2 \
                        "$WORK/mpich5/dmpi_bench_pt2pt" -t lat -m 8 -s 3 -i 10 --csv 2>&1) \
                        | ucx_digest
                    echo
                } >>"$f" ;;
            dmpi)
                {
                    echo "== dmpi, 2 hosts x 1 rank (DMPI_OFI_VERBOSE=1):"
                    (cd "$WORK" && timeout -k 5 60 "${LAUNCH[@]}" \
                        "$WORK/dmpi/dmpi_bench_pt2pt" -t lat -m 8 -s 3 -i 10 --csv 2>&1) | head -n 10
                    echo
                } >>"$f" ;;
        esac
    done
}

# ---------------------------------------------------------------- summary
# Tables (stdout, summary.txt), medians.csv and (with --plot PNG) the plot,
# from samples.csv and status.csv. Pure standard library except the plot.
summarize() { # $1: python, then arguments
    local py=$1; shift
    "$py" - "$@" <<'PYEOF'
import csv, math, sys, collections

args = sys.argv[1:]
samples_csv, status_csv, medians_csv = args[0], args[1], args[2]
png = args[3] if len(args) > 3 else None
PEERS = ["mpich-5.0.2", "openmpi-5.0.11"]
MPIS = ["dmpi"] + PEERS
LABEL = {"dmpi": "dmpi", "mpich-5.0.2": "MPICH 5.0.2", "openmpi-5.0.11": "Open MPI 5.0.11",
         "tcp_limit": "tcp_limit"}
K, M = 1024, 1024 * 1024
# (key, test, size, title, unit, kind, tcp_limit test): kind lat = time per
# operation in us (lower is better); bw/bibw = MB/s (bibw counts both
# directions); rate = million messages per second
ROWS = [
    ("p2p", "lat", 8, "latency 8 B", "us", "lat", "lat"),
    ("p2p", "lat", 64 * K, "latency 64 KiB", "us", "lat", "lat"),
    ("p2p", "bw", 4 * M, "bandwidth 4 MiB", "MB/s", "bw", "bw"),
    ("p2p", "bibw", 4 * M, "bi-bandwidth 4 MiB", "MB/s", "bibw", "bibw"),
    ("p2p", "msgrate", 8, "message rate 8 B", "M msg/s", "rate", None),
    ("coll", "allreduce/np6", 8, "allreduce 8 B (3x2)", "us", "lat", None),
    ("coll", "allreduce/np6", 1 * M, "allreduce 1 MiB (3x2)", "us", "lat", None),
    ("coll", "barrier/np6", 0, "barrier (3x2)", "us", "lat", None),
    ("rma", "put", 8, "put 8 B + flush", "us", "lat", None),
    ("rma", "get", 8, "get 8 B + flush", "us", "lat", None),
    ("rma", "put", 64 * K, "put 64 KiB + flush", "us", "lat", None),
    ("rma", "get", 64 * K, "get 64 KiB + flush", "us", "lat", None),
]

def quantile(v, q):  # nearest rank, as bench_util.c
    v = sorted(v)
    if not v:
        return float("nan")
    i = max(0, min(len(v) - 1, int(math.ceil(q * len(v))) - 1))
    return v[i]

def value(kind, size, us):  # the displayed figure of a time per message
    if kind == "lat":
        return us
    if us <= 0:
        return float("nan")
    if kind == "bw":
        return size / us
    if kind == "bibw":
        return 2 * size / us
    return 1.0 / us  # rate: messages per us = million per second

data = collections.defaultdict(list)
rounds = collections.defaultdict(lambda: collections.defaultdict(list))
with open(samples_csv) as f:
    for r in csv.DictReader(f):
        k = (r["mpi"], r["test"], int(r["size"]))
        us = float(r["us"])
        data[k].append(us)
        rounds[k][r["round"]].append(us)
status = collections.defaultdict(set)
notes = {}
with open(status_csv) as f:
    for r in csv.DictReader(f):
        status[(r["mpi"], r["suite"])].add(r["status"])
        if r["status"] != "ok" and r["detail"]:
            notes[(r["mpi"], r["suite"], r["status"])] = r["detail"]

def fig(mpi, row):
    key, test, size, title, unit, kind, tcpt = row
    if mpi == "tcp_limit":
        if not tcpt:
            return None
        k = ("tcp_limit", tcpt, size)
    else:
        k = (mpi, test, size)
    v = data.get(k)
    if not v:
        return None
    med, p99 = quantile(v, 0.5), quantile(v, 0.99)
    per_round = [quantile(x, 0.5) for x in rounds[k].values()]
    return {"n": len(v), "med_us": med, "p99_us": p99, "med": value(kind, size, med),
            "p99": value(kind, size, p99), "rmin": value(kind, size, min(per_round)),
            "rmax": value(kind, size, max(per_round)), "nrounds": len(per_round)}

def fmt(x):
    if x is None or x != x:
        return "-"
    a = abs(x)
    if a >= 1000:
        return f"{x:,.0f}".replace(",", " ")
    if a >= 100:
        return f"{x:.0f}"
    if a >= 10:
        return f"{x:.1f}"
    if a >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"

def missing(mpi, row):
    st = status.get((mpi, {"p2p": "pt2pt"}.get(row[0], row[0])), set())
    if "not_implemented" in st:
        return "not implemented"
    if st & {"failed", "timeout"}:
        return "failed"
    return "-"

better = lambda kind, a, b: a < b if kind == "lat" else a > b
table, mcsv, plotrows = [], [], []
head = ["measurement", "unit", "dmpi", "MPICH 5.0.2", "Open MPI 5.0.11", "tcp_limit",
        "best peer", "dmpi/best"]
for row in ROWS:
    key, test, size, title, unit, kind, tcpt = row
    figs = {m: fig(m, row) for m in MPIS + ["tcp_limit"]}
    best = None
    for p in PEERS:
        if figs[p] and (best is None or better(kind, figs[p]["med"], figs[best]["med"])):
            best = p
    bestp99 = None
    for p in PEERS:
        if figs[p] and (bestp99 is None or better(kind, figs[p]["p99"], bestp99)):
            bestp99 = figs[p]["p99"]
    ratio = ratio99 = None
    if figs["dmpi"] and best:
        ratio = figs["dmpi"]["med"] / figs[best]["med"]
        ratio99 = figs["dmpi"]["p99"] / bestp99
    cells = []
    for m in MPIS + ["tcp_limit"]:
        fg = figs[m]
        if fg:
            cells.append(f"{fmt(fg['med'])} / {fmt(fg['p99'])}")
        elif m == "tcp_limit":
            cells.append("")
        else:
            cells.append(missing(m, row))
    arrow = "lower is better" if kind == "lat" else "higher is better"
    table.append([title, f"{unit} ({arrow.split()[0]})"] + cells +
                 [LABEL.get(best, "-"), f"{ratio:.2f} ({ratio99:.2f})" if ratio else "-"])
    for m in MPIS + ["tcp_limit"]:
        fg = figs[m]
        if fg:
            mcsv.append([title, test if m != "tcp_limit" else tcpt, size, m, fg["n"], fg["nrounds"],
                         f"{fg['med_us']:.4f}", f"{fg['p99_us']:.4f}", f"{fg['med']:.6g}",
                         f"{fg['p99']:.6g}", f"{fg['rmin']:.6g}", f"{fg['rmax']:.6g}", unit,
                         best or "", f"{ratio:.4f}" if m == "dmpi" and ratio else ""])
    plotrows.append((row, figs))

widths = [max(len(str(r[i])) for r in [head] + table) for i in range(len(head))]
line = lambda r: "| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |"
out = [line(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
out += [line(r) for r in table]
print("Between test hosts over TCP; each cell median / p99 over all rounds' samples.")
print("us: time per operation; MB/s and M msg/s from the median and from the p99 time.")
print("dmpi/best: dmpi median / best peer median (p99 ratio in brackets); below 1 is")
print("better for us rows, above 1 for MB/s and M msg/s rows.")
print()
print("\n".join(out))

# spread of the per-round medians: how far to trust a figure
print()
print("Per-round medians, min - max over the rounds:")
for row, figs in plotrows:
    parts = []
    for m in MPIS + ["tcp_limit"]:
        fg = figs[m]
        if fg:
            lo, hi = sorted([fg["rmin"], fg["rmax"]])
            parts.append(f"{LABEL[m]} {fmt(lo)} - {fmt(hi)}")
    print(f"  {row[3]} ({row[4]}): " + "; ".join(parts))

warn = []
for p in PEERS + ["dmpi"]:
    fg = fig(p, ROWS[0])
    if fg and fg["med_us"] < 3.0:
        warn.append(f"WARNING: {LABEL[p]} 8 B latency {fg['med_us']:.2f} us between hosts is "
                    "below what TCP gives here: it probably went through shared memory")
for (mpi, suite, st), d in sorted(notes.items()):
    warn.append(f"{LABEL.get(mpi, mpi)} {suite}: {st.replace('_', ' ')}: {d}")
if warn:
    print()
    print("\n".join(warn))

with open(medians_csv, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["measurement", "test", "size", "mpi", "samples", "rounds", "median_us", "p99_us",
                "median", "p99", "round_median_min", "round_median_max", "unit", "best_peer",
                "ratio"])
    w.writerows(mcsv)

if png:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter
    colors = {"dmpi": "tab:blue", "mpich-5.0.2": "tab:orange", "openmpi-5.0.11": "tab:green"}
    n = len(plotrows)
    cols = 4
    rows_ = (n + cols - 1) // cols
    fig_, axes = plt.subplots(rows_, cols, figsize=(4.2 * cols, 3.2 * rows_))
    for ax, (row, figs) in zip(axes.flat, plotrows):
        key, test, size, title, unit, kind, tcpt = row
        xs = range(len(MPIS))
        vals = []
        for i, m in enumerate(MPIS):
            fg = figs[m]
            if fg:
                vals += [fg["med"], fg["p99"], fg["rmin"], fg["rmax"]]
        if figs.get("tcp_limit"):
            vals.append(figs["tcp_limit"]["med"])
        vals = [v for v in vals if v == v and v > 0]
        log_scale = bool(vals) and max(vals) / min(vals) > 20
        for i, m in enumerate(MPIS):
            fg = figs[m]
            if fg:
                ax.bar(i, fg["med"], color=colors[m], width=0.6)
                ax.plot([i - 0.3, i + 0.3], [fg["p99"]] * 2, color="black", lw=1.2)
                ax.vlines(i, min(fg["rmin"], fg["rmax"]), max(fg["rmin"], fg["rmax"]),
                          color="black", lw=0.8)
                ax.annotate(fmt(fg["med"]), (i, fg["med"]), xytext=(0, 2),
                            textcoords="offset points", ha="center", va="bottom", fontsize=7)
            else:
                ax.text(i, 0.5, missing(m, row).replace(" ", "\n"), ha="center", va="center",
                        transform=ax.get_xaxis_transform(), fontsize=8, color="gray")
        if figs.get("tcp_limit"):
            ax.axhline(figs["tcp_limit"]["med"], color="red", ls="--", lw=1,
                       label="tcp_limit (median)")
            ax.legend(fontsize=7, loc="best")
        ax.set_xlim(-0.6, len(MPIS) - 0.4)
        ax.set_xticks(list(xs))
        ax.set_xticklabels(["dmpi", "MPICH 5", "Open MPI 5"], fontsize=8)
        if log_scale:
            ax.set_yscale("log")
            ax.set_ylim(min(vals) / 1.5, max(vals) * 2.5)
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: fmt(y)))
            ax.yaxis.set_minor_formatter(NullFormatter())
        elif vals:
            ax.set_ylim(0, max(vals) * 1.2)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel(unit + (" (lower better)" if kind == "lat" else " (higher better)"),
                      fontsize=8)
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="y", which="both", alpha=0.3)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig_.suptitle("Between test hosts over TCP (bars: median; black bar: p99; "
                  "line: spread of round medians)", fontsize=10)
    fig_.tight_layout()
    fig_.savefig(png, dpi=110)
PYEOF
}

# Tables (stdout and summary.txt), medians.csv and plot.png of folder $1.
report() {
    local d=$1 py
    summarize python3 "$d/samples.csv" "$d/status.csv" "$d/medians.csv" | tee "$d/summary.txt"
    if [ $PLOT = 1 ]; then
        if py=$(plot_python) && summarize "$py" "$d/samples.csv" "$d/status.csv" "$d/medians.csv" \
                "$d/plot.png" >/dev/null; then
            echo "plot: $d/plot.png"
        else
            echo "PLOT SKIPPED: no matplotlib or the plot failed (see above)"
        fi
    fi
    echo "results: $d"
}


# ---------------------------------------------------------------- main

main() {
    parse_args "$@"
    if [ -n "$SUMMARIZE" ]; then
        [ -f "$SUMMARIZE/samples.csv" ] && [ -f "$SUMMARIZE/status.csv" ] \
            || die "no samples.csv and status.csv in $SUMMARIZE"
        report "$SUMMARIZE"
        exit 0
    fi
    [ "$(id -u)" = 0 ] || { echo "SKIP: hosts_compare.sh needs root (network namespaces)"; exit 77; }
    command -v python3 >/dev/null || die "python3 is needed"
    [ -n "$OUTDIR" ] || OUTDIR=$REPO/results/hosts-$(date +%Y%m%d-%H%M%S)
    mkdir -p "$OUTDIR" "$CACHE/hosts" || die "cannot create $OUTDIR or $CACHE/hosts"
    OUTDIR=$(cd "$OUTDIR" && pwd)
    LOG=$OUTDIR/progress.log
    : >"$LOG"
    WORK=$(mktemp -d "$CACHE/hosts/run.XXXXXX") || die "cannot create a folder in $CACHE/hosts"
    trap cleanup EXIT
    trap 'exit 130' INT TERM

    ensure_hosts
    setup_mpis
    write_launcher
    MPIS=()
    local key
    for key in $ALL_MPIS; do
        [ -n "${CC_OF[$key]:-}" ] && build_benches "$key" && MPIS+=("$key")
    done
    local do_tcp=1
    skipped tcp && do_tcp=0
    if [ $do_tcp = 1 ] && [ ! -x "$DMPI_PREFIX/bench/tcp_limit" ]; then
        log "no $DMPI_PREFIX/bench/tcp_limit: no physical limit beside the MPIs"
        do_tcp=0
    fi
    [ ${#MPIS[@]} -gt 0 ] || die "no MPI to run"

    {
        echo "date: $(date -Is)"
        echo "machine: $(uname -srm), $(nproc) online CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
        echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
        echo "command: bench/hosts_compare.sh $*"
        echo "dmpi: $DMPI_PREFIX, git $(git -C "$REPO" rev-parse HEAD 2>/dev/null)"
        echo "uncommitted changes under src/ include/ tools/ CMakeLists.txt when measured:"
        git -C "$REPO" status --short -- src include tools CMakeLists.txt 2>/dev/null | sed 's/^/  /'
        echo "MPIs: $(for k in "${MPIS[@]}"; do printf '%s ' "${NAME[$k]}"; done)"
        echo "rounds $ROUNDS; samples per run: pt2pt, rma $SAMPLES; coll $COLL_SAMPLES x $COLL_ITERS calls; tcp_limit $TCP_ITERS round trips per lat size, 7 bw/bibw runs"
        echo "hosts: $("$HOSTS_SH" list | tr '\n' ';')"
        echo "launch commands (program and arguments follow):"
        for key in "${MPIS[@]}"; do
            make_launch "$key" 1 "$H1,$H2"
            echo "  ${NAME[$key]} 2x1: ${LAUNCH[*]}"
            make_launch "$key" 2 "$H1,$H2,$H3"
            echo "  ${NAME[$key]} 3x2: ${LAUNCH[*]}"
        done
        echo "  tcp_limit: hosts.sh exec $H1 tcp_limit -s -p 0 --once; hosts.sh exec $H2 tcp_limit -c $H1 -p PORT -t lat,bw,bibw -m 8,64K -b 4M -i $TCP_ITERS --raw"
    } >"$OUTDIR/info.txt"

    log "checking the transports (checks.txt)"
    run_checks

    SAMPLES_CSV=$OUTDIR/samples.csv
    STATUS_CSV=$OUTDIR/status.csv
    echo "mpi,round,test,size,sample,us" >"$SAMPLES_CSV"
    echo "mpi,round,suite,status,seconds,load1,detail" >"$STATUS_CSV"
    FAILURES=()
    RUN_NO=0
    local nsuites
    nsuites=$(wc -w <<<"$SUITES")
    RUN_TOTAL=$((ROUNDS * (nsuites * ${#MPIS[@]} + do_tcp)))
    log "MPIs: ${MPIS[*]}; $ROUNDS rounds; output in $OUTDIR"
    local round suite i n=${#MPIS[@]}
    for ((round = 1; round <= ROUNDS; round++)); do
        log "round $round/$ROUNDS (load $(cut -d' ' -f1 /proc/loadavg))"
        for suite in $SUITES; do
            for ((i = 0; i < n; i++)); do   # the first MPI rotates by round
                run_suite "${MPIS[$(((i + round - 1) % n))]}" "$round" "$suite"
            done
        done
        [ $do_tcp = 1 ] && run_tcp "$round"
    done
    echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$OUTDIR/info.txt"

    report "$OUTDIR"
    if [ ${#FAILURES[@]} -gt 0 ]; then
        log "${#FAILURES[@]} runs failed: ${FAILURES[*]}"
        exit 1
    fi
}

main "$@"
