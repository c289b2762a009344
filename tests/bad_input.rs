//! Every error path of the public API returns its typed error (never a panic), and the
//! message says what was wrong and, where there is a remedy, what to do.

use std::fmt::Debug;

use gpuarrays::conformance::Restricted;
use gpuarrays::kernel::Distribution;
use gpuarrays::prelude::*;
use gpuarrays::{ErrorKind, OpKind, Scalar};

/// Asserts that `r` failed with the variant `kind` and a message containing every needle.
#[track_caller]
fn fails<T: Debug>(r: Result<T>, kind: ErrorKind, needles: &[&str]) -> Error {
    let e = match r {
        Ok(v) => panic!("expected {kind}, got Ok({v:?})"),
        Err(e) => e,
    };
    assert_eq!(e.kind(), kind, "wrong variant: {e:?}");
    let msg = e.to_string();
    for n in needles {
        assert!(msg.contains(n), "message {msg:?} lacks {n:?}");
    }
    e
}

fn cpu() -> CpuBackend {
    CpuBackend::new()
}

fn iota(b: &CpuBackend, dims: &[usize]) -> Array<f32, CpuBackend> {
    let n: usize = dims.iter().product();
    Array::from_slice(b, dims, &(0..n).map(|i| i as f32).collect::<Vec<_>>()).unwrap()
}

#[test]
fn shapes_that_do_not_broadcast() {
    let b = cpu();
    let (x, y) = (iota(&b, &[3]), iota(&b, &[4]));
    let e = fails(
        (x.ex() + y.ex()).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["[3]", "[4]", "trailing dimensions must be equal or 1"],
    );
    assert!(matches!(e, Error::ShapeMismatch { ref op, .. } if op == "add"));
    let m = iota(&b, &[2, 3]);
    fails(
        (m.ex() * iota(&b, &[2]).ex()).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["broadcast"],
    );
    fails(
        x.broadcast_to(&[4]),
        ErrorKind::ShapeMismatch,
        &["broadcast"],
    );
    fails(m.broadcast_to(&[3]), ErrorKind::ShapeMismatch, &["[2, 3]"]);
    let c = Array::<bool, _>::from_vec(&b, vec![true, false]).unwrap();
    fails(
        c.ex().select(&x, &y).eval::<f32>(),
        ErrorKind::ShapeMismatch,
        &["select"],
    );
}

#[test]
fn views_out_of_range_and_not_contiguous() {
    let b = cpu();
    let a = iota(&b, &[4, 5]);
    fails(
        a.view(&[0..5, 0..5]),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds", "[4, 5]"],
    );
    // A reversed range (start past end), built at run time.
    let (start, end) = (3, 2);
    fails(
        a.view(&[start..end, 0..5]),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds"],
    );
    fails(
        a.slice(10..21),
        ErrorKind::ViewOutOfBounds,
        &["out of bounds"],
    );
    fails(
        a.view(std::slice::from_ref(&(0..2))),
        ErrorKind::RankMismatch,
        &["one range per dimension"],
    );
    // A column, and rows with a partial second axis, are not one contiguous run.
    for ranges in [[0..4, 1..2], [1..3, 0..4]] {
        fails(
            a.view(&ranges),
            ErrorKind::NonContiguousView,
            &["not contiguous", "copy"],
        );
    }
    // What is contiguous works: a row part, whole rows.
    assert_eq!(
        a.view(&[2..3, 1..4]).unwrap().to_vec().unwrap(),
        [11.0, 12.0, 13.0]
    );
    assert_eq!(a.view(&[1..3, 0..5]).unwrap().dims(), &[2, 5]);
}

