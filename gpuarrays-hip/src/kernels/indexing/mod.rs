//! Gathers and scatters on the device (semantics: `gpuarrays_core::kernel::indexing`; the
//! kernels: [`codegen`]).
//!
//! Why device kernels: core's host default reads every operand's span back, loops on the
//! host and writes the result span back, three transfers over PCIe for an operation that
//! touches each element once; here one launch does it at memory speed, in stream order with
//! the operation's other work, and the operands never leave the device.
//!
//! The launch descriptions hold device addresses with the operands' offsets applied and
//! their element strides; the backend checks them against the buffers before it builds them.
//! [`prepare`] compiles (or finds) the module of the element type before the ordering
//! protocol locks the operands, and checks what the kernels rely on: a space that fits the
//! launch arithmetic, an extent of at least 1, operands aligned to their move width.
//!
//! [`IndexingLaunch::plan`] picks the kernel on the host, from the sizes and strides:
//! - the rows variants ([`variants`]) for gathers and assigning scatters whose rows are at
//!   least two 16-byte chunks long, contiguous (inner stride 1) in both data operands, and
//!   selected by one index each (index inner stride 0), for elements of 1, 4 or 8 bytes;
//! - the lines variant for gathers with `inner == 1` of fewer than 2^32 - 256 points;
//! - the histogram variant for adds with `outer == inner == 1` into at most
//!   [`variants::HIST_BYTES`] of bins, for the types with native atomics, on at most
//!   [`HIST_BLOCKS`] blocks (each flushes its bins once; enough blocks fill an H200);
//! - the general kernels ([`codegen`]) for everything else.

pub mod codegen;
pub mod moves;
pub mod variants;

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{IndexMode, ScatterOp};

use self::codegen::{BLOCK, GATHER, mode_code, move_type, scatter_kernel};
use self::variants::{GATHER_LINES, GATHER_ROWS, HIST_BYTES, SCATTER_ADD_HIST, SCATTER_ROWS};
use super::KernelSource;
use super::args::KernelArgs;
use super::device_kernels::DeviceKernels;
use crate::error::{HipError, Result};
use crate::platform::DevicePtr;
use crate::stream::Stream;

/// Most blocks of a histogram launch.
pub const HIST_BLOCKS: usize = 1024;
/// Updates per thread a histogram block gets at least (its bins cost a fill and a flush).
const HIST_PER_THREAD: usize = 16;

/// What one launch runs: the kernel, its work items (the space's `total` parameter) and
/// its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    pub kernel: &'static str,
    pub items: usize,
    pub blocks: u32,
}

/// One operand: the address of its element `(0, 0, 0)` and its element strides along
/// `(outer, middle, inner)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Strided3Ptr {
    pub ptr: DevicePtr,
    pub strides: [i64; 3],
}

/// The index space: `[outer, count, inner]`, the indexed axis's extent, the mode, and the
/// i64 index operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpaceLaunch {
    pub dims: [usize; 3],
    pub extent: usize,
    pub mode: IndexMode,
    pub index: Strided3Ptr,
}

/// One gather or scatter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexingLaunch {
    /// `output[(o·count + j)·inner + k] = source[o, p, k]`; the output is contiguous.
    /// `report`: a 4-byte word the kernel sets to 1 if an index lies outside
    /// `-extent..extent` (asked for `Raise` gathers only).
    Gather {
        dtype: DType,
        space: SpaceLaunch,
        source: Strided3Ptr,
        output: DevicePtr,
        report: Option<DevicePtr>,
    },
    /// `target[o, p, k] = values[o, j, k]` (or `+=`).
    Scatter {
        op: ScatterOp,
        dtype: DType,
        space: SpaceLaunch,
        target: Strided3Ptr,
        values: Strided3Ptr,
    },
}

impl IndexingLaunch {
    fn dtype(&self) -> DType {
        match *self {
            IndexingLaunch::Gather { dtype, .. } | IndexingLaunch::Scatter { dtype, .. } => dtype,
        }
    }

