//! Fuzzing of derived arrays (`view`, `reshape`, `reinterpret`, `slice`, `free_all_shared`)
//! and broadcasting on the CPU backend, against an independent model (`model.rs`).
//!
//! Each case is generated from a seed (`generate.rs`): either a base array and a chain of
//! derive steps, checked after every step (result or typed error, shape, element offset,
//! shared buffer, and the bytes read back), or a broadcast expression over operands that sit
//! at an offset inside larger buffers, checked element by element.
//!
//! ```text
//! cargo test --release --test derive_fuzz                        # 1,000,000 cases
//! GPUARRAYS_FUZZ_CASES=1000000 cargo test --release --test derive_fuzz
//! GPUARRAYS_FUZZ_SEED=0x1234 cargo test --release --test derive_fuzz -- --nocapture
//! ```
//!
//! `GPUARRAYS_FUZZ_BASE` changes the base seed (default fixed, so CI runs are repeatable);
//! `GPUARRAYS_FUZZ_SEED` replays one case and prints it. Failures found are kept as
//! regression tests, with their seeds, in `regressions.rs`.

mod broadcast;
mod generate;
mod model;
mod regressions;

use std::fmt::Write as _;

use gpuarrays::prelude::*;
use gpuarrays::{DataRef, Element};

use broadcast::run_broadcast;
use generate::{BroadcastCase, BroadcastOp, Case, DeriveCase, Rng, Step};
use model::{Expect, MArr};

type Raw = RawArray<CpuBackend>;

const DEFAULT_CASES: u64 = 1_000_000;
const DEFAULT_BASE: u64 = 0x6770_7561_7272_6179; // "gpuarray"

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    let v = v.trim().replace('_', "");
    let parsed = match v.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => v.parse(),
    };
    Some(parsed.unwrap_or_else(|_| panic!("{name}={v:?} is not a number")))
}

// ---------------------------------------------------------------------------------
// The system under test, reached only through the public API.
// ---------------------------------------------------------------------------------

fn upload_typed<T: Element>(cpu: &CpuBackend, dims: &[usize], bytes: &[u8]) -> Result<Raw> {
    let values = T::from_bytes(bytes)?;
    Ok(Array::<T, _>::from_slice(cpu, dims, &values)?.into_raw())
}

fn upload(cpu: &CpuBackend, dtype: DType, dims: &[usize], bytes: &[u8]) -> Result<Raw> {
    match dtype {
        DType::Bool => upload_typed::<bool>(cpu, dims, bytes),
        DType::I8 => upload_typed::<i8>(cpu, dims, bytes),
        DType::U8 => upload_typed::<u8>(cpu, dims, bytes),
        DType::I16 => upload_typed::<i16>(cpu, dims, bytes),
        DType::U16 => upload_typed::<u16>(cpu, dims, bytes),
        DType::F16 => upload_typed::<gpuarrays::f16>(cpu, dims, bytes),
        DType::BF16 => upload_typed::<gpuarrays::bf16>(cpu, dims, bytes),
        DType::I32 => upload_typed::<i32>(cpu, dims, bytes),
        DType::U32 => upload_typed::<u32>(cpu, dims, bytes),
        DType::I64 => upload_typed::<i64>(cpu, dims, bytes),
        DType::U64 => upload_typed::<u64>(cpu, dims, bytes),
        DType::F32 => upload_typed::<f32>(cpu, dims, bytes),
        DType::F64 => upload_typed::<f64>(cpu, dims, bytes),
        DType::C32 => upload_typed::<Complex32>(cpu, dims, bytes),
        DType::C64 => upload_typed::<Complex64>(cpu, dims, bytes),
    }
}

fn slice_typed<T: Element>(a: &Raw, range: std::ops::Range<usize>) -> Result<Raw> {
    Ok(a.clone().into_typed::<T>()?.slice(range)?.into_raw())
}

/// `Array::slice`, which exists on typed arrays only.
fn slice(a: &Raw, range: std::ops::Range<usize>) -> Result<Raw> {
    match a.dtype() {
        DType::Bool => slice_typed::<bool>(a, range),
        DType::I8 => slice_typed::<i8>(a, range),
        DType::U8 => slice_typed::<u8>(a, range),
        DType::I16 => slice_typed::<i16>(a, range),
        DType::U16 => slice_typed::<u16>(a, range),
        DType::F16 => slice_typed::<gpuarrays::f16>(a, range),
        DType::BF16 => slice_typed::<gpuarrays::bf16>(a, range),
        DType::I32 => slice_typed::<i32>(a, range),
        DType::U32 => slice_typed::<u32>(a, range),
        DType::I64 => slice_typed::<i64>(a, range),
        DType::U64 => slice_typed::<u64>(a, range),
        DType::F32 => slice_typed::<f32>(a, range),
        DType::F64 => slice_typed::<f64>(a, range),
        DType::C32 => slice_typed::<Complex32>(a, range),
        DType::C64 => slice_typed::<Complex64>(a, range),
    }
}

