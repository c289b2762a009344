//! WGSL helper functions that generated kernels call, emitted only when used.
//!
//! Each helper is named after what it does and the types it works on (`div_i32`,
//! `f2i_f32_u8`, ...); asking for one records its name and definition once (`add`), and
//! [`Helpers::emit`] writes the definitions in the order first needed.

use std::collections::BTreeMap;

use gpuarrays_core::DType;

use super::types::{int_bounds, ty};

/// The helper functions a kernel needs, by name.
#[derive(Debug, Default, Clone)]
pub struct Helpers {
    defs: BTreeMap<String, String>,
    order: Vec<String>,
    /// A parameter word that always holds 0 (see [`Helpers::zero`]).
    zero_word: Option<usize>,
}

impl Helpers {
    /// Declares that parameter word `w` of the kernel always holds 0.
    pub fn set_zero_word(&mut self, w: usize) {
        self.zero_word = Some(w);
    }

    /// A +0 of the real type `d` that the shader compiler cannot see is zero: read from the
    /// parameter block where the kernel has a zero word, a literal otherwise. Drivers fold
    /// `x · 0.0` to `0.0` when the zero is a constant (Vulkan does not promise IEEE
    /// infinities and NaN; lavapipe does fold), which turns `(i + 0i)·(s + ∞i)` into
    /// `i·s + i·∞i` instead of the documented `NaN + ...` of `0·∞`.
    pub fn zero(&self, d: DType) -> String {
        match (self.zero_word, d) {
            (Some(w), DType::F64) => format!("f64(bitcast<f32>(prm({w}u)))"),
            (Some(w), _) => format!("bitcast<f32>(prm({w}u))"),
            (None, d) => super::types::lit(d, 0),
        }
    }

    /// Records helper `name` with definition `def` (the first definition wins).
    fn add(&mut self, name: &str, def: impl FnOnce() -> String) {
        if !self.defs.contains_key(name) {
            let d = def();
            self.defs.insert(name.to_string(), d);
            self.order.push(name.to_string());
        }
    }