#[test]
fn reshapes_that_do_not_fit() {
    let b = cpu();
    let a = iota(&b, &[2, 6]);
    fails(
        a.reshape(&[5, 2]),
        ErrorKind::Reshape,
        &["12 elements", "differs"],
    );
    fails(
        a.reshape(&[-1, -1]),
        ErrorKind::Reshape,
        &["at most one dimension may be -1"],
    );
    fails(a.reshape(&[5, -1]), ErrorKind::Reshape, &["not divisible"]);
    fails(a.reshape(&[-2, 6]), ErrorKind::Reshape, &["non-negative"]);
    let empty = iota(&b, &[0, 3]);
    fails(
        empty.reshape(&[0, -1]),
        ErrorKind::Reshape,
        &["cannot infer -1"],
    );
    fails(
        a.reshape(&[1; 9]),
        ErrorKind::RankTooLarge,
        &["at most 8 dimensions"],
    );
    assert_eq!(a.reshape(&[3, -1]).unwrap().dims(), &[3, 4]);
}

#[test]
fn reinterprets_that_do_not_fit() {
    let b = cpu();
    let a = iota(&b, &[3]);
    fails(
        a.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["12 bytes", "multiple of 8"],
    );
    let shifted = iota(&b, &[4]).slice(1..3).unwrap();
    fails(
        shifted.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["starts at byte 4"],
    );
    let zero_d = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(
        zero_d.reinterpret::<f64>(),
        ErrorKind::Reinterpret,
        &["0-d"],
    );
    // Fitting reinterprets work.
    assert_eq!(iota(&b, &[4]).reinterpret::<f64>().unwrap().dims(), &[2]);
}

#[test]
fn unsupported_types_are_reported_with_what_to_use() {
    let r = Restricted::new(cpu());
    let e = fails(
        Array::<u64, _>::zeros(&r, &[2]),
        ErrorKind::Unsupported,
        &["u64", "restricted", "use f32, i32 or u32"],
    );
    assert!(matches!(
        e,
        Error::Unsupported {
            op: OpKind::Storage,
            ..
        }
    ));
    let x = Array::<i32, _>::from_vec(&r, vec![1, 2, 3]).unwrap();
    fails(x.argmax_axis(0), ErrorKind::Unsupported, &["i64"]);
    fails(x.cast::<Complex64>(), ErrorKind::Unsupported, &["c64"]);
    fails(
        Array::<f64, _>::random_uniform(&r, &[4], 1),
        ErrorKind::Unsupported,
        &["f64"],
    );
    assert_eq!(r.violations(), 0);
}

#[test]
fn every_operation_on_a_freed_buffer_returns_freed() {
    let b = cpu();
    let base = iota(&b, &[4, 6]);
    let view = base.view(&[1..3, 0..6]).unwrap();
    let reshaped = base.reshape(&[6, 4]).unwrap();
    let words = base.reinterpret::<u32>().unwrap();
    let mut dst = iota(&b, &[2, 6]);
    view.free_all_shared().unwrap();
    let msg = ["free_all_shared", "can no longer be used"];
    for a in [&base, &view, &reshaped] {
        fails(a.to_vec(), ErrorKind::Freed, &msg);
        fails(a.sum(), ErrorKind::Freed, &msg);
        fails(a.max(), ErrorKind::Freed, &msg);
        fails(a.mean(), ErrorKind::Freed, &msg);
        fails(a.any(), ErrorKind::Freed, &msg);
        fails(a.sum_axis(0), ErrorKind::Freed, &msg);
        fails(a.cumsum(0), ErrorKind::Freed, &msg);
        fails(a.reverse(0), ErrorKind::Freed, &msg);
        fails(a.permute(&[1, 0]), ErrorKind::Freed, &msg);
        fails(a.transpose(), ErrorKind::Freed, &msg);
        fails(a.sort(), ErrorKind::Freed, &msg);
        fails(a.find(), ErrorKind::Freed, &msg);
        fails(a.find_first(), ErrorKind::Freed, &msg);
        fails(a.copy(), ErrorKind::Freed, &msg);
        fails(a.cast::<f64>(), ErrorKind::Freed, &msg);
        let mut target = vec![2];
        target.extend(a.dims());
        fails(a.broadcast_to(&target), ErrorKind::Freed, &msg);
        fails((a.ex() * 2.0).eval::<f32>(), ErrorKind::Freed, &msg);
        fails(
            a.matmul(&iota(&b, &[a.dims()[1], 2])),
            ErrorKind::Freed,
            &msg,
        );
        let mut shared = a.share();
        fails(shared.fill(1.0), ErrorKind::Freed, &msg);
    }
    fails(words.to_vec(), ErrorKind::Freed, &msg);
    fails(dst.assign(&view), ErrorKind::Freed, &msg);
    let mut v = view.share();
    fails(v.assign(&dst), ErrorKind::Freed, &msg);
    fails((dst.ex() + 1.0).eval_into(&mut v), ErrorKind::Freed, &msg);
    // Freeing twice, and dropping everything afterwards, is fine.
    base.free_all_shared().unwrap();
    drop((base, view, reshaped, words));
}

