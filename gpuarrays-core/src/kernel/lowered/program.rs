//! A whole [`Program`] lowered to one [`Block`]: its leaves become the `Input`, `Scalar`,
//! `Index` and `Random` primitives, every other instruction the primitives of its rule.

use super::builder::Builder;
use super::ir::{Block, Prim, Value};
use super::semantics::{binary_into, cast_into, unary_into};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::elementwise::{Node, Program};

/// A lowered program: the block (one result, the output) and, for each instruction of the
/// program, the value that holds it (printers name a random leaf's element by it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Lowered {
    pub block: Block,
    pub values: Vec<Value>,
}

fn invalid(reason: String) -> Error {
    Error::InvalidArgument {
        op: "elementwise program".into(),
        reason,
    }
}

/// Lowers `p`, checking that every operand names an earlier instruction, every slot exists,
/// every type rule holds and a random leaf draws f32 or f64 with a u64 seed.
pub fn lower(p: &Program) -> Result<Lowered> {
    let mut b = Builder::new();
    let mut values: Vec<Value> = Vec::with_capacity(p.instrs.len());
    for (i, ins) in p.instrs.iter().enumerate() {
        let at = |j: u32| -> Result<Value> {
            values
                .get(j as usize)
                .copied()
                .ok_or_else(|| invalid(format!("instruction {i} reads %{j}")))
        };
        let scalar = |k: u32| -> Result<DType> {
            p.scalars
                .get(k as usize)
                .copied()
                .ok_or_else(|| invalid(format!("instruction {i} reads scalar slot {k}")))
        };
        let v = match ins.node {
            Node::Input(k) => {
                let d = p
                    .inputs
                    .get(k as usize)
                    .ok_or_else(|| invalid(format!("instruction {i} reads input slot {k}")))?;
                b.push(Prim::Input(k), *d)
            }
            Node::Scalar(k) => {
                let d = scalar(k)?;
                b.push(Prim::Scalar(k), d)
            }
            Node::Index => b.push(Prim::Index, DType::I64),
            Node::Unary(op, a) => unary_into(&mut b, op, at(a)?)?,
            Node::Binary(op, x, y) => binary_into(&mut b, op, at(x)?, at(y)?)?,
            Node::Cast(to, a) => cast_into(&mut b, at(a)?, to),
            Node::Select(c, x, y) => {
                let (c, x, y) = (at(c)?, at(x)?, at(y)?);
                if b.ty(c) != DType::Bool || b.ty(x) != b.ty(y) {
                    return Err(invalid(format!("instruction {i}: a select of mixed types")));
                }
                b.select(c, x, y)
            }
            Node::Random(dist, k) => {
                if scalar(k)? != DType::U64 || !ins.dtype.is_float() {
                    return Err(invalid(format!(
                        "instruction {i}: {} draws of {} with seed slot {k}",
                        dist.name(),
                        ins.dtype
                    )));
                }
                b.push(Prim::Random(dist, k), ins.dtype)
            }
        };
        if b.ty(v) != ins.dtype {
            return Err(invalid(format!(
                "instruction {i} is declared {} but computes {}",
                ins.dtype,
                b.ty(v)
            )));
        }
        values.push(v);
    }
    let out = *values
        .last()
        .ok_or_else(|| invalid("a program with no instructions".into()))?;
    Ok(Lowered {
        block: b.finish(vec![out]),
        values,
    })
}
