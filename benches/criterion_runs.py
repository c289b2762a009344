#!/usr/bin/env python3
"""Combines several runs of `cpu_vs_ndarray` (one stdout file per run and size) into the
tables of docs/results/: per row the median of the runs' criterion medians (min–max), the
same for the group's parallel ndarray row, the ratio of the two in each run (same run, same
minutes), their median, and whether the speed meets the target of >= 0.8x ndarray.

    B=target/release/deps/cpu_vs_ndarray-<hash>      # from `cargo bench --bench cpu_vs_ndarray --no-run`
    for i in 1 2 3; do for s in 1M 64M; do
      GPUARRAYS_BENCH_SIZES=$s $B --bench > runs/run_${s}_$i.txt; done; done
    python3 benches/criterion_runs.py runs/
"""

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from criterion_table import fmt, parse  # noqa: E402

TARGET = 0.8


def table(folder, size):
    runs = []
    for i in range(1, 10):
        path = os.path.join(folder, f"run_{size}_{i}.txt")
        if os.path.exists(path):
            runs.append(parse(open(path, encoding="utf-8").read()))
    if not runs:
        return
    print(f"\n### {size} elements ({len(runs)} runs)\n")
    print("| row | gpuarrays median (min–max) | ndarray parallel median (min–max) | time ratio per run | median ratio | speed vs ndarray | target ≥ 0.8× |")
    print("|---|---|---|---|---|---|---|")
    groups = {}
    for k, rows in enumerate(runs):
        for r in rows:
            groups.setdefault(r["group"], {}).setdefault(r["bench"], [None] * len(runs))[k] = r["mid"]
    for g, benches in groups.items():
        ref = next((b for b in benches if b.startswith("ndarray") and "1 thread" not in b and "copy" not in b), None)
        for b, ts in benches.items():
            if not b.startswith("gpuarrays") or ref is None:
                continue
            rs = benches[ref]
            if None in ts or None in rs:
                continue
            ratios = [t / r for t, r in zip(ts, rs)]
            mr = statistics.median(ratios)
            met = "met" if 1 / mr >= TARGET else "**missed**"
            print(f"| {g}/{b} | {fmt(statistics.median(ts))} ({fmt(min(ts))}–{fmt(max(ts))}) "
                  f"| {fmt(statistics.median(rs))} ({fmt(min(rs))}–{fmt(max(rs))}) "
                  f"| {', '.join(f'{x:.2f}' for x in ratios)} | {mr:.2f} | {1 / mr:.2f}× | {met} |")


if __name__ == "__main__":
    for size in ("1M", "64M"):
        table(sys.argv[1], size)
