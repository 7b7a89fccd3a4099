#!/usr/bin/env python3
"""plot_results.py: draw the raw samples of bench/compare.sh (CSV:
mpi,round,test,size,sample,us) as one PNG: a panel per test (latency,
bandwidth, bi-bandwidth, multi-pair bandwidth, message rate) against the
message size, one line per MPI, log-log axes.  Solid lines with markers are
the medians over all rounds, thin dotted lines of the same colour the p99
(for rates: the rate at the p99 time).  The figures are the ones of the
tables of bench/compare_summary.py, whose functions it uses.  Needs
matplotlib (bench/run_all.sh installs it into <cache>/venv).

usage: plot_results.py [-o OUT.png] [--order mpi1,mpi2,...] FILE.csv
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_summary as cs  # noqa: E402

YLABEL = {
    "lat": "microseconds per message (half round trip)",
    "bw": "MB/s",
    "bibw": "MB/s, both directions",
    "mbw": "aggregate MB/s, all pairs",
    "msgrate": "million messages per second, all pairs",
}
TITLE = {
    "lat": "latency (lower is better)",
    "bw": "bandwidth (higher is better)",
    "bibw": "bi-directional bandwidth (higher is better)",
    "mbw": "multi-pair bandwidth (higher is better)",
    "msgrate": "message rate (higher is better)",
}


def panel_title(test):
    base, _, np = test.partition("/")
    title = TITLE.get(base, test)
    if np:
        title += f", {np[2:]} ranks"
    return title


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="raw samples from compare.sh / run_all.sh")
    ap.add_argument("-o", "--out", help="PNG to write (default: the CSV's name with .png)")
    ap.add_argument("--order", default="", help="MPIs in legend order, comma-separated")
    ap.add_argument("--dmpi", default="dmpi", help="name of the MPI under test (drawn bold)")
    args = ap.parse_args()
    out = args.out or os.path.splitext(args.csv)[0] + ".png"

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.lines import Line2D
        from matplotlib.ticker import FixedLocator, NullLocator
    except ImportError as e:
        sys.exit(f"plot_results: matplotlib is not available ({e}); no plot")

    samples, rounds = cs.load(args.csv)
    tests = sorted({k[0] for k in samples if k[0].split("/")[0] in YLABEL},
                   key=lambda t: list(YLABEL).index(t.split("/")[0]))
    if not tests:
        sys.exit(f"plot_results: no pt2pt samples (lat, bw, bibw, mbw, msgrate) in {args.csv}")
    mpis = [m for m in args.order.split(",") if m in rounds]
    mpis += [m for m in sorted(rounds) if m not in mpis]
    colors = dict(zip(mpis, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 4))

    ncols = 2 if len(tests) <= 4 else 3
    nrows = (len(tests) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(6.4 * ncols, 4.6 * nrows), squeeze=False)
    dropped_zero = False
    for ax, test in zip(axes.flat, tests):
        sizes = sorted({k[1] for k in samples if k[0] == test})
        if 0 in sizes:
            dropped_zero = True  # no place on a log axis
            sizes.remove(0)
        for m in mpis:
            pts = [(s, cs.stats(test, s, samples[(test, s, m)]))
                   for s in sizes if (test, s, m) in samples]
            pts = [(s, v) for s, v in pts if v[0] > 0 and v[1] > 0]
            if not pts:
                continue
            xs = [s for s, _ in pts]
            bold = m == args.dmpi
            ax.plot(xs, [v[0] for _, v in pts], marker="o", ms=4 if bold else 3,
                    lw=2.2 if bold else 1.3, color=colors[m], label=m, zorder=3 if bold else 2)
            ax.plot(xs, [v[1] for _, v in pts], ls=":", lw=1, marker=".", ms=3,
                    color=colors[m], alpha=0.8)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(FixedLocator(sizes))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xticks(sizes, [cs.human_size(s) for s in sizes],
                      rotation=45 if len(sizes) > 8 else 0, fontsize=8)
        ax.set_xlabel("message size, bytes")
        ax.set_ylabel(YLABEL[test.split("/")[0]])
        ax.set_title(panel_title(test), fontsize=11)
        ax.grid(True, which="major", alpha=0.3)
        ax.grid(True, which="minor", axis="y", alpha=0.1)
    for ax in list(axes.flat)[len(tests):]:
        ax.axis("off")

    handles = [Line2D([], [], color=colors[m], marker="o", lw=2.2 if m == args.dmpi else 1.3,
                      label=f"{m} (median)") for m in mpis]
    handles.append(Line2D([], [], color="gray", ls=":", marker=".", ms=3,
                          label="p99 (slow tail), same colour"))
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 5),
               frameon=False, fontsize=9)
    where = os.path.abspath(args.csv).split(os.sep)[-2:]
    note = f"{'/'.join(where)}: medians over all rounds ("
    note += ", ".join(f"{m} {len(rounds[m])}" for m in mpis) + " rounds)"
    if dropped_zero:
        note += "; size 0 left out (log axis)"
    fig.suptitle(note, fontsize=10)
    fig.tight_layout(rect=(0, 0.06, 1, 0.96))
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
