#!/usr/bin/env python3
"""Plots and tables from the FFT benchmark outputs (matplotlib):

    python3 benches/fft_plot.py OUTDIR fft_plan_cache.csv fft_throughput.csv fft_torch_cupy.csv

- OUTDIR/fft_churn.png: free device memory, idle plans and idle plan bytes against the
  number of distinct lengths planned (the `churn,` lines);
- OUTDIR/fft_throughput.png: time per transform of each case, ours / raw cuFFT / PyTorch /
  CuPy (the `fft,` lines);
- OUTDIR/fft_summary.md: the same numbers as Markdown tables, with ours / cuFFT ratios.
"""

import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def lines(paths):
    for p in paths:
        try:
            with open(p) as f:
                for line in f:
                    if not line.startswith("#"):
                        yield line.strip().split(",")
        except FileNotFoundError:
            print(f"missing {p}", file=sys.stderr)


def main():
    out, paths = sys.argv[1], sys.argv[2:]
    churn, hotcold, times, host = [], [], defaultdict(dict), []
    for f in lines(paths):
        if f[0] == "churn":
            churn.append([float(v) for v in f[1:]])
        elif f[0] == "hotcold":
            hotcold.append(f[1:])
        elif f[0] == "fft":
            times[f[2]][f[1]] = (float(f[3]), float(f[4]))
        elif f[0] == "host":
            host.append(f[1:])
    md = ["# FFT benchmarks", ""]
    if churn:
        x = [r[0] for r in churn]
        fig, ax = plt.subplots(3, 1, figsize=(7, 8), sharex=True)
        ax[0].plot(x, [r[2] for r in churn])
        ax[0].set_ylabel("free device MiB")
        ax[1].plot(x, [r[3] for r in churn], label="idle")
        ax[1].plot(x, [r[4] for r in churn], label="live")
        ax[1].set_ylabel("cached plans")
        ax[1].legend()
        ax[2].plot(x, [r[5] for r in churn])
        ax[2].set_ylabel("idle plan MiB (reported)")
        ax[2].set_xlabel("distinct lengths planned")
        fig.suptitle("distinct-length churn (16, 18, 20, ...)")
        fig.tight_layout()
        fig.savefig(f"{out}/fft_churn.png", dpi=120)
        first, last = churn[0], churn[-1]
        md += ["## Distinct-length churn", "",
               f"{int(last[0])} lengths; free memory {first[2]:.0f} MiB after the first, "
               f"{min(r[2] for r in churn):.0f} MiB at the lowest, {last[2]:.0f} MiB at the end; "
               f"idle plans at the end {int(last[3])}, evictions {int(last[6])}.", ""]
    if hotcold:
        md += ["## Hot/cold churn (200 iterations)", "", "| H | C | hot rebuilds | cold plans | hits | misses | evictions | s |",
               "|---|---|---|---|---|---|---|---|"]
        md += ["| " + " | ".join(r) + " |" for r in hotcold] + [""]
    if times:
        impls = ["ours", "cufft", "torch", "cupy"]
        md += ["## Throughput (ms per transform; GB/s of input + output)", "",
               "| case | " + " | ".join(impls) + " | ours / cuFFT |", "|---" * (len(impls) + 2) + "|"]
        for case, row in times.items():
            cells = [f"{row[i][0]:.3f} ({row[i][1]:.0f})" if i in row else "—" for i in impls]
            ratio = f"{row['ours'][0] / row['cufft'][0]:.3f}" if "ours" in row and "cufft" in row else "—"
            md.append(f"| {case} | " + " | ".join(cells) + f" | {ratio} |")
        md.append("")
        fig, ax = plt.subplots(figsize=(9, 4))
        names = list(times)
        w = 0.2
        for k, impl in enumerate(impls):
            ax.bar([i + k * w for i in range(len(names))],
                   [times[n].get(impl, (0, 0))[0] for n in names], w, label=impl)
        ax.set_xticks([i + 1.5 * w for i in range(len(names))])
        ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("ms per transform")
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"{out}/fft_throughput.png", dpi=120)
    if host:
        md += ["## Host cost", "", "| what | µs |", "|---|---|"] + [f"| {w} | {v} |" for w, v in host] + [""]
    with open(f"{out}/fft_summary.md", "w") as f:
        f.write("\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    main()
