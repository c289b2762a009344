//! What the gather and scatter tests share: cases as host data (an index, the indexed
//! operand and the values or output, each with its own offset and strides), running one on
//! any backend through `Backend::gather`/`Backend::scatter`, and the host model of where a
//! scatter's updates land (for checks the CPU reference cannot make alone: "one of the
//! updates", "the neighbours are untouched").

#![allow(dead_code)]

pub mod scatter_cases;

use gpuarrays_core::kernel::{GatherArgs, IndexMode, IndexSpace, ScatterArgs, ScatterOp, Strided3};
use gpuarrays_core::{Backend, DType, Result, bf16, f16};

/// A small deterministic generator (SplitMix64).
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// Indices at the edges of i64 and of 32 bits, and near the axis.
pub fn extremes(n: i64) -> Vec<i64> {
    vec![
        i64::MIN,
        i64::MIN + 1,
        i64::MAX,
        i64::MAX - 1,
        1 << 32,
        (1 << 32) + 1,
        (1 << 32) - 1,
        -(1 << 32),
        -(1 << 32) - 1,
        -(1 << 32) + 1,
        1 << 31,
        -(1 << 31),
        -1,
        0,
        n,
        n - 1,
        -n,
        -n - 1,
        2 * n + 1,
    ]
}

/// An operand's placement: the element offset of `(0, 0, 0)`, element strides, and the
/// length of its buffer in elements.
#[derive(Debug, Clone, Copy)]
pub struct Place {
    pub offset: usize,
    pub strides: [isize; 3],
    pub len: usize,
}

/// `dims` laid out row-major, each axis's stride scaled by `factors` (−1 reverses, 0
/// broadcasts and takes no room, 2 leaves a gap after each element), with `pad` free
/// elements on each side. Distinct coordinates along non-broadcast axes never share an
/// element.
pub fn place(dims: [usize; 3], factors: [isize; 3], pad: usize) -> Place {
    let mut strides = [0isize; 3];
    let mut unit = 1isize;
    for i in (0..3).rev() {
        strides[i] = factors[i] * unit;
        if factors[i] != 0 {
            unit *= dims[i] as isize * factors[i].abs();
        }
    }
    let (mut lo, mut hi) = (0isize, 0isize);
    for (d, s) in dims.iter().zip(strides) {
        let reach = (*d as isize - 1) * s;
        lo += reach.min(0);
        hi += reach.max(0);
    }
    let offset = pad + (-lo) as usize;
    Place {
        offset,
        strides,
        len: offset + hi as usize + 1 + pad,
    }
}

impl Place {
    pub fn at(&self, o: usize, m: usize, k: usize) -> usize {
        (self.offset as isize
            + o as isize * self.strides[0]
            + m as isize * self.strides[1]
            + k as isize * self.strides[2]) as usize
    }
}

/// One gather or scatter as host data. `table` is the gather's source or the scatter's
/// target (over `[outer, extent, inner]`); `other` the scatter's values, or the buffer the
/// gather writes its contiguous output into at `other_place.offset`.
#[derive(Debug, Clone)]
pub struct Case {
    pub dtype: DType,
    pub dims: [usize; 3],
    pub extent: usize,
    pub mode: IndexMode,
    pub index: Vec<i64>,
    pub index_place: Place,
    pub table: Vec<u8>,
    pub table_place: Place,
    pub other: Vec<u8>,
    pub other_place: Place,
    /// Put `table` and `other` in one buffer (table first).
    pub shared: bool,
}

impl Case {
    pub fn points(&self) -> usize {
        self.dims.iter().product()
    }

    /// For each point in row-major order: (target element, value element), positions
    /// by `IndexMode::position`.
    pub fn updates(&self) -> Vec<(usize, usize)> {
        let [outer, count, inner] = self.dims;
        let mut out = Vec::with_capacity(self.points());
        for o in 0..outer {
            for j in 0..count {
                for k in 0..inner {
                    let r = self.index[self.index_place.at(o, j, k)];
                    let p = self.mode.position(r, self.extent);
                    out.push((self.table_place.at(o, p, k), self.other_place.at(o, j, k)));
                }
            }
        }
        out
    }
}

/// Random bytes for `n` elements of `d` (bool: 0 or 1).
pub fn bytes(rng: &mut Rng, d: DType, n: usize) -> Vec<u8> {
    let mut v: Vec<u8> = (0..n * d.size()).map(|_| rng.next() as u8).collect();
    if d == DType::Bool {
        v.iter_mut().for_each(|b| *b &= 1);
    }
    v
}

