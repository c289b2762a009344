//! Seeded generation of fuzz cases: base arrays, chains of derive operations, broadcast
//! expressions. Every case is a pure function of its seed, so a failure is replayed by
//! running that one seed (`GPUARRAYS_FUZZ_SEED`).
//!
//! The generator is biased towards inputs that succeed (contiguous views, factorisations of
//! the element count, aligned reinterprets) so that chains get deep, and mixes in every kind
//! of bad input with smaller probability: wrong rank, ranges past the end or reversed,
//! non-contiguous selections, counts that differ, several `-1`s, negative and enormous
//! dimensions, more than 8 dimensions, misaligned or mis-sized reinterprets, and empty
//! arrays with enormous dimensions.

use std::ops::Range;

use gpuarrays::DType;

use crate::model::{DTYPES, MAX_DIMS, count};

/// splitmix64: small, fast, and good enough to drive a fuzzer.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

/// The seed of case `index` of a run with base seed `base` (so cases are independent).
pub fn case_seed(base: u64, index: u64) -> u64 {
    let mut r = Rng::new(base ^ index.wrapping_mul(0xd134_2543_de82_ef95));
    r.next()
}

/// Dimensions that no buffer could hold, for empty arrays and overflow cases.
const HUGE: [usize; 6] = [
    1 << 31,
    1 << 32,
    (1 << 33) + 1,
    1 << 40,
    1 << 62,
    isize::MAX as usize,
];

/// One derive step.
#[derive(Clone, Debug)]
pub enum Step {
    View(Vec<Range<usize>>),
    Reshape(Vec<isize>),
    Reinterpret(DType),
    Slice(Range<usize>),
    /// `free_all_shared` through the current array: every array of the chain is freed.
    FreeAll,
}

/// A derive case: a base array and the number of steps applied one after the other. Each
/// step is drawn by [`step`] from the shape the array has at that point (so chains stay
/// on target after a step that failed), from the case's own generator.
#[derive(Clone, Debug)]
pub struct DeriveCase {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub steps: usize,
    pub step_seed: u64,
}

/// A broadcast case: operands (each uploaded inside a larger buffer at `pad` elements in,
/// so that they have an offset) and the operation.
#[derive(Clone, Debug)]
pub struct BroadcastCase {
    pub operands: Vec<Operand>,
    pub op: BroadcastOp,
}

#[derive(Clone, Debug)]
pub struct Operand {
    pub dims: Vec<usize>,
    pub pad: usize,
}

#[derive(Clone, Debug)]
pub enum BroadcastOp {
    /// `a + b`
    Add,
    /// `a * b - c`
    MulSub,
    /// `a.broadcast_to(target)`
    To(Vec<usize>),
}

#[derive(Clone, Debug)]
pub enum Case {
    Derive(DeriveCase),
    Broadcast(BroadcastCase),
}

pub fn case(seed: u64) -> Case {
    let mut r = Rng::new(seed);
    if r.chance(25) {
        Case::Broadcast(broadcast_case(&mut r))
    } else {
        Case::Derive(derive_case(&mut r))
    }
}

fn small_dims(r: &mut Rng, max_rank: usize, max_dim: usize) -> Vec<usize> {
    let rank = r.below(max_rank + 1);
    (0..rank)
        .map(|_| if r.chance(6) { 0 } else { 1 + r.below(max_dim) })
        .collect()
}

fn base_dims(r: &mut Rng) -> Vec<usize> {
    let roll = r.below(100);
    if roll < 4 {
        // An empty array with enormous other dimensions (valid or overflowing).
        let mut dims = small_dims(r, 2, 3);
        dims.push(0);
        for _ in 0..1 + r.below(2) {
            let at = r.below(dims.len() + 1);
            dims.insert(at, r.pick(&HUGE));
        }
        dims
    } else if roll < 5 {
        // More dimensions than allowed.
        vec![1; MAX_DIMS + 1]
    } else {
        small_dims(r, 4, 5)
    }
}

fn derive_case(r: &mut Rng) -> DeriveCase {
    DeriveCase {
        dtype: r.pick(&DTYPES),
        dims: base_dims(r),
        steps: 1 + r.below(6),
        step_seed: r.next(),
    }
}

/// The next derive step for an array of shape `dims`.
pub fn step(r: &mut Rng, dims: &[usize]) -> Step {
    match r.below(100) {
        0..=34 => Step::View(view_ranges(r, dims)),
        35..=64 => Step::Reshape(reshape_dims(r, dims)),
        65..=79 => Step::Reinterpret(r.pick(&DTYPES)),
        80..=96 => Step::Slice(slice_range(r, dims)),
        _ => Step::FreeAll,
    }
}

