//! HIP kernel throughput side by side with PyTorch (the operations of the GPU array benchmark
//! suite and 1 GiB rows), plus host-side costs (the host enqueue of a tiny op directly and
//! through `AnyBackend`, a pooled stream take).
//!
//! Run on the GPU machine (see docs/results/hip-kernels.md):
//!
//! ```text
//! python3 benches/torch_hip_kernels.py > $OUT/torch.json
//! TORCH_RESULTS=$OUT/torch.json .gpu/bin/bench-hip_kernels
//! HIP_BENCH_ONLY=sort_2p26,sort_rows_8192 ...   # only these rows (no host-side figures)
//! HIP_BENCH_ONLY=host ...                         # only the host-side figures
//! ```
//!
//! Every figure is the median over repetitions of (wall time of `k` back-to-back calls,
//! bracketed by stream synchronisations) / `k`, the method the PyTorch script uses too. The
//! ratio is PyTorch's time over ours (> 1: we are faster). Bandwidth counts the bytes each
//! operation must move once (inputs read, outputs written), in GB/s of 10⁹ bytes. Rows whose
//! name ends in `_bitonic`, `_radix`, `_register`, `_multipass`, `_lookback`, `_threads` or
//! `_perelement` run another (mostly the previous) kernel of that operation in the same
//! process, for comparison: the
//! 3-pass shared-memory scan and the single-pass look-back scan (`GPUARRAYS_SCAN`), the
//! thread-per-column axis reduction (`GPUARRAYS_REDUCE_COLS=threads`) and the per-element
//! argmax (`GPUARRAYS_ARG_REDUCE=perelement`).

#[path = "common/host_enqueue.rs"]
mod host_enqueue;
#[path = "common/host_launch_split.rs"]
mod host_launch_split;

use gpuarrays_core::bench_stats::{Plan, Wait, median, sample};

use gpuarrays_core::kernel::ReduceOp;
use gpuarrays_core::{Array, Backend};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::reduce::{ArgReduce, ColReduce};
use gpuarrays_hip::kernels::scan::RowScan;
use gpuarrays_hip::kernels::sort::SortAlgorithm;

const N: usize = 1 << 28; // 1 GiB of f32
const SIDE: usize = 1 << 14; // 16384 × 16384 f32 = 1 GiB
const N26: usize = 1 << 26; // the issue's 1-D size
const SIDE13: usize = 1 << 13; // the issue's 8192 × 8192
const GIB: f64 = (1u64 << 30) as f64;

/// Median seconds per call of `f` (k calls between synchronisations, `reps` repetitions,
/// after `warm` calls).
fn time(hip: &HipBackend, warm: usize, reps: usize, k: usize, f: impl FnMut()) -> f64 {
    let plan = Plan {
        warmup: warm,
        samples: reps,
        calls: k,
        wait: Wait::Inside,
    };
    median(sample(plan, f, || hip.synchronize().expect("sync")))
}

struct Row {
    name: &'static str,
    bytes: f64,
    secs: f64,
}

/// PyTorch's figures: one `{"name": "...", "gbps": X, "ms": Y}` object per line.
fn torch_results() -> Vec<(String, f64)> {
    let Ok(path) = std::env::var("TORCH_RESULTS") else {
        return Vec::new();
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("could not read TORCH_RESULTS={path}");
        return Vec::new();
    };
    let field = |l: &str, key: &str| -> Option<f64> {
        l.split(&format!("\"{key}\": "))
            .nth(1)?
            .split([',', '}'])
            .next()?
            .trim()
            .parse()
            .ok()
    };
    text.lines()
        .filter_map(|l| {
            let name = l.split("\"name\": \"").nth(1)?.split('"').next()?;
            Some((name.to_string(), field(l, "ms")?))
        })
        .collect()
}

