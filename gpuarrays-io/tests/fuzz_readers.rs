//! Deterministic fuzzing of the readers: valid `.npy`, `.npz` and `.safetensors` byte
//! streams are mutated thousands of times (every truncation, random byte flips, inserted
//! and deleted bytes, huge shapes, header lengths and offsets that overflow) and each
//! mutant must give `Ok` or a typed `Err` — never a panic, an abort, or an allocation the
//! input cannot justify. A reader that allocated what a corrupt header declares (exabytes)
//! would abort the test process; the peak resident memory is checked as well (Linux).
//!
//! `GPUARRAYS_FUZZ_ITERS` scales the random rounds (default 4000 per seed stream).

mod common;

use std::collections::HashMap;
use std::io::Cursor;

use common::sample;
use gpuarrays_core::{DType, RawArray};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::{
    Error, read_npy, read_npz, read_safetensors, write_npy, write_npz, write_safetensors,
};

/// xorshift64*: the same mutants on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn iters() -> usize {
    std::env::var("GPUARRAYS_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4000)
}

/// One random mutation: flips, overwrites with interesting bytes, insertions, deletions.
fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut b = input.to_vec();
    for _ in 0..=rng.below(4) {
        match rng.below(6) {
            0 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            1 if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = [0, 0xff, 0x7f, 0x80, b'9', b'(', b'[', b'-', b'\'', b'"'][rng.below(10)];
            }
            2 => {
                let i = rng.below(b.len() + 1);
                let run = b"99999999999999999999".repeat(1 + rng.below(3));
                b.splice(i..i, run[..1 + rng.below(run.len())].iter().copied());
            }
            3 if !b.is_empty() => {
                let i = rng.below(b.len());
                let j = (i + 1 + rng.below(16)).min(b.len());
                b.drain(i..j);
            }
            4 => b.truncate(rng.below(b.len() + 1)),
            _ if !b.is_empty() => {
                let i = rng.below(b.len());
                b[i] = rng.next() as u8;
            }
            _ => {}
        }
    }
    b
}

/// Every outcome a reader may have: a value or one of the crate's errors.
fn acceptable<T>(r: &gpuarrays_io::Result<T>) -> bool {
    match r {
        Ok(_) => true,
        Err(e) => !e.to_string().is_empty(),
    }
}

fn npy_seeds(cpu: &CpuBackend) -> Vec<Vec<u8>> {
    let mut seeds = Vec::new();
    for (dtype, dims) in [
        (DType::F64, vec![3, 4]),
        (DType::C32, vec![2, 2, 2]),
        (DType::Bool, vec![5]),
        (DType::U8, vec![]),
        (DType::I64, vec![0, 3]),
    ] {
        let mut bytes = Vec::new();
        write_npy(&mut bytes, &sample(cpu, dtype, &dims)).expect("seed");
        seeds.push(bytes);
    }
    // Big-endian and Fortran-order variants (same header length, so still valid).
    let mut be_bytes = seeds[0].clone();
    replace_in(&mut be_bytes, b"'<f8'", b"'>f8'");
    replace_in(
        &mut be_bytes,
        b"'fortran_order': False",
        b"'fortran_order': True ",
    );
    seeds.push(be_bytes);
    seeds
}

/// Overwrites the first occurrence of `from` with `to` (same length).
fn replace_in(bytes: &mut [u8], from: &[u8], to: &[u8]) {
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .expect("pattern");
    bytes[at..at + to.len()].copy_from_slice(to);
}

/// A `.npy` stream with header text `dict` (padded as NumPy pads) and `data` after it.
fn npy_with_header(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut text = dict.as_bytes().to_vec();
    while (10 + text.len() + 1) % 64 != 0 {
        text.push(b' ');
    }
    text.push(b'\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(text.len() as u16).to_le_bytes());
    out.extend_from_slice(&text);
    out.extend_from_slice(data);
    out
}

#[test]
fn npy_every_truncation() {
    let cpu = CpuBackend::new();
    let mut n = 0;
    for seed in npy_seeds(&cpu) {
        for len in 0..seed.len() {
            let r = read_npy(&cpu, &seed[..len]);
            assert!(
                r.is_err(),
                "a {len}-byte prefix of a {}-byte file loaded",
                seed.len()
            );
            n += 1;
        }
        if let Err(e) = read_npy(&cpu, seed.as_slice()) {
            panic!(
                "seed {:?}: {e}",
                String::from_utf8_lossy(&seed[..seed.len().min(128)])
            );
        }
    }
    eprintln!("{n} truncations rejected");
}

#[test]
fn npy_random_mutations() {
    let cpu = CpuBackend::new();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut ok, mut err) = (0, 0);
    for seed in npy_seeds(&cpu) {
        for _ in 0..iters() {
            let m = mutate(&mut rng, &seed);
            let r = read_npy(&cpu, m.as_slice());
            assert!(acceptable(&r));
            if r.is_ok() { ok += 1 } else { err += 1 }
        }
    }
    eprintln!("npy mutants: {ok} loaded, {err} typed errors");
    assert!(err > 0 && ok > 0);
}

