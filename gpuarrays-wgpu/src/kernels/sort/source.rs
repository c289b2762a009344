//! The WGSL of the sort's stages: order-preserving keys of each element type, and the
//! bitonic network's local and global steps (see the parent module for the algorithm).

use gpuarrays_core::DType;

use crate::kernels::temp::{temp_dtype, to_temp};
use crate::pipeline::Access;
use crate::wgsl::header::{self, WORKGROUP};
use crate::wgsl::helpers::Helpers;
use crate::wgsl::types::{self, Class};

pub(super) fn wide(d: DType) -> bool {
    d.size() == 8
}

fn key_ty(d: DType) -> &'static str {
    if wide(d) { "u64" } else { "u32" }
}

/// Keys sorted in workgroup memory at once (8 KiB of keys).
pub(crate) fn local(d: DType) -> usize {
    if wide(d) { 1024 } else { 2048 }
}

/// (value → key, key → value) expressions of `v` / `k`.
fn key_fns(h: &mut Helpers, d: DType) -> (String, String) {
    match d {
        DType::Bool => ("select(0u, 1u, v)".into(), "(k != 0u)".into()),
        // Narrow integers are held in u32/i32 (sign-extended), so their keys are those of
        // the 32-bit types; halves are held in f32 (exactly), so theirs are f32's.
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => ("v".into(), "k".into()),
        DType::I8 | DType::I16 | DType::I32 => (
            "(bitcast<u32>(v) ^ 0x80000000u)".into(),
            "bitcast<i32>(k ^ 0x80000000u)".into(),
        ),
        DType::I64 => (
            "(bitcast<u64>(v) ^ 0x8000000000000000lu)".into(),
            "bitcast<i64>(k ^ 0x8000000000000000lu)".into(),
        ),
        _ => {
            let nan = h.isnan(d);
            let (u, top, max, f) = if matches!(d, DType::F32 | DType::F16 | DType::BF16) {
                ("u32", "0x80000000u", "0xffffffffu", "f32")
            } else {
                ("u64", "0x8000000000000000lu", "0xfffffffffffffffflu", "f64")
            };
            let s = if u == "u32" { "u" } else { "lu" };
            (
                format!(
                    "select(select(bitcast<{u}>(v) | {top}, ~bitcast<{u}>(v), (bitcast<{u}>(v) & {top}) != 0{s}), {max}, {nan}(v))"
                ),
                format!("bitcast<{f}>(select(~k, k & ~{top}, (k & {top}) != 0{s}))"),
            )
        }
    }
}

fn max_key(d: DType) -> &'static str {
    if wide(d) {
        "0xfffffffffffffffflu"
    } else {
        "0xffffffffu"
    }
}

/// The kernels of a sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Values → keys, one thread per key slot.
    /// Parameters: 0 end slot, 1 len, 2 P, 3 value offset (units, wrapping), 4 key offset,
    /// 5 first slot.
    Keys,
    /// Steps in workgroup memory over blocks of `local` keys.
    /// Parameters: 0 end block, 1 P, 2 first k, 3 last k, 4 key offset, 5 first block,
    /// 6 total slots.
    Local,
    /// One global step, one thread per pair.
    /// Parameters: 0 end pair, 1 P, 2 k, 3 j, 4 lower-window offset, 5 upper-window
    /// offset, 6 first pair.
    Pairs,
    /// Keys → values, one thread per element.
    /// Parameters: 0 end element, 1 len, 2 P, 3 value offset (units), 4 key offset,
    /// 5 first element.
    Values,
}

const PARAMS: usize = 7;

/// The source of `stage`; `b0`, `b1` are the bindings it uses: Keys (values, keys), Local
/// (keys, keys), Pairs (lower keys, upper keys), Values (values or temp, keys).
pub(crate) fn source(
    d: DType,
    stage: Stage,
    storage: &[(Class, Access)],
    b0: usize,
    b1: usize,
) -> String {
    let mut h = Helpers::default();
    let (to_key, from_key) = key_fns(&mut h, d);
    let kt = key_ty(d);
    let max = max_key(d);
    let (x, y) = (format!("b{}", b0 + 1), format!("b{}", b1 + 1));
    let lanes = if stage == Stage::Local {
        256
    } else {
        WORKGROUP
    };
    let body = match stage {
        Stage::Keys => format!(
            "  let q = t + prm(5u);
  if (q >= prm(0u)) {{ return; }}
  let row = q / prm(2u);
  let p = q % prm(2u);
  var key: {kt} = {max};
  if (p < prm(1u)) {{
    let v = {};
    key = {to_key};
  }}
  {y}[prm(4u) + q] = key;
",
            types::load(d, &x, "(prm(3u) + row * prm(1u) + p)")
        ),
        Stage::Local => {
            let l = local(d);
            let per = l / 256;
            format!(
                "  let blk = g + prm(5u);
  if (blk >= prm(0u)) {{ return; }}
  let base = blk * {l}u;
  for (var x = 0u; x < {per}u; x++) {{
    let e = lid + 256u * x;
    var key: {kt} = {max};
    if (base + e < prm(6u)) {{ key = {x}[prm(4u) + base + e]; }}
    sh[e] = key;
  }}
  workgroupBarrier();
  for (var k = prm(2u); k <= prm(3u); k = k << 1u) {{
    for (var j = min(k >> 1u, {half}u); j > 0u; j = j >> 1u) {{
      for (var x = 0u; x < {pairs}u; x++) {{
        let c = lid + 256u * x;
        let lo = (c / j) * 2u * j + c % j;
        let hi = lo + j;
        let up = (((base + lo) % prm(1u)) & k) == 0u;
        let a = sh[lo];
        let b = sh[hi];
        if ((a > b) == up && a != b) {{
          sh[lo] = b;
          sh[hi] = a;
        }}
      }}
      workgroupBarrier();
    }}
  }}
  for (var x = 0u; x < {per}u; x++) {{
    let e = lid + 256u * x;
    if (base + e < prm(6u)) {{ {x}[prm(4u) + base + e] = sh[e]; }}
  }}
",
                half = l / 2,
                pairs = l / 512,
            )
        }
        Stage::Pairs => format!(
            "  let c = t + prm(6u);
  if (c >= prm(0u)) {{ return; }}
  let j = prm(3u);
  let lo = (c / j) * 2u * j + c % j;
  let hi = lo + j;
  let up = ((lo % prm(1u)) & prm(2u)) == 0u;
  let a = {x}[prm(4u) + lo];
  let b = {y}[prm(5u) + hi];
  if ((a > b) == up && a != b) {{
    {x}[prm(4u) + lo] = b;
    {y}[prm(5u) + hi] = a;
  }}
"
        ),
        Stage::Values => {
            let od = temp_dtype(d);
            format!(
                "  let q = t + prm(5u);
  if (q >= prm(0u)) {{ return; }}
  let row = q / prm(1u);
  let p = q % prm(1u);
  let k = {y}[prm(4u) + row * prm(2u) + p];
  let v = {from_key};
  {}
",
                types::store(od, &x, "prm(3u) + q", &to_temp(d, "v"))
            )
        }
    };
    let mut s = header::declarations(PARAMS, storage, false);
    s.push_str(&h.emit());
    if stage == Stage::Local {
        s.push_str(&format!("var<workgroup> sh: array<{kt}, {}>;\n", local(d)));
    }
    s.push_str(&header::entry(lanes));
    s.push_str(&body);
    s.push_str("}\n");
    s
}
