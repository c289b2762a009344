//! `searchsorted` through the search kernel against the CPU reference: tables searched in
//! the shared-memory sample alone and through it into global memory (partial last bucket
//! included), duplicates, NaNs and signed zeros, u32 and u64 keys, both sides; a table that
//! is not sorted gives answers in range.

use gpuarrays_core::{Array, Element, Side};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_hip::HipBackend;

use super::{f32_values, f64_values, words};

fn search_one<T: Element>(hip: &HipBackend, table: &[T], values: &[T]) {
    let cpu = CpuBackend::new();
    let n = table.len();
    for side in [Side::Left, Side::Right] {
        let want = Array::from_slice(&cpu, &[n], table)
            .and_then(|t| t.sort())
            .and_then(|t| t.searchsorted(&Array::from_slice(&cpu, &[values.len()], values)?, side))
            .and_then(|a| a.to_vec())
            .expect("cpu searchsorted");
        let got = Array::from_slice(hip, &[n], table)
            .and_then(|t| t.sort())
            .and_then(|t| t.searchsorted(&Array::from_slice(hip, &[values.len()], values)?, side))
            .and_then(|a| a.to_vec())
            .unwrap_or_else(|e| panic!("searchsorted {} n={n} {side:?}: {e}", T::DTYPE));
        if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
            panic!(
                "searchsorted {} n={n} {side:?}: first difference at {i}: value {:?}, got {}, want {}",
                T::DTYPE,
                values[i],
                got[i],
                want[i]
            );
        }
    }
}

/// Searches in tables of each length (values drawn like the table, so many are equal to
/// table elements), f32 (u32 keys), f64 and i64 (u64 keys), and u32 (its own keys).
pub fn searches(hip: &HipBackend, table_lens: &[usize], values: usize) {
    for (k, &n) in table_lens.iter().enumerate() {
        let seed = 900 + k as u64;
        search_one(hip, &f32_values(n, seed), &f32_values(values, seed + 50));
        search_one(hip, &f64_values(n, seed), &f64_values(values, seed + 50));
        let w = words(n, seed);
        let v = words(values, seed + 50);
        let small = |x: &u64| (*x % 97) as i64 - 40;
        search_one(
            hip,
            &w.iter().map(small).collect::<Vec<_>>(),
            &v.iter().map(small).collect::<Vec<_>>(),
        );
        search_one(
            hip,
            &w.iter()
                .map(|&x| (x >> 7) as u32 % 5000)
                .collect::<Vec<_>>(),
            &v.iter()
                .map(|&x| (x >> 7) as u32 % 5000)
                .collect::<Vec<_>>(),
        );
    }
}

/// A u32 table one key into its buffer (its own keys, so the kernel reads it in place, not
/// 16-byte aligned: the chunks are read key by key).
pub fn unaligned_table(hip: &HipBackend, n: usize, values: usize) {
    let cpu = CpuBackend::new();
    let mut table: Vec<u32> = words(n + 1, 11).iter().map(|&x| (x >> 9) as u32).collect();
    table.sort_unstable();
    let v: Vec<u32> = words(values, 12).iter().map(|&x| (x >> 9) as u32).collect();
    for side in [Side::Left, Side::Right] {
        let run = |b: &dyn Fn() -> gpuarrays_core::Result<Vec<i64>>| b();
        let want = run(&|| {
            let t = Array::from_slice(&cpu, &[n + 1], &table)?.slice(1..n + 1)?;
            t.searchsorted(&Array::from_slice(&cpu, &[values], &v)?, side)?
                .to_vec()
        })
        .expect("cpu");
        let got = run(&|| {
            let t = Array::from_slice(hip, &[n + 1], &table)?.slice(1..n + 1)?;
            t.searchsorted(&Array::from_slice(hip, &[values], &v)?, side)?
                .to_vec()
        })
        .unwrap_or_else(|e| panic!("unaligned searchsorted: {e}"));
        assert_eq!(got, want, "unaligned table n={n} {side:?}");
    }
}

/// A table that is not sorted: every answer is a position in `0..=n`, and no error.
pub fn unsorted_in_range(hip: &HipBackend, n: usize, values: usize) {
    let table: Vec<i32> = words(n, 7).iter().map(|&x| x as i32).collect();
    let v: Vec<i32> = words(values, 8).iter().map(|&x| x as i32).collect();
    for side in [Side::Left, Side::Right] {
        let got = Array::from_slice(hip, &[n], &table)
            .and_then(|t| t.searchsorted(&Array::from_slice(hip, &[values], &v)?, side))
            .and_then(|a| a.to_vec())
            .expect("searchsorted of an unsorted table");
        assert!(got.iter().all(|&p| (0..=n as i64).contains(&p)), "{side:?}");
    }
}
