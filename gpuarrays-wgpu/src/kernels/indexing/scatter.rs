//! Scatters: the choice of scheme per operation and element type (see the
//! [module docs](super)), and the direct scheme, one dispatch of one invocation per point.
//!
//! | op | element type | how one update is applied |
//! |---|---|---|
//! | store | i32, u32, f32 | `atomicStore` of the word (one of several updates wins) |
//! | store | bool, u8, i8 | compare-exchange loop replacing the byte in its word |
//! | store | i16, u16, f16, bf16 | compare-exchange loop replacing the half-word in its word |
//! | store | i64, u64, f64, c32, c64 | claim scheme (`staged`): the last update wins whole |
//! | add | i32, u32 | `atomicAdd` (wrapping, bits shared by both types) |
//! | add | i64, u64 | `atomicAdd` of the low word, then of the high word plus the carry |
//! | add | f32 | compare-exchange loop on the bits |
//! | add | c32 | a compare-exchange loop per part |
//! | add | u8, i8 | compare-exchange loop adding into the byte of its word (wrapping) |
//! | add | i16, u16 | compare-exchange loop adding into the half-word of its word (wrapping) |
//! | add | f16, bf16 | compare-exchange loop: the half-word to f32, the sum, rounded once |
//! | add | f64, c64 | list scheme (`staged`) |
//! | add | bool | refused: core's type rules do not add bools |

use gpuarrays_core::kernel::{IndexMode, ScatterArgs, ScatterOp};
use gpuarrays_core::{DType, Error};

use super::position::{per_point, prelude};
use super::staged;
use super::{Geometry, operand, prm};
use crate::buffer::WgpuBuffer;
use crate::context::Context;
use crate::dispatch::{self, BindingPlan};
use crate::pipeline::{Access, ShaderSpec};
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::types::{Class, bits_of, from_bits, packed_bits};

/// The one-dispatch scatter kernels. The target is always bound as atomic words: even a
/// store is an `atomicStore`, because plain stores of one word by two invocations are a
/// data race in the WGSL (Vulkan) memory model, after which the word's value is undefined
/// rather than one of the stores; a relaxed atomic store costs about what a store does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direct {
    /// Store of one word (i32, u32, f32).
    StoreWord,
    /// Store of a byte into its word (bool, u8, i8).
    StoreByte,
    /// Store of a half-word into its word (i16, u16, f16, bf16).
    StoreHalf,
    /// `atomicAdd` of one word (i32, u32).
    AddWord,
    /// Wrapping add into a byte of a word (u8, i8).
    AddByte,
    /// Wrapping add into a half-word of a word (i16, u16).
    AddHalf,
    /// Add of halves (f16 or bf16): both to f32, summed, rounded to nearest even once.
    AddHalfFloat(DType),
    /// 64-bit integer add as two words with carry (i64, u64).
    AddWide,
    /// f32 add.
    AddF32,
    /// c32 add: an f32 add per part.
    AddC32,
}

impl Direct {
    #[cfg(test)]
    pub const ALL: [Direct; 11] = [
        Direct::StoreWord,
        Direct::StoreByte,
        Direct::StoreHalf,
        Direct::AddWord,
        Direct::AddByte,
        Direct::AddHalf,
        Direct::AddHalfFloat(DType::F16),
        Direct::AddHalfFloat(DType::BF16),
        Direct::AddWide,
        Direct::AddF32,
        Direct::AddC32,
    ];

    /// Bytes of one element (1 or 2: packed in words).
    fn size(self) -> u64 {
        match self {
            Direct::StoreByte | Direct::AddByte => 1,
            Direct::StoreHalf | Direct::AddHalf | Direct::AddHalfFloat(_) => 2,
            Direct::StoreWord | Direct::AddWord | Direct::AddF32 => 4,
            Direct::AddWide | Direct::AddC32 => 8,
        }
    }
}

/// How a scatter of `dtype` with `op` runs.
enum Scheme {
    Direct(Direct),
    Claim,
    List,
}

