//! The conformance suite on backends that get special values wrong in the ways GPU backends
//! do (each delegates to the CPU reference and then changes its results): the suite must
//! catch every one of them, and must accept what the documentation leaves open (NaN
//! payloads and signs).
//!
//! - a complex product that starts from `1 + 0i` instead of its first factor (`(1 + 0i)·z`
//!   is not `z` when a part of `z` is infinite): what the HIP kernels did;
//! - subnormal results flushed to zero (a GPU compiled with flush-to-zero);
//! - zero results always positive (`0 - x` for a negation, a lost sign);
//! - NaN results made canonical (one payload, positive): allowed.

use gpuarrays::conformance::{SuiteConfig, run};
use gpuarrays::cpu::{CpuBackend, CpuBuffer};
use gpuarrays::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, MatmulArgs, Program, ReduceArgs, ReduceOp, ScanArgs,
    ScanOp, SearchArgs, SortArgs,
};
use gpuarrays::prelude::*;
use gpuarrays::{Complex32, Complex64, DeviceInfo, OpKind, Support};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mutation {
    ProductFromIdentity,
    FlushSubnormals,
    PositiveZeros,
    CanonicalNans,
}

#[derive(Clone)]
struct Mutant {
    inner: CpuBackend,
    mutation: Mutation,
}

impl Mutant {
    fn new(mutation: Mutation) -> Self {
        Mutant {
            inner: CpuBackend::new(),
            mutation,
        }
    }

    /// Applies the mutation to every float part of `n` elements at `offset`.
    fn mutate(&self, buf: &CpuBuffer, offset: usize, n: usize, dtype: DType) -> Result<()> {
        if !(dtype.is_float() || dtype.is_complex()) || n == 0 {
            return Ok(());
        }
        let size = dtype.real().size();
        let parts = n * dtype.size() / size;
        let mut bytes = vec![0u8; n * dtype.size()];
        self.inner.read(buf, offset * dtype.size(), &mut bytes)?;
        for p in 0..parts {
            let at = &mut bytes[p * size..(p + 1) * size];
            if size == 4 {
                let x = f32::from_le_bytes(at.try_into().unwrap());
                at.copy_from_slice(&self.part32(x).to_le_bytes());
            } else {
                let x = f64::from_le_bytes(at.try_into().unwrap());
                at.copy_from_slice(&self.part64(x).to_le_bytes());
            }
        }
        self.inner.write(buf, offset * dtype.size(), &bytes)
    }

    fn part32(&self, x: f32) -> f32 {
        match self.mutation {
            Mutation::FlushSubnormals if x.is_subnormal() => 0.0f32.copysign(x),
            Mutation::PositiveZeros if x == 0.0 => 0.0,
            Mutation::CanonicalNans if x.is_nan() => f32::from_bits(0x7fc0_0000),
            _ => x,
        }
    }

    fn part64(&self, x: f64) -> f64 {
        match self.mutation {
            Mutation::FlushSubnormals if x.is_subnormal() => 0.0f64.copysign(x),
            Mutation::PositiveZeros if x == 0.0 => 0.0,
            Mutation::CanonicalNans if x.is_nan() => f64::from_bits(0x7ff8_0000_0000_0000),
            _ => x,
        }
    }

    /// Recomputes a complex product along the middle axis of (outer, len, inner), starting
    /// every product from `1 + 0i`; `inclusive` writes every prefix (a scan).
    #[allow(clippy::too_many_arguments)]
    fn product_from_identity(
        &self,
        dtype: DType,
        input: &CpuBuffer,
        input_offset: usize,
        output: &CpuBuffer,
        output_offset: usize,
        (outer, len, inner): (usize, usize, usize),
        inclusive: bool,
    ) -> Result<()> {
        let mut bytes = vec![0u8; outer * len * inner * dtype.size()];
        self.inner
            .read(input, input_offset * dtype.size(), &mut bytes)?;
        let values: Vec<Complex64> = if dtype == DType::C32 {
            Complex32::from_bytes(&bytes)?
                .into_iter()
                .map(|z| Complex64::new(z.re as f64, z.im as f64))
                .collect()
        } else {
            Complex64::from_bytes(&bytes)?
        };
        let get = |p: usize| values[p];
        let step = |acc: Complex64, z: Complex64| -> Complex64 {
            if dtype == DType::C32 {
                let (a, b) = (
                    Complex32::new(acc.re as f32, acc.im as f32),
                    Complex32::new(z.re as f32, z.im as f32),
                );
                let p = a * b;
                Complex64::new(p.re as f64, p.im as f64)
            } else {
                acc * z
            }
        };
        let out_len = if inclusive {
            outer * len * inner
        } else {
            outer * inner
        };
        let mut out = vec![Complex64::new(0.0, 0.0); out_len];
        for o in 0..outer {
            for i in 0..inner {
                let mut acc = Complex64::new(1.0, 0.0);
                for k in 0..len {
                    let p = (o * len + k) * inner + i;
                    acc = step(acc, get(p));
                    if inclusive {
                        out[p] = acc;
                    }
                }
                if !inclusive {
                    out[o * inner + i] = acc;
                }
            }
        }
        let bytes = if dtype == DType::C32 {
            let v: Vec<Complex32> = out
                .iter()
                .map(|z| Complex32::new(z.re as f32, z.im as f32))
                .collect();
            gpuarrays::element::as_bytes(&v).to_vec()
        } else {
            gpuarrays::element::as_bytes(&out).to_vec()
        };
        self.inner
            .write(output, output_offset * dtype.size(), &bytes)
    }
}

