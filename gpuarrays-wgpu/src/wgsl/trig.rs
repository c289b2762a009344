//! `sin` and `cos` of f32 and f64 to within a few ulps for every finite argument, without
//! WGSL's builtins (which drivers implement for graphics: lavapipe's f32 `sin` is off by up
//! to 10^7 ulps for large arguments, its f64 one is wrong).
//!
//! **Reduction.** `|x| = M·2^E` with an integer significand `M` (24 or 53 bits) is reduced
//! exactly (Payne–Hanek): the quadrant and the fraction of `|x|·2/π` come from `M` times a
//! window of the bits of 2/π ([`super::two_over_pi`]) that starts where the product's
//! weight falls to 4 (the bits above only add multiples of 4 quadrants). The product is
//! computed in 32-bit integer words — 96 bits of window for f32, 192 for f64, enough that
//! the worst cancellation of each type still leaves a full significand — so no 64-bit
//! integers are needed and the same code runs on the WebGPU baseline. The signed fraction
//! (rounded to the nearest quadrant) is normalised with `countLeadingZeros`, converted
//! exactly in two parts and multiplied by π/2 in two parts.
//!
//! **Kernels.** On `|r| ≤ π/4`: `sin r = r + r³ S(r²)` and `cos r = 1 − r²/2 + r⁴ C(r²)`,
//! Taylor polynomials whose truncation error is below half an ulp there (f32 to r¹¹/r¹²,
//! f64 to r¹⁷/r¹⁸). `cos x` is `sin` of the quadrant after `x`'s.

use gpuarrays_core::DType;

use super::extended;
use super::helpers::Helpers;
use super::two_over_pi;
use super::types::{f32_lit, f64_lit, ty};

fn flit(d: DType, x: f64) -> String {
    if d == DType::F32 {
        f32_lit(x as f32)
    } else {
        f64_lit(x)
    }
}

/// Per-type constants of the reduction.
struct Reduction {
    /// 32-bit words of the window of 2/π (and of the product).
    words: usize,
    /// `pos = e + bias` is the window's first bit in the padded table (`e`: the unbiased
    /// exponent of `|x|`, the table: two zero words and then 2/π).
    bias: i32,
    /// The largest unbiased exponent.
    max_exp: i32,
}

fn reduction(d: DType) -> Reduction {
    // The window starts at 2/π's bit a = E − 1 (E = e − (significand bits − 1)); with two
    // zero words in front, its bit index in the table is a + 63.
    if d == DType::F32 {
        Reduction {
            words: 3,
            bias: 39,
            max_exp: 127,
        }
    } else {
        Reduction {
            words: 6,
            bias: 10,
            max_exp: 1023,
        }
    }
}

/// The table `two_over_pi_T` (two zero words, then the words of 2/π the type can need) and
/// `tpw_T(k, sh)`, the 32 bits of the table starting `sh` bits into word `k`.
fn table(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let r = reduction(d);
    let len = ((r.max_exp + r.bias) as usize >> 5) + r.words + 1;
    let name = format!("tpw_{t}");
    h.raw(&name, || {
        let mut words = vec!["0u".to_string(), "0u".to_string()];
        words.extend(
            two_over_pi::words()
                .iter()
                .take(len - 2)
                .map(|w| format!("{w:#010x}u")),
        );
        format!(
            "var<private> two_over_pi_{t}: array<u32, {len}> = array<u32, {len}>({});
fn {name}(k: u32, sh: u32) -> u32 {{
  return (two_over_pi_{t}[k] << sh) | ((two_over_pi_{t}[k + 1u] >> (31u - sh)) >> 1u);
}}
",
            words.join(", ")
        )
    })
}

/// Statements multiplying the significand words `m` (least significant first) by the
/// window `f0..f{n-1}` into `q0..q{n-1}` (the product modulo 2^(32n)).
fn multiply(m: &[&str], n: usize) -> String {
    let mut s = String::new();
    for (i, mi) in m.iter().enumerate() {
        let mut carry = "0u".to_string();
        for j in 0..n - i {
            let pos = i + j;
            let acc = if i == 0 {
                "0u".to_string()
            } else {
                format!("q{pos}")
            };
            if pos == n - 1 {
                // The top word: only its low 32 bits matter.
                let prev = if i == 0 {
                    String::new()
                } else {
                    format!("q{pos} + ")
                };
                let decl = if i == 0 { "var " } else { "" };
                s.push_str(&format!("  {decl}q{pos} = {prev}{mi} * f{j} + {carry};\n"));
            } else {
                let decl = if i == 0 { "var " } else { "" };
                s.push_str(&format!(
                    "  c = mac({acc}, {mi}, f{j}, {carry});\n  {decl}q{pos} = c.x;\n"
                ));
                carry = "c.y".to_string();
            }
        }
    }
    s
}