fn scheme(op: ScatterOp, dtype: DType) -> Result<Scheme, Error> {
    Ok(match (op, dtype) {
        (ScatterOp::Assign, DType::Bool | DType::U8 | DType::I8) => {
            Scheme::Direct(Direct::StoreByte)
        }
        (ScatterOp::Assign, DType::I16 | DType::U16 | DType::F16 | DType::BF16) => {
            Scheme::Direct(Direct::StoreHalf)
        }
        (ScatterOp::Assign, DType::I32 | DType::U32 | DType::F32) => {
            Scheme::Direct(Direct::StoreWord)
        }
        (ScatterOp::Assign, _) => Scheme::Claim,
        (ScatterOp::Add, DType::I32 | DType::U32) => Scheme::Direct(Direct::AddWord),
        (ScatterOp::Add, DType::U8 | DType::I8) => Scheme::Direct(Direct::AddByte),
        (ScatterOp::Add, DType::I16 | DType::U16) => Scheme::Direct(Direct::AddHalf),
        (ScatterOp::Add, DType::F16 | DType::BF16) => Scheme::Direct(Direct::AddHalfFloat(dtype)),
        (ScatterOp::Add, DType::I64 | DType::U64) => Scheme::Direct(Direct::AddWide),
        (ScatterOp::Add, DType::F32) => Scheme::Direct(Direct::AddF32),
        (ScatterOp::Add, DType::C32) => Scheme::Direct(Direct::AddC32),
        (ScatterOp::Add, DType::F64 | DType::C64) => Scheme::List,
        (ScatterOp::Add, DType::Bool) => {
            return Err(Error::InvalidDType {
                op: ScatterOp::Add.name().into(),
                dtype,
                hint: "bool is not added; core's type rules exclude it".into(),
            });
        }
    })
}

/// A compare-exchange loop on word `i` of binding `b`, from `old` to `next` (an
/// expression of `old`).
fn cas(b: usize, i: &str, next: &str) -> String {
    format!(
        "  {{
    var old = atomicLoad(&b{b}[{i}]);
    loop {{
      let r = atomicCompareExchangeWeak(&b{b}[{i}], old, {next});
      if (r.exchanged) {{ break; }}
      old = r.old_value;
    }}
  }}
"
    )
}

/// The direct kernel `kind`, with the index, target and values at bindings `bi`, `bt`,
/// `bv` (0-based).
pub(crate) fn source(
    kind: Direct,
    mode: IndexMode,
    storage: &[(Class, Access)],
    bi: usize,
    bt: usize,
    bv: usize,
) -> String {
    let (t, v) = (bt + 1, bv + 1);
    let mut s = header::declarations(prm::WORDS, storage, false);
    s.push_str(&prelude(mode, bi));
    s.push_str(&header::entry(WORKGROUP));
    s.push_str(&per_point());
    s.push_str(&format!(
        "  let a = slot(c);\n  let v = at({o}u, c, c.y);\n",
        o = prm::OTHER
    ));
    let f32_add = |i: &str, x: &str| {
        cas(
            t,
            i,
            &format!("bitcast<u32>(bitcast<f32>(old) + bitcast<f32>({x}))"),
        )
    };
    let values = format!("b{v}");
    let byte = packed_bits(DType::U8, &values, "v");
    let half = packed_bits(DType::U16, &values, "v");
    match kind {
        Direct::StoreWord => s.push_str(&format!("  atomicStore(&b{t}[a], b{v}[v]);\n")),
        Direct::StoreByte => {
            s.push_str("  let sh = (a & 3u) * 8u;\n");
            s.push_str(&cas(
                t,
                "a >> 2u",
                &format!("(old & ~(0xffu << sh)) | ({byte} << sh)"),
            ));
        }
        Direct::AddByte => {
            s.push_str("  let sh = (a & 3u) * 8u;\n");
            s.push_str(&cas(
                t,
                "a >> 2u",
                &format!("(old & ~(0xffu << sh)) | ((((old >> sh) + {byte}) & 0xffu) << sh)"),
            ));
        }
        Direct::StoreHalf => {
            s.push_str("  let sh = (a & 1u) * 16u;\n");
            s.push_str(&cas(
                t,
                "a >> 1u",
                &format!("(old & ~(0xffffu << sh)) | ({half} << sh)"),
            ));
        }
        Direct::AddHalf => {
            s.push_str("  let sh = (a & 1u) * 16u;\n");
            s.push_str(&cas(
                t,
                "a >> 1u",
                &format!("(old & ~(0xffffu << sh)) | ((((old >> sh) + {half}) & 0xffffu) << sh)"),
            ));
        }
        Direct::AddHalfFloat(d) => {
            // The target's half and the value as f32 (exact), their f32 sum rounded once
            // to the half type, as the CPU reference adds each update.
            s.push_str("  let sh = (a & 1u) * 16u;\n");
            s.push_str(&format!("  let x = {};\n", from_bits(d, &half)));
            let sum = format!("{} + x", from_bits(d, "((old >> sh) & 0xffffu)"));
            s.push_str(&cas(
                t,
                "a >> 1u",
                &format!("(old & ~(0xffffu << sh)) | ({} << sh)", bits_of(d, &sum)),
            ));
        }
        Direct::AddWord => s.push_str(&format!("  atomicAdd(&b{t}[a], b{v}[v]);\n")),
        Direct::AddWide => s.push_str(&format!(
            "  let lo = b{v}[v];
  let old = atomicAdd(&b{t}[a], lo);
  atomicAdd(&b{t}[a + 1u], b{v}[v + 1u] + select(0u, 1u, old + lo < old));
"
        )),
        Direct::AddF32 => s.push_str(&f32_add("a", &format!("b{v}[v]"))),
        Direct::AddC32 => {
            s.push_str(&f32_add("a", &format!("b{v}[v]")));
            s.push_str(&f32_add("a + 1u", &format!("b{v}[v + 1u]")));
        }
    }
    s.push_str("}\n");
    s
}