/// The rows of the table; `wanted` filters by name (`HIP_BENCH_ONLY`).
fn device_rows(hip: &HipBackend, wanted: &dyn Fn(&str) -> bool) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut bench = |name: &'static str, bytes: f64, k: usize, f: &mut dyn FnMut()| {
        if wanted(name) {
            let secs = time(hip, 2, 7, k, f);
            rows.push(Row { name, bytes, secs });
        }
    };
    let f32s = |n: usize| (n * 4) as f64;
    {
        let x = Array::<f32, _>::random_uniform(hip, &[N], 1).expect("x");
        let y = Array::<f32, _>::random_uniform(hip, &[N], 2).expect("y");
        let mut z = Array::<f32, _>::zeros(hip, &[N]).expect("z");
        bench("axpy", 3.0 * GIB, 10, &mut || {
            (&x * 1.5f32 + &y).eval_into(&mut z).expect("axpy");
        });
        bench("copy", 2.0 * GIB, 10, &mut || drop(x.copy().expect("copy")));
        bench("randn", GIB, 10, &mut || {
            drop(Array::<f32, _>::random_normal(hip, &[N], 6).expect("randn"))
        });
        bench("sum", GIB, 10, &mut || {
            drop(x.raw().reduce(ReduceOp::Sum, None).expect("sum"))
        });
        bench("cumsum", 2.0 * GIB, 5, &mut || {
            drop(x.cumsum(0).expect("cumsum"))
        });
        hip.kernels()
            .update_policy(|p| p.row_scan = Some(RowScan::Multipass));
        bench("cumsum_multipass", 2.0 * GIB, 5, &mut || {
            drop(x.cumsum(0).expect("cumsum"))
        });
        hip.kernels()
            .update_policy(|p| p.row_scan = Some(RowScan::Lookback));
        bench("cumsum_lookback", 2.0 * GIB, 5, &mut || {
            drop(x.cumsum(0).expect("cumsum"))
        });
        hip.kernels().reset_policy();
        let m = Array::<f32, _>::random_uniform(hip, &[SIDE, SIDE], 3).expect("m");
        bench("sum_dim0", GIB, 10, &mut || {
            drop(m.sum_axis(0).expect("sum0"))
        });
        hip.kernels()
            .update_policy(|p| p.col_reduce = ColReduce::Threads);
        bench("sum_dim0_threads", GIB, 10, &mut || {
            drop(m.sum_axis(0).expect("sum0"))
        });
        hip.kernels().reset_policy();
        bench("sum_dim1", GIB, 10, &mut || {
            drop(m.sum_axis(1).expect("sum1"))
        });
    }
    let x = Array::<f32, _>::random_uniform(hip, &[N26], 11).expect("x26");
    let m = Array::<f32, _>::random_uniform(hip, &[SIDE13, SIDE13], 12).expect("m13");
    let b26 = f32s(N26);
    bench("random_2p26", b26, 10, &mut || {
        drop(Array::<f32, _>::random_uniform(hip, &[N26], 5).expect("random"))
    });
    bench("randn_2p26", b26, 10, &mut || {
        drop(Array::<f32, _>::random_normal(hip, &[N26], 7).expect("randn"))
    });
    bench("randn_f64_2p25", b26, 10, &mut || {
        drop(Array::<f64, _>::random_normal(hip, &[N26 / 2], 8).expect("randn f64"))
    });
    bench("cumsum_2p26", 2.0 * b26, 10, &mut || {
        drop(x.cumsum(0).expect("cumsum"))
    });
    hip.kernels()
        .update_policy(|p| p.row_scan = Some(RowScan::Multipass));
    bench("cumsum_2p26_multipass", 2.0 * b26, 10, &mut || {
        drop(x.cumsum(0).expect("cumsum"))
    });
    hip.kernels()
        .update_policy(|p| p.row_scan = Some(RowScan::Lookback));
    bench("cumsum_2p26_lookback", 2.0 * b26, 10, &mut || {
        drop(x.cumsum(0).expect("cumsum"))
    });
    hip.kernels().reset_policy();
    // Int64 in one 1 GiB row (2^27 elements) and the suite's small 1-D size (2^19 f32).
    {
        let xi = Array::<i64, _>::arange(hip, -(1 << 26), 1, N / 2).expect("xi");
        let xs = x.slice(0..1 << 19).and_then(|v| v.copy()).expect("xs");
        for (mode, i64_row, small_row) in [
            (None, "cumsum_i64", "cumsum_2p19"),
            (
                Some(RowScan::Multipass),
                "cumsum_i64_multipass",
                "cumsum_2p19_multipass",
            ),
            (
                Some(RowScan::Lookback),
                "cumsum_i64_lookback",
                "cumsum_2p19_lookback",
            ),
        ] {
            hip.kernels().update_policy(|p| p.row_scan = mode);
            bench(i64_row, 2.0 * GIB, 5, &mut || {
                drop(xi.cumsum(0).expect("cumsum i64"))
            });
            bench(small_row, 2.0 * f32s(1 << 19), 50, &mut || {
                drop(xs.cumsum(0).expect("cumsum small"))
            });
        }
        hip.kernels().reset_policy();
    }
    bench("cumsum_rows_8192", 2.0 * b26, 10, &mut || {
        drop(m.cumsum(1).expect("cumsum rows"))
    });
    // The same rows through the reduce-then-scan (the automatic choice takes one pass per
    // row here: 8192 rows of two tiles).
    hip.kernels()
        .update_policy(|p| p.row_scan = Some(RowScan::ReduceScan));
    bench("cumsum_rows_8192_reducescan", 2.0 * b26, 10, &mut || {
        drop(m.cumsum(1).expect("cumsum rows"))
    });
    hip.kernels().reset_policy();
    bench("argmax_2p26", b26, 10, &mut || {
        drop(x.raw().reduce(ReduceOp::ArgMax, None).expect("argmax"))
    });
    bench("argmax_2p26_item", b26, 10, &mut || {
        let _ = x.argmax().expect("argmax");
    });
    hip.kernels()
        .update_policy(|p| p.arg_reduce = ArgReduce::PerElement);
    bench("argmax_2p26_perelement", b26, 10, &mut || {
        drop(x.raw().reduce(ReduceOp::ArgMax, None).expect("argmax"))
    });
    hip.kernels().reset_policy();
    bench("sum_dim0_8192", b26, 10, &mut || {
        drop(m.sum_axis(0).expect("sum0"))
    });
    hip.kernels()
        .update_policy(|p| p.col_reduce = ColReduce::Threads);
    bench("sum_dim0_8192_threads", b26, 10, &mut || {
        drop(m.sum_axis(0).expect("sum0"))
    });
    hip.kernels().reset_policy();
    bench("sum_dim1_8192", b26, 10, &mut || {
        drop(m.sum_axis(1).expect("sum1"))
    });
    bench("transpose_8192", 2.0 * b26, 10, &mut || {
        drop(m.transpose().expect("transpose"))
    });
    let x3 = x.reshape(&[256, 512, 512]).expect("x3");
    bench("permute_210", 2.0 * b26, 10, &mut || {
        drop(x3.permute(&[2, 1, 0]).expect("permute"))
    });
    bench("reverse_2p26", 2.0 * b26, 10, &mut || {
        drop(x.reverse(0).expect("reverse"))
    });
    // Sorts return a sorted copy (the copy is part of the time, as PyTorch's output is).
    for (alg, one, rows) in [
        (SortAlgorithm::Auto, "sort_2p26", "sort_rows_8192"),
        (
            SortAlgorithm::Bitonic,
            "sort_2p26_bitonic",
            "sort_rows_8192_bitonic",
        ),
    ] {
        hip.kernels().update_policy(|p| p.sort = alg);
        bench(one, 2.0 * b26, 3, &mut || drop(x.sort().expect("sort")));
        bench(rows, 2.0 * b26, 3, &mut || {
            drop(m.sort().expect("sort rows"))
        });
    }
    hip.kernels().reset_policy();
    let xd = Array::<f64, _>::random_uniform(hip, &[N26 / 2], 13).expect("xd");
    bench("sort_f64_2p25", 2.0 * b26, 3, &mut || {
        drop(xd.sort().expect("sort f64"))
    });
    // Short rows by every in-block algorithm (the default, the register sort, the bitonic
    // tile and the one-block radix), to place the thresholds between them.
    for (len, names) in [
        (
            128isize,
            [
                "sort_rows_128",
                "sort_rows_128_register",
                "sort_rows_128_bitonic",
                "sort_rows_128_radix",
            ],
        ),
        (
            256,
            [
                "sort_rows_256",
                "sort_rows_256_register",
                "sort_rows_256_bitonic",
                "sort_rows_256_radix",
            ],
        ),
        (
            512,
            [
                "sort_rows_512",
                "sort_rows_512_register",
                "sort_rows_512_bitonic",
                "sort_rows_512_radix",
            ],
        ),
        (
            1024,
            [
                "sort_rows_1024",
                "sort_rows_1024_register",
                "sort_rows_1024_bitonic",
                "sort_rows_1024_radix",
            ],
        ),
        (
            2048,
            [
                "sort_rows_2048",
                "sort_rows_2048_register",
                "sort_rows_2048_bitonic",
                "sort_rows_2048_radix",
            ],
        ),
    ] {
        let r = x.reshape(&[N26 as isize / len, len]).expect("short rows");
        for (alg, name) in [
            SortAlgorithm::Auto,
            SortAlgorithm::Register,
            SortAlgorithm::Bitonic,
            SortAlgorithm::Rows,
        ]
        .into_iter()
        .zip(names)
        {
            hip.kernels().update_policy(|p| p.sort = alg);
            bench(name, 2.0 * b26, 3, &mut || {
                drop(r.sort().expect("sort short rows"))
            });
        }
    }
    hip.kernels().reset_policy();
    rows
}