    fn space(&self) -> &SpaceLaunch {
        match self {
            IndexingLaunch::Gather { space, .. } | IndexingLaunch::Scatter { space, .. } => space,
        }
    }

    /// The kernel this launch runs.
    pub fn kernel(&self) -> Result<&'static str> {
        match *self {
            IndexingLaunch::Gather { .. } => Ok(GATHER),
            IndexingLaunch::Scatter { op, dtype, .. } => scatter_kernel(op, dtype),
        }
    }

    /// The kernel, work items and blocks of this launch (see the module docs), after the
    /// checks of `points`.
    pub fn plan(&self) -> Result<Plan> {
        let total = self.points()?;
        let general = self.kernel()?;
        let dtype = self.dtype();
        let s = self.space();
        let [outer, count, inner] = s.dims;
        let blocks = |items: usize, per: usize| {
            items
                .div_ceil(BLOCK as usize * per)
                .clamp(1, i32::MAX as usize) as u32
        };
        let e = variants::chunk_elements(dtype);
        let rows_contiguous = match *self {
            IndexingLaunch::Gather { source, .. } => source.strides[2] == 1,
            IndexingLaunch::Scatter {
                op: ScatterOp::Assign,
                target,
                values,
                ..
            } => target.strides[2] == 1 && values.strides[2] == 1,
            IndexingLaunch::Scatter { .. } => false,
        };
        if rows_contiguous && e >= 2 && inner >= 2 * e && s.index.strides[2] == 0 {
            let kernel = if general == GATHER {
                GATHER_ROWS
            } else {
                SCATTER_ROWS
            };
            let items = outer * count * inner.div_ceil(e);
            return Ok(Plan {
                kernel,
                items,
                blocks: blocks(items, 1),
            });
        }
        let lines_fit = total <= (u32::MAX - BLOCK) as usize;
        if general == GATHER && inner == 1 && lines_fit {
            let kernel = GATHER_LINES;
            return Ok(Plan {
                kernel,
                items: total,
                blocks: blocks(total, 1),
            });
        }
        let small = s.extent.saturating_mul(dtype.size()) <= HIST_BYTES;
        if general == codegen::SCATTER_ADD
            && variants::has_hist(dtype)
            && outer == 1
            && inner == 1
            && small
        {
            let blocks = blocks(total, HIST_PER_THREAD).min(HIST_BLOCKS as u32);
            return Ok(Plan {
                kernel: SCATTER_ADD_HIST,
                items: total,
                blocks,
            });
        }
        Ok(Plan {
            kernel: general,
            items: total,
            blocks: blocks(total, 1),
        })
    }

    /// Points of the index space, after checking what the kernels rely on.
    fn points(&self) -> Result<usize> {
        let invalid = |what: String| HipError::InvalidArgument(format!("indexing: {what}"));
        let s = self.space();
        let total = points(s.dims)?;
        if total > 0 && (s.extent == 0 || s.extent > i64::MAX as usize) {
            return Err(invalid(format!("an indexed axis of {} elements", s.extent)));
        }
        let (_, align) = move_type(self.dtype());
        let (first, second) = match *self {
            IndexingLaunch::Gather { source, output, .. } => (source.ptr, output),
            IndexingLaunch::Scatter { target, values, .. } => (target.ptr, values.ptr),
        };
        let report = match *self {
            IndexingLaunch::Gather {
                report: Some(r), ..
            } => r,
            _ => DevicePtr(0),
        };
        let ptrs = [
            (s.index.ptr, 8),
            (first, align),
            (second, align),
            (report, 4),
        ];
        if let Some((p, a)) = ptrs.iter().find(|(p, a)| p.0 % *a as u64 != 0) {
            return Err(invalid(format!(
                "operand at {:#x} is not {a}-byte aligned",
                p.0
            )));
        }
        Ok(total)
    }
}