/// Values for adds: integers of any bits; floats (each part of complex) multiples of 1/16
/// in −100..100 if `exact` (sums of thousands of them are exact in any order), otherwise
/// in −1..1 with every mantissa bit (halves: see below).
pub fn addends(rng: &mut Rng, d: DType, n: usize, exact: bool) -> Vec<u8> {
    let parts = n * if d.is_complex() { 2 } else { 1 };
    let f = |rng: &mut Rng| {
        if exact {
            (rng.below(3200) as f64 - 1600.0) / 16.0
        } else {
            (rng.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        }
    };
    match d {
        DType::F32 | DType::C32 => (0..parts)
            .flat_map(|_| (f(rng) as f32).to_le_bytes())
            .collect(),
        DType::F64 | DType::C64 => (0..parts).flat_map(|_| f(rng).to_le_bytes()).collect(),
        // Halves: exact ones are integers in −4..=4 (a few dozen of them sum exactly even in
        // bf16's 8 bits), others in −1..1 rounded to the type.
        DType::F16 | DType::BF16 => (0..n)
            .flat_map(|_| {
                let x = match exact {
                    true => rng.below(9) as f32 - 4.0,
                    false => f(rng) as f32,
                };
                match d {
                    DType::F16 => f16::from_f32(x).to_le_bytes(),
                    _ => bf16::from_f32(x).to_le_bytes(),
                }
            })
            .collect(),
        _ => bytes(rng, d, n),
    }
}

fn upload<B: Backend>(b: &B, bytes: &[u8]) -> Result<B::Buffer> {
    let buf = b.alloc(bytes.len())?;
    b.write(&buf, 0, bytes)?;
    Ok(buf)
}

fn i64_bytes(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn strided<'a, Buf>(buffer: &'a Buf, p: Place, shift: usize) -> Strided3<'a, Buf> {
    Strided3 {
        buffer,
        offset: p.offset + shift,
        strides: p.strides,
    }
}

/// Runs `f` on the case's buffers; returns the bytes of `table` and `other` afterwards.
fn with_buffers<B: Backend>(
    b: &B,
    c: &Case,
    f: impl FnOnce(
        IndexSpace<'_, B::Buffer>,
        Strided3<'_, B::Buffer>,
        Strided3<'_, B::Buffer>,
    ) -> Result<()>,
) -> Result<(Vec<u8>, Vec<u8>)> {
    let size = c.dtype.size();
    assert_eq!(c.table.len(), c.table_place.len * size);
    assert_eq!(c.other.len(), c.other_place.len * size);
    let ib = upload(b, &i64_bytes(&c.index))?;
    let joined: Vec<u8> = [c.table.clone(), c.other.clone()].concat();
    let (tb, ob) = if c.shared {
        (upload(b, &joined)?, None)
    } else {
        (upload(b, &c.table)?, Some(upload(b, &c.other)?))
    };
    let shift = if c.shared { c.table_place.len } else { 0 };
    let result = {
        let obuf = ob.as_ref().unwrap_or(&tb);
        let space = IndexSpace {
            dims: c.dims,
            index: strided(&ib, c.index_place, 0),
            extent: c.extent,
            mode: c.mode,
        };
        f(
            space,
            strided(&tb, c.table_place, 0),
            strided(obuf, c.other_place, shift),
        )
        .and_then(|()| {
            let mut t = vec![0u8; c.table.len()];
            b.read(&tb, 0, &mut t)?;
            let mut o = vec![0u8; c.other.len()];
            b.read(obuf, shift * size, &mut o)?;
            Ok((t, o))
        })
    };
    b.release(ib);
    b.release(tb);
    if let Some(ob) = ob {
        b.release(ob);
    }
    result
}

/// Gathers; returns the output buffer (`other`) afterwards.
pub fn run_gather<B: Backend>(b: &B, c: &Case) -> Result<Vec<u8>> {
    let (_, out) = with_buffers(b, c, |space, source, out| {
        b.gather(&GatherArgs {
            dtype: c.dtype,
            space,
            source,
            output: out.buffer,
            output_offset: out.offset,
            out_of_range: None,
        })
    })?;
    Ok(out)
}

/// Scatters; returns the target buffer (`table`) afterwards.
pub fn run_scatter<B: Backend>(b: &B, c: &Case, op: ScatterOp) -> Result<Vec<u8>> {
    let (target, _) = with_buffers(b, c, |space, target, values| {
        b.scatter(&ScatterArgs {
            op,
            dtype: c.dtype,
            space,
            target,
            values,
        })
    })?;
    Ok(target)
}

/// The first element where two buffers differ, as a message.
pub fn first_difference(what: &str, d: DType, got: &[u8], want: &[u8]) -> Option<String> {
    let size = d.size();
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    (0..got.len() / size)
        .find(|&e| got[e * size..(e + 1) * size] != want[e * size..(e + 1) * size])
        .map(|e| {
            format!(
                "{what}: element {e}: got {:?}, expected {:?}",
                &got[e * size..(e + 1) * size],
                &want[e * size..(e + 1) * size]
            )
        })
}

/// Float parts of a buffer of f16, bf16, f32/c32 or f64/c64 elements, as f64.
pub fn floats(d: DType, b: &[u8]) -> Vec<f64> {
    match d {
        DType::F16 => b
            .chunks(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::BF16 => b
            .chunks(2)
            .map(|c| bf16::from_le_bytes([c[0], c[1]]).to_f64())
            .collect(),
        DType::F32 | DType::C32 => b
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        _ => b
            .chunks(8)
            .map(|c| f64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
            .collect(),
    }
}

/// The first float part further than `tol` from the reference, as a message.
pub fn first_far(what: &str, d: DType, got: &[u8], want: &[u8], tol: f64) -> Option<String> {
    let (g, w) = (floats(d, got), floats(d, want));
    g.iter()
        .zip(&w)
        .position(|(a, b)| (a - b).abs() > tol || a.is_nan() != b.is_nan())
        .map(|i| format!("{what}: part {i}: got {}, expected {}", g[i], w[i]))
}