    /// The WGSL of every recorded helper, in the order first needed.
    pub fn emit(&self) -> String {
        self.order
            .iter()
            .filter_map(|n| self.defs.get(n))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `isnan_<t>(x)` for f32/f64 (by bits for f32, so no fast-math assumption removes it).
    pub fn isnan(&mut self, d: DType) -> String {
        let name = format!("isnan_{}", ty(d));
        self.add(&name, || match d {
            DType::F32 => format!(
                "fn {name}(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }}\n"
            ),
            _ => format!("fn {name}(x: f64) -> bool {{ return !(x == x); }}\n"),
        });
        name
    }

    /// Integer division with `x / 0 == 0` and `MIN / -1 == MIN` (wrapping negation).
    pub fn div_int(&mut self, d: DType) -> String {
        let t = ty(d);
        let name = format!("div_{}", if d == DType::U8 { "u8" } else { t });
        let zero = super::types::lit(d, 0);
        self.add(&name, || {
            if d.is_signed_integer() {
                let m1 = super::types::lit(d, -1);
                format!(
                    "fn {name}(a: {t}, b: {t}) -> {t} {{\n  if (b == {zero}) {{ return {zero}; }}\n  if (b == {m1}) {{ return {zero} - a; }}\n  return a / b;\n}}\n"
                )
            } else {
                format!(
                    "fn {name}(a: {t}, b: {t}) -> {t} {{\n  if (b == {zero}) {{ return {zero}; }}\n  return a / b;\n}}\n"
                )
            }
        });
        name
    }

    /// NaN-propagating min or max of floats (NumPy `minimum`/`maximum`).
    pub fn fminmax(&mut self, d: DType, max: bool) -> String {
        let t = ty(d);
        let nan = self.isnan(d);
        let name = format!("{}_{t}", if max { "fmax" } else { "fmin" });
        let cmp = if max { ">" } else { "<" };
        self.add(&name, || {
            format!(
                "fn {name}(a: {t}, b: {t}) -> {t} {{\n  if ({nan}(a)) {{ return a; }}\n  if ({nan}(b)) {{ return b; }}\n  return select(a, b, b {cmp} a);\n}}\n"
            )
        });
        name
    }

    /// Float-to-integer conversion with Rust `as` rules: truncate, saturate, NaN to 0.
    pub fn f2i(&mut self, from: DType, to: DType) -> String {
        let f = ty(from);
        let name = format!("f2i_{f}_{}", to.name());
        let nan = self.isnan(from);
        let (lo_v, hi_v) = int_bounds(to);
        // The first float at or above the type's range, and the float bound below which
        // the result is the minimum (all exactly representable powers of two).
        let (hi_f, lo_f): (&str, &str) = match to {
            DType::U8 => ("256.0", "0.0"),
            DType::I32 => ("2147483648.0", "-2147483648.0"),
            DType::U32 => ("4294967296.0", "0.0"),
            DType::I64 => ("9223372036854775808.0", "-9223372036854775808.0"),
            _ => ("18446744073709551616.0", "0.0"),
        };
        let suffix = if from == DType::F64 { "lf" } else { "f" };
        let conv = match to {
            DType::U8 | DType::U32 => "u32(x)".to_string(),
            DType::I32 => "i32(x)".to_string(),
            DType::I64 => "i64(x)".to_string(),
            _ => "u64(x)".to_string(),
        };
        let t = ty(to);
        let unsigned = !to.is_signed_integer();
        self.add(&name, || {
            let low = if unsigned {
                // (-1, 0] truncates to 0; below that Rust saturates to 0 as well.
                format!("  if (x < 1.0{suffix}) {{ return {lo_v}; }}\n")
            } else {
                format!("  if (x < {lo_f}{suffix}) {{ return {lo_v}; }}\n")
            };
            format!(
                "fn {name}(x: {f}) -> {t} {{\n  if ({nan}(x)) {{ return {zero}; }}\n  if (x >= {hi_f}{suffix}) {{ return {hi_v}; }}\n{low}  return {conv};\n}}\n",
                zero = super::types::lit(to, 0)
            )
        });
        name
    }

    /// Complex multiplication `(a.x b.x − a.y b.y, a.x b.y + a.y b.x)`.
    pub fn cmul(&mut self, d: DType) -> String {
        let t = ty(d);
        let name = format!("cmul_{}", d.name());
        self.add(&name, || {
            format!(
                "fn {name}(a: {t}, b: {t}) -> {t} {{ return {t}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }}\n"
            )
        });
        name
    }

    /// Complex division `(ac+bd)/(c²+d²) + i(bc−ad)/(c²+d²)` (the formula core documents).
    pub fn cdiv(&mut self, d: DType) -> String {
        let t = ty(d);
        let name = format!("cdiv_{}", d.name());
        let re = self.fdiv(d.real(), "(a.x * b.x + a.y * b.y)", "n");
        let im = self.fdiv(d.real(), "(a.y * b.x - a.x * b.y)", "n");
        self.add(&name, || {
            format!(
                "fn {name}(a: {t}, b: {t}) -> {t} {{\n  let n = b.x * b.x + b.y * b.y;\n  return {t}({re}, {im});\n}}\n"
            )
        });
        name
    }

    /// `a / b` in the real type `d`: through [`Helpers::fdiv_f32`] for f32, `/` for f64.
    pub fn fdiv(&mut self, d: DType, a: &str, b: &str) -> String {
        if d == DType::F32 {
            format!("{}({a}, {b})", self.fdiv_f32())
        } else {
            format!("({a} / {b})")
        }
    }

    /// f32 division that stays accurate for divisors above 2^126. Vulkan only bounds the
    /// error of `x / y` for |y| in [2^-126, 2^126], and the NVIDIA driver computes
    /// `x · (1/y)`, where `1/y` is subnormal and flushed for larger `y`: `1 / 3e38` gave 0
    /// instead of 3.3e-39 on the H200. Above 2^126 both the divisor and the quotient are
    /// scaled by 2^-64 (exact; `ldexp`, which no compiler folds back into `x / y`).
    pub fn fdiv_f32(&mut self) -> String {
        let name = "fdiv_f32".to_string();
        self.add(&name, || {
            "fn fdiv_f32(a: f32, b: f32) -> f32 {\n  if (abs(b) > 0x1p126f) { return ldexp(a / ldexp(b, -64), -64); }\n  return a / b;\n}\n".to_string()
        });
        name
    }

    /// `hypot(x, y)` without overflow or underflow of the squares; C's rule that an
    /// infinite part gives +inf even when the other part is NaN.
    pub fn hypot(&mut self, d: DType) -> String {
        let r = d.real();
        let t = ty(r);
        let nan = self.isnan(r);
        let inf = self.isinf(r);
        let name = format!("hypot_{t}");
        let zero = super::types::lit(r, 0);
        let (qx, qy) = (self.fdiv(r, "x", "m"), self.fdiv(r, "y", "m"));
        self.add(&name, || {
            format!(
                "fn {name}(x0: {t}, y0: {t}) -> {t} {{
  let x = abs(x0);
  let y = abs(y0);
  if ({inf}(x)) {{ return x; }}
  if ({inf}(y)) {{ return y; }}
  if ({nan}(x) || {nan}(y)) {{ return x + y; }}
  let m = max(x, y);
  if (m == {zero}) {{ return m; }}
  let a = {qx};
  let b = {qy};
  return m * sqrt(a * a + b * b);
}}
"
            )
        });
        name
    }

    /// Whether the f32/f64 `x` is ±inf (f32 by bits; f64 as `|x|` above the largest finite
    /// value: drivers may fold `x − x` to 0, and NaN compares false).
    pub fn isinf(&mut self, d: DType) -> String {
        let t = ty(d);
        let name = format!("isinf_{t}");
        self.add(&name, || match d {
            DType::F32 => format!(
                "fn {name}(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) == 0x7f800000u; }}\n"
            ),
            _ => format!("fn {name}(x: f64) -> bool {{ return abs(x) > 1.7976931348623157e308lf; }}\n"),
        });
        name
    }

    /// Registers a helper written elsewhere (the math library).
    pub fn raw(&mut self, name: &str, def: impl FnOnce() -> String) -> String {
        self.add(name, def);
        name.to_string()
    }
}
