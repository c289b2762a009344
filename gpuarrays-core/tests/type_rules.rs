//! Core owns the type rules ([`OpKind::type_rule`]): an element type an operation has no
//! meaning for (complex sort, bool cumsum and matmul, find kernels on anything but bool and
//! i64) is rejected by core with the same `InvalidDType` on every backend, before the backend
//! is asked. So a backend's capability table never has to restate the rules, and a backend
//! that says "no" to everything still gets the type-rule error, not `Unsupported`.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use gpuarrays_core::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, MatmulArgs, Program, ReduceArgs, ScanArgs, ScanOp,
    SearchArgs, SortArgs,
};
use gpuarrays_core::{
    Array, Backend, DType, DeviceInfo, ErrorKind, FftNorm, OpKind, RawArray, Result, Support,
    dispatch_dtype,
};
use gpuarrays_cpu_ref::CpuBackend;

/// Delegates to the CPU backend, answers "no" for every kind but storage and elementwise,
/// and records every question core asks.
#[derive(Clone)]
struct Refusing {
    inner: CpuBackend,
    asked: Arc<Mutex<HashSet<(DType, OpKind)>>>,
}

impl Refusing {
    fn new() -> Self {
        Refusing {
            inner: CpuBackend::new(),
            asked: Arc::default(),
        }
    }

    fn asked(&self) -> HashSet<(DType, OpKind)> {
        self.asked.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

impl Backend for Refusing {
    type Buffer = <CpuBackend as Backend>::Buffer;
    fn name(&self) -> &'static str {
        "refusing"
    }
    fn device(&self) -> &DeviceInfo {
        self.inner.device()
    }
    fn supports(&self, dtype: DType, op: OpKind) -> Support {
        if let Ok(mut asked) = self.asked.lock() {
            asked.insert((dtype, op));
        }
        match op {
            OpKind::Storage | OpKind::Elementwise => Support::Yes,
            _ => Support::no("this test backend refuses every other kind", None),
        }
    }
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer> {
        self.inner.alloc(bytes)
    }
    fn release(&self, buffer: Self::Buffer) {
        self.inner.release(buffer)
    }
    fn write(&self, dst: &Self::Buffer, off: usize, src: &[u8]) -> Result<()> {
        self.inner.write(dst, off, src)
    }
    fn read(&self, src: &Self::Buffer, off: usize, dst: &mut [u8]) -> Result<()> {
        self.inner.read(src, off, dst)
    }
    fn copy(
        &self,
        src: &Self::Buffer,
        so: usize,
        dst: &Self::Buffer,
        d: usize,
        n: usize,
    ) -> Result<()> {
        self.inner.copy(src, so, dst, d, n)
    }
    fn synchronize(&self) -> Result<()> {
        self.inner.synchronize()
    }
    fn elementwise(&self, p: &Program, a: &ElementwiseArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.elementwise(p, a)
    }
    fn reduce(&self, a: &ReduceArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.reduce(a)
    }
    fn scan(&self, a: &ScanArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.scan(a)
    }
    fn sort(&self, a: &SortArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.sort(a)
    }
    fn find(&self, a: &FindArgs<'_, Self::Buffer>) -> Result<(Self::Buffer, usize)> {
        self.inner.find(a)
    }
    fn search_sorted(&self, a: &SearchArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.search_sorted(a)
    }
    fn matmul(&self, a: &MatmulArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.matmul(a)
    }
    fn fft(&self, a: &FftArgs<'_, Self::Buffer>) -> Result<()> {
        self.inner.fft(a)
    }
}

fn zeros<B: Backend>(backend: &B, dtype: DType) -> RawArray<B> {
    let made =
        dispatch_dtype!(dtype, T => Array::<T, B>::zeros(backend, &[2, 2]).map(Array::into_raw));
    match made {
        Ok(a) => a,
        Err(e) => panic!("zeros of {dtype}: {e}"),
    }
}

/// The kind of error (or `None` for success) of the operation of `kind` on a 2×2 array.
fn outcome<B: Backend>(backend: &B, dtype: DType, kind: OpKind) -> Option<ErrorKind> {
    let a = zeros(backend, dtype);
    let r = match kind {
        OpKind::Sort => a.sort().map(drop),
        OpKind::Scan => a.scan(ScanOp::Sum, 0).map(drop),
        OpKind::Matmul => a.matmul(&a).map(drop),
        OpKind::Find => a.find().map(drop),
        OpKind::Fft => a.fft(None, 1, FftNorm::Backward).map(drop),
        _ => Ok(()),
    };
    r.err().map(|e| e.kind())
}

#[test]
fn type_rules_give_the_same_error_on_every_backend_without_asking_it() {
    let cpu = CpuBackend::new();
    let refusing = Refusing::new();
    let mut rules = 0;
    for dtype in DType::ALL {
        for kind in [
            OpKind::Sort,
            OpKind::Scan,
            OpKind::Matmul,
            OpKind::Find,
            OpKind::Fft,
        ] {
            let (on_cpu, on_refusing) =
                (outcome(&cpu, dtype, kind), outcome(&refusing, dtype, kind));
            match kind.type_rule(dtype) {
                // Find has no element type of its own: core casts to a bool mask first, so
                // its rule excludes pairs from being asked, not arrays from being searched.
                Some(_) if kind == OpKind::Find => assert_eq!(on_cpu, None, "find on {dtype}"),
                Some(rule) => {
                    rules += 1;
                    assert_eq!(
                        on_cpu,
                        Some(ErrorKind::InvalidDType),
                        "{kind} {dtype} ({rule})"
                    );
                    assert_eq!(
                        on_refusing, on_cpu,
                        "{kind} {dtype}: the backend's answer leaked"
                    );
                }
                // Everything else reaches the backend, which refuses it.
                None => {
                    assert_eq!(on_cpu, None, "{kind} {dtype} runs on the CPU");
                    assert_eq!(on_refusing, Some(ErrorKind::Unsupported), "{kind} {dtype}");
                }
            }
        }
    }
    assert_eq!(
        rules,
        2 + 1 + 1 + 9 + 2,
        "complex sort (2 types), bool scan, bool matmul, fft of bool, the 8 integer types and the 2 half types"
    );
    let asked_with_a_rule: Vec<_> = refusing
        .asked()
        .into_iter()
        .filter(|(d, k)| k.type_rule(*d).is_some())
        .collect();
    assert!(
        asked_with_a_rule.is_empty(),
        "core asked the backend about pairs its own type rules exclude: {asked_with_a_rule:?}"
    );
}
