//! A backend from outside the project in `AnyBackend` (`AnyBackend::custom`): the suite
//! passes through the trait object bit for bit, buffers do not cross variants, and the kind
//! is never opened by name.

use gpuarrays::conformance::{SuiteConfig, run};
use gpuarrays::prelude::*;
use gpuarrays::{AnyBuffer, BackendKind};

#[test]
fn the_conformance_suite_passes_through_a_custom_backend_bit_for_bit() {
    let custom = AnyBackend::custom(CpuBackend::new());
    assert_eq!(custom.kind(), BackendKind::Custom);
    assert_eq!(custom.name(), "cpu");
    let report = run(&custom, &SuiteConfig::quick());
    assert!(report.ok(), "{}", report.failure_details());
    for r in &report.rows {
        assert_eq!(
            r.max_err,
            0.0,
            "{} differs from the wrapped backend",
            r.key()
        );
    }
}

#[test]
fn a_custom_buffer_meets_only_its_own_backend() {
    let (custom, cpu) = (AnyBackend::custom(CpuBackend::new()), AnyBackend::cpu());
    let mine = custom.alloc(16).unwrap();
    assert!(matches!(mine, AnyBuffer::Custom(_)));
    assert_eq!(mine.kind(), BackendKind::Custom);
    assert_eq!(mine.len(), 16);
    custom.write(&mine, 0, &[7; 16]).unwrap();
    let mut back = [0u8; 16];
    custom.read(&mine, 0, &mut back).unwrap();
    assert_eq!(back, [7; 16]);
    let theirs = cpu.alloc(16).unwrap();
    for r in [
        cpu.read(&mine, 0, &mut back),
        custom.read(&theirs, 0, &mut back),
    ] {
        match r {
            Err(Error::DeviceMismatch { .. }) => {}
            r => panic!("expected DeviceMismatch, got {r:?}"),
        }
    }
    // Released on the wrong backend: logged and dropped, no panic.
    cpu.release(mine);
    custom.release(theirs);
}

#[test]
fn the_custom_kind_is_not_listed_nor_opened_by_name() {
    assert!(!BackendKind::ALL.contains(&BackendKind::Custom));
    assert_eq!(BackendKind::from_name("custom"), None);
    assert!(AnyBackend::open(BackendKind::Custom, 0).is_err());
}

/// A backend of the seven required methods over the CPU reference's storage: every kernel
/// comes from core's kit. With `POW2`, its FFTs take only power-of-two lengths.
#[derive(Clone)]
struct KitOnly<const POW2: bool>(CpuBackend);

impl<const POW2: bool> Backend for KitOnly<POW2> {
    type Buffer = gpuarrays::cpu::CpuBuffer;
    fn name(&self) -> &'static str {
        "pow2"
    }
    fn device(&self) -> &gpuarrays::DeviceInfo {
        self.0.device()
    }
    fn supports(&self, dtype: DType, op: gpuarrays::OpKind) -> gpuarrays::Support {
        self.0.supports(dtype, op)
    }
    fn supports_fft_lengths(&self, _real: DType, lengths: &[usize]) -> gpuarrays::Support {
        if !POW2 || lengths.iter().all(|n| n.is_power_of_two()) {
            gpuarrays::Support::Yes
        } else {
            gpuarrays::Support::no("only power-of-two lengths", Some("pad to a power of two"))
        }
    }
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer> {
        self.0.alloc(bytes)
    }
    fn release(&self, buffer: Self::Buffer) {
        self.0.release(buffer)
    }
    fn write(&self, dst: &Self::Buffer, at: usize, src: &[u8]) -> Result<()> {
        self.0.write(dst, at, src)
    }
    fn read(&self, src: &Self::Buffer, at: usize, dst: &mut [u8]) -> Result<()> {
        self.0.read(src, at, dst)
    }
}

#[test]
fn a_length_refusal_comes_before_anything_is_computed_and_the_kit_computes_the_rest() {
    let b = KitOnly::<true>(CpuBackend::new());
    let cpu = CpuBackend::new();
    let data: Vec<f32> = (0..8).map(|i| (i * i % 7) as f32 - 2.5).collect();
    let x = Array::<f32, _>::from_vec(&b, data.clone()).unwrap();
    match x.fft(Some(6), 0, FftNorm::Backward) {
        Err(e @ Error::Unsupported { .. }) => {
            assert!(e.to_string().contains("only power-of-two lengths"), "{e}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    // The kit's host FFT against the CPU reference's.
    let got = x.fft(None, 0, FftNorm::Backward).unwrap().to_vec().unwrap();
    let want = Array::<f32, _>::from_vec(&cpu, data)
        .unwrap()
        .fft(None, 0, FftNorm::Backward)
        .unwrap()
        .to_vec()
        .unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).norm() <= 1e-5 * (1.0 + w.norm()), "{g} vs {w}");
    }
    // And a fused expression and a reduction through the kit.
    let y = (x.ex() * 2.0f32 + 1.0f32).eval::<f32>().unwrap();
    let sum: f32 = y.sum().unwrap();
    assert_eq!(
        sum,
        2.0 * (0..8).map(|i| (i * i % 7) as f32 - 2.5).sum::<f32>() + 8.0
    );
}

/// The whole quick suite on the kit alone, inside the workspace (the out-of-tree example in
/// `examples/custom-backend/` runs the same with its own storage).
#[test]
fn a_backend_of_the_seven_required_methods_conforms() {
    let report = run(&KitOnly::<false>(CpuBackend::new()), &SuiteConfig::quick());
    assert!(report.ok(), "{}", report.failure_details());
}
