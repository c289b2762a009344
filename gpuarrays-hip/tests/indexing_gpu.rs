//! The gather and scatter kernels on a GPU: every type, mode and kernel against core's host
//! reference at sizes of many blocks (`kernel_checks/indexing.rs`), an index space of more
//! than 2^32 points (the kernels' 64-bit split of a point's number, which the emulator's
//! sizes never reach), the subnormal behaviour of the float atomics, and device times of
//! typical shapes (printed, not checked: `--nocapture`), the launcher's variants among them
//! (rows along a contiguous inner axis, gathers along the last axis, the histogram). The
//! logic is also checked on the CPU emulation in `indexing_emulated`, at small sizes.
//!
//! Without a GPU every test prints why and passes; with `GPUARRAYS_REQUIRE_GPU=1` a missing
//! GPU fails instead.

mod kernel_checks;

use gpuarrays_core::kernel::{
    GatherArgs, IndexMode, IndexSpace, ReduceArgs, ReduceOp, ScatterArgs, ScatterOp, Strided3,
};
use gpuarrays_core::{Backend, DType};
use gpuarrays_hip::{HipBackend, HipBuffer};
use kernel_checks::indexing::{self, Layout, row_major};

fn gpu() -> Option<HipBackend> {
    match HipBackend::new(0) {
        Ok(b) => Some(b),
        Err(e) => {
            let required = std::env::var("GPUARRAYS_REQUIRE_GPU").is_ok_and(|v| v == "1");
            assert!(
                !required,
                "GPUARRAYS_REQUIRE_GPU=1 but the HIP backend is unavailable: {e}"
            );
            eprintln!("skipped: no HIP device ({e})");
            None
        }
    }
}

const LAYOUTS: &[Layout] = &[
    Layout {
        name: "rows along a contiguous inner axis (rows variants), tails",
        dims: [2, 300, 203],
        extent: 120,
        index: [300, 1, 0],
        indexed: row_major([2, 120, 203]),
        values: row_major([2, 300, 203]),
        unique: false,
    },
    Layout {
        name: "adds into 1000 bins over many blocks (histogram variant)",
        dims: [1, 200_000, 1],
        extent: 1000,
        index: [0, 1, 0],
        indexed: [0, 1, 0],
        values: [0, 1, 0],
        unique: false,
    },
    Layout {
        name: "1-D take",
        dims: [1, 40_000, 1],
        extent: 10_007,
        index: [0, 1, 0],
        indexed: [0, 1, 0],
        values: [0, 1, 0],
        unique: false,
    },
    Layout {
        name: "rows, unique positions, reversed and permuted",
        dims: [32, 500, 3],
        extent: 509,
        index: [1500, 3, 1],
        indexed: [-1527, 3, 1],
        values: [1, 32, 16_000],
        unique: true,
    },
    Layout {
        name: "index_select with an inner axis, values broadcast along outer",
        dims: [4, 1000, 16],
        extent: 3000,
        index: [0, 1, 0],
        indexed: [48_000, 16, 1],
        values: [0, 16, 1],
        unique: false,
    },
    Layout {
        name: "contiguous rows",
        dims: [16, 2000, 1],
        extent: 100,
        index: row_major([16, 2000, 1]),
        indexed: row_major([16, 100, 1]),
        values: row_major([16, 2000, 1]),
        unique: false,
    },
];

#[test]
fn gathers_and_scatters_match_the_host_reference_on_a_gpu() {
    let Some(hip) = gpu() else { return };
    let t = std::time::Instant::now();
    indexing::all(&hip, LAYOUTS);
    eprintln!("indexing checks: {:.1} s", t.elapsed().as_secs_f64());
}

fn upload(hip: &HipBackend, bytes: &[u8]) -> HipBuffer {
    let b = hip.alloc(bytes.len()).expect("alloc");
    hip.write(&b, 0, bytes).expect("upload");
    b
}

fn operand(buffer: &HipBuffer, strides: [isize; 3]) -> Strided3<'_, HipBuffer> {
    Strided3 {
        buffer,
        offset: 0,
        strides,
    }
}

/// The minimum and maximum of each of the `cols` columns of `rows` × `cols` u8.
fn column_extremes(hip: &HipBackend, buf: &HipBuffer, rows: usize, cols: usize) -> Vec<[u8; 2]> {
    let out = hip.alloc(2 * cols).expect("alloc");
    for (i, op) in [ReduceOp::Min, ReduceOp::Max].into_iter().enumerate() {
        hip.reduce(&ReduceArgs {
            op,
            dtype: DType::U8,
            input: buf,
            input_offset: 0,
            outer: 1,
            len: rows,
            inner: cols,
            output: &out,
            output_offset: i * cols,
        })
        .expect("column reduction");
    }
    let mut m = vec![0u8; 2 * cols];
    hip.read(&out, 0, &mut m).expect("download");
    (0..cols).map(|c| [m[c], m[cols + c]]).collect()
}

