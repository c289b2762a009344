//! Gathers and scatters of the HIP backend against core's host reference
//! (`gpuarrays_core::host::gather` and `host::scatter`, run over the same backend's buffers,
//! so both read exactly the same bytes): every element type, every mode, layouts with
//! reversed, permuted, gapped and broadcast (stride 0) operands, and indices of every kind
//! (in range, negative, out of range both ways, i64 min and max).
//!
//! What must agree: gathers, bit for bit (they move elements); scatters where no two updates
//! reach one element, bit for bit; adds of integers (and u8, with its compare-and-swap loop)
//! bit for bit also with repeated positions, since wrapping sums do not depend on the order.
//! Where several updates reach one element, an assigning scatter must leave one of them
//! whole (which one is unspecified on GPUs), and an adding scatter of floats must be within
//! the rounding of a sum of that many terms, since atomics add in any order.

use gpuarrays_core::kernel::{GatherArgs, IndexMode, IndexSpace, ScatterArgs, ScatterOp, Strided3};
use gpuarrays_core::{Backend, DType, host};
use gpuarrays_hip::{HipBackend, HipBuffer};

use super::words;

/// Element strides along `(outer, middle, inner)`.
pub type Strides = [isize; 3];

/// One layout: the index space and every operand's strides (`indexed`: the gather's source
/// or the scatter's target, over `[outer, extent, inner]`; `values` over the space).
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub name: &'static str,
    pub dims: [usize; 3],
    pub extent: usize,
    pub index: Strides,
    pub indexed: Strides,
    pub values: Strides,
    /// Indices chosen so that no two points of one `(o, k)` select one position.
    pub unique: bool,
}

/// Row-major strides of `dims`.
pub const fn row_major(dims: [usize; 3]) -> Strides {
    [(dims[1] * dims[2]) as isize, dims[2] as isize, 1]
}

/// An operand in a buffer of its own with a few elements of margin on both sides, and the
/// bytes it was filled with.
struct Placed {
    buf: HipBuffer,
    offset: usize,
    bytes: Vec<u8>,
}

/// Where an operand of `dims` and `strides` starts in its buffer (3 elements of margin
/// below its lowest element) and how many elements the buffer holds (4 above its highest).
fn extent_of(dims: [usize; 3], strides: Strides) -> (usize, usize) {
    let (mut lo, mut hi) = (0isize, 0isize);
    for (d, s) in dims.iter().zip(strides) {
        let reach = (*d as isize - 1) * s;
        if reach < 0 {
            lo += reach;
        } else {
            hi += reach;
        }
    }
    let offset = (3 - lo) as usize;
    (offset, offset + hi as usize + 4)
}

/// The element position of `(o, m, k)` from `offset` (as `Strided3::at`).
fn at(offset: usize, s: Strides, o: usize, m: usize, k: usize) -> usize {
    (offset as isize + o as isize * s[0] + m as isize * s[1] + k as isize * s[2]) as usize
}

impl Placed {
    fn new(hip: &HipBackend, size: usize, dims: [usize; 3], strides: Strides, fill: &[u8]) -> Self {
        let (offset, elements) = extent_of(dims, strides);
        assert!(
            fill.len() >= elements * size,
            "fill too short for {dims:?} {strides:?}"
        );
        let bytes = fill[..elements * size].to_vec();
        let buf = hip.alloc(bytes.len()).expect("alloc");
        hip.write(&buf, 0, &bytes).expect("upload");
        Placed { buf, offset, bytes }
    }

    fn operand(&self, strides: Strides) -> Strided3<'_, HipBuffer> {
        Strided3 {
            buffer: &self.buf,
            offset: self.offset,
            strides,
        }
    }

    fn copy(&self, hip: &HipBackend) -> Placed {
        let buf = hip.alloc(self.bytes.len()).expect("alloc");
        hip.write(&buf, 0, &self.bytes).expect("upload");
        Placed {
            buf,
            offset: self.offset,
            bytes: self.bytes.clone(),
        }
    }
}

fn read(hip: &HipBackend, buf: &HipBuffer, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    hip.read(buf, 0, &mut out).expect("download");
    out
}

