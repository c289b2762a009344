#!/usr/bin/env python3
"""Turns the stdout of `cargo bench --bench cpu_vs_ndarray` into markdown tables with the
ratios gpuarrays / ndarray, for docs/results/.

    cargo bench --bench cpu_vs_ndarray > bench.txt
    python3 benches/criterion_table.py bench.txt

Per group: each benchmark's median time (with criterion's 95% interval), the throughput
criterion computed from the group's byte count, and for each gpuarrays row the ratio of its
median to the median of the group's parallel ndarray row (> 1: gpuarrays is slower).
"""

import re
import sys

UNITS = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def seconds(value, unit):
    return float(value) * UNITS[unit]


def parse(text):
    rows, name = [], None
    for line in text.splitlines():
        if line.startswith("Benchmarking") or "change:" in line:
            continue
        m = re.match(r"^(\S.*?)\s+time:\s+\[(.*)\]", line)
        if m:
            name, rest = m.group(1), m.group(2)
        else:
            m = re.match(r"^\s+time:\s+\[(.*)\]", line)
            if m and name:
                rest = m.group(1)
            elif re.match(r"^[a-z_0-9]+/", line):
                name = line.strip()
                continue
            else:
                m = re.match(r"^\s+thrpt:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
                if m and rows and rows[-1]["thrpt"] is None:
                    rows[-1]["thrpt"] = f"{m.group(1)} {m.group(2)}"
                continue
        parts = rest.split()
        if len(parts) != 6 or "%" in rest:
            continue
        lo, mid, hi = (seconds(parts[i], parts[i + 1]) for i in (0, 2, 4))
        group, _, bench = name.rpartition("/")
        rows.append({"group": group, "bench": bench, "lo": lo, "mid": mid, "hi": hi, "thrpt": None})
        name = None
    return rows


def fmt(t):
    return f"{t * 1e3:.3f} ms" if t >= 1e-3 else f"{t * 1e6:.1f} µs"


def main():
    rows = parse(open(sys.argv[1], encoding="utf-8").read())
    groups = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    for group, rs in groups.items():
        ref = next((r for r in rs if r["bench"].startswith("ndarray") and "1 thread" not in r["bench"]
                    and "copy" not in r["bench"]), None)
        print(f"\n**{group}**\n")
        print("| benchmark | median [95% interval] | throughput | gpuarrays / ndarray |")
        print("|---|---|---|---|")
        for r in rs:
            ratio = ""
            if ref is not None and r["bench"].startswith("gpuarrays"):
                ratio = f"{r['mid'] / ref['mid']:.2f}"
            print(f"| {r['bench']} | {fmt(r['mid'])} [{fmt(r['lo'])}, {fmt(r['hi'])}] | "
                  f"{r['thrpt'] or ''} | {ratio} |")


if __name__ == "__main__":
    main()
