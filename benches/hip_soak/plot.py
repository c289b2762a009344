#!/usr/bin/env python3
"""Plot the soak's CSV (benches/hip_soak) to a PNG: RSS, device memory and pooled streams
against the number of finished threads. Usage: plot.py hip_soak.csv hip_soak.png"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    rows = list(csv.DictReader(open(src)))
    t = [int(r["threads"]) for r in rows]
    col = lambda k, s=1.0: [float(r[k]) / s for r in rows]  # noqa: E731
    mib = 1024.0 * 1024.0
    fig, ax = plt.subplots(3, 1, figsize=(8, 9), sharex=True)
    ax[0].plot(t, col("rss_bytes", mib), label="process RSS")
    ax[0].set_ylabel("MiB")
    ax[0].legend()
    ax[1].plot(t, col("device_free_bytes", mib), label="device free")
    ax[1].plot(t, col("pool_in_use_bytes", mib), label="pool in use")
    ax[1].plot(t, col("pool_cached_bytes", mib), label="pool cached")
    ax[1].set_ylabel("MiB")
    ax[1].set_yscale("symlog")
    ax[1].legend()
    ax[2].plot(t, col("streams_alive"), label="streams alive")
    ax[2].plot(t, col("streams_idle"), label="streams idle")
    ax[2].plot(t, col("streams_created"), label="streams created")
    ax[2].set_ylabel("streams")
    ax[2].set_xlabel("threads finished")
    ax[2].legend()
    fig.suptitle("HIP soak: short threads doing GPU work, results freed on another thread")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst} ({len(rows)} samples)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "hip_soak.png")
