//! The conformance suite on the CPU reference backend: against the scalar oracle, across
//! thread counts, through `Restricted` (unsupported types reported, never computed), and on
//! a deliberately faulty backend (the suite must catch it).

use gpuarrays::conformance::{
    Restricted, SuiteConfig, run, run_against_oracle, run_cpu_against_oracle,
};
use gpuarrays::cpu::{CpuBackend, CpuBuffer};
use gpuarrays::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use gpuarrays::prelude::*;
use gpuarrays::{DeviceInfo, OpKind, Support};

/// A backend that delegates to the CPU backend, then corrupts the first element of every
/// kernel's output (bit 6 of its last byte): the suite must notice.
#[derive(Clone)]
struct Faulty {
    inner: CpuBackend,
}

impl Faulty {
    fn new(inner: CpuBackend) -> Self {
        Faulty { inner }
    }

    fn corrupt(&self, buf: &CpuBuffer, offset: usize, dtype: DType) -> Result<()> {
        let at = (offset + 1) * dtype.size() - 1;
        let mut byte = [0u8];
        self.inner.read(buf, at, &mut byte)?;
        byte[0] ^= 0x40;
        self.inner.write(buf, at, &byte)
    }
}

impl Backend for Faulty {
    type Buffer = CpuBuffer;
    fn name(&self) -> &'static str {
        "faulty"
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
        self.corrupt(args.output.buffer, args.output.offset, args.output.dtype)
    }
    fn reduce(&self, args: &ReduceArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.reduce(args)?;
        let out = args.op.result_dtype(args.dtype)?;
        self.corrupt(args.output, args.output_offset, out)
    }
    fn scan(&self, args: &ScanArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.scan(args)?;
        self.corrupt(args.output, args.output_offset, args.dtype)
    }
    fn sort(&self, args: &SortArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.sort(args)?;
        self.corrupt(args.buffer, args.offset, args.dtype)
    }
    fn find(&self, args: &FindArgs<'_, CpuBuffer>) -> Result<(CpuBuffer, usize)> {
        self.inner.find(args)
    }
    fn search_sorted(&self, args: &SearchArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.search_sorted(args)?;
        self.corrupt(args.output, args.output_offset, DType::I64)
    }
    fn gather(&self, args: &GatherArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.gather(args)?;
        self.corrupt(args.output, args.output_offset, args.dtype)
    }
    fn scatter(&self, args: &ScatterArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.scatter(args)?;
        self.corrupt(args.target.buffer, args.target.offset, args.dtype)
    }
    fn matmul(&self, args: &MatmulArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.matmul(args)?;
        self.corrupt(args.output, args.output_offset, args.dtype)
    }
    fn fft(&self, args: &FftArgs<'_, CpuBuffer>) -> Result<()> {
        self.inner.fft(args)?;
        self.corrupt(args.output, args.output_layout.offset, args.output_dtype())
    }
}

fn assert_ok(report: &gpuarrays::conformance::SuiteReport) {
    assert!(!report.rows.is_empty(), "no rows ran");
    if !report.ok() {
        panic!("{}{}", report.failure_details(), report.summary());
    }
}

#[test]
fn cpu_reference_matches_the_scalar_oracle() {
    let report = run_cpu_against_oracle(&SuiteConfig::quick());
    assert_ok(&report);
    // Every operation ran on every element type.
    assert!(report.rows.len() >= 700, "{} rows", report.rows.len());
    for d in DType::ALL {
        assert!(report.rows.iter().any(|r| r.dtype == d && r.status == "ok"));
    }
    let computed = report
        .rows
        .iter()
        .filter(|r| r.status.starts_with("ok"))
        .count();
    assert!(computed > 500, "only {computed} rows computed anything");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    // Bit for bit: every row's largest difference from the default pool is 0.
    let exact = |report: &gpuarrays::conformance::SuiteReport| {
        assert_ok(report);
        for r in &report.rows {
            assert_eq!(r.max_err, 0.0, "{} differs across thread counts", r.key());
        }
    };
    let three = CpuBackend::with_threads(3).unwrap();
    exact(&run(&three, &SuiteConfig::quick()));
    // Large shapes for the order-sensitive operations.
    for filter in [
        "sum/f32",
        "cumsum/f64",
        "sum_axis/f32",
        "prod/c32",
        "matmul/f32",
    ] {
        exact(&run(&three, &SuiteConfig::default().with_filter(filter)));
    }
    let one = CpuBackend::with_threads(1).unwrap();
    exact(&run(
        &one,
        &SuiteConfig::default().with_filter("mean_axis/f64"),
    ));
}

