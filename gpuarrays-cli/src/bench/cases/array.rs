//! `array/...`: storage, copies, broadcasting, scans, reductions, reverse, permutedims,
//! random numbers, sorting and searches, each at the suite's small size and at 1 GiB (the
//! sort family's rows: see `ordering.rs`).

use gpuarrays::kernel::ReduceOp;
use gpuarrays::{Array, Backend, Element, Scalar};
use serde_json::json;

use super::inputs::data;
use super::{Case, Runner, Sizes, Work, indexing, ordering, views};

/// The suite's matrix: 512 × 1000 in its column-major terms, (1000, 512) here.
pub const SMALL_DIMS: [usize; 2] = [1000, 512];
/// Its element count, the suite's vector length.
pub const SMALL: usize = SMALL_DIMS[0] * SMALL_DIMS[1];
const GIB: usize = 1 << 30;

/// One size of a family: the suite's small arrays or 1 GiB ones.
#[derive(Clone, Copy)]
struct Size {
    large: bool,
}

impl Size {
    fn each(sizes: Sizes) -> Vec<Size> {
        let mut v = Vec::new();
        if sizes.small() {
            v.push(Size { large: false });
        }
        if sizes.large() {
            v.push(Size { large: true });
        }
        v
    }
    /// `name` with the suite's `L` for the 1 GiB variant.
    fn name(self, name: &str) -> String {
        if self.large {
            format!("{name}L")
        } else {
            name.to_string()
        }
    }
    /// Elements of a vector of `elem`-byte elements.
    fn len(self, elem: usize) -> usize {
        if self.large { GIB / elem } else { SMALL }
    }
    /// A matrix of `elem`-byte elements: the suite's, or one of 1 GiB with 16384 rows.
    fn matrix(self, elem: usize) -> [usize; 2] {
        if self.large {
            [16384, GIB / elem / 16384]
        } else {
            SMALL_DIMS
        }
    }
}

/// The suite's name of an element type.
fn suite_type<T: Element>() -> &'static str {
    match T::DTYPE.name() {
        "f32" => "Float32",
        "f64" => "Float64",
        "i64" => "Int64",
        "i32" => "Int32",
        _ => "Other",
    }
}

fn bytes(n: usize, elem: usize, passes: usize) -> Work {
    Work::Bytes((n * elem * passes) as f64)
}

pub fn cases(sizes: Sizes) -> Vec<Case> {
    let mut v = Vec::new();
    for s in Size::each(sizes) {
        storage(&mut v, s);
        accumulate::<f32>(&mut v, s);
        accumulate::<i64>(&mut v, s);
        reductions::<f32>(&mut v, s);
        reductions::<i64>(&mut v, s);
        reverse(&mut v, s);
        permutedims(&mut v, s);
        views::cases(&mut v, s.name(""), s.matrix(4));
        indexing::cases(&mut v, s.name(""), s.matrix(4), s.len(4));
        random(&mut v, s);
        sorting(&mut v, s);
        ordering::cases(&mut v, s.name(""), if s.large { 1 << 26 } else { SMALL });
        iteration(&mut v, s);
    }
    v
}

fn storage(v: &mut Vec<Case>, s: Size) {
    let n = s.len(4);
    let p = |op: &str| json!({"op": op, "dtype": "f32", "dims": [n]});
    v.push(Case::new(
        s.name("array/copy"),
        p("copy"),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &[n], 1)?;
            Ok(Box::new(move || x.copy().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        s.name("array/copyto/cpu_to_gpu"),
        p("cpu_to_gpu"),
        bytes(n, 4, 1),
        move |b| {
            let x = Array::<f32, _>::zeros(b, &[n])?;
            // Written host memory: a `vec![0u8; n]` is `calloc`'s untouched zero pages, all
            // one physical page, read from cache. With it this row measured 2.26× PyTorch
            // (whose source tensor is written) and 1.07× CuPy (whose `numpy.zeros` source was
            // not) at 1 GiB on the H200 (docs/results/hip-host-copies.md).
            let host = vec![1u8; n * 4];
            let b = b.clone();
            Ok(Box::new(move || b.write(&*x.raw().buffer()?, 0, &host)) as Runner)
        },
    ));
    v.push(Case::new(
        s.name("array/copyto/gpu_to_cpu"),
        p("gpu_to_cpu"),
        bytes(n, 4, 1),
        move |b| {
            let x = data::<f32>(b, &[n], 2)?;
            // Faulted in by the first (warm-up) copy, like the other libraries' outputs.
            let mut host = vec![0u8; n * 4];
            let b = b.clone();
            Ok(Box::new(move || b.read(&*x.raw().buffer()?, 0, &mut host)) as Runner)
        },
    ));
    v.push(Case::new(
        s.name("array/copyto/gpu_to_gpu"),
        p("gpu_to_gpu"),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &[n], 3)?;
            let mut y = Array::<f32, _>::zeros(b, &[n])?;
            Ok(Box::new(move || y.assign(&x)) as Runner)
        },
    ));
    v.push(Case::new(
        s.name("array/broadcast"),
        p("fill"),
        bytes(n, 4, 1),
        move |b| {
            let mut x = Array::<f32, _>::zeros(b, &[n])?;
            Ok(Box::new(move || x.fill(0.0)) as Runner)
        },
    ));
    v.push(Case::new(
        s.name("array/broadcast/axpy"),
        p("axpy"),
        bytes(n, 4, 3),
        move |b| {
            let x = data::<f32>(b, &[n], 4)?;
            let y = data::<f32>(b, &[n], 5)?;
            let mut z = Array::<f32, _>::zeros(b, &[n])?;
            Ok(Box::new(move || (&x * 1.5f32 + &y).eval_into(&mut z)) as Runner)
        },
    ));
}