/// A scatter over `[2^30 + 1, 2, 2]` points (4 GiB of u8 target): point `(o, j, k)` stores
/// (then adds) value `(j, k)` at `target[4o + 2p_j + k]`, with `p_0 = 1`, `p_1 = 0` spelled
/// as wrapped indices far out of range. Every target column must hold exactly its value.
#[test]
fn a_space_of_more_than_2_pow_32_points_reaches_every_point() {
    let Some(hip) = gpu() else { return };
    let outer = (1usize << 30) + 1;
    let index: Vec<u8> = [1 + 2 * (1i64 << 40), -2 * (1i64 << 50)]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    let index = upload(&hip, &index);
    let values = upload(&hip, &[11, 22, 33, 250]);
    let target = hip.alloc(4 * outer).expect("4 GiB target");
    // Column c = 2p + k holds value (j, k) with p_j = p: columns 0, 1 from j = 1; 2, 3 from j = 0.
    let want = [33u8, 250, 11, 22];
    for (op, times) in [(ScatterOp::Assign, 1u8), (ScatterOp::Add, 2)] {
        let t = std::time::Instant::now();
        hip.scatter(&ScatterArgs {
            op,
            dtype: DType::U8,
            space: IndexSpace {
                dims: [outer, 2, 2],
                index: operand(&index, [0, 1, 0]),
                extent: 2,
                mode: IndexMode::Wrap,
            },
            target: operand(&target, [4, 2, 1]),
            values: operand(&values, [0, 2, 1]),
        })
        .expect("scatter over 2^32 points");
        let got = column_extremes(&hip, &target, outer, 4);
        eprintln!(
            "{} over {} points: {:.1} ms (with the check)",
            op.name(),
            4 * outer,
            t.elapsed().as_secs_f64() * 1e3
        );
        for (c, [lo, hi]) in got.iter().enumerate() {
            let w = want[c].wrapping_mul(times);
            assert_eq!([*lo, *hi], [w, w], "{} column {c}", op.name());
        }
    }
    for b in [index, values, target] {
        hip.release(b);
    }
}

/// Float adds of subnormal values: printed as observed (a flush to zero in the atomics
/// would show here); integers and the moves are exact by the main check.
#[test]
fn subnormal_adds_are_reported() {
    let Some(hip) = gpu() else { return };
    let n = 1024;
    let index: Vec<u8> = (0..n as i64).flat_map(|r| r.to_le_bytes()).collect();
    let index = upload(&hip, &index);
    for dtype in [DType::F32, DType::F64] {
        let (tiny, zero): (Vec<u8>, Vec<u8>) = match dtype {
            DType::F32 => (
                1e-40f32.to_le_bytes().to_vec(),
                1e-41f32.to_le_bytes().to_vec(),
            ),
            _ => (
                1e-310f64.to_le_bytes().to_vec(),
                1e-311f64.to_le_bytes().to_vec(),
            ),
        };
        let values = upload(&hip, &tiny.repeat(n));
        let target = upload(&hip, &zero.repeat(n));
        hip.scatter(&ScatterArgs {
            op: ScatterOp::Add,
            dtype,
            space: IndexSpace {
                dims: [1, n, 1],
                index: operand(&index, [0, 1, 0]),
                extent: n,
                mode: IndexMode::Raise,
            },
            target: operand(&target, [0, 1, 0]),
            values: operand(&values, [0, 1, 0]),
        })
        .expect("scatter_add");
        let mut got = vec![0u8; n * dtype.size()];
        hip.read(&target, 0, &mut got).expect("download");
        let first = &got[..dtype.size()];
        eprintln!("{dtype} subnormal + subnormal by scatter_add: bytes {first:?}");
        for b in [values, target] {
            hip.release(b);
        }
    }
    hip.release(index);
}

/// SplitMix64 positions below `n`, as i64 bytes.
fn random_index(count: usize, n: usize, seed: u64) -> Vec<u8> {
    kernel_checks::words(count, seed)
        .into_iter()
        .flat_map(|w| ((w % n as u64) as i64).to_le_bytes())
        .collect()
}

