#!/usr/bin/env python3
"""compare_summary.py: turn the raw samples written by bench/compare.sh
(CSV: mpi,round,test,size,sample,us) into one table per test: for every
message size, each MPI's median and p99 over all its samples (all rounds
pooled) and the ratio dmpi / best peer; then, with several rounds, one
table per test over runs (the median of each run counted once: the
typical run and the best run of each MPI).  --medians-csv also writes those
figures as CSV (one line per test, size and MPI).  bench/plot_results.py
reuses the functions here.

usage: compare_summary.py [--order mpi1,mpi2,...] [--dmpi NAME]
                          [--medians-csv OUT.csv] FILE.csv
"""
import argparse
import collections
import csv
import math
import sys

# Per test: what is shown and whether higher values are better. Collective
# tests (coll_bench, compare.sh --suite coll) are named "test/npN".
COLL_WHAT = "time per call (slowest rank), microseconds, size = bytes per process"
TESTS = {
    "lat": ("time per message (half round trip), microseconds", False),
    "bw": ("bandwidth, MB/s (10^6 bytes/s) from the time per message", True),
    "bibw": ("bandwidth both directions together, MB/s from the time per message", True),
    "mbw": ("aggregate bandwidth, all pairs i <-> i+n/2 streaming at once,"
            " MB/s from the time per message of all pairs", True),
    "msgrate": ("aggregate message rate, all pairs i <-> i+n/2 at once,"
                " million messages per second", True),
    "barrier": (COLL_WHAT, False),
    "bcast": (COLL_WHAT, False),
    "allreduce": (COLL_WHAT, False),
    "reduce": (COLL_WHAT, False),
    "allgather": (COLL_WHAT, False),
    "alltoall": (COLL_WHAT, False),
    "put": ("MPI_Put + MPI_Win_flush, microseconds per operation", False),
    "get": ("MPI_Get + MPI_Win_flush, microseconds per operation", False),
    "acc": ("MPI_Accumulate + MPI_Win_flush, microseconds per operation", False),
    "fop": ("MPI_Fetch_and_op + MPI_Win_flush, microseconds per operation", False),
    "cas": ("MPI_Compare_and_swap + MPI_Win_flush, microseconds per operation", False),
    "put_bw": ("MPI_Put bandwidth, MB/s from the time per operation", True),
    "get_bw": ("MPI_Get bandwidth, MB/s from the time per operation", True),
}


def kind(test):
    """The entry of TESTS for a test name (without its /npN suffix)."""
    return TESTS[test.split("/")[0]]


def quantile(sorted_values, q):
    """Nearest-rank quantile, as the benchmark program computes it."""
    k = max(1, min(len(sorted_values), math.ceil(q * len(sorted_values) - 1e-9)))
    return sorted_values[k - 1]