/// Element bytes: any bits for moves (NaN payloads, subnormals, both zeros) and integer
/// adds; for float adds, values in [-1, 1) so that sums stay finite and comparable.
fn elements(dtype: DType, n: usize, seed: u64, add: bool) -> Vec<u8> {
    let w = words(n * 2, seed);
    let unit = |x: u64| ((x >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0;
    let mut out = Vec::with_capacity(n * dtype.size());
    for i in 0..n {
        let (a, b) = (w[2 * i], w[2 * i + 1]);
        match dtype {
            DType::Bool => out.push((a & 1) as u8),
            DType::F32 if add => out.extend((unit(a) as f32).to_le_bytes()),
            DType::F64 if add => out.extend(unit(a).to_le_bytes()),
            DType::C32 if add => {
                out.extend((unit(a) as f32).to_le_bytes());
                out.extend((unit(b) as f32).to_le_bytes());
            }
            DType::C64 if add => {
                out.extend(unit(a).to_le_bytes());
                out.extend(unit(b).to_le_bytes());
            }
            _ => {
                let bytes = [a.to_le_bytes(), b.to_le_bytes()].concat();
                out.extend(&bytes[..dtype.size()]);
            }
        }
    }
    out
}

/// An index of every kind for an axis of `n` positions.
fn any_index(w: u64, n: i64) -> i64 {
    let r = (w >> 8) as i64 & i64::MAX;
    match w % 12 {
        0 => i64::MIN,
        1 => i64::MAX,
        2 => i64::MIN + 1 + r % 3,
        3 => i64::MAX - r % 3,
        4 | 5 => -(r % n) - 1,
        6 => n + r % (3 * n),
        7 => -n - 1 - r % (3 * n),
        _ => r % n,
    }
}

/// An index that `mode` turns into position `p` of `n`, in one of several spellings.
fn index_for(p: i64, n: i64, mode: IndexMode, w: u64) -> i64 {
    match (mode, w % 4) {
        (IndexMode::Raise, 0 | 1) => p - n,
        (IndexMode::Wrap, 0) => p + n * (i64::MAX / n - 1),
        (IndexMode::Wrap, 1) => p - n * (i64::MAX / n),
        (IndexMode::Wrap, 2) => p + n * ((w >> 8) % 5) as i64 - 2 * n,
        _ => p,
    }
}

/// The index operand of `l` under `mode`: any indices, or unique ones per `(o, k)`.
fn index_operand(hip: &HipBackend, l: &Layout, mode: IndexMode, seed: u64) -> Placed {
    let n = l.extent as i64;
    let big = words(l.dims.iter().product::<usize>() * 4 + 64, seed);
    let mut fill: Vec<u8> = big
        .iter()
        .flat_map(|&w| any_index(w, n).to_le_bytes())
        .collect();
    if l.unique {
        // Position of j: (7j + 3) mod n, a permutation of the extent for n prime to 7
        // (shared by every (o, k)), each point spelling it its own way.
        let (offset, _) = extent_of(l.dims, l.index);
        let [outer, count, inner] = l.dims;
        for o in 0..outer {
            for j in 0..count {
                let p = (j as i64 * 7 + 3) % n;
                for k in 0..inner {
                    let e = at(offset, l.index, o, j, k);
                    let r = index_for(p, n, mode, big[e] ^ (o * 31 + k) as u64);
                    fill[e * 8..e * 8 + 8].copy_from_slice(&r.to_le_bytes());
                }
            }
        }
    }
    Placed::new(hip, 8, l.dims, l.index, &fill)
}

fn space<'a>(l: &Layout, mode: IndexMode, index: &'a Placed) -> IndexSpace<'a, HipBuffer> {
    IndexSpace {
        dims: l.dims,
        index: index.operand(l.index),
        extent: l.extent,
        mode,
    }
}