/// `rem_pio2_T(ax)`: `(quadrant, r)` with `ax = (quadrant + 4k)·π/2 + r`, `|r| ≤ π/4`, for
/// finite `ax > π/4`.
fn rem_pio2(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("rem_pio2_{t}");
    let r = reduction(d);
    let n = r.words;
    let tpw = table(h, d);
    extended::mac(h);
    let frexp = if d == DType::F64 {
        extended::frexp1_f64(h)
    } else {
        String::new()
    };
    let pio2_hi = std::f64::consts::FRAC_PI_2;
    let pio2_lo = two_over_pi::frac_pi_2_lo();
    let (p_hi, p_lo) = if d == DType::F32 {
        let hi = pio2_hi as f32;
        (hi as f64, (pio2_hi - hi as f64) + pio2_lo)
    } else {
        (pio2_hi, pio2_lo)
    };
    let (p_hi, p_lo) = (flit(d, p_hi), flit(d, p_lo));
    h.raw(&name, || {
        let mut s = format!("fn {name}(ax: {t}) -> vec2<{t}> {{\n");
        // The significand words and the exponent.
        let m: Vec<&str> = if d == DType::F32 {
            s.push_str(
                "  let bits = bitcast<u32>(ax);
  let m0 = (bits & 0x7fffffu) | 0x800000u;
  let e = i32(bits >> 23u) - 127;
",
            );
            vec!["m0"]
        } else {
            s.push_str(&format!(
                "  let fr = {frexp}(ax);
  let e = i32(fr.y);
  let t = fr.x * 1048576.0lf;
  let th = floor(t);
  let m1 = u32(th);
  let m0 = u32((t - th) * 4294967296.0lf);
"
            ));
            vec!["m0", "m1"]
        };
        s.push_str(&format!(
            "  let pos = u32(e + {});\n  let k = pos >> 5u;\n  let sh = pos & 31u;\n",
            r.bias
        ));
        for j in 0..n {
            // f{n-1} is the window's most significant word.
            s.push_str(&format!("  let f{j} = {tpw}(k + {}u, sh);\n", n - 1 - j));
        }
        s.push_str("  var c: vec2<u32>;\n");
        s.push_str(&multiply(&m, n));
        let top = n - 1;
        // Quadrant (rounded to nearest) and the signed fraction's magnitude.
        s.push_str(&format!(
            "  let half = (q{top} >> 29u) & 1u;
  let quad = ((q{top} >> 30u) + half) & 3u;
  q{top} = q{top} & 0x3fffffffu;
  if (half != 0u) {{
    var cy = 1u;
"
        ));
        for j in 0..n {
            if j == top {
                s.push_str(&format!("    q{j} = (~q{j} + cy) & 0x3fffffffu;\n"));
            } else {
                s.push_str(&format!(
                    "    q{j} = ~q{j} + cy;\n    cy = select(0u, 1u, cy == 1u && q{j} == 0u);\n"
                ));
            }
        }
        s.push_str("  }\n  var s = 0;\n");
        // Normalise: whole words, then bits (the three top words are what is converted).
        for _ in 0..(n - 1).min(3) {
            let mut shift = String::new();
            for j in (1..n).rev() {
                shift.push_str(&format!("q{j} = q{}; ", j - 1));
            }
            s.push_str(&format!(
                "  if (q{top} == 0u) {{ {shift}q0 = 0u; s = s + 32; }}\n"
            ));
        }
        s.push_str(&format!(
            "  let lz = min(countLeadingZeros(q{top}), 31u);\n"
        ));
        for j in (n.saturating_sub(3)..n).rev() {
            if j == 0 {
                s.push_str("  q0 = q0 << lz;\n");
            } else {
                s.push_str(&format!(
                    "  q{j} = (q{j} << lz) | ((q{} >> (31u - lz)) >> 1u);\n",
                    j - 1
                ));
            }
        }
        s.push_str("  s = s + i32(lz);\n");
        // The fraction is value·2^-(32n − 2); its top bits in two exactly converted parts.
        let frac_bits = 32 * n as i32 - 2;
        if d == DType::F32 {
            s.push_str(&format!(
                "  let fh = ldexp(f32(q2 >> 8u), {} - s);
  let fl = ldexp(f32(((q2 & 0xffu) << 16u) | (q1 >> 16u)), {} - s);
",
                72 - frac_bits,
                48 - frac_bits
            ));
        } else {
            let w = |k: usize| format!("q{k}");
            s.push_str(&format!(
                "  let fh = ldexp(f64({}) * 2097152.0lf + f64({} >> 11u), {} - s);
  let fl = ldexp(f64({} & 0x7ffu) * 4294967296.0lf + f64({}), {} - s);
",
                w(top),
                w(top - 1),
                32 * n as i32 - 53 - frac_bits,
                w(top - 1),
                w(top - 2),
                32 * (n as i32 - 3) - frac_bits
            ));
        }
        s.push_str(&format!(
            "  let r = fh * {p_hi} + (fh * {p_lo} + fl * {p_hi});
  return vec2<{t}>({t}(quad), select(r, -r, half != 0u));
}}
"
        ));
        s
    })
}

