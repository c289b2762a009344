//! The WGSL of the FFT kernels: the workgroup-line Stockham transform ([`lines`]) and the
//! crop / Hermitian-extension pass ([`edge`]).
//!
//! Both address lines with up to four digits (see `plan.rs`): parameter words
//! `0` lines (or threads), `1..=3` the counts of digits 1 to 3 (digit 0 takes the rest),
//! `4..=7` and `8..=11` the digits' source and destination strides, `12`/`13` the source and
//! destination offsets and `14`/`15` the strides between a line's points, all in elements of
//! the side's type relative to its bound window. Then, for [`lines`]: `16` points stored per
//! line, `17` the offset of the line's twiddle table `W_m^k` (`k < m/2`), `18`/`19` the
//! offsets of the coarse and fine tables of `W_n` for the four-step twiddle, `20` the fine
//! table's bits, `21` `n − 1`, `22` the direction (non-zero: inverse, the table's twiddles
//! conjugated); for [`edge`]: `16` points per line, `17` the extension length.
//!
//! The direction is a parameter word, not a constant of the source, so one compiled kernel
//! serves both directions: compiling is most of a first FFT's cost on a software Vulkan
//! (lavapipe spends seconds per Stockham kernel), and a negation chosen at run time costs one
//! `select` per twiddle read.
//!
//! Twiddles are read from a table computed on the host in f64 and rounded to f32
//! (`twiddle.rs`): drivers' `sin`/`cos` are not accurate enough (lavapipe's least of all).
//! Complex values are stored as two f32 words; real values as one.

use crate::pipeline::Access;
use crate::wgsl::header;
use crate::wgsl::types::Class;

use super::plan::{Load, Store};

/// Parameter words of both kernels.
pub(crate) const PARAM_WORDS: usize = 23;

/// Threads per workgroup.
pub(crate) const THREADS: usize = 256;

/// What a [`lines`] kernel is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct LinesKernel {
    /// Points per line (a power of two).
    pub m: usize,
    pub load: Load,
    pub store: Store,
    /// Whether outputs are multiplied by the four-step twiddle.
    pub twiddle: bool,
    /// Lines per workgroup: at least [`THREADS`]` / (m/2)` (a thread per butterfly), more
    /// when `interleave` (as workgroup memory allows).
    pub lines_per_group: usize,
    /// Whether neighbouring threads load and store neighbouring *lines* (the same point of
    /// each): for lines whose points are far apart but whose starts are adjacent, so the
    /// accesses of a workgroup coalesce. Otherwise neighbouring points of one line.
    pub interleave: bool,
}

impl LinesKernel {
    /// The fewest lines per workgroup of `m` points: one thread per butterfly.
    pub fn min_lines_per_group(m: usize) -> usize {
        THREADS / (m / 2).clamp(1, THREADS)
    }

    /// Threads per line in the Stockham stages.
    pub fn threads_per_line(&self) -> usize {
        (THREADS / self.lines_per_group).max(1)
    }
}

/// Bindings: the source, destination and twiddle table (1-based WGSL binding numbers; no
/// table for [`edge`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bindings {
    pub src: usize,
    pub dst: usize,
    pub table: Option<usize>,
}

fn common(storage: &[(Class, Access)], b: Bindings) -> String {
    let mut s = header::declarations(PARAM_WORDS, storage, false);
    if let Some(t) = b.table {
        // Negation is exact, so a conjugated twiddle is the conjugate's correctly rounded value.
        s.push_str(&format!(
            "fn tw(i: u32) -> vec2<f32> {{ let y = bitcast<f32>(b{t}[2u * i + 1u]); return vec2<f32>(bitcast<f32>(b{t}[2u * i]), select(y, -y, prm(22u) != 0u)); }}\n"
        ));
    }
    s.push_str(&format!(
        "fn cmul(a: vec2<f32>, b: vec2<f32>) -> vec2<f32> {{ return vec2<f32>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }}
fn ldc(p: u32) -> vec2<f32> {{ return vec2<f32>(bitcast<f32>(b{i}[2u * p]), bitcast<f32>(b{i}[2u * p + 1u])); }}
fn ldr(p: u32) -> vec2<f32> {{ return vec2<f32>(bitcast<f32>(b{i}[p]), 0.0); }}
fn stc(p: u32, v: vec2<f32>) {{ b{o}[2u * p] = bitcast<u32>(v.x); b{o}[2u * p + 1u] = bitcast<u32>(v.y); }}
fn stre(p: u32, v: vec2<f32>) {{ b{o}[p] = bitcast<u32>(v.x); }}
",
        i = b.src,
        o = b.dst,
    ));
    s
}

/// The digit decomposition of `line` into the source and destination bases `ib`, `ob` (and
/// the last digit `d3`).
const DIGITS: &str = "  var r = line;
  let d3 = r % prm(3u); r = r / prm(3u);
  let d2 = r % prm(2u); r = r / prm(2u);
  let d1 = r % prm(1u); let d0 = r / prm(1u);
  let ib = prm(12u) + d0 * prm(4u) + d1 * prm(5u) + d2 * prm(6u) + d3 * prm(7u);
  let ob = prm(13u) + d0 * prm(8u) + d1 * prm(9u) + d2 * prm(10u) + d3 * prm(11u);
";