/// Empty arrays read no element, but an empty view of a freed buffer is still a use of
/// that buffer: every operation says `Freed` (it used to return empty or identity results).
#[test]
fn every_operation_on_an_empty_view_of_a_freed_buffer_returns_freed() {
    let b = cpu();
    let base = iota(&b, &[4, 6]);
    let empty = base.view(&[2..2, 0..6]).unwrap();
    let flat = base.slice(3..3).unwrap();
    assert!(empty.is_empty() && flat.is_empty());
    base.free_all_shared().unwrap();
    let msg = ["free_all_shared", "can no longer be used"];
    for a in [&empty, &flat] {
        fails(a.to_vec(), ErrorKind::Freed, &msg);
        fails(a.sum(), ErrorKind::Freed, &msg);
        fails(a.prod(), ErrorKind::Freed, &msg);
        fails(a.mean(), ErrorKind::Freed, &msg);
        fails(a.any(), ErrorKind::Freed, &msg);
        fails(a.all(), ErrorKind::Freed, &msg);
        fails(a.sum_axis(0), ErrorKind::Freed, &msg);
        fails(a.cumsum(0), ErrorKind::Freed, &msg);
        fails(a.reverse(0), ErrorKind::Freed, &msg);
        fails(a.sort(), ErrorKind::Freed, &msg);
        fails(a.find(), ErrorKind::Freed, &msg);
        fails(a.find_first(), ErrorKind::Freed, &msg);
        fails(a.copy(), ErrorKind::Freed, &msg);
        fails(a.cast::<f64>(), ErrorKind::Freed, &msg);
        fails((a.ex() * 2.0).eval::<f32>(), ErrorKind::Freed, &msg);
        fails(a.fftshift(None), ErrorKind::Freed, &msg);
        fails(
            a.rfft(Some(4), a.ndim() - 1, FftNorm::Backward),
            ErrorKind::Freed,
            &msg,
        );
        let mut shared = a.share();
        fails(shared.fill(1.0), ErrorKind::Freed, &msg);
        let mut target = vec![2];
        target.extend(a.dims());
        fails(a.broadcast_to(&target), ErrorKind::Freed, &msg);
    }
    fails(empty.permute(&[1, 0]), ErrorKind::Freed, &msg);
    fails(empty.transpose(), ErrorKind::Freed, &msg);
    fails(empty.sum_axis(1), ErrorKind::Freed, &msg);
    fails(empty.max_axis(1), ErrorKind::Freed, &msg);
    fails(empty.matmul(&iota(&b, &[6, 2])), ErrorKind::Freed, &msg);
    fails(iota(&b, &[3, 0]).matmul(&empty), ErrorKind::Freed, &msg);
    let mut live = iota(&b, &[0, 6]);
    fails(live.assign(&empty), ErrorKind::Freed, &msg);
    fails(
        (live.ex() + empty.ex()).eval::<f32>(),
        ErrorKind::Freed,
        &msg,
    );
    let mut dead = empty.share();
    fails(
        (live.ex() + 1.0).eval_into(&mut dead),
        ErrorKind::Freed,
        &msg,
    );
}

