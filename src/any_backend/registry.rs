//! The backends `AnyBackend` can hold: **the one place to add a backend to the facade.**
//!
//! A new backend is a row in the `backends!` table below (its variant name, cargo feature,
//! backend and buffer types, name, description, and whether it runs on a GPU) and an
//! `impl BackendVariant` in this file (how to count and open its devices; optionally what
//! `gpuarrays info` prints about it, a device timer, a switch between a vendor library and
//! its own matmul kernel), plus the optional dependency and cargo feature in `Cargo.toml`.
//! Everything that lists the backends — `BackendKind`, the `AnyBackend` and `AnyBuffer`
//! variants, the dispatch of every `Backend` method, opening by kind — is generated from
//! the table (`registry_macro.rs`). The CLI lists, validates and benchmarks every compiled-in
//! kind with no change of its own.
//!
//! A backend from outside the project needs no row: `AnyBackend::custom(backend)` wraps any
//! `Backend` (`custom.rs`).

use gpuarrays_cpu_ref::CpuBackend;
#[cfg(feature = "hip")]
use gpuarrays_hip::HipBackend;
#[cfg(feature = "wgpu")]
use gpuarrays_wgpu::{WgpuBackend, WgpuOptions};

use super::custom::{CustomBackend, CustomBuffer};
use super::error::BackendChoiceError;
use super::kind::BackendFacts;
use super::variant::{self, BackendVariant, BufferSlot, SourceError};

backends! {
    /// The CPU reference backend (`gpuarrays-cpu-ref`), always compiled in.
    Cpu {
        backend: gpuarrays_cpu_ref::CpuBackend,
        buffer: gpuarrays_cpu_ref::CpuBuffer,
        name: "cpu",
        description: "CPU reference backend (rayon), checked against the scalar oracle",
        gpu: false,
    },
    /// The HIP backend (`gpuarrays-hip`): AMD through ROCm, NVIDIA through CUDA.
    Hip {
        feature: "hip",
        backend: gpuarrays_hip::HipBackend,
        buffer: gpuarrays_hip::HipBuffer,
        name: "hip",
        description: "HIP backend (AMD via ROCm, NVIDIA via CUDA), checked against the CPU reference",
        gpu: true,
    },
    /// The WebGPU backend (`gpuarrays-wgpu`): any GPU through Vulkan, Metal or DX12.
    Wgpu {
        feature: "wgpu",
        backend: gpuarrays_wgpu::WgpuBackend,
        buffer: gpuarrays_wgpu::WgpuBuffer,
        name: "wgpu",
        description: "WebGPU backend (wgpu: Vulkan, Metal, DX12), checked against the CPU reference",
        gpu: true,
    },
}

impl BackendVariant for CpuBackend {
    fn device_count() -> Result<usize, SourceError> {
        Ok(1)
    }

    fn open_device(_ordinal: usize) -> Result<Self, SourceError> {
        Ok(CpuBackend::new())
    }
}

#[cfg(feature = "hip")]
impl BackendVariant for HipBackend {
    fn device_count() -> Result<usize, SourceError> {
        Ok(HipBackend::device_count()?)
    }

    fn open_device(ordinal: usize) -> Result<Self, SourceError> {
        Ok(HipBackend::new(ordinal)?)
    }

    fn detail(error: &SourceError) -> Vec<String> {
        error
            .downcast_ref::<gpuarrays_hip::HipError>()
            .map(gpuarrays_hip::HipError::detail)
            .unwrap_or_default()
    }

    /// The FFT plan cache: budgets (idle count, per key, bytes) and counters.
    fn info_lines(&self) -> Vec<String> {
        let cache = self.fft_state().plan_cache();
        let (l, s) = (cache.limits(), cache.stats());
        vec![format!(
            "FFT plan cache: budget {} idle plans ({} per key), {} MiB; hits {}, misses {}, \
             evictions {}, live {}, idle {}, idle {} KiB (set with GPUARRAYS_FFT_PLAN_CACHE=count[,bytes])",
            l.max_idle,
            l.max_entries,
            l.max_idle_bytes >> 20,
            s.hits,
            s.misses,
            s.evictions,
            s.live,
            s.idle,
            s.idle_bytes >> 10,
        )]
    }

    /// Timing events on the calling thread's stream.
    fn event_timer(&self) -> Option<gpuarrays_core::Result<Box<dyn super::EventTimer>>> {
        Some(
            self.timer()
                .map(|t| Box::new(super::extras::HipEvents(t)) as Box<dyn super::EventTimer>)
                .map_err(Into::into),
        )
    }

    /// Routes f32/f64/complex products to the own kernel instead of the vendor BLAS.
    fn with_own_matmul_kernel<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        use gpuarrays_hip::blas::MatmulRoute;
        let before = self.matmul_route();
        self.set_matmul_route(MatmulRoute::Kernel);
        let r = f();
        self.set_matmul_route(before);
        Some(r)
    }
}

#[cfg(feature = "wgpu")]
impl BackendVariant for WgpuBackend {
    /// The adapters, in the order `GPUARRAYS_WGPU_ADAPTER=<index>` counts them; none is the
    /// backend's own error saying which graphics APIs were searched.
    fn device_count() -> Result<usize, SourceError> {
        match gpuarrays_wgpu::adapters().len() {
            0 => Err(WgpuBackend::probe().err().map_or_else(
                || SourceError::from("wgpu found no adapter"),
                |e| Box::new(e) as SourceError,
            )),
            n => Ok(n),
        }
    }

    fn open_device(ordinal: usize) -> Result<Self, SourceError> {
        Ok(WgpuBackend::with_options(&WgpuOptions {
            adapter: Some(ordinal.to_string()),
            ..WgpuOptions::default()
        })?)
    }

    /// `GPUARRAYS_WGPU_ADAPTER`'s adapter, else a discrete GPU first.
    fn open_preferred() -> Result<Self, SourceError> {
        Ok(WgpuBackend::new()?)
    }

    fn is_software_device(&self) -> bool {
        self.adapter().device_type == "Cpu"
    }

    /// How the device compiles its shaders: with Vulkan float controls (IEEE inf, NaN and
    /// zero signs kept) or through wgpu's WGSL path.
    fn info_lines(&self) -> Vec<String> {
        vec![match &self.adapter().float_controls {
            Some(mode) => format!("shaders: {mode}"),
            None => "shaders: WGSL through wgpu (no Vulkan float controls: the driver may assume \
                     no inf/NaN; GPUARRAYS_WGPU_FLOAT_CONTROLS=0 or not offered)"
                .to_string(),
        }]
    }
}
