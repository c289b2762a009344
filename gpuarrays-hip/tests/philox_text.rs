//! The Philox text of the float draws (`kernels::cpp::philox::library`), as the backend
//! compiles it, for `benches/h200/normal_math_probe.py`, which compiles that exact text on
//! the GPU machine. Checks that the text defines what the probe calls and, with
//! `GPUARRAYS_DUMP_PHILOX=<file>`, writes it there:
//!
//! ```text
//! GPUARRAYS_DUMP_PHILOX=target/philox.cu cargo test -p gpuarrays-hip --test philox_text
//! ```

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Distribution;
use gpuarrays_hip::kernels::cpp::philox::library;

#[test]
fn the_philox_text_defines_what_the_probe_calls() {
    let text = library(&[
        (Distribution::Uniform, DType::F32),
        (Distribution::Uniform, DType::F64),
        (Distribution::Normal, DType::F32),
        (Distribution::Normal, DType::F64),
    ]);
    for f in [
        "GaWords ga_philox(",
        " ga_at_normal_f32(const ",
        " ga_mul_wide(",
    ] {
        assert!(text.contains(f), "{f}");
    }
    if let Some(path) = std::env::var_os("GPUARRAYS_DUMP_PHILOX") {
        std::fs::write(&path, &text).expect("writing the Philox text");
    }
}