// ---------------------------------------------------------------------------------
// Comparing the two.
// ---------------------------------------------------------------------------------

/// Compares an outcome with the model's prediction (`None`: success); `Err` describes the
/// difference.
fn agree(
    what: &str,
    model: Option<Expect>,
    actual: Option<&Error>,
) -> std::result::Result<(), String> {
    match (model, actual) {
        (None, None) => Ok(()),
        (Some(e), Some(x)) if x.kind().name() == e.name() => Ok(()),
        (Some(e), Some(x)) => Err(format!(
            "{what}: the model predicts {}, gpuarrays returned {} ({x})",
            e.name(),
            x.kind().name()
        )),
        (Some(e), None) => Err(format!(
            "{what}: the model predicts {}, gpuarrays succeeded",
            e.name()
        )),
        (None, Some(x)) => Err(format!(
            "{what}: the model predicts success, gpuarrays returned {} ({x})",
            x.kind().name()
        )),
    }
}

/// Checks a derived array against its model: shape, type, offset, shared buffer, bytes.
fn check_array(
    what: &str,
    m: &MArr,
    a: &Raw,
    base: &Raw,
    buffer: &[u8],
) -> std::result::Result<(), String> {
    m.check_invariant();
    if a.dims() != m.dims.as_slice() || a.dtype() != m.dtype || a.offset() != m.offset() {
        return Err(format!(
            "{what}: gpuarrays has {:?} {:?} at element {}, the model {:?} {:?} at element {}",
            a.dtype(),
            a.dims(),
            a.offset(),
            m.dtype,
            m.dims,
            m.offset()
        ));
    }
    if !DataRef::same_buffer(a.data(), base.data()) {
        return Err(format!(
            "{what}: the derived array does not share its base's buffer"
        ));
    }
    match (m.freed, a.to_bytes()) {
        (true, Err(Error::Freed)) => Ok(()),
        (true, other) => Err(format!("{what}: read after free_all_shared gave {other:?}")),
        (false, Ok(bytes)) if bytes == m.bytes(buffer) => Ok(()),
        (false, Ok(bytes)) => Err(format!(
            "{what}: read {bytes:?}, the model gathers {:?}",
            m.bytes(buffer)
        )),
        (false, Err(e)) => Err(format!("{what}: read failed: {e}")),
    }
}

// ---------------------------------------------------------------------------------
// Running cases.
// ---------------------------------------------------------------------------------

/// What a run exercised: successful steps and each predicted error, by name.
#[derive(Default)]
struct Tally(std::collections::BTreeMap<&'static str, u64>);

impl Tally {
    fn note(&mut self, model: Option<Expect>, ok: &'static str) {
        *self.0.entry(model.map_or(ok, Expect::name)).or_default() += 1;
    }

    fn merge(&mut self, other: Tally) {
        for (k, v) in other.0 {
            *self.0.entry(k).or_default() += v;
        }
    }
}

fn random_bytes(r: &mut Rng, dtype: DType, n: usize) -> Vec<u8> {
    (0..n * model::size_of(dtype))
        .map(|_| {
            let b = r.next() as u8;
            if dtype == DType::Bool { b & 1 } else { b }
        })
        .collect()
}

fn run_derive(
    cpu: &CpuBackend,
    seed: u64,
    c: &DeriveCase,
    tally: &mut Tally,
) -> std::result::Result<(), String> {
    let mut r = Rng::new(seed ^ 0xb1e5);
    let model_base = MArr::base(c.dtype, &c.dims);
    let n = model_base
        .as_ref()
        .map_or(usize::from(c.dims.len() > model::MAX_DIMS), |m| m.len());
    let buffer = random_bytes(&mut r, c.dtype, n);
    let actual_base = upload(cpu, c.dtype, &c.dims, &buffer);
    agree(
        "upload",
        model_base.as_ref().err().copied(),
        actual_base.as_ref().err(),
    )?;
    tally.note(model_base.as_ref().err().copied(), "upload ok");
    let (Ok(mut m), Ok(base)) = (model_base, actual_base) else {
        return Ok(());
    };
    check_array("upload", &m, &base, &base, &buffer)?;
    let mut a = base.clone();
    let mut base_freed = false;
    let mut steps = Rng::new(c.step_seed);
    for k in 0..c.steps {
        let step = generate::step(&mut steps, &m.dims);
        let what = format!("step {k} {step:?} on {:?} {:?}", m.dtype, m.dims);
        let (next_m, next_a) = match &step {
            Step::View(ranges) => (m.view(ranges), a.view(ranges)),
            Step::Reshape(dims) => (m.reshape(dims), a.reshape(dims)),
            Step::Reinterpret(to) => (m.reinterpret(*to), a.reinterpret(*to)),
            Step::Slice(range) => (m.slice(range.clone()), slice(&a, range.clone())),
            Step::FreeAll => {
                a.data().free_all_shared().unwrap();
                m.freed = true;
                base_freed = true;
                (Ok(m.clone()), Ok(a.clone()))
            }
        };
        agree(&what, next_m.as_ref().err().copied(), next_a.as_ref().err())?;
        tally.note(
            next_m.as_ref().err().copied(),
            if m.freed {
                "derive ok (freed)"
            } else {
                "derive ok"
            },
        );
        if let (Ok(nm), Ok(na)) = (next_m, next_a) {
            check_array(&what, &nm, &na, &base, &buffer)?;
            m = nm;
            a = na;
        }
    }
    // The base sees the release through any of its derived arrays.
    let base_bytes = base.to_bytes();
    match (base_freed, base_bytes) {
        (true, Err(Error::Freed)) => Ok(()),
        (false, Ok(bytes)) if bytes == buffer => Ok(()),
        (freed, got) => Err(format!("base after the chain (freed: {freed}): {got:?}")),
    }
}

/// Runs case `seed`; `Err` describes the first disagreement, with the case.
fn run_case(cpu: &CpuBackend, seed: u64, tally: &mut Tally) -> std::result::Result<(), String> {
    let case = generate::case(seed);
    let result = match &case {
        Case::Derive(c) => run_derive(cpu, seed, c, tally),
        Case::Broadcast(c) => run_broadcast(cpu, seed, c, tally),
    };
    result.map_err(|e| {
        let mut msg = String::new();
        let _ = write!(msg, "seed {seed:#x}: {e}\n  case: {case:?}");
        msg
    })
}

/// Runs `cases` cases from `base` on every core; returns what they exercised and the
/// failures (the first 20).
fn run_many(base: u64, cases: u64) -> (Tally, Vec<String>) {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get()) as u64;
    let failures = std::sync::Mutex::new(Vec::new());
    let tally = std::sync::Mutex::new(Tally::default());
    std::thread::scope(|s| {
        for t in 0..threads {
            let (failures, tally) = (&failures, &tally);
            s.spawn(move || {
                let cpu = CpuBackend::new();
                let mut mine = Tally::default();
                let mut i = t;
                while i < cases {
                    if let Err(e) = run_case(&cpu, generate::case_seed(base, i), &mut mine) {
                        let mut f = failures.lock().unwrap();
                        if f.len() < 20 {
                            f.push(e);
                        }
                    }
                    i += threads;
                }
                tally.lock().unwrap().merge(mine);
            });
        }
    });
    (tally.into_inner().unwrap(), failures.into_inner().unwrap())
}

