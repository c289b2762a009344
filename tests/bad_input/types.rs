//! Element types that do not go together, operations undefined for a type, literals a type cannot hold.

use super::*;

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

/// The functions beyond the C basics refuse the types their tables exclude, with the hint.
#[test]
fn library_functions_refuse_excluded_types() {
    let b = cpu();
    let i = Array::<i32, _>::from_vec(&b, vec![1, 4, 9]).unwrap();
    let f = Array::<f64, _>::from_vec(&b, vec![1.0, 4.0]).unwrap();
    let z = Array::<Complex32, _>::from_vec(&b, vec![Complex32::new(1.0, 2.0)]).unwrap();
    let m = Array::<bool, _>::from_vec(&b, vec![true, false]).unwrap();
    fails(
        i.ex().tan().eval::<i32>(),
        ErrorKind::InvalidDType,
        &["tan", "cast to a float type"],
    );
    fails(
        z.ex().sign().eval::<Complex32>(),
        ErrorKind::InvalidDType,
        &["sign", "z / abs(z)"],
    );
    fails(
        i.ex().angle().eval::<i32>(),
        ErrorKind::InvalidDType,
        &["angle", "cast integers to a float type"],
    );
    fails(
        m.ex().floor().eval::<bool>(),
        ErrorKind::InvalidDType,
        &["floor"],
    );
    fails(
        (f.ex() << f.ex()).eval::<f64>(),
        ErrorKind::InvalidDType,
        &["shl", "integers"],
    );
    fails(
        (z.ex() % z.ex()).eval::<Complex32>(),
        ErrorKind::InvalidDType,
        &["rem"],
    );
    fails(
        i.ex().atan2(&i).eval::<i32>(),
        ErrorKind::InvalidDType,
        &["atan2", "cast to a float type"],
    );
    fails(
        z.ex().fmax(&z).eval::<Complex32>(),
        ErrorKind::InvalidDType,
        &["fmax", "complex numbers have no order"],
    );
    fails(
        (i.ex() >> f.ex()).eval::<i32>(),
        ErrorKind::DTypeMismatch,
        &["shr"],
    );
}