/// Gathers `dtype` over layout `l` on the device and with the host reference: the same bytes,
/// and for `Raise` the same out-of-range report. Returns whether the report was set.
pub fn gather_one(hip: &HipBackend, l: &Layout, dtype: DType, mode: IndexMode, seed: u64) -> bool {
    let size = dtype.size();
    let [outer, _, inner] = l.dims;
    let table = [outer, l.extent, inner];
    let index = index_operand(hip, l, mode, seed);
    let fill = elements(
        dtype,
        table.iter().product::<usize>() * 4 + 64,
        seed + 1,
        false,
    );
    let source = Placed::new(hip, size, table, l.indexed, &fill);
    let n: usize = l.dims.iter().product();
    let outputs = [
        hip.alloc(n * size + 7 * size),
        hip.alloc(n * size + 7 * size),
    ]
    .map(|b| b.expect("alloc output"));
    // A Raise gather also fills its report: the device's and the host's must agree.
    let reports = [hip.alloc(4), hip.alloc(4)].map(|b| b.expect("alloc report"));
    for r in &reports {
        hip.write(r, 0, &[0; 4]).expect("zero the report");
    }
    let raise = mode == IndexMode::Raise;
    let args = |output, report| GatherArgs {
        dtype,
        space: space(l, mode, &index),
        source: source.operand(l.indexed),
        output,
        output_offset: 7,
        out_of_range: Some(report).filter(|_| raise),
    };
    hip.gather(&args(&outputs[0], &reports[0]))
        .unwrap_or_else(|e| panic!("{} {dtype} {mode:?}: gather failed: {e}", l.name));
    host::gather(hip, &args(&outputs[1], &reports[1])).expect("host gather");
    let got = read(hip, &outputs[0], (n + 7) * size);
    let want = read(hip, &outputs[1], (n + 7) * size);
    if let Some(i) = (7 * size..got.len()).find(|&i| got[i] != want[i]) {
        panic!(
            "{} {dtype} {mode:?}: gather differs at output element {}",
            l.name,
            i / size - 7
        );
    }
    let flagged = |r| read(hip, r, 4) != [0; 4];
    let reported = flagged(&reports[0]);
    assert_eq!(
        reported,
        flagged(&reports[1]),
        "{} {dtype} {mode:?}: the out-of-range reports differ (device, host)",
        l.name
    );
    for b in reports {
        hip.release(b);
    }
    for b in outputs.into_iter().chain([index.buf, source.buf]) {
        hip.release(b);
    }
    reported
}