/// Whether an output with these strides is the contiguous row-major array of `shape`.
fn contiguous(shape: &[usize], strides: &[isize]) -> bool {
    let mut expected = 1isize;
    for (d, &s) in shape.iter().zip(strides).rev() {
        if *d > 1 && s != expected {
            return false;
        }
        expected *= *d as isize;
    }
    true
}

impl Backend for Mutant {
    type Buffer = CpuBuffer;
    fn name(&self) -> &'static str {
        "mutant"
    }
    fn device(&self) -> &DeviceInfo {
        self.inner.device()
    }
    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        self.inner.supports(dtype, op)
    }
    fn alloc(&self, bytes: usize) -> Result<CpuBuffer> {
        self.inner.alloc(bytes)
    }
    fn release(&self, buffer: CpuBuffer) {
        self.inner.release(buffer)
    }
    fn write(&self, dst: &CpuBuffer, off: usize, src: &[u8]) -> Result<()> {
        self.inner.write(dst, off, src)
    }
    fn read(&self, src: &CpuBuffer, off: usize, dst: &mut [u8]) -> Result<()> {
        self.inner.read(src, off, dst)
    }
    fn copy(&self, s: &CpuBuffer, so: usize, d: &CpuBuffer, dof: usize, n: usize) -> Result<()> {
        self.inner.copy(s, so, d, dof, n)
    }
    fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }
    fn elementwise(&self, p: &Program, args: &ElementwiseArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.elementwise(p, args)?;
        let out = &args.output;
        if self.mutation != Mutation::ProductFromIdentity && contiguous(args.shape, out.strides) {
            self.mutate(out.buffer, out.offset, args.len(), out.dtype)?;
        }
        Ok(())
    }
    fn reduce(&self, a: &ReduceArgs<'_, CpuBuffer>) -> Result<()> {
        if self.mutation == Mutation::ProductFromIdentity
            && a.op == ReduceOp::Prod
            && a.dtype.is_complex()
        {
            let shape = (a.outer, a.len, a.inner);
            return self.product_from_identity(
                a.dtype,
                a.input,
                a.input_offset,
                a.output,
                a.output_offset,
                shape,
                false,
            );
        }
        self.inner.reduce(a)?;
        let out = a.op.result_dtype(a.dtype)?;
        self.mutate(a.output, a.output_offset, a.outer * a.inner, out)
    }
    fn scan(&self, a: &ScanArgs<'_, CpuBuffer>) -> Result<()> {
        if self.mutation == Mutation::ProductFromIdentity
            && a.op == ScanOp::Prod
            && a.dtype.is_complex()
        {
            let shape = (a.outer, a.len, a.inner);
            return self.product_from_identity(
                a.dtype,
                a.input,
                a.input_offset,
                a.output,
                a.output_offset,
                shape,
                true,
            );
        }
        self.inner.scan(a)?;
        self.mutate(
            a.output,
            a.output_offset,
            a.outer * a.len * a.inner,
            a.dtype,
        )
    }
    fn sort(&self, a: &SortArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.sort(a)
    }
    fn find(&self, a: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize)> {
        self.inner.find(a)
    }
    fn search_sorted(&self, a: &SearchArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.search_sorted(a)
    }
    fn matmul(&self, a: &MatmulArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.matmul(a)
    }
    fn fft(&self, a: &FftArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.fft(a)
    }
}

/// Whether the row "op/dtype" fails on `mutant`.
fn fails(mutant: &Mutant, row: &str) -> bool {
    let report = run(mutant, &SuiteConfig::quick().with_filter(row));
    let found = report.rows.iter().find(|r| r.key() == row);
    assert!(found.is_some(), "no row {row}");
    found.is_some_and(|r| !r.ok)
}

#[test]
fn a_complex_product_from_the_identity_is_caught() {
    let m = Mutant::new(Mutation::ProductFromIdentity);
    for row in [
        "prod_axis/c32",
        "prod_axis/c64",
        "cumprod/c32",
        "cumprod/c64",
    ] {
        assert!(fails(&m, row), "{row} passed");
    }
    // Real products are unaffected (1·x is x for every real x).
    for row in ["prod_axis/f32", "cumprod/f64"] {
        assert!(!fails(&m, row), "{row} failed");
    }
}

#[test]
fn flushing_subnormals_to_zero_is_caught() {
    let m = Mutant::new(Mutation::FlushSubnormals);
    for row in [
        "neg/f32",
        "mul/f64",
        "select/f32",
        "sub/c32",
        "cumsum/f32",
        "prod_axis/f64",
    ] {
        assert!(fails(&m, row), "{row} passed");
    }
}

#[test]
fn losing_the_sign_of_zero_is_caught_where_it_is_specified() {
    let m = Mutant::new(Mutation::PositiveZeros);
    for row in [
        "neg/f32",
        "mul/f64",
        "div/c64",
        "sqrt/f32",
        "prod_axis/f64",
        "cast:f32/c32",
    ] {
        assert!(fails(&m, row), "{row} passed");
    }
    // The sign of a zero sum, minimum or maximum is not specified.
    for row in [
        "sum/f32",
        "max/f64",
        "min_axis/f32",
        "cumsum/f64",
        "prod_axis/c64",
    ] {
        assert!(!fails(&m, row), "{row} failed");
    }
}

#[test]
fn nan_payloads_and_signs_are_free() {
    let m = Mutant::new(Mutation::CanonicalNans);
    for row in [
        "neg/f64",
        "add/c32",
        "mul/f32",
        "sum/f64",
        "cumprod/c64",
        "abs/f32",
    ] {
        assert!(!fails(&m, row), "{row} failed");
    }
}