#[test]
fn axes_that_do_not_exist() {
    let b = cpu();
    let a = iota(&b, &[2, 3, 4]);
    fails(
        a.sum_axis(3),
        ErrorKind::AxisOutOfRange,
        &["axis 3", "3 dimensions"],
    );
    fails(a.min_axis(7), ErrorKind::AxisOutOfRange, &["axis 7"]);
    fails(a.argmax_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.any_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.mean_axis(3), ErrorKind::AxisOutOfRange, &["axis 3"]);
    fails(a.cumsum(3), ErrorKind::AxisOutOfRange, &["cumsum"]);
    fails(a.cumprod(5), ErrorKind::AxisOutOfRange, &["cumprod"]);
    fails(a.reverse(3), ErrorKind::AxisOutOfRange, &["reverse"]);
    let s = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(s.sum_axis(0), ErrorKind::AxisOutOfRange, &["0 dimensions"]);
    fails(
        a.permute(&[0, 1]),
        ErrorKind::InvalidArgument,
        &["not a permutation"],
    );
    fails(
        a.permute(&[0, 1, 1]),
        ErrorKind::InvalidArgument,
        &["not a permutation"],
    );
}

#[test]
fn reductions_without_identity_over_nothing() {
    let b = cpu();
    let e = iota(&b, &[0]);
    for r in [e.min(), e.max()] {
        fails(
            r,
            ErrorKind::EmptyReduction,
            &["empty", "check the length first"],
        );
    }
    fails(e.argmin(), ErrorKind::EmptyReduction, &["argmin"]);
    fails(e.argmax(), ErrorKind::EmptyReduction, &["argmax"]);
    fails(e.mean(), ErrorKind::EmptyReduction, &["mean"]);
    let rows = iota(&b, &[0, 3]);
    fails(rows.min_axis(0), ErrorKind::EmptyReduction, &["min"]);
    fails(rows.mean_axis(0), ErrorKind::EmptyReduction, &["mean"]);
    // Reductions with an identity give it.
    assert_eq!(e.sum().unwrap(), 0.0);
    assert_eq!(e.prod().unwrap(), 1.0);
    assert!(e.all().unwrap() && !e.any().unwrap());
    assert_eq!(rows.sum_axis(0).unwrap().to_vec().unwrap(), [0.0; 3]);
}

#[test]
fn operations_on_the_wrong_number_of_dimensions() {
    let b = cpu();
    let s = Array::<f32, _>::from_slice(&b, &[], &[1.0]).unwrap();
    fails(
        s.sort(),
        ErrorKind::RankMismatch,
        &["sort", "at least 1 dimension"],
    );
    fails(s.find(), ErrorKind::RankMismatch, &["find"]);
    fails(s.find_first(), ErrorKind::RankMismatch, &["find_first"]);
    fails(
        iota(&b, &[2, 3, 4]).transpose(),
        ErrorKind::RankMismatch,
        &["2 dimensions"],
    );
    fails(
        iota(&b, &[3]).matmul(&iota(&b, &[3, 2])),
        ErrorKind::RankMismatch,
        &["2 or 3 dimensions"],
    );
    fails(
        iota(&b, &[1, 2, 2, 2]).matmul(&iota(&b, &[2, 2])),
        ErrorKind::RankMismatch,
        &["matmul"],
    );
}

#[test]
fn matmul_shapes_that_do_not_fit() {
    let b = cpu();
    fails(
        iota(&b, &[2, 3]).matmul(&iota(&b, &[4, 2])),
        ErrorKind::ShapeMismatch,
        &["[2, 3]", "[4, 2]"],
    );
    fails(
        iota(&b, &[2, 3, 4]).matmul(&iota(&b, &[3, 4, 5])),
        ErrorKind::ShapeMismatch,
        &["matmul"],
    );
}