def human_size(n):
    for unit, shift in (("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


def fmt(v):
    if v >= 1000:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.3f}"


def load(path, by_round=None):
    """Samples per (test, size, mpi); with by_round (a dict), also per
    (test, size, mpi, round)."""
    samples = collections.defaultdict(list)  # (test, size, mpi) -> [us]
    rounds = collections.defaultdict(set)    # mpi -> rounds seen
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (row["test"], int(row["size"]), row["mpi"])
            samples[key].append(float(row["us"]))
            rounds[row["mpi"]].add(row["round"])
            if by_round is not None:
                by_round.setdefault(key + (row["round"],), []).append(float(row["us"]))
    return samples, rounds


def unit(test, size):
    """The unit of the figures stats() gives."""
    base = test.split("/")[0]
    if not kind(test)[1]:
        return "us"
    return "Mmsg/s" if base == "msgrate" or size == 0 else "MB/s"


def stats(test, size, values):
    """(shown median, shown p99) for one MPI: times for lat, MB/s for bw/bibw/
    mbw, million messages per second for msgrate.  For rates the 'p99' is the
    rate at the p99 time (the slow tail)."""
    values = sorted(values)
    t50, t99 = quantile(values, 0.5), quantile(values, 0.99)
    if not kind(test)[1]:
        return t50, t99
    # bytes per message, or for empty messages and msgrate the message rate
    # (Mmsg/s: the times are microseconds)
    base = test.split("/")[0]
    per_msg = 1 if base == "msgrate" else (size or 1) * (2 if base == "bibw" else 1)
    return (per_msg / t50 if t50 > 0 else 0.0), (per_msg / t99 if t99 > 0 else 0.0)


def table(test, sizes, mpis, dmpi, samples, out):
    what, higher_better = kind(test)
    peers = [m for m in mpis if m != dmpi]
    have_dmpi = dmpi in mpis and peers
    n = {m: len(samples.get((test, sizes[0], m), [])) for m in mpis}
    out.write(f"\n{test}: {what}; median / p99 "
              f"({'higher' if higher_better else 'lower'} is better)\n")
    out.write("  samples per size: " + ", ".join(f"{m} {n[m]}" for m in mpis) + "\n")
    if have_dmpi:
        out.write(f"  ratio = {dmpi} median / best peer median, in brackets {dmpi} p99 /"
                  f" best peer p99: {'above' if higher_better else 'below'} 1 means"
                  f" {dmpi} is better\n")
    if higher_better and 0 in sizes and test.split("/")[0] != "msgrate":
        out.write("  size 0: million messages per second instead of MB/s\n")
    width = {m: max(len(m), 15) for m in mpis}
    bestw = max([len(p) for p in peers] + [9])
    head = f"{'size':>6}  " + "  ".join(f"{m:>{width[m]}}" for m in mpis)
    head += f"  {'best peer':>{bestw}}" + (f"  {'ratio':>12}" if have_dmpi else "")
    out.write(head + "\n")
    behind = []  # sizes where dmpi's median is worse than the best peer's
    for size in sizes:
        row = f"{human_size(size):>6}  "
        got = {}
        for m in mpis:
            vals = samples.get((test, size, m))
            if vals:
                got[m] = stats(test, size, vals)
                cell = f"{fmt(got[m][0])} / {fmt(got[m][1])}"
            else:
                cell = "-"
            row += f"{cell:>{width[m]}}  "
        ranked = [p for p in peers if p in got]
        best = best99 = None
        if ranked:
            pick = max if higher_better else min
            best = pick(ranked, key=lambda p: got[p][0])
            best99 = pick(ranked, key=lambda p: got[p][1])
        row += f"{best or '-':>{bestw}}"
        if have_dmpi:
            ratio = "-"
            if best and dmpi in got and got[best][0] > 0 and got[best99][1] > 0:
                r50 = got[dmpi][0] / got[best][0]
                r99 = got[dmpi][1] / got[best99][1]
                ratio = f"{r50:.2f} ({r99:.2f})"
                if (r50 < 1) if higher_better else (r50 > 1):
                    behind.append(human_size(size))
            row += f"  {ratio:>12}"
        out.write(row + "\n")
    if have_dmpi:
        if behind:
            out.write(f"  {dmpi} median behind the best peer at: {', '.join(behind)}\n")
        else:
            out.write(f"  {dmpi} median at least as good as the best peer at every size\n")


def round_table(test, sizes, mpis, dmpi, by_round, out):
    """Each run (one MPI, one round) gives one median; per MPI, the median
    of those and the best of them. On a shared host whose speed changes
    from minute to minute the pooled figures above depend on which MPI ran
    in which phase; these compare like with like: typical run against
    typical run, and best run against best run."""
    higher = kind(test)[1]
    peers = [m for m in mpis if m != dmpi]
    if dmpi not in mpis or not peers:
        return
    out.write(f"\n{test} per run: median of the run medians / best run"
              f" ({unit(test, sizes[0])}); ratio {dmpi} / best peer for each\n")
    width = {m: max(len(m), 15) for m in mpis}
    out.write(f"{'size':>6}  " + "  ".join(f"{m:>{width[m]}}" for m in mpis)
              + f"  {'ratio':>12}\n")
    behind = []
    for size in sizes:
        got = {}
        for m in mpis:
            runs = [stats(test, size, v)[0] for k, v in by_round.items()
                    if k[:3] == (test, size, m)]
            if runs:
                runs.sort()
                got[m] = (runs[len(runs) // 2], runs[-1] if higher else runs[0])
        row = f"{human_size(size):>6}  " + "  ".join(
            f"{(fmt(got[m][0]) + ' / ' + fmt(got[m][1])) if m in got else '-':>{width[m]}}"
            for m in mpis)
        ranked = [p for p in peers if p in got]
        ratio = "-"
        if dmpi in got and ranked:
            pick = max if higher else min
            typ = got[dmpi][0] / pick(got[p][0] for p in ranked)
            top = got[dmpi][1] / pick(got[p][1] for p in ranked)
            ratio = f"{typ:.2f} / {top:.2f}"
            if (typ < 1) if higher else (typ > 1):
                behind.append(human_size(size))
        out.write(row + f"  {ratio:>12}\n")
    out.write(f"  {dmpi} typical run behind the best peer's at: {', '.join(behind)}\n"
              if behind else f"  {dmpi} typical run at least as good as the best peer's"
              " at every size\n")


def write_medians(path, samples, mpis, dmpi):
    """One CSV line per (test, size, MPI): sample count, median and p99 time,
    the figures of the table and, on dmpi's lines, the ratio of the table:
    dmpi's median figure / the best peer's (for times below 1 means dmpi is
    better, for rates above 1)."""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["test", "size", "mpi", "samples", "median_us", "p99_us",
                    "median", "p99", "unit", "best_peer", "ratio"])
        for test, size in sorted({(k[0], k[1]) for k in samples}):
            if test.split("/")[0] not in TESTS:
                continue
            higher = kind(test)[1]
            got = {m: samples[(test, size, m)] for m in mpis if (test, size, m) in samples}
            shown = {m: stats(test, size, v) for m, v in got.items()}
            peers = [m for m in got if m != dmpi]
            best = None
            if peers:
                best = (max if higher else min)(peers, key=lambda p: shown[p][0])
            for m, v in got.items():
                v = sorted(v)
                ratio = ""
                if m == dmpi and best and shown[best][0] > 0:
                    ratio = f"{shown[m][0] / shown[best][0]:.4f}"
                w.writerow([test, size, m, len(v), f"{quantile(v, 0.5):.4f}",
                            f"{quantile(v, 0.99):.4f}", f"{shown[m][0]:.6g}",
                            f"{shown[m][1]:.6g}", unit(test, size),
                            best or "", ratio])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="raw samples from compare.sh")
    ap.add_argument("--order", default="", help="MPIs in column order, comma-separated")
    ap.add_argument("--dmpi", default="dmpi", help="name of the MPI under test")
    ap.add_argument("--medians-csv", metavar="OUT", help="also write the figures as CSV")
    args = ap.parse_args()

    by_round = {}
    samples, rounds = load(args.csv, by_round)
    if not samples:
        sys.exit(f"compare_summary: no samples in {args.csv}")
    seen = sorted(rounds)
    mpis = [m for m in args.order.split(",") if m in rounds]
    mpis += [m for m in seen if m not in mpis]
    names = sorted({k[0] for k in samples if k[0].split("/")[0] in TESTS},
                   key=lambda t: (list(TESTS).index(t.split("/")[0]),
                                  int(t.split("/np")[1]) if "/np" in t else 0))
    tests = names
    out = sys.stdout
    out.write(f"compare: {args.csv}; rounds: "
              + ", ".join(f"{m} {len(rounds[m])}" for m in mpis) + "\n")
    for test in tests:
        sizes = sorted({k[1] for k in samples if k[0] == test})
        table(test, sizes, mpis, args.dmpi, samples, out)
    if any(len(r) > 1 for r in rounds.values()):
        out.write("\nPer run (one MPI in one round): the host's speed changes between"
                  " runs, so\nthe pooled figures above mix fast and slow phases;"
                  " here each run counts once.\n")
        for test in tests:
            sizes = sorted({k[1] for k in samples if k[0] == test})
            round_table(test, sizes, mpis, args.dmpi, by_round, out)
    if args.medians_csv:
        write_medians(args.medians_csv, samples, mpis, args.dmpi)


if __name__ == "__main__":
    main()