/// The float components of an element (none for other types).
fn floats(dtype: DType, e: &[u8]) -> Vec<f64> {
    let f32s = |e: &[u8]| -> Vec<f64> {
        e.chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")) as f64)
            .collect()
    };
    let f64s = |e: &[u8]| -> Vec<f64> {
        e.chunks(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    let halves = |e: &[u8], widen: fn(u16) -> f64| -> Vec<f64> {
        e.chunks(2)
            .map(|c| widen(u16::from_le_bytes(c.try_into().expect("2 bytes"))))
            .collect()
    };
    match dtype {
        DType::F16 => halves(e, |b| gpuarrays_core::f16::from_bits(b).to_f64()),
        DType::BF16 => halves(e, |b| gpuarrays_core::bf16::from_bits(b).to_f64()),
        DType::F32 | DType::C32 => f32s(e),
        DType::F64 | DType::C64 => f64s(e),
        _ => Vec::new(),
    }
}

/// Scatters (`op`) `dtype` over layout `l` on the device and with the host reference.
pub fn scatter_one(
    hip: &HipBackend,
    l: &Layout,
    dtype: DType,
    mode: IndexMode,
    op: ScatterOp,
    seed: u64,
) {
    let size = dtype.size();
    let add = op == ScatterOp::Add;
    let [outer, _, inner] = l.dims;
    let table = [outer, l.extent, inner];
    let n: usize = l.dims.iter().product();
    let index = index_operand(hip, l, mode, seed);
    let fill = elements(
        dtype,
        table.iter().product::<usize>() * 4 + 64,
        seed + 1,
        add,
    );
    let target = Placed::new(hip, size, table, l.indexed, &fill);
    let reference = target.copy(hip);
    let values = Placed::new(
        hip,
        size,
        l.dims,
        l.values,
        &elements(dtype, n * 4 + 64, seed + 2, add),
    );
    fn args<'a>(
        l: &Layout,
        (op, dtype, mode): (ScatterOp, DType, IndexMode),
        [index, target, values]: [&'a Placed; 3],
    ) -> ScatterArgs<'a, HipBuffer> {
        ScatterArgs {
            op,
            dtype,
            space: space(l, mode, index),
            target: target.operand(l.indexed),
            values: values.operand(l.values),
        }
    }
    let what = format!("{} {dtype} {mode:?} {}", l.name, op.name());
    hip.scatter(&args(l, (op, dtype, mode), [&index, &target, &values]))
        .unwrap_or_else(|e| panic!("{what}: scatter failed: {e}"));
    host::scatter(
        hip,
        &args(l, (op, dtype, mode), [&index, &reference, &values]),
    )
    .expect("host scatter");
    let got = read(hip, &target.buf, target.bytes.len());
    let want = read(hip, &reference.buf, target.bytes.len());
    // The updates of each target element (its values' element numbers).
    let pos = host::positions(hip, &space(l, mode, &index)).expect("positions");
    let mut updates = vec![Vec::new(); target.bytes.len() / size];
    let mut i = 0;
    for o in 0..outer {
        for j in 0..l.dims[1] {
            for k in 0..inner {
                let t = at(target.offset, l.indexed, o, pos[i], k);
                updates[t].push(at(values.offset, l.values, o, j, k));
                i += 1;
            }
        }
    }
    if l.unique {
        assert!(updates.iter().all(|u| u.len() <= 1), "{what}: not unique");
    }
    let el = |b: &[u8], e: usize| b[e * size..(e + 1) * size].to_vec();
    for (e, ups) in updates.iter().enumerate() {
        let (g, w) = (el(&got, e), el(&want, e));
        let float = !floats(dtype, &g).is_empty();
        if ups.len() <= 1 || (add && !float) {
            assert!(
                g == w,
                "{what}: element {e} ({} updates): {g:?} != {w:?}",
                ups.len()
            );
        } else if !add {
            let ok = ups.iter().any(|&v| el(&values.bytes, v) == g);
            assert!(
                ok,
                "{what}: element {e} holds none of its {} updates",
                ups.len()
            );
        } else {
            // |error| ≤ a sum's rounding over every term's magnitude.
            let mut bound = floats(dtype, &el(&target.bytes, e))
                .iter()
                .map(|x| x.abs())
                .collect::<Vec<_>>();
            for &v in ups {
                for (b, x) in bound.iter_mut().zip(floats(dtype, &el(&values.bytes, v))) {
                    *b += x.abs();
                }
            }
            let eps = match dtype {
                DType::F16 => 2f64.powi(-10),
                DType::BF16 => 2f64.powi(-7),
                DType::F32 | DType::C32 => f32::EPSILON as f64,
                _ => f64::EPSILON,
            };
            for ((a, b), m) in floats(dtype, &g).iter().zip(floats(dtype, &w)).zip(&bound) {
                // A NaN among the terms (or opposite infinities) is NaN in every order; a sum
                // that overflowed in one order is as far as the magnitude that rounds to ∞.
                let overflow = match dtype {
                    DType::F16 => 65520.0,
                    DType::BF16 => (2.0 - 2f64.powi(-8)) * 2f64.powi(127),
                    DType::F32 | DType::C32 => (2.0 - 2f64.powi(-24)) * 2f64.powi(127),
                    _ => f64::INFINITY,
                };
                let at = |x: f64| {
                    if x.is_infinite() {
                        overflow.copysign(x)
                    } else {
                        x
                    }
                };
                // (Rounding every running sum, as half scatter-adds do, errs up to twice the
                // one-sum bound between two orders.)
                let terms = if dtype.is_half() { 2 } else { 1 } * (ups.len() + 1);
                // A running sum of halves that can reach the threshold in some order (its
                // terms' magnitudes add up to it) may overflow in one order and not another.
                let order_overflow =
                    dtype.is_half() && (!a.is_finite() || !b.is_finite()) && *m >= overflow;
                let ok = (a.is_nan() && b.is_nan())
                    || *a == b
                    || order_overflow
                    || super::close(at(*a), at(b), terms, *m, eps);
                assert!(
                    ok,
                    "{what}: element {e}: {a} vs {b} over {} updates",
                    ups.len()
                );
            }
        }
    }
    for b in [index.buf, target.buf, reference.buf, values.buf] {
        hip.release(b);
    }
}

/// Every check for every type and mode over `layouts`.
pub fn all(hip: &HipBackend, layouts: &[Layout]) {
    let mut seed = 1;
    // Raise gathers whose report came back set, and clear: both must occur, or the
    // report's comparison above checked nothing.
    let mut reports = [0usize; 2];
    for l in layouts {
        // The types the backend generates gathers for (it refuses the others).
        let generated = DType::ALL.into_iter().filter(|&d| {
            gpuarrays_hip::backend::supports(d, gpuarrays_core::OpKind::Gather).is_yes()
        });
        for dtype in generated {
            for mode in IndexMode::ALL {
                seed += 10;
                let reported = gather_one(hip, l, dtype, mode, seed);
                if mode == IndexMode::Raise {
                    reports[usize::from(reported)] += 1;
                }
                scatter_one(hip, l, dtype, mode, ScatterOp::Assign, seed);
                if dtype != DType::Bool {
                    scatter_one(hip, l, dtype, mode, ScatterOp::Add, seed);
                }
            }
        }
    }
    assert!(
        reports.iter().all(|&n| n > 0),
        "Raise gathers with the report clear, set: {reports:?} (each kind must occur)"
    );
}