#[test]
fn derive_and_broadcast_agree_with_the_model() {
    if let Some(seed) = env_u64("GPUARRAYS_FUZZ_SEED") {
        println!("case {seed:#x}: {:?}", generate::case(seed));
        if let Err(e) = run_case(&CpuBackend::new(), seed, &mut Tally::default()) {
            panic!("{e}");
        }
        return;
    }
    let cases = env_u64("GPUARRAYS_FUZZ_CASES").unwrap_or(DEFAULT_CASES);
    let base = env_u64("GPUARRAYS_FUZZ_BASE").unwrap_or(DEFAULT_BASE);
    let start = std::time::Instant::now();
    let (tally, failures) = run_many(base, cases);
    println!(
        "derive_fuzz: {cases} cases from base {base:#x} in {:.1} s, {} failed; outcomes: {:?}",
        start.elapsed().as_secs_f64(),
        failures.len(),
        tally.0
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The generator covers every outcome: each kind of error and success occurs in a run of
/// the default size (so the fuzzer cannot silently stop exercising a rule).
#[test]
fn the_generator_reaches_every_outcome() {
    use std::collections::BTreeMap;
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    for i in 0..20_000 {
        let seed = generate::case_seed(DEFAULT_BASE, i);
        match generate::case(seed) {
            Case::Derive(c) => {
                let Ok(mut m) = MArr::base(c.dtype, &c.dims) else {
                    *seen.entry("upload error").or_default() += 1;
                    continue;
                };
                let mut steps = Rng::new(c.step_seed);
                for _ in 0..c.steps {
                    let next = match generate::step(&mut steps, &m.dims) {
                        Step::View(x) => m.view(&x),
                        Step::Reshape(x) => m.reshape(&x),
                        Step::Reinterpret(x) => m.reinterpret(x),
                        Step::Slice(x) => m.slice(x),
                        Step::FreeAll => Ok(m.clone()),
                    };
                    match next {
                        Ok(n) => {
                            *seen.entry("derive ok").or_default() += 1;
                            m = n;
                        }
                        Err(e) => *seen.entry(e.name()).or_default() += 1,
                    }
                }
            }
            Case::Broadcast(_) => *seen.entry("broadcast").or_default() += 1,
        }
    }
    for outcome in [
        "upload error",
        "derive ok",
        "broadcast",
        "RankMismatch",
        "RankTooLarge",
        "ViewOutOfBounds",
        "NonContiguousView",
        "Reshape",
        "Reinterpret",
    ] {
        assert!(
            seen.get(outcome).copied().unwrap_or(0) >= 10,
            "the generator rarely reaches {outcome}: {seen:?}"
        );
    }
}