/// The vector, `dims=1` (along the contiguous axis) and `dims=2` variants of a family.
fn variants<T: Element>(s: Size) -> [(String, Vec<usize>, Option<usize>); 3] {
    let m = s.matrix(T::DTYPE.size());
    [
        (s.name("1d"), vec![s.len(T::DTYPE.size())], None),
        (s.name("dims=1"), m.to_vec(), Some(1)),
        (s.name("dims=2"), m.to_vec(), Some(0)),
    ]
}

fn accumulate<T: Element>(v: &mut Vec<Case>, s: Size) {
    let size = T::DTYPE.size();
    for (key, dims, axis) in variants::<T>(s) {
        let n: usize = dims.iter().product();
        let name = format!("array/accumulate/{}/{key}", suite_type::<T>());
        let params = json!({"op": "cumsum", "dtype": T::DTYPE.name(), "dims": dims, "axis": axis.unwrap_or(0)});
        v.push(Case::new(name, params, bytes(n, size, 2), move |b| {
            let x = data::<T>(b, &dims, 6)?;
            let axis = axis.unwrap_or(0);
            Ok(Box::new(move || x.cumsum(axis).map(drop)) as Runner)
        }));
    }
}

fn reductions<T: Element>(v: &mut Vec<Case>, s: Size) {
    let size = T::DTYPE.size();
    for (key, dims, axis) in variants::<T>(s) {
        let n: usize = dims.iter().product();
        let ty = suite_type::<T>();
        let d = dims.clone();
        v.push(Case::new(
            format!("array/reductions/reduce/{ty}/{key}"),
            json!({"op": "sum", "dtype": T::DTYPE.name(), "dims": dims, "axis": axis}),
            bytes(n, size, 1),
            move |b| {
                let x = data::<T>(b, &d, 7)?;
                // The result stays on the device (no read-back inside the timing).
                Ok(Box::new(move || x.raw().reduce(ReduceOp::Sum, axis).map(drop)) as Runner)
            },
        ));
        v.push(Case::new(
            format!("array/reductions/mapreduce/{ty}/{key}"),
            json!({"op": "mapreduce_plus1_sum", "dtype": T::DTYPE.name(), "dims": dims, "axis": axis}),
            bytes(n, size, 3),
            move |b| {
                let x = data::<T>(b, &dims, 8)?;
                // `x + 1` then the sum: two passes (the map is not fused into the reduction).
                Ok(Box::new(move || {
                    let y: Array<T, _> = (x.ex() + Scalar::one(T::DTYPE)).eval()?;
                    y.raw().reduce(ReduceOp::Sum, axis).map(drop)
                }) as Runner)
            },
        ));
    }
}

fn reverse(v: &mut Vec<Case>, s: Size) {
    let n = s.len(4);
    let m = s.matrix(4);
    v.push(Case::new(
        format!("array/reverse/{}", s.name("1d")),
        json!({"op": "reverse", "dtype": "f32", "dims": [n], "axis": 0}),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &[n], 9)?;
            // reverse is a view: the row times the copy (`torch.flip` copies too).
            Ok(Box::new(move || x.reverse(0)?.contiguous().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/reverse/{}", s.name("2d")),
        json!({"op": "reverse", "dtype": "f32", "dims": m, "axis": 1}),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &m, 10)?;
            Ok(Box::new(move || x.reverse(1)?.contiguous().map(drop)) as Runner)
        },
    ));
}

