#!/usr/bin/env python3
"""The table (and, when matplotlib is there, the plot) of app_patterns.sh
from its raw CSV: per case the median and the worst of the rounds for each
MPI, and dmpi's median over the best peer's median (below 1: dmpi faster).
Usage: app_patterns_summary.py RAW.csv [OUT_DIR]"""
import csv
import math
import statistics
import sys
from collections import defaultdict

NAMES = {"dmpi": "dmpi", "before": "dmpi before", "mpich5": "MPICH 5.0.2",
         "ompi5": "Open MPI 5.0.11", "mpich4": "MPICH 4.0.2"}
NOT_PEERS = ("dmpi", "before")


def main():
    rows = list(csv.DictReader(open(sys.argv[1])))
    times = defaultdict(list)
    cases, mpis = [], []
    for r in rows:
        case = (r["pattern"], int(r["ranks"]), int(r["busy"]), r["args"])
        if case not in cases:
            cases.append(case)
        if r["mpi"] not in mpis:
            mpis.append(r["mpi"])
        t = float(r["seconds"])
        times[(case, r["mpi"])].append(t)
    head = "| pattern | ranks | busy | " + " | ".join(
        f"{NAMES.get(m, m)} median (worst) s" for m in mpis) + " | dmpi / best peer |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    medians = {}
    for case in cases:
        cells = []
        for m in mpis:
            ts = [t for t in times[(case, m)] if not math.isnan(t)]
            fails = len(times[(case, m)]) - len(ts)
            if not ts:
                cells.append("failed")
                continue
            med = statistics.median(ts)
            medians[(case, m)] = med
            cells.append(f"{med:.3f} ({max(ts):.3f})" + (f", {fails} failed" if fails else ""))
        peers = [medians[(case, m)] for m in mpis if m not in NOT_PEERS and (case, m) in medians]
        ratio = (f"{medians[(case, 'dmpi')] / min(peers):.2f}"
                 if peers and (case, "dmpi") in medians else "-")
        pat, np_, busy, args = case
        print(f"| {pat}{' ' + args if args else ''} | {np_} | {busy} | " + " | ".join(cells)
              + f" | {ratio} |")
    if len(sys.argv) > 2:
        plot(cases, mpis, medians, sys.argv[2])


def plot(cases, mpis, medians, outdir):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(no matplotlib: no plot)", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(cases)), 4))
    width = 0.8 / max(1, len(mpis))
    for i, m in enumerate(mpis):
        xs = [j + i * width for j in range(len(cases))]
        ys = [medians.get((c, m), float("nan")) for c in cases]
        ax.bar(xs, ys, width, label=NAMES.get(m, m))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cases))])
    ax.set_xticklabels([f"{c[0]}\nn={c[1]} busy={c[2]}" for c in cases], fontsize=7)
    ax.set_yscale("log")
    ax.set_ylabel("seconds (median, log scale)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{outdir}/app_patterns.png", dpi=120)


if __name__ == "__main__":
    main()
