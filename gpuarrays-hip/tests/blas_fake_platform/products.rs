//! The row-major mapping of every BLAS type and shape, offsets, empty inner dimensions, integers.

use super::*;

#[test]
fn every_blas_type_and_shape_matches_the_cpu_reference() {
    let (p, hip) = fake();
    for &(da, db) in SHAPES {
        check_product::<f32>(&hip, da, db);
        check_product::<f64>(&hip, da, db);
        check_product::<Complex32>(&hip, da, db);
        check_product::<Complex64>(&hip, da, db);
        check_product::<f16>(&hip, da, db);
        check_product::<bf16>(&hip, da, db);
    }
    let ops = gemms(&p);
    assert_eq!(ops.len(), 6 * SHAPES.len(), "one library call per product");
    for t in [
        BlasType::F32,
        BlasType::F64,
        BlasType::C32,
        BlasType::C64,
        BlasType::F16,
        BlasType::BF16,
    ] {
        assert!(ops.iter().any(
            |o| matches!(o, FakeOp::Gemm { dtype, math: BlasMath::Exact, .. } if *dtype == t)
        ));
    }
    assert_eq!(launches(&p), 0, "no kernel ran for a BLAS type");
}

#[test]
fn offsets_of_views_reach_the_library() {
    let (_p, hip) = fake();
    let cpu = CpuBackend::new();
    let (va, vb) = (f64::sample(5 * 3 * 4, 3), f64::sample(5 * 4 * 2, 4));
    fn run<B: Backend>(b: &B, va: &[f64], vb: &[f64]) -> Vec<f64> {
        let a = Array::from_slice(b, &[5, 3, 4], va).expect("a");
        let bb = Array::from_slice(b, &[5, 4, 2], vb).expect("b");
        let a = a.view(&[2..5, 0..3, 0..4]).expect("view");
        let bb = bb.view(&[1..4, 0..4, 0..2]).expect("view");
        a.matmul(&bb).and_then(|c| c.to_vec()).expect("matmul")
    }
    let got = run(&hip, &va, &vb);
    let want = run(&cpu, &va, &vb);
    for (g, w) in got.iter().zip(&want) {
        assert!(f64::close(*g, *w, 4), "{g} vs {w}");
    }
}

#[test]
fn an_empty_inner_dimension_gives_zeros_without_the_library() {
    let (p, hip) = fake();
    let a = Array::<f32, _>::from_slice(&hip, &[3, 0], &[]).expect("a");
    let b = Array::<f32, _>::from_slice(&hip, &[0, 4], &[]).expect("b");
    // Fill the output's future memory with garbage first: the product must overwrite it.
    drop(Array::<f32, _>::full(&hip, &[3, 4], f32::NAN).expect("garbage"));
    let c = a.matmul(&b).expect("matmul");
    assert_eq!(c.to_vec().expect("read"), vec![0.0; 12]);
    assert!(gemms(&p).is_empty());
    assert_eq!(launches(&p), 1, "only the fill above launched a kernel");
}

#[test]
fn integers_stay_on_the_kernel() {
    let (p, hip) = fake();
    let a = Array::<i32, _>::from_slice(&hip, &[2, 2], &[1, 2, 3, 4]).expect("a");
    let _ = a.matmul(&a).expect("matmul");
    assert!(gemms(&p).is_empty());
    assert_eq!(launches(&p), 1);
}