fn main() {
    let hip = match HipBackend::new(0) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("hip_kernels: no HIP device ({e}); nothing to measure");
            return;
        }
    };
    println!("device: {}", hip.device());
    // HIP_BENCH_ONLY=cumsum,sum runs only those rows (and skips the host-side figures).
    let only = std::env::var("HIP_BENCH_ONLY").ok();
    if only.as_deref() == Some("host") {
        host_figures(&hip);
        return;
    }
    let wanted = |n: &str| only.as_deref().is_none_or(|o| o.split(',').any(|x| x == n));
    for var in ["GPUARRAYS_SCAN", "GPUARRAYS_SORT", "GPUARRAYS_REDUCE"] {
        if let Ok(v) = std::env::var(var) {
            println!("{var}={v}");
        }
    }
    let rows = device_rows(&hip, &wanted);
    let torch = torch_results();
    println!("\n| op (f32 unless named) | gpuarrays-hip ms | GB/s | PyTorch ms | PyTorch / ours |");
    println!("|---|---|---|---|---|");
    for r in &rows {
        let gbps = r.bytes / r.secs / 1e9;
        let base = r
            .name
            .trim_end_matches("_bitonic")
            .trim_end_matches("_multipass")
            .trim_end_matches("_lookback")
            .trim_end_matches("_threads")
            .trim_end_matches("_perelement")
            .trim_end_matches("_radix")
            .trim_end_matches("_register")
            .trim_end_matches("_item");
        let theirs = torch.iter().find(|(n, _)| n == base).map(|(_, ms)| *ms);
        let (tms, ratio) = match theirs {
            Some(ms) => (format!("{ms:.3}"), format!("{:.3}", ms / (r.secs * 1e3))),
            None => ("-".into(), "-".into()),
        };
        println!(
            "| {} | {:.3} | {gbps:.0} | {tms} | {ratio} |",
            r.name,
            r.secs * 1e3
        );
    }
    if only.is_some() {
        return;
    }
    host_figures(&hip);
}

/// Host enqueue of a tiny fused op and a pooled stream take (host time, not device time).
fn host_figures(hip: &HipBackend) {
    // Host enqueue of a tiny fused op: per-call host time, not device time, directly on the
    // HIP backend and through the runtime-chosen AnyBackend wrapping it (the method is in
    // benches/common/host_enqueue.rs).
    println!();
    let any = gpuarrays::AnyBackend::from(hip.clone());
    host_enqueue::print(&host_enqueue::tiny_axpy(hip, &any));
    println!();
    host_launch_split::print(&host_launch_split::split(hip));

    // Taking a pooled stream is measured by `benches/hip_stream_take.rs` (a finished
    // thread's ready stream, taken by a new thread): the pool's take/release are internal
    // (no caller may hand one stream to two live threads).
    let s = hip.kernels().cache_stats();
    println!(
        "kernels: compiled {}, from disk {}, loaded {}",
        s.compiled, s.disk_hits, s.loaded
    );
}
