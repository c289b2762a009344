//! The WGSL every indexing kernel shares: a point's coordinates, an operand's address, and
//! `IndexMode::position` computed from the two words of an i64 index.
//!
//! The index is `r = hi·2^32 + lo` with `hi` read as signed. Its sign and whether it
//! exceeds 32 bits are decided from `hi` before `lo` is used, so every index, i64::MIN and
//! i64::MAX included, lands in `0..extent` (extent ≤ 2^32 − 1):
//! - `Raise`: a negative `r` with `r + n ≥ 0` has `hi = 0xffffffff` and `lo ≥ 2^32 − n`,
//!   and then `r + n = lo + n` in wrapping u32; any other negative clamps to 0; a
//!   non-negative `r` with `hi ≠ 0` or `lo ≥ n` clamps to `n − 1`;
//! - `Clip`: the same without the added `n`;
//! - `Wrap`: `u mod n` for the unsigned `u = hi·2^32 + lo` by 32 steps of binary long
//!   division (`(hi mod n)·2^32 + lo`, one bit of `lo` at a time, never above 2n, the
//!   overflowing bit kept apart), then for a negative `r = u − 2^64` the constant
//!   `2^64 mod n` (computed on the host, [`wrap_constant`]) is subtracted modulo `n`. That
//!   is `r.rem_euclid(n)` exactly, for every 64-bit `r`.

use gpuarrays_core::kernel::IndexMode;

use super::prm;

/// `2^64 mod n`, for `n ≥ 1`.
pub(crate) fn wrap_constant(n: u64) -> u32 {
    ((1u128 << 64) % n.max(1) as u128) as u32
}

/// `mod64` (Wrap only) and `position(lo, hi, n, k)`: the position of index `(lo, hi)` on an
/// axis of `n` elements, `k = 2^64 mod n`.
pub(crate) fn functions(mode: IndexMode) -> String {
    let body = match mode {
        IndexMode::Raise => {
            "  if ((hi >> 31u) != 0u) {
    if (hi == 0xffffffffu && lo >= 0u - n) { return lo + n; }
    return 0u;
  }
  if (hi != 0u || lo >= n) { return n - 1u; }
  return lo;
"
        }
        IndexMode::Clip => {
            "  if ((hi >> 31u) != 0u) { return 0u; }
  if (hi != 0u || lo >= n) { return n - 1u; }
  return lo;
"
        }
        IndexMode::Wrap => {
            "  if (hi == 0u) { return lo % n; }
  let m = mod64(hi, lo, n);
  if ((hi >> 31u) == 0u) { return m; }
  return select(m + (n - k), m - k, m >= k);
"
        }
    };
    let mut s = String::new();
    if mode == IndexMode::Wrap {
        s.push_str(
            "fn mod64(hi: u32, lo: u32, n: u32) -> u32 {
  var r = hi % n;
  for (var i = 0u; i < 32u; i++) {
    let top = r >> 31u;
    var x = (r << 1u) | ((lo >> (31u - i)) & 1u);
    if (top != 0u || x >= n) { x = x - n; }
    r = x;
  }
  return r;
}
",
        );
    }
    s.push_str("fn position(lo: u32, hi: u32, n: u32, k: u32) -> u32 {\n");
    s.push_str(body);
    s.push_str("}\n");
    s
}

/// `point(q)` (the coordinates `(o, j, k)` of point `q`), `at(b, c, m)` (the address of
/// an operand whose base and strides are parameters `b..b + 4`, at `(c.x, m, c.z)`), the
/// mode's `position`, and `slot(c)`: the address in the indexed operand that point `c`
/// reaches, the index read from binding `index` (0-based).
pub(crate) fn prelude(mode: IndexMode, index: usize) -> String {
    let i = index + 1;
    let mut s = format!(
        "fn point(q: u32) -> vec3<u32> {{
  let r = q / prm({inner}u);
  return vec3<u32>(r / prm({count}u), r % prm({count}u), q % prm({inner}u));
}}
fn at(b: u32, c: vec3<u32>, m: u32) -> u32 {{
  return prm(b) + c.x * prm(b + 1u) + m * prm(b + 2u) + c.z * prm(b + 3u);
}}
",
        inner = prm::INNER,
        count = prm::COUNT,
    );
    s.push_str(&functions(mode));
    s.push_str(&format!(
        "fn slot(c: vec3<u32>) -> u32 {{
  let w = at({ix}u, c, c.y);
  return at({tb}u, c, position(b{i}[w], b{i}[w + 1u], prm({n}u), prm({k}u)));
}}
",
        ix = prm::INDEX,
        tb = prm::TABLE,
        n = prm::EXTENT,
        k = prm::WRAP,
    ));
    s
}

/// The start of a one-invocation-per-point body: returns past the range, then `t` (the
/// rank of the point in the range), `q` and `c` (its coordinates) are in scope.
pub(crate) fn per_point() -> String {
    format!(
        "  if (t >= prm({q1}u) - prm({q0}u)) {{ return; }}
  let q = prm({q0}u) + t;
  let c = point(q);
",
        q0 = prm::Q0,
        q1 = prm::Q1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_constant_is_two_to_the_64_mod_n() {
        assert_eq!(wrap_constant(1), 0);
        assert_eq!(wrap_constant(3), 1);
        assert_eq!(wrap_constant(5), 1);
        assert_eq!(wrap_constant(7), 2);
        assert_eq!(wrap_constant(u32::MAX as u64), 1);
        assert_eq!(wrap_constant(1 << 31), 0);
    }
}