fn permutedims(v: &mut Vec<Case>, s: Size) {
    // The suite's 2-D, 3-D and 4-D shapes of its matrix's elements, and 1 GiB ones.
    let shapes: [(&str, Vec<usize>, Vec<usize>); 3] = if s.large {
        [
            ("2d", vec![16384, 16384], vec![1, 0]),
            ("3d", vec![1024, 512, 512], vec![2, 0, 1]),
            ("4d", vec![128, 64, 256, 128], vec![1, 0, 3, 2]),
        ]
    } else {
        [
            ("2d", SMALL_DIMS.to_vec(), vec![1, 0]),
            ("3d", vec![25, 40, 512], vec![2, 0, 1]),
            ("4d", vec![25, 40, 8, 64], vec![1, 0, 3, 2]),
        ]
    };
    for (key, dims, axes) in shapes {
        let n: usize = dims.iter().product();
        v.push(Case::new(
            format!("array/permutedims/{}", s.name(key)),
            json!({"op": "permute", "dtype": "f32", "dims": dims, "axes": axes}),
            bytes(n, 4, 2),
            move |b| {
                let x = data::<f32>(b, &dims, 11)?;
                let axes = axes.clone();
                // permute is a view: the row times the copy (`.contiguous()` in PyTorch).
                Ok(Box::new(move || x.permute(&axes)?.contiguous().map(drop)) as Runner)
            },
        ));
    }
}

fn random(v: &mut Vec<Case>, s: Size) {
    let n = s.len(4);
    v.push(Case::new(
        format!("array/random/rand/{}", s.name("Float32")),
        json!({"op": "rand", "dtype": "f32", "dims": [n]}),
        bytes(n, 4, 1),
        move |b| {
            let b = b.clone();
            let mut seed = 0u64;
            Ok(Box::new(move || {
                seed += 1;
                Array::<f32, _>::random_uniform(&b, &[n], seed).map(drop)
            }) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/random/randn/{}", s.name("Float32")),
        json!({"op": "randn", "dtype": "f32", "dims": [n]}),
        bytes(n, 4, 1),
        move |b| {
            let b = b.clone();
            let mut seed = 0u64;
            Ok(Box::new(move || {
                seed += 1;
                Array::<f32, _>::random_normal(&b, &[n], seed).map(drop)
            }) as Runner)
        },
    ));
}

fn sorting(v: &mut Vec<Case>, s: Size) {
    let n = s.len(4);
    let m = s.matrix(4);
    v.push(Case::new(
        format!("array/sorting/{}", s.name("1d")),
        json!({"op": "sort", "dtype": "f32", "dims": [n]}),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &[n], 12)?;
            Ok(Box::new(move || x.sort().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/sorting/{}", s.name("2d")),
        json!({"op": "sort", "dtype": "f32", "dims": m}),
        bytes(n, 4, 2),
        move |b| {
            let x = data::<f32>(b, &m, 13)?;
            Ok(Box::new(move || x.sort().map(drop)) as Runner)
        },
    ));
}

fn iteration(v: &mut Vec<Case>, s: Size) {
    let n = s.len(4);
    let m = s.matrix(4);
    v.push(Case::new(
        format!("array/iteration/findall/{}", s.name("bool")),
        json!({"op": "findall", "dtype": "bool", "dims": [n]}),
        Work::Bytes((n + n / 2 * 8) as f64),
        move |b| {
            // About half true.
            let mask: Array<bool, _> =
                data::<f32>(b, &[n], 14)?.ex().gt(Scalar::F32(0.5)).eval()?;
            Ok(Box::new(move || mask.find().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/iteration/findfirst/{}", s.name("bool")),
        json!({"op": "findfirst", "dtype": "bool", "dims": [n]}),
        Work::Bytes(n as f64),
        move |b| {
            // Only the last element is true: the whole mask is searched.
            let mut idx = Array::<i64, _>::arange(b, 0, 1, n)?;
            let mask: Array<bool, _> = idx.ex().eq(Scalar::I64((n - 1) as i64)).eval()?;
            idx.fill(0)?;
            Ok(Box::new(move || mask.find_first().map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/iteration/findmin/{}", s.name("1d")),
        json!({"op": "argmin", "dtype": "f32", "dims": [n], "axis": null}),
        bytes(n, 4, 1),
        move |b| {
            let x = data::<f32>(b, &[n], 15)?;
            Ok(Box::new(move || x.raw().reduce(ReduceOp::ArgMin, None).map(drop)) as Runner)
        },
    ));
    v.push(Case::new(
        format!("array/iteration/findmin/{}", s.name("2d")),
        json!({"op": "argmin", "dtype": "f32", "dims": m, "axis": 1}),
        bytes(n, 4, 1),
        move |b| {
            let x = data::<f32>(b, &m, 16)?;
            Ok(Box::new(move || x.argmin_axis(1).map(drop)) as Runner)
        },
    ));
}