#[test]
fn element_types_that_do_not_go_together() {
    let b = cpu();
    let x = iota(&b, &[3]);
    let y = Array::<f64, _>::from_vec(&b, vec![1.0, 2.0, 3.0]).unwrap();
    let e = fails(
        (x.ex() + y.ex()).eval::<f32>(),
        ErrorKind::DTypeMismatch,
        &["f32", "f64", "cast"],
    );
    assert!(matches!(e, Error::DTypeMismatch { ref op, .. } if op == "add"));
    fails(
        x.ex().lt(&y).eval::<bool>(),
        ErrorKind::DTypeMismatch,
        &["cast"],
    );
    fails(
        (x.ex() * 2.0).eval::<f64>(),
        ErrorKind::DTypeMismatch,
        &["eval"],
    );
    let c = Array::<bool, _>::from_vec(&b, vec![true, false, true]).unwrap();
    fails(
        c.ex().select(&x, &y).eval::<f32>(),
        ErrorKind::DTypeMismatch,
        &["select"],
    );
    fails(
        x.matmul_raw_mismatch(&y),
        ErrorKind::DTypeMismatch,
        &["matmul"],
    );
    fails(
        x.raw().fill(Scalar::F64(1.0)),
        ErrorKind::DTypeMismatch,
        &["fill"],
    );
}

/// `matmul` of two arrays of different types through the untyped API.
trait MatmulRaw {
    fn matmul_raw_mismatch(&self, other: &Array<f64, CpuBackend>) -> Result<RawArray<CpuBackend>>;
}
impl MatmulRaw for Array<f32, CpuBackend> {
    fn matmul_raw_mismatch(&self, other: &Array<f64, CpuBackend>) -> Result<RawArray<CpuBackend>> {
        let a = self.reshape(&[1, 3])?;
        let o = other.reshape(&[3, 1])?;
        a.raw().matmul(o.raw())
    }
}

#[test]
fn operations_undefined_for_the_element_type() {
    let b = cpu();
    let i = Array::<i32, _>::from_vec(&b, vec![1, 4, 9]).unwrap();
    fails(
        i.ex().sqrt().eval::<i32>(),
        ErrorKind::InvalidDType,
        &["sqrt", "cast to a float type"],
    );
    fails(
        i.mean(),
        ErrorKind::InvalidDType,
        &["mean", "cast to f32 or f64"],
    );
    fails(
        i.ex().pow(2).eval::<i32>(),
        ErrorKind::InvalidDType,
        &["pow"],
    );
    let z = Array::<Complex32, _>::from_vec(&b, vec![Complex32::new(1.0, 2.0)]).unwrap();
    fails(
        z.min(),
        ErrorKind::InvalidDType,
        &["complex numbers have no order"],
    );
    fails(z.sort(), ErrorKind::InvalidDType, &["sort abs()"]);
    fails(
        z.ex().lt(&z).eval::<bool>(),
        ErrorKind::InvalidDType,
        &["complex"],
    );
    let m = Array::<bool, _>::from_vec(&b, vec![true, false]).unwrap();
    fails(
        m.sum(),
        ErrorKind::InvalidDType,
        &["cast bool to an integer"],
    );
    fails(m.cumsum(0), ErrorKind::InvalidDType, &["cast bool"]);
    fails(
        m.matmul(&m.reshape(&[2, 1]).unwrap()),
        ErrorKind::InvalidDType,
        &["matmul"],
    );
    fails((-m.ex()).eval::<bool>(), ErrorKind::InvalidDType, &["neg"]);
    fails(
        i.ex().cast(DType::F32).not_().eval::<f32>(),
        ErrorKind::InvalidDType,
        &["not"],
    );
    fails(
        Array::<bool, _>::arange(&b, false, true, 3),
        ErrorKind::InvalidDType,
        &["arange"],
    );
    fails(
        Array::<i32, _>::random_normal(&b, &[3], 7),
        ErrorKind::InvalidDType,
        &["f32 or f64"],
    );
    let r = Expr::random(&b, &[2], DType::U8, Distribution::Uniform, 1);
    fails(r.eval_raw(), ErrorKind::InvalidDType, &["uniform"]);
}

trait NotExt {
    fn not_(self) -> Self;
}
impl NotExt for Expr<CpuBackend> {
    fn not_(self) -> Self {
        !self
    }
}

