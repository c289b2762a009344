//! Twiddle tables, computed on the host in f64 and rounded to f32 once, so every twiddle a
//! kernel uses is the correctly rounded value (to within f64's error, far below f32's):
//! drivers' `sin`/`cos` are not accurate enough for an FFT of f32 data.
//!
//! Per call, one table holds, for each distinct workgroup line length `m`, `W_m^k` for
//! `k < m/2` (the Stockham stages), and for each distinct four-step length `n`, a coarse
//! table `W_n^{c·F}` (`c < n/F`) and a fine table `W_n^f` (`f < F`), `F = 2^⌈log2(n)/2⌉`:
//! `W_n^e = coarse[e >> log2 F] · fine[e & (F−1)]`, one extra rounding, with `2·√n` entries
//! instead of `n`. Forward twiddles (`exp(−2πi·e/n)`); inverse launches conjugate them
//! as they read them (a parameter word, `source.rs`).

use std::collections::HashMap;

/// Offsets (in complex entries) of a four-step twiddle's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Split {
    pub coarse: usize,
    pub fine: usize,
    /// `log2 F`.
    pub fine_bits: u32,
}

/// A table under construction: interleaved (re, im) f32 pairs.
#[derive(Debug, Default)]
pub(crate) struct Table {
    pub values: Vec<f32>,
    lines: HashMap<usize, usize>,
    splits: HashMap<usize, Split>,
}

/// `exp(−2πi·e/n)` rounded to f32.
fn w(e: usize, n: usize) -> [f32; 2] {
    let a = -2.0 * std::f64::consts::PI * (e as f64) / (n as f64);
    [a.cos() as f32, a.sin() as f32]
}

impl Table {
    fn push(&mut self, e: usize, n: usize) {
        self.values.extend(w(e, n));
    }

    fn entries(&self) -> usize {
        self.values.len() / 2
    }

    /// The offset of `W_m^k`, `k < m/2`.
    pub fn line(&mut self, m: usize) -> usize {
        if let Some(&o) = self.lines.get(&m) {
            return o;
        }
        let o = self.entries();
        for k in 0..(m / 2).max(1) {
            self.push(k, m);
        }
        self.lines.insert(m, o);
        o
    }

    /// The tables of `W_n^e` for the four-step twiddle of length `n` (a power of two).
    pub fn split(&mut self, n: usize) -> Split {
        if let Some(&s) = self.splits.get(&n) {
            return s;
        }
        let bits = n.trailing_zeros();
        let fine_bits = bits.div_ceil(2);
        let f = 1usize << fine_bits;
        let coarse = self.entries();
        for c in 0..(n / f).max(1) {
            self.push(c * f, n);
        }
        let fine = self.entries();
        for e in 0..f {
            self.push(e, n);
        }
        let s = Split {
            coarse,
            fine,
            fine_bits,
        };
        self.splits.insert(n, s);
        s
    }

    /// The table as little-endian bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_twiddles_recombine_to_the_exact_value() {
        let mut t = Table::default();
        let line = t.line(8);
        assert_eq!(line, 0);
        let n = 1 << 13;
        let s = t.split(n);
        assert_eq!(t.split(n), s, "tables are shared");
        let get = |i: usize| (t.values[2 * i] as f64, t.values[2 * i + 1] as f64);
        for e in [0usize, 1, 77, 4095, 4096, 8191] {
            let (a, b) = (
                get(s.coarse + (e >> s.fine_bits)),
                get(s.fine + (e & ((1 << s.fine_bits) - 1))),
            );
            let got = (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0);
            let x = -2.0 * std::f64::consts::PI * e as f64 / n as f64;
            let err = (got.0 - x.cos()).abs() + (got.1 - x.sin()).abs();
            assert!(
                err < 4.0 * f32::EPSILON as f64,
                "e = {e}: {got:?}, error {err}"
            );
        }
        let quarter = get(line + 2);
        assert!(
            quarter.0.abs() < 1e-7 && quarter.1 == -1.0,
            "W_8^2 = {quarter:?}"
        );
    }
}