/// Points of an index space of `dims`: an error where they exceed the kernels' i64 arithmetic.
pub fn points(dims: [usize; 3]) -> Result<usize> {
    dims.iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .filter(|&t| t <= i64::MAX as usize)
        .ok_or_else(|| {
            HipError::InvalidArgument(format!("indexing: an index space of {dims:?} points"))
        })
}

/// The module source for `dtype`: its gather and scatter kernels.
pub fn source(dev: &DeviceKernels, dtype: DType) -> KernelSource {
    dev.source(
        format!("ga_index[{}]", dtype.name()),
        &codegen::body(dtype),
        codegen::kernels(dtype),
    )
}

/// Checks `launch` and compiles (or finds) its module, without launching: the ordering
/// protocol calls it before it locks the operands (a compilation must not hold them).
pub fn prepare(dev: &DeviceKernels, launch: &IndexingLaunch) -> Result<()> {
    launch.plan()?;
    let dtype = launch.dtype();
    dev.indexing
        .get(&dtype, dev.modules(), || Ok(source(dev, dtype)))?;
    Ok(())
}

fn strides(a: &mut KernelArgs, s: &Strided3Ptr) {
    a.ptr(s.ptr).dims(s.strides);
}

/// Enqueues `launch` on `stream`.
pub fn run(dev: &DeviceKernels, stream: &Stream, launch: &IndexingLaunch) -> Result<()> {
    let plan = launch.plan()?;
    if plan.items == 0 {
        return Ok(());
    }
    let dtype = launch.dtype();
    let module = dev
        .indexing
        .get(&dtype, dev.modules(), || Ok(source(dev, dtype)))?;
    let f = module.function(plan.kernel)?;
    let s = launch.space();
    let [outer, count, inner] = s.dims.map(|d| d as i64);
    let space = [outer, count, inner, s.extent as i64, plan.items as i64];
    let mut a = KernelArgs::with_capacity(8);
    strides(&mut a, &s.index);
    match launch {
        IndexingLaunch::Gather { source, output, .. } => {
            strides(&mut a, source);
            a.ptr(*output);
        }
        IndexingLaunch::Scatter { target, values, .. } => {
            strides(&mut a, values);
            strides(&mut a, target);
        }
    }
    a.dims(space).i32(mode_code(s.mode));
    if let IndexingLaunch::Gather { report, .. } = launch {
        a.ptr(report.unwrap_or(DevicePtr(0)));
    }
    // SAFETY: the arguments are the kernel's parameters in codegen's order (index and its
    // strides; source and its strides, then the output — or values and target with theirs;
    // the space, its total being the plan's work items; the mode; for gathers the report
    // word, null or a checked 4-byte word: the variants take the same parameters). The backend checked that every address the kernel can form (a
    // position is clamped into 0..extent) lies in its operand's buffer, `points` that the
    // operands are aligned to their move width, and the ordering protocol keeps the buffers
    // alive and unreused until the kernel ran (stream order).
    unsafe { dev.launch(f, [plan.blocks, 1, 1], [BLOCK, 1, 1], 0, stream, &mut a) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gather(dims: [usize; 3], extent: usize, at: u64) -> IndexingLaunch {
        let op = Strided3Ptr {
            ptr: DevicePtr(at),
            strides: [0, 1, 0],
        };
        IndexingLaunch::Gather {
            dtype: DType::C64,
            space: SpaceLaunch {
                dims,
                extent,
                mode: IndexMode::Clip,
                index: Strided3Ptr {
                    ptr: DevicePtr(4096),
                    strides: [0, 1, 0],
                },
            },
            source: op,
            output: DevicePtr(8192),
            report: None,
        }
    }

    fn op(ptr: u64, strides: [i64; 3]) -> Strided3Ptr {
        Strided3Ptr {
            ptr: DevicePtr(ptr),
            strides,
        }
    }

    fn space(dims: [usize; 3], extent: usize, index: [i64; 3]) -> SpaceLaunch {
        SpaceLaunch {
            dims,
            extent,
            mode: IndexMode::Wrap,
            index: op(4096, index),
        }
    }

    fn kernel_of(l: IndexingLaunch) -> &'static str {
        l.plan().map(|p| p.kernel).unwrap_or("error")
    }

    #[test]
    fn the_launcher_picks_the_variant_the_shape_allows() {
        let rows = |dtype, dims: [usize; 3], index, inner_stride| IndexingLaunch::Gather {
            dtype,
            space: space(dims, 9, index),
            source: op(256, [0, dims[2] as i64, inner_stride]),
            output: DevicePtr(8192),
            report: None,
        };
        let f32_rows = rows(DType::F32, [1, 8192, 32768], [0, 1, 0], 1);
        assert_eq!(kernel_of(f32_rows), GATHER_ROWS);
        assert_eq!(f32_rows.plan().ok().map(|p| p.items), Some(8192 * 8192));
        assert_eq!(kernel_of(rows(DType::F32, [1, 5, 7], [0, 1, 0], 1)), GATHER);
        assert_eq!(
            kernel_of(rows(DType::F32, [1, 5, 64], [0, 1, 1], 1)),
            GATHER
        );
        assert_eq!(
            kernel_of(rows(DType::F32, [1, 5, 64], [0, 1, 0], 2)),
            GATHER
        );
        assert_eq!(
            kernel_of(rows(DType::C64, [1, 5, 64], [0, 1, 0], 1)),
            GATHER
        );
        assert_eq!(
            kernel_of(rows(DType::U8, [3, 5, 1], [5, 1, 0], 1)),
            GATHER_LINES
        );
        let scatter =
            |op_: ScatterOp, dtype, dims: [usize; 3], extent, vs| IndexingLaunch::Scatter {
                op: op_,
                dtype,
                space: space(dims, extent, [0, 1, 0]),
                target: op(256, [0, dims[2] as i64, 1]),
                values: op(1 << 20, vs),
            };
        let assign = scatter(ScatterOp::Assign, DType::I64, [2, 4, 100], 9, [400, 100, 1]);
        assert_eq!(kernel_of(assign), SCATTER_ROWS);
        let add = scatter(ScatterOp::Add, DType::I64, [2, 4, 100], 9, [400, 100, 1]);
        assert_eq!(kernel_of(add), codegen::SCATTER_ADD);
        let bincount = scatter(ScatterOp::Add, DType::I64, [1, 1 << 28, 1], 256, [0, 0, 0]);
        let plan = bincount.plan().ok();
        assert_eq!(plan.map(|p| p.kernel), Some(SCATTER_ADD_HIST));
        assert_eq!(plan.map(|p| p.blocks), Some(HIST_BLOCKS as u32));
        let wide = scatter(ScatterOp::Add, DType::F64, [1, 100, 1], 4097, [0, 1, 0]);
        assert_eq!(kernel_of(wide), codegen::SCATTER_ADD);
        let bytes = scatter(ScatterOp::Add, DType::U8, [1, 100, 1], 16, [0, 1, 0]);
        assert_eq!(kernel_of(bytes), codegen::SCATTER_ADD);
    }

    #[test]
    fn launches_are_checked_before_anything_compiles() {
        assert_eq!(gather([2, 3, 4], 5, 256).points().ok(), Some(24));
        assert_eq!(gather([2, 0, 4], 0, 256).points().ok(), Some(0));
        assert!(gather([1, 3, 1], 0, 256).points().is_err(), "extent 0");
        assert!(
            gather([1, 3, 1], 5, 264).points().is_err(),
            "c64 at 8 bytes"
        );
        assert!(gather([usize::MAX, 2, 1], 5, 256).points().is_err());
        assert!(gather([1 << 62, 2, 1], 5, 256).points().is_err());
    }
}