#[test]
fn restricted_backend_reports_unsupported_types_and_never_computes_them() {
    let restricted = Restricted::new(CpuBackend::new());
    let report = run(&restricted, &SuiteConfig::quick());
    assert_ok(&report);
    assert_eq!(restricted.violations(), 0, "core dispatched a refused type");
    for r in &report.rows {
        if restricted.refused().contains(&r.dtype) {
            assert!(
                r.status.starts_with("unsupported (reported)") || r.status.starts_with("rejected"),
                "{} on a refused type: {}",
                r.key(),
                r.status
            );
        }
    }
    let unsupported = report
        .rows
        .iter()
        .filter(|r| r.status.starts_with("unsupported (reported)"))
        .count();
    assert!(
        unsupported >= 150,
        "only {unsupported} rows reported unsupported"
    );
    // The 32-bit types still compute.
    assert!(
        report
            .rows
            .iter()
            .any(|r| r.dtype == DType::F32 && r.op == "sum" && r.status == "ok")
    );
}

#[test]
fn unsupported_error_is_structured_and_says_what_to_use() {
    let restricted = Restricted::new(CpuBackend::new());
    let err = Array::<f64, _>::zeros(&restricted, &[3]).unwrap_err();
    match &err {
        Error::Unsupported {
            dtype,
            op,
            backend,
            device,
            reason,
            alternative,
        } => {
            assert_eq!(*dtype, DType::F64);
            assert_eq!(*op, OpKind::Storage);
            assert_eq!(backend, "restricted");
            assert_eq!(device, &restricted.device().name);
            assert!(!reason.is_empty());
            assert_eq!(alternative.as_deref(), Some("use f32, i32 or u32"));
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    let msg = err.to_string();
    for word in ["f64", "restricted", "use f32"] {
        assert!(msg.contains(word), "{msg:?} lacks {word:?}");
    }
    // Only the output type is refused: reported at dispatch, before anything runs.
    let x = Array::<f32, _>::from_vec(&restricted, vec![1.0, 2.0]).unwrap();
    match x.cast::<f64>() {
        Err(Error::Unsupported { dtype, op, .. }) => {
            assert_eq!(dtype, DType::F64);
            assert!(matches!(op, OpKind::Storage | OpKind::Elementwise), "{op}");
        }
        other => panic!("expected Unsupported, got {other:?}"),
    }
    assert_eq!(restricted.violations(), 0);
}

#[test]
fn the_suite_catches_a_faulty_backend() {
    let faulty = Faulty::new(CpuBackend::new());
    for filter in [
        "add/f32",
        "sum/i32",
        "cumsum/f64",
        "sort/u8",
        "matmul/c32",
        "exp/f64",
    ] {
        let cfg = SuiteConfig::quick().with_filter(filter);
        for report in [run(&faulty, &cfg), run_against_oracle(&faulty, &cfg)] {
            assert!(!report.ok(), "{filter}: a corrupted result went unnoticed");
            let line = &report.failed().next().unwrap().failures[0];
            assert!(line.contains("seed") && line.contains("--filter"), "{line}");
        }
    }
}

#[test]
fn failures_replay_with_the_same_seed() {
    let faulty = Faulty::new(CpuBackend::new());
    let cfg = SuiteConfig::quick().with_seed(7).with_filter("mul/i64");
    let (a, b) = (run(&faulty, &cfg), run(&faulty, &cfg));
    assert_eq!(a.rows[0].failures, b.rows[0].failures);
    let other = run(
        &faulty,
        &SuiteConfig::quick().with_seed(8).with_filter("mul/i64"),
    );
    assert_ne!(a.rows[0].failures, other.rows[0].failures);
}
