//! The binary operations of [`BinaryOp`] beyond arithmetic, composed once from primitives:
//! NumPy's `remainder` (integers through the safe division of `Div`, floats through the
//! exact `Fmod`), shifts with NumPy's rule for out-of-range amounts, `atan2` (of
//! `functions`), `hypot` (the complex modulus'), `fmin`/`fmax`.

use super::builder::Builder;
use super::functions::{add, atan2, mul, neg};
use super::ir::{PBinary, PUnary, Value};
use crate::dtype::DType;
use crate::kernel::operators::BinaryOp;

/// NumPy `remainder` of integers: the truncating remainder with the divisor made safe as in
/// division (`x % 0 == 0`, `MIN % −1 == 0`), moved to the divisor's sign.
fn int_rem(b: &mut Builder, x: Value, y: Value) -> Value {
    let d = b.ty(x);
    let (zero, one) = (b.zero(d), b.one(d));
    let by_zero = b.binary(PBinary::Eq, y, zero);
    let special = if d.is_signed_integer() {
        let m1 = b.int(d, -1);
        let by_m1 = b.binary(PBinary::Eq, y, m1);
        b.binary(PBinary::Or, by_zero, by_m1)
    } else {
        by_zero
    };
    let safe = b.select(special, one, y);
    let q = b.binary(PBinary::Div, x, safe);
    let qy = mul(b, q, safe);
    let r = b.binary(PBinary::Sub, x, qy);
    let r = b.select(special, zero, r);
    if !d.is_signed_integer() {
        return r;
    }
    let nz = b.binary(PBinary::Ne, r, zero);
    let (rn, yn) = (
        b.binary(PBinary::Lt, r, zero),
        b.binary(PBinary::Lt, y, zero),
    );
    let differ = b.binary(PBinary::Ne, rn, yn);
    let adjust = b.binary(PBinary::And, nz, differ);
    let ry = add(b, r, y);
    b.select(adjust, ry, r)
}

/// NumPy `remainder` of floats: `fmod`, then `+ y` where the signs differ, `copysign(0, y)`
/// where it is zero.
fn float_rem(b: &mut Builder, x: Value, y: Value) -> Value {
    let d = b.ty(x);
    let m = b.binary(PBinary::Fmod, x, y);
    let zero = b.zero(d);
    let nz = b.binary(PBinary::Ne, m, zero);
    let (mn, yn) = (
        b.binary(PBinary::Lt, m, zero),
        b.binary(PBinary::Lt, y, zero),
    );
    let differ = b.binary(PBinary::Ne, mn, yn);
    let adjust = b.binary(PBinary::And, nz, differ);
    let my = add(b, m, y);
    let r = b.select(adjust, my, m);
    let nzero = neg(b, zero);
    let z = b.select(yn, nzero, zero);
    let is_zero = b.binary(PBinary::Eq, m, zero);
    b.select(is_zero, z, r)
}

/// Shifts by an amount of `x`'s type: in [0, width) the primitive shift, otherwise 0 (a right
/// shift of a negative signed value: −1).
fn shift(b: &mut Builder, op: PBinary, x: Value, y: Value) -> Value {
    let d = b.ty(x);
    let width = b.int(d, 8 * d.size() as i128);
    let zero = b.zero(d);
    let below = b.binary(PBinary::Lt, y, width);
    let in_range = if d.is_signed_integer() {
        let nonneg = b.binary(PBinary::Ge, y, zero);
        b.binary(PBinary::And, nonneg, below)
    } else {
        below
    };
    let safe = b.select(in_range, y, zero);
    let amount = b.convert(DType::U32, safe);
    let s = b.binary(op, x, amount);
    let out = if op == PBinary::Shr && d.is_signed_integer() {
        let m1 = b.int(d, -1);
        let negative = b.binary(PBinary::Lt, x, zero);
        b.select(negative, m1, zero)
    } else {
        zero
    };
    b.select(in_range, s, out)
}

/// Appends the binary operations of this module (`None`: not one of them); `hypot` is the
/// complex modulus' own.
pub(super) fn binary_into(
    b: &mut Builder,
    op: BinaryOp,
    x: Value,
    y: Value,
    hypot: fn(&mut Builder, Value, Value) -> Value,
) -> Option<Value> {
    let d = b.ty(x);
    Some(match op {
        BinaryOp::Rem if d.is_float() => float_rem(b, x, y),
        BinaryOp::Rem => int_rem(b, x, y),
        BinaryOp::Shl => shift(b, PBinary::Shl, x, y),
        BinaryOp::Shr => shift(b, PBinary::Shr, x, y),
        BinaryOp::Atan2 => atan2(b, x, y),
        BinaryOp::Hypot => hypot(b, x, y),
        BinaryOp::Fmin | BinaryOp::Fmax => {
            let cmp = if op == BinaryOp::Fmin {
                PBinary::Lt
            } else {
                PBinary::Gt
            };
            // Ties keep `x` (as Min/Max); a NaN operand gives the other one.
            let beyond = b.binary(cmp, y, x);
            let m = b.select(beyond, y, x);
            if d.is_float() {
                let (xn, yn) = (b.unary(PUnary::IsNan, x), b.unary(PUnary::IsNan, y));
                let m = b.select(yn, x, m);
                b.select(xn, y, m)
            } else {
                m
            }
        }
        _ => return None,
    })
}
