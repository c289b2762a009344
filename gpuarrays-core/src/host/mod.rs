//! The small-backend kit: every kernel family on the host, through a backend's own `read`
//! and `write`.
//!
//! Why: a new device should conform before it has a single kernel. The `Backend` trait's
//! kernel methods default to these functions, so a backend that implements only storage
//! (allocate, release, read, write) and answers `supports` is complete and passes the
//! conformance suite; it then replaces the defaults with device kernels one method at a
//! time, running the suite after each. Each default reads its operands to host memory,
//! computes, and writes the results back: correct, and as slow as two transfers and a
//! single host thread make it.
//!
//! The per-element semantics ([`semantics`]) and the serial pieces of the axis kernels
//! ([`fold_run`], [`scan_run`], [`sort_rows`], [`matmul_row`], and `fft`'s pieces) are the
//! ones the CPU reference backend runs in parallel, so a kit backend agrees with the
//! reference by construction. The conformance suite's oracle shares none of this.
//!
//! | file | what |
//! |---|---|
//! | `semantics.rs` | per-type arithmetic, order, casts; how host memory holds each type |
//! | `half_types.rs` | f16 and bf16: every per-element function computed in f32 and rounded once |
//! | `functions.rs` | rounding, library functions, classification, complex parts, remainder, shifts (re-exported by `semantics`) |
//! | `storage.rs` | [`HostStorage`]: the storage calls the kit makes (every `Backend` has them) |
//! | `io.rs` | typed host vectors from and to a backend's buffers |
//! | `values.rs`, `elementwise.rs` | the interpreter of fused programs, one value at a time |
//! | `reduce.rs`, `scan.rs`, `sort.rs` (and find, search), `matmul.rs` | the axis kernels |
//! | `indexing.rs` | gathers and scatters |
//! | `fft.rs` | FFTs with rustfft (feature `host-fft`, on by default) |

mod elementwise;
#[cfg(feature = "host-fft")]
pub mod fft;
mod functions;
pub(crate) mod half_types;
mod indexing;
mod io;
mod matmul;
mod reduce;
mod scan;
pub mod semantics;
mod sort;
mod storage;
#[cfg(test)]
mod tests;
pub(crate) mod values;

pub use elementwise::elementwise;
pub use indexing::{gather, positions, scatter};
pub use matmul::{matmul, matmul_row};
pub use reduce::{better, bool_byte, fold_run, reduce};
pub use scan::{scan, scan_run};
pub use sort::{find, insertion_point, search_sorted, sort, sort_rows, true_positions};
pub use storage::HostStorage;

use crate::capability::Support;
use crate::error::Result;
use crate::kernel::FftArgs;

/// Bytes per piece of [`copy`]: bounds the host memory a large copy holds at once.
const COPY_PIECE: usize = 4 << 20;

/// A device-to-device copy through the host, in pieces of at most 4 MiB.
pub fn copy<B: HostStorage>(
    backend: &B,
    src: &B::Buffer,
    src_byte_offset: usize,
    dst: &B::Buffer,
    dst_byte_offset: usize,
    bytes: usize,
) -> Result<()> {
    copy_across(
        backend,
        src,
        src_byte_offset,
        backend,
        dst,
        dst_byte_offset,
        bytes,
    )
}

/// [`copy`] between buffers of two handles of one backend (two devices, perhaps): read
/// from `from`, written by `to`, a piece at a time.
pub fn copy_across<B: HostStorage>(
    from: &B,
    src: &B::Buffer,
    src_byte_offset: usize,
    to: &B,
    dst: &B::Buffer,
    dst_byte_offset: usize,
    bytes: usize,
) -> Result<()> {
    let mut piece = vec![0u8; bytes.min(COPY_PIECE)];
    let mut done = 0;
    while done < bytes {
        let n = (bytes - done).min(COPY_PIECE);
        from.read_bytes(src, src_byte_offset + done, &mut piece[..n])?;
        to.write_bytes(dst, dst_byte_offset + done, &piece[..n])?;
        done += n;
    }
    Ok(())
}

/// One batched FFT on the host (the `host-fft` feature); without the feature, the
/// structured refusal a backend relying on it should also give from `supports`.
pub fn fft<B: HostStorage>(backend: &B, args: &FftArgs<'_, B::Buffer>) -> Result<()> {
    #[cfg(feature = "host-fft")]
    {
        fft::fft(backend, args)
    }
    #[cfg(not(feature = "host-fft"))]
    {
        Err(crate::error::Error::Unsupported {
            dtype: crate::kernel::fft::complex_of(args.real).unwrap_or(args.real),
            op: crate::capability::OpKind::Fft,
            backend: backend.storage_name().to_string(),
            device: backend.storage_device().name.clone(),
            reason: "gpuarrays-core was built without its host-fft feature".into(),
            alternative: Some("enable gpuarrays-core's host-fft feature".into()),
        })
    }
}

/// Whether this build's kit computes FFTs on the host (the `host-fft` feature): what a kit
/// backend's `supports` answers for [`OpKind::Fft`](crate::OpKind::Fft) when it has no
/// FFT of its own.
pub fn supports_fft() -> Support {
    if cfg!(feature = "host-fft") {
        Support::Yes
    } else {
        Support::no(
            "gpuarrays-core was built without its host-fft feature",
            Some("enable gpuarrays-core's host-fft feature"),
        )
    }
}
