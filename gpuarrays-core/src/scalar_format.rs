//! One column format for many scalars, as NumPy chooses it when printing an array: floats
//! share a precision (the fewest digits that print every value exactly as its shortest
//! round-trip form), switch together to scientific notation when magnitudes are very large,
//! very small or far apart, and every element is right-aligned to one width.

use crate::scalar::Scalar;

/// Scientific notation when a magnitude reaches this (NumPy's rule)...
const SCI_ABOVE: f64 = 1e16;
/// ...or one falls below this...
const SCI_BELOW: f64 = 1e-4;
/// ...or the largest is more than this many times the smallest nonzero one.
const SCI_RATIO: f64 = 1e3;

/// How the floats of one column print.
#[derive(Clone, Copy, Debug, Default)]
struct FloatStyle {
    scientific: bool,
    /// Digits after the point (of the mantissa, in scientific notation).
    precision: usize,
}

impl FloatStyle {
    /// The style that prints every finite value of `parts` exactly as its shortest
    /// round-trip form, padded to a common precision. `parts` are (value as f64, shortest
    /// fixed text, shortest scientific text) of each element's own type.
    fn for_values(parts: &[(f64, String, String)]) -> Self {
        let finite: Vec<&(f64, String, String)> =
            parts.iter().filter(|(v, _, _)| v.is_finite()).collect();
        let max = finite.iter().map(|(v, _, _)| v.abs()).fold(0.0, f64::max);
        let min_nonzero = finite
            .iter()
            .map(|(v, _, _)| v.abs())
            .filter(|&a| a > 0.0)
            .fold(f64::INFINITY, f64::min);
        let scientific = max >= SCI_ABOVE
            || (min_nonzero.is_finite()
                && (min_nonzero < SCI_BELOW || max / min_nonzero > SCI_RATIO));
        let digits_after_point = |text: &str| {
            let mantissa = text.split('e').next().unwrap_or(text);
            mantissa.split_once('.').map_or(0, |(_, frac)| frac.len())
        };
        let precision = finite
            .iter()
            .map(|(_, fixed, sci)| digits_after_point(if scientific { sci } else { fixed }))
            .max()
            .unwrap_or(0);
        FloatStyle {
            scientific,
            precision,
        }
    }

    /// `value` in this style: `1.`, `0.25`, `1.5e-7`, `nan`, `-inf`.
    fn format(
        self,
        value: f64,
        fixed: impl Fn(usize) -> String,
        sci: impl Fn(usize) -> String,
    ) -> String {
        if value.is_nan() {
            return "nan".into();
        }
        if value.is_infinite() {
            return if value > 0.0 {
                "inf".into()
            } else {
                "-inf".into()
            };
        }
        match (self.scientific, self.precision) {
            (true, p) => sci(p),
            // NumPy's `1.`: a float, though every shown value is whole.
            (false, 0) => format!("{}.", fixed(0)),
            (false, p) => fixed(p),
        }
    }
}

/// The shortest round-trip texts of a float of its own type (f32 prints as f32).
fn float_parts(s: &Scalar) -> Option<(f64, String, String)> {
    match *s {
        Scalar::F32(v) => Some((f64::from(v), format!("{v}"), format!("{v:e}"))),
        Scalar::F64(v) => Some((v, format!("{v}"), format!("{v:e}"))),
        _ => None,
    }
}

fn complex_parts(s: &Scalar) -> Option<(Scalar, Scalar)> {
    match *s {
        Scalar::C32(c) => Some((Scalar::F32(c.re), Scalar::F32(c.im))),
        Scalar::C64(c) => Some((Scalar::F64(c.re), Scalar::F64(c.im))),
        _ => None,
    }
}

/// A float in `style`, formatted in its own type (an f32 never shows f64 digits).
fn format_float(style: FloatStyle, s: &Scalar) -> String {
    match *s {
        Scalar::F32(v) => style.format(
            f64::from(v),
            |p| format!("{v:.p$}"),
            |p| format!("{v:.p$e}"),
        ),
        Scalar::F64(v) => style.format(v, |p| format!("{v:.p$}"), |p| format!("{v:.p$e}")),
        ref other => other.to_string(),
    }
}

