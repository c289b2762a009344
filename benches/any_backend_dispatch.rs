//! What choosing the backend at run time costs: the host enqueue of a tiny fused op through
//! `AnyBackend` and through the backend it wraps, side by side, on every available backend
//! of this build (the CPU reference always; HIP and wgpu where they run).
//!
//! ```text
//! cargo bench --bench any_backend_dispatch
//! ```
//!
//! The method is in `benches/common/host_enqueue.rs`; results in
//! docs/results/any-backend-dispatch.md.

#[path = "common/host_enqueue.rs"]
mod host_enqueue;

use gpuarrays::{AnyBackend, Backend, BackendKind};

fn main() {
    for kind in BackendKind::compiled() {
        let any = match AnyBackend::open(kind, 0) {
            Ok(any) => any,
            Err(e) => {
                println!("{e}\n");
                continue;
            }
        };
        println!("device: {}", any.device());
        // The same device, once directly and once through the enum.
        let rows = match &any {
            AnyBackend::Cpu(cpu) => host_enqueue::tiny_axpy(cpu, &any),
            #[cfg(feature = "hip")]
            AnyBackend::Hip(hip) => host_enqueue::tiny_axpy(hip, &any),
            #[cfg(feature = "wgpu")]
            AnyBackend::Wgpu(wgpu) => host_enqueue::tiny_axpy(wgpu, &any),
            other => {
                println!("{}: not measured by this program\n", other.kind());
                continue;
            }
        };
        host_enqueue::print(&rows);
        println!();
    }
}