#[test]
fn literals_that_the_element_type_cannot_hold() {
    let b = cpu();
    let u = Array::<u8, _>::from_vec(&b, vec![1, 2]).unwrap();
    let e = fails(
        (u.ex() + 300).eval::<u8>(),
        ErrorKind::ScalarOutOfRange,
        &["300", "u8", "cast the array"],
    );
    assert!(matches!(
        e,
        Error::ScalarOutOfRange {
            dtype: DType::U8,
            ..
        }
    ));
    fails(
        (u.ex() - (-1i64)).eval::<u8>(),
        ErrorKind::ScalarOutOfRange,
        &["-1"],
    );
    let i = Array::<i32, _>::from_vec(&b, vec![1, 2]).unwrap();
    fails(
        (i.ex() * 2.5).eval::<i32>(),
        ErrorKind::ScalarOutOfRange,
        &["2.5", "i32"],
    );
    fails(
        (i.ex() + 1e10).eval::<i32>(),
        ErrorKind::ScalarOutOfRange,
        &["i32"],
    );
    let m = Array::<bool, _>::from_vec(&b, vec![true]).unwrap();
    fails(
        m.ex().eq(2).eval::<bool>(),
        ErrorKind::ScalarOutOfRange,
        &["bool"],
    );
    let f = Array::<f32, _>::from_vec(&b, vec![1.0]).unwrap();
    fails(
        f.ex().eq(true).eval::<bool>(),
        ErrorKind::ScalarOutOfRange,
        &["f32"],
    );
    fails(
        (f.ex() + Scalar::F64(1.0)).eval::<f32>(),
        ErrorKind::DTypeMismatch,
        &["cast"],
    );
}

#[test]
fn arrays_of_two_devices_do_not_mix() {
    let (b1, b2) = (cpu(), cpu());
    let (x, y) = (iota(&b1, &[3]), iota(&b2, &[3]));
    let hint = ["different devices", "move data explicitly"];
    fails(
        (x.ex() + y.ex()).eval::<f32>(),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    fails(
        iota(&b1, &[2, 2]).matmul(&iota(&b2, &[2, 2])),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    let mut d = iota(&b1, &[3]);
    fails(d.assign(&y), ErrorKind::DeviceMismatch, &hint);
    fails(
        (y.ex() * 2.0).eval_into(&mut d),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    let c = Array::<bool, _>::from_vec(&b2, vec![true, false, true]).unwrap();
    fails(
        c.ex().select(&x, 0.0).eval::<f32>(),
        ErrorKind::DeviceMismatch,
        &hint,
    );
    // Moving explicitly works.
    let moved = y.to_backend(&b1).unwrap();
    assert_eq!(
        (x.ex() + moved.ex())
            .eval::<f32>()
            .unwrap()
            .to_vec()
            .unwrap(),
        [0.0, 2.0, 4.0]
    );
}

#[test]
fn other_argument_errors() {
    let b = cpu();
    fails(
        Array::<f32, _>::from_slice(&b, &[2, 2], &[1.0, 2.0, 3.0]),
        ErrorKind::LengthMismatch,
        &["expected 4 elements, got 3"],
    );
    fails(iota(&b, &[2]).item(), ErrorKind::LengthMismatch, &["item"]);
    fails(
        Array::<f32, _>::zeros(&b, &[1; 9]),
        ErrorKind::RankTooLarge,
        &["at most 8"],
    );
    let mut d = iota(&b, &[3, 5]);
    fails(
        d.assign(&iota(&b, &[5, 3])),
        ErrorKind::WrongShape,
        &["assign"],
    );
    fails(
        (iota(&b, &[3]).ex() + 1.0).eval_into(&mut d),
        ErrorKind::WrongShape,
        &["eval_into"],
    );
    fails(
        Expr::<CpuBackend>::scalar(Scalar::F32(1.0)).eval_raw(),
        ErrorKind::InvalidArgument,
        &["no device", "Array::full"],
    );
    let idx = Expr::index(&b, &[3]).cast(DType::F32);
    fails(
        (idx + iota(&b, &[2, 3]).ex()).eval::<f32>(),
        ErrorKind::InvalidArgument,
        &["evaluate the leaf to an array first"],
    );
}
