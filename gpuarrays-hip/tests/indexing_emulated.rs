//! The gather and scatter kernels run for real on the CPU, through the backend's own host
//! code, on the emulated platform of `emulator/`, against core's host reference
//! (`kernel_checks/indexing.rs` says what must agree and how). Skipped (with a printed
//! reason) when `g++` is missing.
//!
//! The layouts reach every part of the kernels' arithmetic: the three-way split of a point's
//! number with and without its shortcuts (`outer == 1`, `inner == 1`), reversed, permuted
//! and gapped operands, indices and values broadcast along axes (stride 0), several blocks,
//! positions repeated (duplicates for the atomics) and unique (exact float sums). The last
//! five reach the launcher's variants: rows along a contiguous inner axis (whole chunks,
//! tails, and a row whose operands are all 16-byte aligned, so the vector move runs next to
//! the element-wise one), gathers along the last axis (with the first and the fifth of the
//! layouts above), and the histogram of adds into few bins over several blocks, with
//! broadcast values (bincount) and a gapped target.

mod emulator;
mod kernel_checks;

use kernel_checks::indexing::{self, Layout, row_major};

const LAYOUTS: &[Layout] = &[
    Layout {
        name: "1-D take",
        dims: [1, 300, 1],
        extent: 37,
        index: [0, 1, 0],
        indexed: [0, 1, 0],
        values: [0, 1, 0],
        unique: false,
    },
    Layout {
        name: "rows, reversed axes",
        dims: [4, 20, 3],
        extent: 25,
        index: [60, -3, 1],
        indexed: [-75, 3, 1],
        values: [1, 4, 80],
        unique: false,
    },
    Layout {
        name: "unique positions, index broadcast along outer and inner",
        dims: [3, 10, 4],
        extent: 12,
        index: [0, -1, 0],
        indexed: [1, 3, 36],
        values: [-40, 4, 1],
        unique: true,
    },
    Layout {
        name: "gapped target, values broadcast along outer and middle",
        dims: [3, 8, 5],
        extent: 16,
        index: [0, 1, 0],
        indexed: [160, 10, 2],
        values: [0, 0, 1],
        unique: false,
    },
    Layout {
        name: "one value for every point",
        dims: [1, 50, 1],
        extent: 7,
        index: [0, 1, 0],
        indexed: [0, -1, 0],
        values: [0, 0, 0],
        unique: false,
    },
    Layout {
        name: "inner axis only",
        dims: [1, 1, 40],
        extent: 9,
        index: [0, 0, 1],
        indexed: [0, -1, 9],
        values: [0, 0, -1],
        unique: true,
    },
    Layout {
        name: "several blocks, contiguous",
        dims: [5, 130, 2],
        extent: 50,
        index: row_major([5, 130, 2]),
        indexed: row_major([5, 50, 2]),
        values: row_major([5, 130, 2]),
        unique: false,
    },
    Layout {
        name: "several blocks, unique positions, permuted operands",
        dims: [2, 300, 3],
        extent: 311,
        index: [-900, 3, 1],
        indexed: [1, 6, 2],
        values: [1, 2, 600],
        unique: true,
    },
    Layout {
        name: "rows along a contiguous inner axis, unique, row 1 16-byte aligned everywhere",
        dims: [1, 9, 41],
        extent: 9,
        index: [0, 1, 0],
        indexed: [405, 45, 1],
        values: [405, 45, 1],
        unique: true,
    },
    Layout {
        name: "rows along a contiguous inner axis, repeated positions, tails",
        dims: [3, 20, 37],
        extent: 6,
        index: [20, 1, 0],
        indexed: row_major([3, 6, 37]),
        values: row_major([3, 20, 37]),
        unique: false,
    },
    Layout {
        name: "along the last axis: several outer rows, reversed source",
        dims: [4, 30, 1],
        extent: 11,
        index: [30, 1, 0],
        indexed: [11, -1, 0],
        values: [1, 4, 0],
        unique: false,
    },
    Layout {
        name: "histogram over two blocks",
        dims: [1, 4500, 1],
        extent: 37,
        index: [0, 1, 0],
        indexed: [0, 1, 0],
        values: [0, 1, 0],
        unique: false,
    },
    Layout {
        name: "bincount: one value for every point, gapped bins",
        dims: [1, 700, 1],
        extent: 300,
        index: [0, -1, 0],
        indexed: [0, 2, 0],
        values: [0, 0, 0],
        unique: false,
    },
];

#[test]
fn gathers_and_scatters_match_the_host_reference() {
    let Some(hip) = emulator::backend() else {
        return;
    };
    let t = std::time::Instant::now();
    indexing::all(&hip, LAYOUTS);
    eprintln!(
        "{} layouts × every type, mode and kernel: {:.1} s",
        LAYOUTS.len(),
        t.elapsed().as_secs_f64()
    );
}
