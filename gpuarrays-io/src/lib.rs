//! gpuarrays-io: user data in and out of gpuarrays — `ndarray` arrays, NumPy `.npy` and
//! `.npz` files, and `.safetensors` files — for arrays on any backend.
//!
//! Everything is generic over [`Backend`](gpuarrays_core::Backend) and goes through core's
//! host transfers ([`Array::from_slice`](gpuarrays_core::Array::from_slice),
//! [`RawArray::to_bytes`](gpuarrays_core::RawArray::to_bytes)), so an array on the CPU
//! reference, HIP or wgpu reads and writes the same way, and strided views (transposed,
//! reversed, sliced) are written in their logical row-major order.
//!
//! | function | format | element types |
//! |---|---|---|
//! | [`to_ndarray`], [`from_ndarray`] ([`ToNdarray`], [`FromNdarray`]) | `ndarray` `ArrayD<T>` / any `ArrayBase` | all ten |
//! | [`load_npy`], [`save_npy`], [`read_npy`], [`write_npy`] | `.npy` | all ten; reads either byte order and Fortran order |
//! | [`load_npz`], [`save_npz`], [`save_npz_compressed`], [`read_npz`], [`write_npz`] | `.npz` | all ten |
//! | [`load_safetensors`], [`load_safetensors_with_metadata`], [`save_safetensors`], [`read_safetensors`], [`write_safetensors`] | `.safetensors` | all but `C64` (safetensors has no 128-bit complex) |
//! | [`dlpack::to_dlpack`], [`dlpack::from_dlpack`] (+ `_on_stream`, `_legacy`, `_read_only`) | DLPack tensors in memory, zero-copy (CPU with feature `cpu`, HIP with `hip`) | all ten; refuses f16, bf16, i8, i16, lanes ≠ 1 |
//!
//! The type correspondence (NumPy descriptor, safetensors name) is in [`dtype_map`]. NumPy
//! files decide the element type of what they load: `load_npy` returns a
//! [`RawArray`](gpuarrays_core::RawArray); [`RawArray::into_typed`](gpuarrays_core::RawArray::into_typed)
//! makes it an `Array<T, B>`.
//!
//! ```
//! use gpuarrays_core::{Array, DType};
//! use gpuarrays_cpu_ref::CpuBackend;
//! use gpuarrays_io::{read_npy, write_npy};
//!
//! # fn main() -> gpuarrays_io::Result<()> {
//! let cpu = CpuBackend::new();
//! let x = Array::<f64, _>::from_slice(&cpu, &[2, 3], &[1., 2., 3., 4., 5., 6.])?;
//! let mut bytes = Vec::new();
//! write_npy(&mut bytes, x.raw())?; // what np.save writes
//! let back = read_npy(&cpu, bytes.as_slice())?;
//! assert_eq!(back.dtype(), DType::F64);
//! assert_eq!(back.into_typed::<f64>()?.to_vec()?, x.to_vec()?);
//! # Ok(()) }
//! ```
//!
//! Errors are one enum, [`Error`]: a bad file is [`Error::Malformed`] or
//! [`Error::Truncated`], a type gpuarrays lacks is [`Error::UnsupportedDType`] naming the
//! file's type and the conversion that fixes it. Readers never panic on bad input and check
//! the declared data size against the bytes present before allocating for it.

// Safe Rust except the DLPack module, where C structs and deleters are the point.
#![deny(unsafe_code)]
#![warn(missing_docs)]

#[allow(unsafe_code)]
pub mod dlpack;
pub mod dtype_map;
mod error;
mod host;
#[cfg(feature = "ndarray")]
mod ndarray;
mod npy;
mod npy_header;
mod npz;
mod safetensors;

pub use error::{Error, Format, Result};
#[cfg(feature = "ndarray")]
pub use ndarray::{FromNdarray, ToNdarray, from_ndarray, to_ndarray};
pub use npy::{load_npy, read_npy, save_npy, write_npy};
pub use npz::{load_npz, read_npz, save_npz, save_npz_compressed, write_npz};
pub use safetensors::{
    Metadata, load_safetensors, load_safetensors_with_metadata, read_safetensors, save_safetensors,
    write_safetensors,
};

/// Arrays with their names, in file order: what `.npz` and `.safetensors` readers return
/// (`.into_iter().collect::<HashMap<_, _>>()` makes a map).
pub type NamedArrays<B> = Vec<(String, gpuarrays_core::RawArray<B>)>;
