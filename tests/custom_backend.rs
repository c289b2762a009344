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
        assert_eq!(r.max_err, 0.0, "{} differs from the wrapped backend", r.key());
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
