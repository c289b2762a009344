//! Regressions: what the fuzzer found, kept with the seeds that found them (base
//! `0x6770756172726179`, the default). Each failed before its fix; see docs/safety.md.

use gpuarrays::prelude::*;

use crate::{Tally, run_case};

/// Replays `seed` and fails with the disagreement, if any.
#[track_caller]
fn replay(seed: u64) {
    if let Err(e) = run_case(&CpuBackend::new(), seed, &mut Tally::default()) {
        panic!("{e}");
    }
}

/// `reshape` multiplied the given dimensions without overflow checks: on an empty array,
/// `[2^40, 2^40]` wrapped to 0 elements and was accepted (release), or panicked (debug).
#[test]
fn regression_reshape_product_that_wraps_to_the_count() {
    replay(0x87a39f2b6ab597ac);
    replay(0x9524fc7f3ce9e2c);
    replay(0x860aad8976987e40);
    let cpu = CpuBackend::new();
    let empty = Array::<i64, _>::from_slice(&cpu, &[1, 1, 0], &[]).unwrap();
    let e = empty.reshape(&[1 << 40, 1 << 40]).unwrap_err();
    assert_eq!(e.kind().name(), "Reshape", "{e}");
    assert!(e.to_string().contains("overflows"), "{e}");
}

/// `reinterpret` computed the last dimension's bytes without overflow checks: u64
/// `[0, isize::MAX]` as f64 came out as `[0, 2305843009213693951]`, u64 `[2, 0, 2^62]` as
/// c32 as `[2, 0, 0]`; and it accepted results whose element count overflows.
#[test]
fn regression_reinterpret_of_a_huge_empty_last_dimension() {
    replay(0x5198690440353eee);
    replay(0x11b0628986bfd023);
    replay(0x2a2c7c41390b604);
    let cpu = CpuBackend::new();
    let empty = Array::<u64, _>::from_slice(&cpu, &[2, 0, 1 << 62], &[]).unwrap();
    assert_eq!(
        empty.reinterpret::<Complex32>().unwrap().dims(),
        &[2, 0, 1 << 62]
    );
    // 2^62 f64 are 2^65 bytes: no u8 shape can describe them.
    let e = empty.reinterpret::<u8>().unwrap_err();
    assert_eq!(e.kind().name(), "Reinterpret", "{e}");
}

/// Uploads checked the element count in dimension order: `[2^40, 2^40, 0]` was refused but
/// `[0, 2^40, 2^40]` accepted. The rule is now NumPy's, in any order.
#[test]
fn regression_upload_checks_the_product_of_non_zero_dimensions_in_any_order() {
    replay(0xee81fb06fe4c3411);
    replay(0x90cd4316508f52a3);
    let cpu = CpuBackend::new();
    for dims in [
        [0, 1 << 40, 1 << 40],
        [1 << 40, 0, 1 << 40],
        [1 << 40, 1 << 40, 0],
    ] {
        let e = Array::<f32, _>::from_slice(&cpu, &dims, &[]).unwrap_err();
        assert_eq!(e.kind().name(), "InvalidArgument", "{dims:?}: {e}");
    }
    for dims in [[0, 1 << 62], [1 << 62, 0]] {
        assert_eq!(
            Array::<f32, _>::from_slice(&cpu, &dims, &[]).unwrap().len(),
            0
        );
    }
}

/// Found in the harness, not the library: an empty view keeps its parent's offset, so an
/// empty operand cut at element `pad` reports offset 0. The model now says so.
#[test]
fn regression_empty_operand_offset() {
    replay(0xb7cf5fb98a2e86db);
    replay(0x499fa793247eec2e);
}
