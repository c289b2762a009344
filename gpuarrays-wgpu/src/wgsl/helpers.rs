//! WGSL helper functions that generated kernels call, emitted only when used.
//!
//! Each helper is named after what it does and the types it works on (`div_i32`,
//! `f2i_f32_u8`, ...); asking for one records its name and definition once (`add`), and
//! [`Helpers::emit`] writes the definitions in the order first needed.

use std::collections::BTreeMap;

use gpuarrays_core::DType;

use super::types::ty;

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
            // Halves are held in f32.
            DType::F32 | DType::F16 | DType::BF16 => format!(
                "fn {name}(x: f32) -> bool {{ return (bitcast<u32>(x) & 0x7fffffffu) > 0x7f800000u; }}\n"
            ),
            _ => format!("fn {name}(x: f64) -> bool {{ return !(x == x); }}\n"),
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

    /// Whether the f32/f64 `x` is ±inf (f32 by bits; f64 as `|x|` above the largest finite
    /// value: drivers may fold `x − x` to 0, and NaN compares false).
    pub fn isinf(&mut self, d: DType) -> String {
        let t = ty(d);
        let name = format!("isinf_{t}");
        self.add(&name, || match d {
            // Halves are held in f32.
            DType::F32 | DType::F16 | DType::BF16 => format!(
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