/// Device times of typical shapes, printed with the bytes each moves per second.
#[test]
fn typical_shapes_are_timed() {
    let Some(hip) = gpu() else { return };
    let mut timer = hip.timer().expect("timer");
    let mut time = |what: &str, bytes: usize, run: &dyn Fn()| {
        run();
        timer.start().expect("start");
        for _ in 0..5 {
            run();
        }
        let s = timer.stop().expect("stop") / 5.0;
        eprintln!(
            "{what}: {:.3} ms, {:.0} GB/s",
            s * 1e3,
            bytes as f64 / s / 1e9
        );
    };
    let m = 1usize << 26;
    // Positions in range for each shape: 2^24 (take, the large scatter), 2^11 (along rows),
    // 2^8 (index_select, the small scatter).
    let wide = upload(&hip, &random_index(m, 1 << 24, 5));
    let rows = upload(&hip, &random_index(m, 1 << 11, 6));
    let narrow = upload(&hip, &random_index(m, 1 << 8, 7));
    let table = hip.alloc(8 << 24).expect("alloc");
    let out = hip.alloc(4 * m).expect("alloc");
    let gather = |dims: [usize; 3], index, extent, is, ss| GatherArgs {
        dtype: DType::F32,
        space: IndexSpace {
            dims,
            index: operand(index, is),
            extent,
            mode: IndexMode::Raise,
        },
        source: operand(&table, ss),
        output: &out,
        output_offset: 0,
        out_of_range: None,
    };
    let g = gather([1, m, 1], &wide, 1 << 24, [0, 1, 0], [0, 1, 0]);
    time("take f32, 2^26 of 2^24", 16 * m, &|| {
        hip.gather(&g).expect("gather")
    });
    let g = gather(
        [1 << 13, 1 << 13, 1],
        &rows,
        1 << 11,
        [1 << 13, 1, 0],
        [1 << 11, 1, 0],
    );
    time(
        "take_along_axis f32, 8192 rows of 8192 from 2048",
        16 * m,
        &|| hip.gather(&g).expect("gather"),
    );
    let g = gather(
        [1 << 10, 1 << 10, 64],
        &narrow,
        1 << 8,
        [0, 1, 0],
        [1 << 14, 64, 1],
    );
    time("index_select f32, [1024, 1024 of 256, 64]", 8 * m, &|| {
        hip.gather(&g).expect("gather")
    });
    // Whole rows along a contiguous inner axis (the rows variants): aligned rows, and rows of
    // an odd length (misaligned rows and tails, the element-wise fallback).
    for inner in [1usize << 15, (1 << 15) - 1] {
        let g = gather(
            [1, 1 << 11, inner],
            &narrow,
            1 << 8,
            [0, 1, 0],
            [0, inner as isize, 1],
        );
        let what = format!("index_select f32, 2048 rows of {inner} from 256");
        time(&what, 8 * (1 << 11) * inner, &|| {
            hip.gather(&g).expect("gather")
        });
        let s = ScatterArgs {
            op: ScatterOp::Assign,
            dtype: DType::F32,
            space: IndexSpace {
                dims: [1, 1 << 11, inner],
                index: operand(&narrow, [0, 1, 0]),
                extent: 1 << 8,
                mode: IndexMode::Raise,
            },
            target: operand(&table, [0, inner as isize, 1]),
            values: operand(&out, [0, inner as isize, 1]),
        };
        let what = format!("index_copy f32, 2048 rows of {inner} into 256");
        time(&what, 8 * (1 << 11) * inner, &|| {
            hip.scatter(&s).expect("scatter")
        });
    }
    // bincount: i64 ones (values broadcast) into 256 bins (the histogram variant).
    let s = ScatterArgs {
        op: ScatterOp::Add,
        dtype: DType::I64,
        space: IndexSpace {
            dims: [1, m, 1],
            index: operand(&narrow, [0, 1, 0]),
            extent: 256,
            mode: IndexMode::Raise,
        },
        target: operand(&table, [0, 1, 0]),
        values: operand(&out, [0, 0, 0]),
    };
    time("bincount, 2^26 into 256 bins", 8 * m, &|| {
        hip.scatter(&s).expect("scatter")
    });
    for (bins, index, name) in [
        (1usize << 24, &wide, "2^24 bins"),
        (256, &narrow, "256 bins"),
    ] {
        for dtype in [DType::F32, DType::F64, DType::I32, DType::U8] {
            let s = ScatterArgs {
                op: ScatterOp::Add,
                dtype,
                space: IndexSpace {
                    dims: [1, m / 2, 1],
                    index: operand(index, [0, 1, 0]),
                    extent: bins,
                    mode: IndexMode::Raise,
                },
                target: operand(&table, [0, 1, 0]),
                values: operand(&out, [0, 1, 0]),
            };
            let what = format!("scatter_add {dtype}, 2^25 into {name}");
            time(&what, (8 + 3 * dtype.size()) * m / 2, &|| {
                hip.scatter(&s).expect("scatter")
            });
        }
    }
    for b in [wide, rows, narrow] {
        hip.release(b);
    }
    for b in [table, out] {
        hip.release(b);
    }
}