#[test]
fn npy_huge_and_hostile_headers() {
    let cpu = CpuBackend::new();
    let data = [0u8; 64];
    let hostile = [
        "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 1099511627776, 1099511627776), }",
        "{'descr': '<c16', 'fortran_order': False, 'shape': (1152921504606846976,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (100000000000000000000000000000,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000000,), }",
        "{'descr': '<u1', 'fortran_order': True, 'shape': (4294967296, 4294967296), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,), }",
        "{'descr': '<f8', 'fortran_order': 1, 'shape': (2,), }",
        "{'descr': '<f8', 'shape': (2,), }",
        "{'descr': '<f99999999999999999999', 'fortran_order': False, 'shape': (2,), }",
        "{'descr': '<U99999999999', 'fortran_order': False, 'shape': (2,), }",
        "{'descr': [('a', '<f8', (4294967296, 4294967296))], 'fortran_order': False, 'shape': (2,), }",
        "[1, 2, 3]",
        "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 18446744073709551615), }",
    ];
    for dict in hostile {
        let r = read_npy(&cpu, npy_with_header(dict, &data).as_slice());
        assert!(acceptable(&r), "{dict}");
        if let Err(e) = &r {
            eprintln!("{e}");
        }
    }
    // The last one is legal: an empty array with a huge other axis.
    // Deep nesting must not reach the recursive parser.
    let deep = format!(
        "{{'descr': '<f8', 'fortran_order': False, 'shape': {}2{}, }}",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let e = read_npy(&cpu, npy_with_header(&deep, &data).as_slice()).expect_err("deep");
    assert!(matches!(e, Error::Malformed { .. }), "{e}");
    // Header length fields that claim gigabytes (versions 1 and 2).
    for (version, len) in [
        (1u8, vec![0xff, 0xff]),
        (2, vec![0xff, 0xff, 0xff, 0xff]),
        (3, vec![0, 0, 0, 0x80]),
    ] {
        let mut b = vec![0x93, b'N', b'U', b'M', b'P', b'Y', version, 0];
        b.extend(len);
        b.extend_from_slice(b"{'descr': '<f8'");
        let e = read_npy(&cpu, b.as_slice()).expect_err("long header");
        assert!(matches!(e, Error::Malformed { .. }), "{e}");
    }
    // A file on disk that declares more than it holds is refused before reading.
    let path = std::env::temp_dir().join(format!("gpuarrays-io-fuzz-{}.npy", std::process::id()));
    std::fs::write(&path, npy_with_header(hostile[4], &data)).expect("write");
    let e = gpuarrays_io::load_npy(&cpu, &path).expect_err("truncated file");
    assert!(
        matches!(
            e,
            Error::Truncated {
                expected: 8_000_000_000_000,
                got: 64,
                ..
            }
        ),
        "{e}"
    );
    std::fs::remove_file(&path).ok();
    check_peak_memory();
}

fn st_seed(cpu: &CpuBackend) -> Vec<u8> {
    let a = sample(cpu, DType::F32, &[3, 4]);
    let b = sample(cpu, DType::Bool, &[5]);
    let c = sample(cpu, DType::C32, &[]);
    let d = sample(cpu, DType::U64, &[0, 2]);
    let named: Vec<(&str, &RawArray<CpuBackend>)> =
        vec![("a", &a), ("b", &b), ("c", &c), ("d", &d)];
    write_safetensors(&named, Some(HashMap::from([("k".into(), "v".into())]))).expect("seed")
}

#[test]
fn safetensors_mutations() {
    let cpu = CpuBackend::new();
    let seed = st_seed(&cpu);
    assert_eq!(read_safetensors(&cpu, &seed).expect("seed").0.len(), 4);
    for len in 0..seed.len() {
        assert!(
            read_safetensors(&cpu, &seed[..len]).is_err(),
            "prefix {len}"
        );
    }
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let (mut ok, mut err) = (0, 0);
    for _ in 0..iters() * 2 {
        let m = mutate(&mut rng, &seed);
        let r = read_safetensors(&cpu, &m);
        assert!(acceptable(&r));
        if r.is_ok() { ok += 1 } else { err += 1 }
    }
    eprintln!("safetensors mutants: {ok} loaded, {err} typed errors");
    // Hostile headers: lengths and offsets that overflow, huge shapes, unsupported types.
    let header = |json: &str| {
        let mut b = (json.len() as u64).to_le_bytes().to_vec();
        b.extend_from_slice(json.as_bytes());
        b.extend_from_slice(&[0u8; 16]);
        b
    };
    let cases = [
        r#"{"a":{"dtype":"F32","shape":[18446744073709551615],"data_offsets":[0,16]}}"#,
        r#"{"a":{"dtype":"F32","shape":[4294967296,4294967296,4294967296],"data_offsets":[0,16]}}"#,
        r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[0,18446744073709551615]}}"#,
        r#"{"a":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551600,18446744073709551615]}}"#,
        r#"{"a":{"dtype":"F8_E4M3","shape":[16],"data_offsets":[0,16]}}"#,
        r#"{"a":{"dtype":"F8_E5M2","shape":[16],"data_offsets":[0,16]}}"#,
    ];
    for json in cases {
        let r = read_safetensors(&cpu, &header(json));
        assert!(acceptable(&r), "{json}");
        let e = r.err().unwrap_or_else(|| panic!("{json} loaded"));
        eprintln!("{e}");
        if json.contains("F8_") {
            assert!(matches!(e, Error::UnsupportedDType { .. }), "{e}");
        }
    }
    // The 16- and 8-bit types gpuarrays has load, with their values.
    for (json, dtype) in [
        (
            r#"{"a":{"dtype":"F16","shape":[8],"data_offsets":[0,16]}}"#,
            DType::F16,
        ),
        (
            r#"{"a":{"dtype":"BF16","shape":[8],"data_offsets":[0,16]}}"#,
            DType::BF16,
        ),
        (
            r#"{"a":{"dtype":"I8","shape":[16],"data_offsets":[0,16]}}"#,
            DType::I8,
        ),
    ] {
        let (arrays, _) = read_safetensors(&cpu, &header(json)).expect(json);
        assert_eq!(arrays[0].1.dtype(), dtype, "{json}");
        assert!(
            arrays[0]
                .1
                .to_bytes()
                .expect("bytes")
                .iter()
                .all(|&b| b == 0)
        );
    }
    for huge in [u64::MAX, u64::MAX - 7, 1 << 40, 100_000_001] {
        let mut b = huge.to_le_bytes().to_vec();
        b.extend_from_slice(b"{}");
        assert!(read_safetensors(&cpu, &b).is_err());
    }
    check_peak_memory();
}

#[test]
fn npz_mutations() {
    let cpu = CpuBackend::new();
    let a = sample(&cpu, DType::F64, &[3, 3]);
    let b = sample(&cpu, DType::I32, &[4]);
    let mut seeds = Vec::new();
    for compressed in [false, true] {
        let mut buf = Cursor::new(Vec::new());
        write_npz(&mut buf, &[("a", &a), ("b", &b)], compressed).expect("seed");
        seeds.push(buf.into_inner());
    }
    let mut rng = Rng(0x0bad_cafe_dead_beef);
    for seed in &seeds {
        for len in (0..seed.len()).step_by(7) {
            assert!(acceptable(&read_npz(&cpu, Cursor::new(&seed[..len]))));
        }
        for _ in 0..iters() / 4 {
            let m = mutate(&mut rng, seed);
            assert!(acceptable(&read_npz(&cpu, Cursor::new(m))));
        }
    }
}

/// The process's peak resident memory stays far below what any hostile header declared.
fn check_peak_memory() {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return;
    };
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0);
    assert!(kb < 2 << 20, "peak resident memory {kb} kB");
}
