#!/usr/bin/env python3
"""summary.py RAW.csv: the table of run.sh's figures. For each test and
size, the median over rounds of each mode's median (microseconds per call,
slowest rank), and hier / flat and comb / flat (below 1: faster than flat)."""
import csv
import statistics
import sys
from collections import defaultdict

med = defaultdict(list)
order = []
for row in csv.DictReader(open(sys.argv[1])):
    key = (row["test"], int(row["size"]))
    if key not in order:
        order.append(key)
    med[key + (row["mode"],)].append(float(row["median_us"]))


def size_name(n):
    return f"{n >> 10} KiB" if n >= 1024 else f"{n} B"


print("| test | size | rounds | flat us | hier us | comb us | hier/flat | comb/flat |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for test, size in order:
    m = {mode: med.get((test, size, mode), []) for mode in ("flat", "hier", "comb")}
    v = {k: statistics.median(x) if x else None for k, x in m.items()}
    fmt = lambda x: f"{x:.0f}" if x is not None else "-"
    rat = lambda x: f"{x / v['flat']:.2f}" if x is not None and v["flat"] else "-"
    print(f"| {test} | {size_name(size)} | {len(m['flat'])} | {fmt(v['flat'])} | "
          f"{fmt(v['hier'])} | {fmt(v['comb'])} | {rat(v['hier'])} | {rat(v['comb'])} |")
