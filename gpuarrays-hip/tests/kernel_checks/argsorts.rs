//! Stable argsorts on the HIP backend against the CPU reference, per sort algorithm: the
//! permutations come from packed key–position words whose low halves the row sort is told
//! are in order, so the radix sorts skip those digits.

use gpuarrays_core::{Array, Element, SortOrder};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::kernels::sort::SortAlgorithm;

use super::{CHOICE, f32_values, f64_values, words};

fn argsort_one<T: Element>(hip: &HipBackend, what: &str, dims: &[usize], data: &[T]) {
    fn run<T: Element, B: gpuarrays_core::Backend>(
        b: &B,
        dims: &[usize],
        data: &[T],
        order: SortOrder,
    ) -> gpuarrays_core::Result<Vec<i64>> {
        Array::from_slice(b, dims, data)?
            .argsort(dims.len() - 1, order)?
            .to_vec()
    }
    for order in [SortOrder::Ascending, SortOrder::Descending] {
        let want = run(&CpuBackend::new(), dims, data, order).expect("cpu argsort");
        let got =
            run(hip, dims, data, order).unwrap_or_else(|e| panic!("{what}: argsort failed: {e}"));
        if let Some(i) = (0..want.len()).find(|&i| got.get(i) != Some(&want[i])) {
            panic!(
                "{what} {dims:?} {} {order:?}: first difference at {i}: got {:?}, want {:?}",
                T::DTYPE,
                got.get(i),
                want[i]
            );
        }
    }
}

/// Stable argsorts with the sort algorithm `alg` (the permutations are built from packed
/// key–position words whose low halves the row sort is told are in order): f32 with ties and
/// special values on every shape; f64, i64 (two 32-bit passes each) and u8 on the first.
pub fn argsorts(hip: &HipBackend, alg: SortAlgorithm, shapes: &[&[usize]]) {
    let _one = CHOICE.lock();
    hip.kernels().update_policy(|p| p.sort = alg);
    let what = format!("{alg:?}");
    for (k, dims) in shapes.iter().enumerate() {
        let n: usize = dims.iter().product();
        let seed = 30 + k as u64;
        argsort_one(hip, &what, dims, &f32_values(n, seed));
        if k > 0 {
            continue;
        }
        let w = words(n, seed);
        argsort_one(hip, &what, dims, &f64_values(n, seed));
        let wide: Vec<i64> = w.iter().map(|&x| (x as i64) >> (x % 40)).collect();
        argsort_one(hip, &what, dims, &wide);
        argsort_one(
            hip,
            &what,
            dims,
            &w.iter().map(|&x| (x >> 7) as u8).collect::<Vec<_>>(),
        );
    }
    hip.kernels().reset_policy();
}
