//! gpuarrays-wgpu: the WebGPU backend of gpuarrays.
//!
//! WGSL compute shaders are generated from core's kernel descriptions ([`wgsl`] for the
//! shared pieces, `kernels` for each operation), compiled once per distinct source and
//! cached with a budget ([`pipeline`]), and recorded many to a command encoder that is
//! submitted only when results are needed ([`context`]). See `README.md` in this crate for
//! what runs on which adapters, the limits and how dispatches are split.
//!
//! ```no_run
//! use gpuarrays_wgpu::WgpuBackend;
//! let backend = WgpuBackend::new()?; // GPUARRAYS_WGPU_ADAPTER=<index|name> picks one
//! println!("{}", backend.adapter());
//! # Ok::<(), gpuarrays_wgpu::WgpuError>(())
//! ```

pub mod adapter;
pub mod backend;
pub mod buffer;
pub mod capability;
pub mod context;
pub(crate) mod dispatch;
pub mod error;
pub mod float_controls;
pub(crate) mod kernels;
pub(crate) mod memory_budget;
pub mod options;
pub(crate) mod param_arena;
pub mod pipeline;
mod quiet_wayland;
pub mod subnormals;
pub(crate) mod timing;
pub mod wgsl;

pub use adapter::{ADAPTER_ENV, AdapterSummary, adapters};
pub use backend::WgpuBackend;
pub use buffer::WgpuBuffer;
pub use context::Features;
pub use error::{OomCause, WgpuError};
#[doc(hidden)]
pub use kernels::fft::set_line_limit as set_fft_line_limit;
pub use options::{Profile, WgpuOptions};
pub use subnormals::ASSUME_FTZ_ENV;