/// Runs a scatter.
pub fn run(ctx: &Context, a: &ScatterArgs<'_, WgpuBuffer>) -> gpuarrays_core::Result<()> {
    let scheme = scheme(a.op, a.dtype)?;
    let Some(geo) = Geometry::new(ctx, &a.space, &a.target, a.dtype.size())? else {
        return Ok(());
    };
    match scheme {
        Scheme::Direct(kind) => Ok(direct(ctx, a, &geo, kind)?),
        Scheme::Claim => Ok(staged::claim(ctx, a, &geo)?),
        Scheme::List => Ok(staged::list(ctx, a, &geo)?),
    }
}

fn direct(
    ctx: &Context,
    a: &ScatterArgs<'_, WgpuBuffer>,
    geo: &Geometry<'_, '_>,
    kind: Direct,
) -> crate::error::Result<()> {
    let size = kind.size();
    let unit = size.min(4);
    let values = |q0: usize, q1: usize| geo.values_bytes(&a.values, q0, q1);
    let mut spec = None;
    for (q0, q1) in geo.ranges(ctx, usize::MAX, values)? {
        let mut plan = BindingPlan::default();
        let (ilo, ihi) = geo.index_bytes(q0, q1)?;
        let (tlo, thi) = geo.table_bytes(q0, q1)?;
        let (vlo, vhi) = values(q0, q1)?;
        let bi = plan.add(a.space.index.buffer, Class::W32, Access::Read, ilo, ihi);
        let bt = plan.add(a.target.buffer, Class::A32, Access::ReadWrite, tlo, thi);
        let bv = plan.add(a.values.buffer, Class::W32, Access::Read, vlo, vhi);
        let w = plan.windows(ctx)?;
        let spec = spec.get_or_insert_with(|| {
            let layout = plan.layout();
            ShaderSpec {
                label: format!("{}_{}[{}]", a.op.name(), a.space.mode.name(), a.dtype),
                source: source(kind, a.space.mode, &layout, bi, bt, bv),
                storage: layout.iter().map(|x| x.1).collect(),
            }
        });
        let mut p = geo.params(q0, q1, w[bi].start);
        operand(&mut p, prm::TABLE, &a.target, size, unit, w[bt].start);
        operand(&mut p, prm::OTHER, &a.values, size, unit, w[bv].start);
        let groups = ((q1 - q0) as u64).div_ceil(WORKGROUP as u64);
        dispatch::launch(ctx, spec, &p, &plan, &w, false, groups)?;
    }
    Ok(())
}