/// The float styles of one printed array.
struct ColumnStyle {
    /// The real parts' style (the only one for real floats).
    re: FloatStyle,
    /// The imaginary parts' style (complex only).
    im: FloatStyle,
}

impl ColumnStyle {
    /// The styles that fit every value of `values`.
    fn new(values: &[Scalar]) -> Self {
        let (mut re, mut im) = (Vec::new(), Vec::new());
        for v in values {
            if let Some(p) = float_parts(v) {
                re.push(p);
            } else if let Some((r, i)) = complex_parts(v) {
                re.extend(float_parts(&r));
                im.extend(float_parts(&i));
            }
        }
        ColumnStyle {
            re: FloatStyle::for_values(&re),
            im: FloatStyle::for_values(&im),
        }
    }

    /// `value` in the column's style, unpadded.
    fn format(&self, value: Scalar) -> String {
        if let Some((r, i)) = complex_parts(&value) {
            let re = format_float(self.re, &r);
            let im = format_float(self.im, &i);
            let sign = if im.starts_with('-') { "" } else { "+" };
            return format!("{re}{sign}{im}j");
        }
        match value {
            Scalar::F32(_) | Scalar::F64(_) => format_float(self.re, &value),
            other => other.to_string(),
        }
    }
}

/// Every value of `values` in one column format, right-aligned to the widest.
pub(crate) fn format_column(values: &[Scalar]) -> Vec<String> {
    let style = ColumnStyle::new(values);
    let texts: Vec<String> = values.iter().map(|v| style.format(*v)).collect();
    let width = texts.iter().map(|t| t.chars().count()).max().unwrap_or(0);
    texts.into_iter().map(|t| format!("{t:>width$}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_complex::Complex32;

    fn column(values: &[Scalar]) -> Vec<String> {
        format_column(values)
    }

    #[test]
    fn whole_floats_print_with_a_point_and_share_a_width() {
        let v = [Scalar::F32(1.0), Scalar::F32(-20.0), Scalar::F32(3.0)];
        assert_eq!(column(&v), ["  1.", "-20.", "  3."]);
    }

    #[test]
    fn floats_share_the_precision_of_the_longest_shortest_form() {
        let v = [Scalar::F32(0.5), Scalar::F32(0.25), Scalar::F32(0.1)];
        assert_eq!(column(&v), ["0.50", "0.25", "0.10"]);
    }

    #[test]
    fn far_apart_magnitudes_switch_the_column_to_scientific() {
        let v = [Scalar::F64(1.0), Scalar::F64(1e-5)];
        assert_eq!(column(&v), [" 1e0", "1e-5"]);
        let v = [Scalar::F64(1.5), Scalar::F64(2e17), Scalar::F64(f64::NAN)];
        assert_eq!(column(&v), [" 1.5e0", "2.0e17", "   nan"]);
    }

    #[test]
    fn specials_and_integers_and_bools() {
        let v = [
            Scalar::F32(f32::INFINITY),
            Scalar::F32(f32::NEG_INFINITY),
            Scalar::F32(0.5),
        ];
        assert_eq!(column(&v), [" inf", "-inf", " 0.5"]);
        assert_eq!(column(&[Scalar::I32(-7), Scalar::I32(12)]), ["-7", "12"]);
        assert_eq!(
            column(&[Scalar::Bool(true), Scalar::Bool(false)]),
            [" true", "false"]
        );
    }

    #[test]
    fn complex_parts_have_their_own_styles() {
        let v = [
            Scalar::C32(Complex32::new(1.0, -0.5)),
            Scalar::C32(Complex32::new(2.5, 2.0)),
        ];
        assert_eq!(column(&v), ["1.0-0.5j", "2.5+2.0j"]);
    }

    #[test]
    fn an_f32_prints_its_own_shortest_digits_not_an_f64_expansion() {
        assert_eq!(column(&[Scalar::F32(0.1)]), ["0.1"]);
    }
}