fn view_ranges(r: &mut Rng, dims: &[usize]) -> Vec<Range<usize>> {
    if r.chance(4) {
        // Wrong number of ranges.
        let rank = if dims.is_empty() || r.chance(50) {
            dims.len() + 1
        } else {
            dims.len() - 1
        };
        return (0..rank).map(|_| 0..1).collect();
    }
    // Aim at a contiguous selection: one index on the axes before a pivot, a sub-range on
    // the pivot, whole axes after it; then perturb some of the time.
    let pivot = r.below(dims.len() + 1);
    let mut ranges: Vec<Range<usize>> = dims
        .iter()
        .enumerate()
        .map(|(k, &d)| {
            let d = d.min(1 << 20);
            if k < pivot {
                let i = if d == 0 { 0 } else { r.below(d) };
                i..(i + 1).min(d)
            } else if k == pivot {
                let a = r.below(d + 1);
                a..a + r.below(d - a + 1)
            } else {
                0..d
            }
        })
        .collect();
    if !ranges.is_empty() && r.chance(35) {
        let k = r.below(ranges.len());
        let d = dims[k].min(1 << 20);
        ranges[k] = match r.below(5) {
            0 => d..d + 1 + r.below(2), // past the end
            1 => {
                let a = 1 + r.below(d.max(1));
                a..a - 1 // reversed
            }
            2 if d >= 2 => {
                // A proper sub-range, often after the pivot: not contiguous.
                let a = r.below(d - 1);
                a..a + 1 + r.below(d - a - 1)
            }
            _ => {
                let a = r.below(d + 1);
                a..a + r.below(d - a + 1)
            }
        };
    }
    ranges
}

/// Random divisors of `n` whose product is `n`, over `rank` dimensions.
fn factorise(r: &mut Rng, n: usize, rank: usize) -> Vec<usize> {
    let mut left = n;
    let mut dims = Vec::with_capacity(rank);
    for _ in 1..rank {
        let divisors: Vec<usize> = (1..=left.min(64)).filter(|d| left % d == 0).collect();
        let d = r.pick(&divisors);
        dims.push(d);
        left /= d;
    }
    dims.push(left);
    // Shuffle so that the large remainder is not always last.
    for k in (1..dims.len()).rev() {
        dims.swap(k, r.below(k + 1));
    }
    dims
}

fn reshape_dims(r: &mut Rng, dims: &[usize]) -> Vec<isize> {
    let total = count(dims);
    let roll = r.below(100);
    let rank = r.below(5);
    if roll < 55 && total <= 1 << 20 {
        // A factorisation of the count (with a zero somewhere for an empty array).
        let mut out: Vec<isize> = if total == 0 {
            let mut v: Vec<isize> = (0..rank.max(1))
                .map(|_| {
                    if r.chance(20) {
                        r.pick(&HUGE) as isize
                    } else {
                        r.below(4) as isize
                    }
                })
                .collect();
            let at = r.below(v.len());
            v[at] = 0;
            v
        } else {
            factorise(r, total as usize, rank.max(1))
                .into_iter()
                .map(|d| d as isize)
                .collect()
        };
        if total != 0 && r.chance(40) {
            let at = r.below(out.len());
            out[at] = -1;
        }
        out
    } else if roll < 62 {
        (0..rank.max(2)).map(|_| -1).collect()
    } else if roll < 68 {
        let mut v: Vec<isize> = (0..rank.max(1)).map(|_| 1 + r.below(4) as isize).collect();
        v[0] = r.pick(&[-2, -7, isize::MIN]);
        v
    } else if roll < 76 {
        // Enormous dimensions: products that overflow, with and without -1 and zeros.
        (0..2 + r.below(2))
            .map(|_| match r.below(5) {
                0 => -1,
                1 => 0,
                _ => r.pick(&HUGE) as isize,
            })
            .collect()
    } else if roll < 80 {
        vec![1; MAX_DIMS + 1 - r.below(2)]
    } else {
        // Anything small: usually the wrong count.
        (0..rank)
            .map(|_| r.below(6) as isize - (r.chance(10) as isize))
            .collect()
    }
}

fn slice_range(r: &mut Rng, dims: &[usize]) -> Range<usize> {
    let n = count(dims).min(1 << 20) as usize;
    if r.chance(10) {
        let a = r.below(n + 2);
        return a..a + r.below(3) + n.saturating_sub(a);
    }
    let a = r.below(n + 1);
    a..a + r.below(n - a + 1)
}

fn broadcast_case(r: &mut Rng) -> BroadcastCase {
    let out = small_dims(r, 4, 4);
    let n_operands = match r.below(3) {
        0 => 1,
        1 => 2,
        _ => 3,
    };
    let operands = (0..n_operands)
        .map(|_| {
            // Drop some leading dimensions, stretch some to 1, sometimes break one.
            let drop = r.below(out.len() + 1);
            let mut dims: Vec<usize> = out[drop..]
                .iter()
                .map(|&d| if r.chance(35) { 1 } else { d })
                .collect();
            if !dims.is_empty() && r.chance(12) {
                let k = r.below(dims.len());
                dims[k] = r.below(5);
            }
            Operand {
                dims,
                pad: r.below(4),
            }
        })
        .collect();
    let op = match n_operands {
        1 => {
            let mut target = out;
            if r.chance(15) && !target.is_empty() {
                target.remove(0);
            }
            BroadcastOp::To(target)
        }
        2 => BroadcastOp::Add,
        _ => BroadcastOp::MulSub,
    };
    BroadcastCase { operands, op }
}
