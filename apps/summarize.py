#!/usr/bin/env python3
"""apps/summarize.py: turns apps/run.sh's raw.csv (one row per run) into
medians.csv, summary.md (median time per app, ranks and MPI, dmpi over the
best peer, the figures of merit, the checks) and, when matplotlib imports,
relative.png (dmpi and each peer's time over the best peer's) and
scaling.png (median time against ranks per app).

usage: apps/summarize.py RAW_CSV OUT_DIR"""
import csv
import os
import statistics
import sys
from collections import defaultdict

PEERS = ["mpich-5.0.2", "openmpi-5.0.11"]
ORDER = ["dmpi"] + PEERS


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    raw, out = sys.argv[1], sys.argv[2]
    times, foms, units, checks = defaultdict(list), defaultdict(list), {}, defaultdict(list)
    apps, ranks = [], set()
    with open(raw) as f:
        for r in csv.DictReader(f):
            key = (r["app"], int(r["ranks"]), r["mpi"])
            if r["app"] not in apps:
                apps.append(r["app"])
            ranks.add(int(r["ranks"]))
            checks[key].append(r["check"])
            if r["check"] == "PASSED":
                times[key].append(float(r["time_s"]))
                foms[key].append(float(r["fom"]))
                units[r["app"]] = r["unit"]
    ranks = sorted(ranks)
    med = {k: statistics.median(v) for k, v in times.items()}
    fmed = {k: statistics.median(v) for k, v in foms.items()}

    with open(os.path.join(out, "medians.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["app", "ranks", "mpi", "runs", "passed", "median_time_s", "min_time_s", "max_time_s",
                    "median_fom", "unit"])
        for a in apps:
            for n in ranks:
                for m in ORDER:
                    k = (a, n, m)
                    if k not in checks:
                        continue
                    t = times.get(k, [])
                    w.writerow([a, n, m, len(checks[k]), checks[k].count("PASSED"),
                                f"{med[k]:.6f}" if t else "", f"{min(t):.6f}" if t else "",
                                f"{max(t):.6f}" if t else "", f"{fmed[k]:.6g}" if t else "", units.get(a, "")])

    lines = ["| app | ranks | dmpi s | MPICH 5.0.2 s | Open MPI 5.0.11 s | dmpi / best peer | "
             "figure of merit dmpi / best peer | checks |",
             "|---|---|---|---|---|---|---|---|"]
    rel = {}
    for a in apps:
        for n in ranks:
            cells, peer_t = [], []
            for m in ORDER:
                k = (a, n, m)
                cells.append(f"{med[k]:.4f}" if k in med else ("failed" if k in checks else "-"))
                if m in PEERS and k in med:
                    peer_t.append((med[k], m))
            d = med.get((a, n, "dmpi"))
            best = min(peer_t) if peer_t else None
            ratio = f"**{d / best[0]:.2f}**" if d and best else "-"
            if d and best:
                rel[(a, n)] = {m: med[(a, n, m)] / best[0] for m in ORDER if (a, n, m) in med}
            fd = fmed.get((a, n, "dmpi"))
            fb = fmed.get((a, n, best[1])) if best else None
            fom = f"{fd:.4g} / {fb:.4g} {units.get(a, '')}" if fd is not None and fb is not None else "-"
            allc = [c for m in ORDER for c in checks.get((a, n, m), [])]
            chk = f"{allc.count('PASSED')}/{len(allc)} passed"
            lines.append(f"| {a} | {n} | " + " | ".join(cells) + f" | {ratio} | {fom} | {chk} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("Median time of each app (seconds, lower is better) on each MPI; dmpi / best peer "
                "below 1 means dmpi was faster.\n\n" + text)
    print(text, end="")

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("summarize: no matplotlib, no plots", file=sys.stderr)
        return
    labels = [(a, n) for a in apps for n in ranks if (a, n) in rel]
    if labels:
        fig, ax = plt.subplots(figsize=(max(8, len(labels) * 0.7), 4.5))
        width = 0.8 / len(ORDER)
        for i, m in enumerate(ORDER):
            ax.bar([j + i * width for j in range(len(labels))], [rel[l].get(m, 0) for l in labels], width, label=m)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([j + width for j in range(len(labels))])
        ax.set_xticklabels([f"{a}\nnp={n}" for a, n in labels], rotation=60, ha="right", fontsize=7)
        ax.set_ylabel("median time / best peer's")
        ax.set_title("apps: time relative to the best peer (lower is better)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(out, "relative.png"), dpi=110)
    cols = min(4, len(apps)) or 1
    rows = (len(apps) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3 * rows), squeeze=False)
    for i, a in enumerate(apps):
        ax = axes[i // cols][i % cols]
        for m in ORDER:
            pts = [(n, med[(a, n, m)]) for n in ranks if (a, n, m) in med]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=m)
        ax.set_title(a, fontsize=9)
        ax.set_xlabel("ranks")
        ax.set_ylabel("median time, s")
        ax.set_xticks(ranks)
    for j in range(len(apps), rows * cols):
        axes[j // cols][j % cols].axis("off")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "scaling.png"), dpi=110)


if __name__ == "__main__":
    main()