fn horner(z: &str, coeffs: &[String]) -> String {
    let mut e = coeffs[coeffs.len() - 1].clone();
    for c in coeffs[..coeffs.len() - 1].iter().rev() {
        e = format!("({c} + {z} * {e})");
    }
    e
}

/// `sign·(−1)^k / n!` for the Taylor terms `n = first, first + 2, ...` (`count` of them).
fn taylor(d: DType, first: u32, count: usize, sign: f64) -> Vec<String> {
    (0..count)
        .map(|k| {
            let n = first + 2 * k as u32;
            let fact: f64 = (1..=n).map(f64::from).product();
            let alternate = if k % 2 == 0 { 1.0 } else { -1.0 };
            flit(d, sign * alternate / fact)
        })
        .collect()
}

/// `sinq_T(r, q)`: `sin(r + q·π/2)` for `|r| ≤ π/4`.
fn sinq(h: &mut Helpers, d: DType) -> String {
    let t = ty(d);
    let name = format!("sinq_{t}");
    let (ns, nc) = if d == DType::F32 { (5, 5) } else { (8, 8) };
    // sin: r + r·z·(−1/3! + z/5! − ...); cos: 1 − z/2 + z²·(1/4! − z/6! + ...).
    let s_poly = horner("z", &taylor(d, 3, ns, -1.0));
    let c_poly = horner("z", &taylor(d, 4, nc, 1.0));
    let half = flit(d, 0.5);
    let one = flit(d, 1.0);
    h.raw(&name, || {
        format!(
            "fn {name}(r: {t}, q: u32) -> {t} {{
  let z = r * r;
  var v: {t};
  if ((q & 1u) == 0u) {{
    v = r + (r * z) * {s_poly};
  }} else {{
    v = ({one} - {half} * z) + (z * z) * {c_poly};
  }}
  return select(v, -v, (q & 2u) != 0u);
}}
"
        )
    })
}

/// `sin_T(x)` or `cos_T(x)`: returns the function's name.
pub fn sin_cos(h: &mut Helpers, d: DType, cos: bool) -> String {
    let t = ty(d);
    let name = format!("{}_{t}", if cos { "cos" } else { "sin" });
    let nan = h.isnan(d);
    let inf = h.isinf(d);
    let xnan = extended::nan(h, d);
    let rem = rem_pio2(h, d);
    let sq = sinq(h, d);
    let pio4 = flit(d, std::f64::consts::FRAC_PI_4);
    let zero = flit(d, 0.0);
    // sin x rounds to x below 2^-12 (f32) / 2^-28 (f64); returning x keeps the sign of -0.
    let tiny = flit(
        d,
        if d == DType::F32 {
            2f64.powi(-12)
        } else {
            2f64.powi(-28)
        },
    );
    h.raw(&name, || {
        let finish = if cos {
            "  return {sq}(r, q + 1u);\n".replace("{sq}", &sq)
        } else {
            format!("  let v = {sq}(r, q);\n  return select(v, -v, x < {zero});\n")
        };
        let shortcut = if cos {
            String::new()
        } else {
            format!("  if (ax < {tiny}) {{ return x; }}\n")
        };
        format!(
            "fn {name}(x: {t}) -> {t} {{
  if ({nan}(x) || {inf}(x)) {{ return {xnan}(); }}
  let ax = abs(x);
{shortcut}  var q = 0u;
  var r = ax;
  if (ax > {pio4}) {{
    let v = {rem}(ax);
    q = u32(v.x);
    r = v.y;
  }}
{finish}}}
"
        )
    })
}