/// The Stockham kernel: each workgroup loads whole lines into workgroup memory, runs the
/// `log2 m` radix-2 stages there (autosorting: no bit reversal) and stores them.
pub(crate) fn lines(k: &LinesKernel, storage: &[(Class, Access)], b: Bindings) -> String {
    let m = k.m;
    let tpl = k.threads_per_line();
    let lpw = k.lines_per_group;
    let per = (lpw * m).div_ceil(THREADS);
    // Which line and point element `e` of the workgroup's `lpw × m` is, for loads and stores.
    let (slot, point) = if k.interleave {
        ("e % LPW", "e / LPW")
    } else {
        ("e / M", "e % M")
    };
    let mut s = common(storage, b);
    s.push_str(&format!(
        "const M: u32 = {m}u;
const TPL: u32 = {tpl}u;
const LPW: u32 = {lpw}u;
var<workgroup> sh: array<vec2<f32>, {words}>;
{shared_lb}@compute @workgroup_size({THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let g = wid.x + wid.y * nwg.x;
  let slot = lid / TPL;
  let tl = lid % TPL;
  let base = slot * M;
{private_lb}  if ({who} < LPW) {{
    let line = g * LPW + {who};
{DIGITS}    lb[{who}] = vec4<u32>(ib, ob, d3, select(0u, 1u, line < prm(0u)));
  }}
  workgroupBarrier();
  for (var q = 0u; q < {per}u; q++) {{
    let e = lid + q * {THREADS}u;
    let s = {slot};
    let j = {point};
    let ls = lb[s];
    if (ls.w != 0u) {{
      let ib = ls.x;
      let lbase = s * M;
      {load}
    }}
  }}
  workgroupBarrier();
",
        words = lpw * m,
        // Each line's bases and validity: shared by the workgroup, or, for one line per
        // workgroup, computed by every thread (workgroup memory is all taken by the line).
        shared_lb = if lpw > 1 {
            format!("var<workgroup> lb: array<vec4<u32>, {lpw}>;\n")
        } else {
            String::new()
        },
        private_lb = if lpw > 1 {
            ""
        } else {
            "  var lb: array<vec4<u32>, 1>;\n"
        },
        who = if lpw > 1 { "lid" } else { "0u" },
        load = match k.load {
            Load::Complex => "sh[lbase + j] = ldc(ib + j * prm(14u));",
            Load::Real => "sh[lbase + j] = ldr(ib + j * prm(14u));",
            Load::Hermitian =>
                "if (j > M / 2u) { sh[lbase + j] = ldc(ib + (M - j) * prm(14u)) * vec2<f32>(1.0, -1.0); } else { sh[lbase + j] = ldc(ib + j * prm(14u)); }",
        },
    ));
    if m >= 2 {
        let bpt = m / 2 / tpl;
        s.push_str(&format!(
            "  var ta: array<vec2<f32>, {bpt}>;
  var tb: array<vec2<f32>, {bpt}>;
  for (var ns = 1u; ns < M; ns = ns << 1u) {{
    let step = (M / 2u) / ns;
    for (var q = 0u; q < {bpt}u; q++) {{
      let j = tl + q * TPL;
      let k = j & (ns - 1u);
      let x0 = sh[base + j];
      let x1 = cmul(sh[base + j + M / 2u], tw(prm(17u) + k * step));
      ta[q] = x0 + x1;
      tb[q] = x0 - x1;
    }}
    workgroupBarrier();
    for (var q = 0u; q < {bpt}u; q++) {{
      let j = tl + q * TPL;
      let k = j & (ns - 1u);
      let idx = ((j - k) << 1u) + k;
      sh[base + idx] = ta[q];
      sh[base + idx + ns] = tb[q];
    }}
    workgroupBarrier();
  }}
"
        ));
    }
    let twiddle = if k.twiddle {
        "        let e = (ls.z * k) & prm(21u);
        v = cmul(v, cmul(tw(prm(18u) + (e >> prm(20u))), tw(prm(19u) + (e & ((1u << prm(20u)) - 1u)))));
"
    } else {
        ""
    };
    let store = match k.store {
        Store::Complex => "stc",
        Store::Real => "stre",
    };
    s.push_str(&format!(
        "  for (var q = 0u; q < {per}u; q++) {{
    let e = lid + q * {THREADS}u;
    let s = {slot};
    let k = {point};
    let ls = lb[s];
    if (ls.w != 0u && k < prm(16u)) {{
        var v = sh[s * M + k];
{twiddle}        {store}(ls.y + k * prm(15u), v);
    }}
  }}
}}
"
    ));
    s
}

/// One thread per stored point: the first `prm(16)` points of each line (a crop), or, when
/// `extend`, the Hermitian extension to `prm(17)` points of a half spectrum.
pub(crate) fn edge(extend: bool, storage: &[(Class, Access)], b: Bindings) -> String {
    let mut s = common(storage, b);
    s.push_str(&header::entry(THREADS as u32));
    let load = if extend {
        "if (j > prm(17u) / 2u) { v = ldc(ib + (prm(17u) - j) * prm(14u)) * vec2<f32>(1.0, -1.0); } else { v = ldc(ib + j * prm(14u)); }"
    } else {
        "v = ldc(ib + j * prm(14u));"
    };
    s.push_str(&format!(
        "  if (t >= prm(0u)) {{ return; }}
  let j = t % prm(16u);
  let line = t / prm(16u);
{DIGITS}  var v: vec2<f32>;
  {load}
  stc(ob + j * prm(15u), v);
}}
"
    ));
    s
}
