//! `gemm/...`: matrix products. The sizes of the targets (f32 4096², f64 2048², f16 and bf16
//! 8192² on tensor cores) and small ones, both complex types, a batched and a broadcast product, an integer product
//! (the backend's own kernel: the vendor libraries have none), and on HIP the f32 product on
//! the own kernel too, for comparison with the vendor BLAS.

use gpuarrays::{AnyBackend, Array, Complex32, Complex64, Element, Result, bf16, f16};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Sizes, Work};

/// `(name, dtype, a dims, b dims, large)`.
type Shape = (&'static str, Vec<usize>, Vec<usize>, bool);

fn flops<T: Element>(a: &[usize], b: &[usize]) -> Work {
    let (m, k) = (a[a.len() - 2], a[a.len() - 1]);
    let n = b[b.len() - 1];
    let batch = a.len().max(b.len()).saturating_sub(2);
    let batch = if batch == 0 { 1 } else { a[0].max(b[0]) };
    let per = if T::DTYPE.is_complex() { 8.0 } else { 2.0 };
    Work::Flops(per * (batch * m * n * k) as f64)
}

fn product<T: Element>(name: String, a: Vec<usize>, b: Vec<usize>) -> Case {
    let params = json!({"op": "matmul", "dtype": T::DTYPE.name(), "a": a, "b": b});
    let work = flops::<T>(&a, &b);
    Case::new(name, params, work, move |be| {
        let x = matrix::<T>(be, &a, 21)?;
        let y = matrix::<T>(be, &b, 22)?;
        Ok(Box::new(move || x.matmul(&y).map(drop)) as Runner)
    })
}

/// Uniform values (real and imaginary parts) of type `T`.
pub(super) fn matrix<T: Element>(
    b: &AnyBackend,
    dims: &[usize],
    seed: u64,
) -> Result<Array<T, AnyBackend>> {
    if T::DTYPE.is_complex() {
        let n: usize = dims.iter().product();
        let mut d: Vec<isize> = dims.iter().map(|&x| x as isize).collect();
        d.push(2);
        let real_dtype_is_f32 = T::DTYPE.size() == 8;
        if real_dtype_is_f32 {
            data::<f32>(b, &[n * 2], seed)?
                .reshape(&d)?
                .reinterpret::<T>()?
                .reshape(&shape(dims))
        } else {
            data::<f64>(b, &[n * 2], seed)?
                .reshape(&d)?
                .reinterpret::<T>()?
                .reshape(&shape(dims))
        }
    } else {
        data::<T>(b, dims, seed)
    }
}

fn shape(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

pub fn cases(sizes: Sizes) -> Vec<Case> {
    let sq = |n: usize| (vec![n, n], vec![n, n]);
    let mut v = Vec::new();
    let mut add = |large: bool, case: Case| {
        if (large && sizes.large()) || (!large && sizes.small()) {
            v.push(case);
        }
    };
    for (n, large) in [(256, false), (4096, true)] {
        let (a, b) = sq(n);
        add(large, product::<f32>(format!("gemm/Float32/{n}"), a, b));
    }
    for (n, large) in [(256, false), (2048, true)] {
        let (a, b) = sq(n);
        add(large, product::<f64>(format!("gemm/Float64/{n}"), a, b));
    }
    for (n, large) in [(256, false), (8192, true)] {
        let (a, b) = sq(n);
        add(
            large,
            product::<f16>(format!("gemm/Float16/{n}"), a.clone(), b.clone()),
        );
        add(large, product::<bf16>(format!("gemm/BFloat16/{n}"), a, b));
    }
    let (a, b) = sq(2048);
    add(
        true,
        product::<Complex32>("gemm/ComplexF32/2048".into(), a, b),
    );
    let (a, b) = sq(1024);
    add(
        true,
        product::<Complex64>("gemm/ComplexF64/1024".into(), a, b),
    );
    let batched: [Shape; 2] = [
        (
            "gemm/Float32/batched",
            vec![64, 256, 256],
            vec![64, 256, 256],
            false,
        ),
        (
            "gemm/Float32/broadcast",
            vec![64, 256, 256],
            vec![256, 256],
            false,
        ),
    ];
    for (name, a, b, large) in batched {
        add(large, product::<f32>(name.into(), a, b));
    }
    let (a, b) = sq(512);
    add(false, product::<i32>("gemm/Int32/512".into(), a, b));
    #[cfg(feature = "hip")]
    add(true, own_kernel_f32(1024));
    v
}

/// The f32 product on the HIP backend's own kernel (`GPUARRAYS_MATMUL=kernel` for this row
/// only); on other backends the ordinary product.
#[cfg(feature = "hip")]
fn own_kernel_f32(n: usize) -> Case {
    let (a, b) = (vec![n, n], vec![n, n]);
    let params = json!({"op": "matmul", "dtype": "f32", "a": a, "b": b});
    Case::new(
        format!("gemm/Float32/{n}/own-kernel"),
        params,
        flops::<f32>(&a, &b),
        move |be| {
            let x = matrix::<f32>(be, &a, 23)?;
            let y = matrix::<f32>(be, &b, 24)?;
            let be = be.clone();
            Ok(Box::new(move || {
                be.with_own_matmul_kernel(|| x.matmul(&y).map(drop))
                    .unwrap_or_else(|| x.matmul(&y).map(drop))
            }) as Runner)
        },
    )
}
