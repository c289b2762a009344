//! How a fused elementwise kernel reads and writes its operands: the access class of each
//! operand, the vector width, and the index arithmetic width. With the program, this is the
//! compiled kernel's identity ([`EwKey`]).

use gpuarrays_core::DType;
use gpuarrays_core::kernel::Program;
use smallvec::SmallVec;

use crate::platform::DevicePtr;

/// How one operand is addressed from the output's linear index `i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Class {
    /// Element `i` of a row-major run: vector loads where aligned.
    Contiguous,
    /// One element for every `i` (all strides 0): loaded once per thread.
    Broadcast,
    /// Rows of a strided operand that are contiguous along the last axis (a slice of columns,
    /// one piece of a concatenation): the offset of a vector's first element from the
    /// strides, then vector loads or stores along the row. Planned only with a vector width
    /// that divides the last axis and every other stride ([`plan`]); otherwise `Strided`.
    Rows,
    /// Anything else: the multi-index of `i` dotted with the strides (passed as parameters).
    Strided,
}

impl Class {
    /// Whether the kernel computes the operand's offsets from its strides (which it then
    /// takes as a parameter).
    pub fn has_strides(self) -> bool {
        matches!(self, Class::Rows | Class::Strided)
    }

    /// Whether the vector loop loads (or stores) the operand a vector at a time.
    pub fn is_vector(self) -> bool {
        matches!(self, Class::Contiguous | Class::Rows)
    }
}

/// The access class of an operand with `strides` over `shape`. Finer than
/// `gpuarrays_core::kernel::Access`: strides that equal the row-major strides of the shape
/// count as contiguous, whatever the number of dimensions.
pub fn classify(shape: &[usize], strides: &[isize]) -> Class {
    if strides.iter().all(|&s| s == 0) {
        return Class::Broadcast;
    }
    let mut expect: isize = 1;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        if n > 1 && s != expect {
            return Class::Strided;
        }
        expect = expect.saturating_mul(n as isize);
    }
    Class::Contiguous
}

/// [`classify`], with the strided operands whose last axis is contiguous (and longer than
/// one element) told apart as [`Class::Rows`].
fn classify_rows(shape: &[usize], strides: &[isize]) -> Class {
    match classify(shape, strides) {
        Class::Strided if shape.last().is_some_and(|&n| n > 1) && strides.last() == Some(&1) => {
            Class::Rows
        }
        c => c,
    }
}

/// The widest vector (a power of two up to `start`) that divides the last axis and every
/// other stride of a `Rows` operand, so that a vector never crosses a row and starts at a
/// multiple of its width.
fn rows_vec(shape: &[usize], strides: &[isize], start: usize) -> usize {
    let mut vec = start;
    let last = shape.len() - 1;
    let fits = |v: usize| {
        shape[last] % v == 0
            && (0..last).all(|d| shape[d] == 1 || strides[d].unsigned_abs() % v == 0)
    };
    while vec > 1 && !fits(vec) {
        vec /= 2;
    }
    vec
}

/// The access class of each input, inline up to 8 inputs (planned on every launch: no
/// allocation).
pub type Classes = SmallVec<[Class; 8]>;

/// How a launch is tiled by the kernel of [`super::transpose`]. Part of the kernel's
/// layout: the kernel is compiled for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Tiling {
    /// The output axis along which every strided input is contiguous.
    pub a: u32,
    /// log2 of a tile's elements.
    pub elems_log2: u32,
    /// log2 of a tile's side along the last axis (its side along `a` is the rest).
    pub side_l_log2: u32,
    /// The grid is (tiles along `L`, tiles along `a`, batch), see `transpose::grid`.
    pub grid3: bool,
}

/// The layout half of a compiled kernel's identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EwLayout {
    /// Class of each input, in slot order.
    pub inputs: Classes,
    /// Class of the output (contiguous in practice).
    pub output: Class,
    /// Elements per thread per step in the vector loop (1: no vector loop).
    pub vec: u32,
    /// Dimensions of the index decomposition (0 when nothing is strided).
    pub ndim: u32,
    /// Whether the decomposition may use 32-bit division (fewer than 2³² elements).
    pub idx32: bool,
    /// Run by the tiled kernel of [`super::transpose`], tiled so, instead of the generic one.
    pub transpose: Option<Tiling>,
    /// One launch covers every vector, so the kernel has no grid-stride loop (see
    /// [`plan_steps`]).
    pub one_step: bool,
    /// Vectors per thread in the one-step form (1 in the loop form).
    pub per_thread: u32,
}

impl EwLayout {
    /// A copy (the derived `clone` rebuilds the classes element by element).
    pub fn copied(&self) -> EwLayout {
        EwLayout {
            inputs: Classes::from_slice(&self.inputs),
            ..*self
        }
    }
}

/// A compiled elementwise kernel's identity: the program and its layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct EwKey {
    pub program: Program,
    pub layout: EwLayout,
}

/// One operand of a launch.
#[derive(Debug, Clone, Copy)]
pub struct EwOperand<'a> {
    /// Address of the operand's element at the origin of the index space (offset applied).
    pub ptr: DevicePtr,
    pub dtype: DType,
    /// One stride per dimension of the shape, in elements.
    pub strides: &'a [isize],
}

/// Widest useful vector: 16 bytes of the widest contiguous operand per thread and step
/// (one `float4` for f32: the form that reached 4331 GB/s on the H200, against 2987 GB/s for
/// one float per thread). Narrower operands then move 16/size·(their size) bytes.
pub(super) const VECTOR_BYTES: usize = 16;

/// The widest vector (elements, a power of two up to `start`) whose loads from `o` are
/// aligned: `vec · size` bytes, or 16 where that is more.
fn aligned_vec(o: &EwOperand<'_>, start: usize) -> usize {
    let mut vec = start;
    while vec > 1 && o.ptr.0 % (vec * o.dtype.size()).min(VECTOR_BYTES) as u64 != 0 {
        vec /= 2;
    }
    vec
}

/// Plans the layout of one launch: one pass over the operands for their classes and the
/// widest type among the output and the contiguous inputs, then the vector width as the
/// narrowest the output's and the contiguous inputs' alignment allows (alignment at a width
/// implies it at every narrower one, so this is the widest width at which all of them are
/// aligned), narrowed further to a `Rows` output's rows (`rows_vec`): the output is stored a
/// vector at a time or there is no vector loop. A `Rows` input then takes that width if its
/// rows and alignment allow it, else it is read element by element (`Strided`): it never
/// narrows the vector of the others. Without a vector loop no operand is `Rows`. Runs on
/// every launch: the iterator form it replaced walked the operands three times (~470 host
/// instructions for `a*x + y`, `host_path` bench).
///
/// `Rows` is what a concatenation along the last axis writes: the generic strided form (one
/// element per thread, a 2-D index decomposition each) moved two 16384 × 8192 f32 halves
/// into a 16384 × 16384 result at 78 % of the copy bandwidth on an H100
/// (`docs/results/indexing.md`).
pub fn plan(shape: &[usize], inputs: &[EwOperand<'_>], output: &EwOperand<'_>) -> EwLayout {
    let mut in_classes = Classes::new();
    let mut out_class = classify_rows(shape, output.strides);
    let mut strided = out_class.has_strides();
    let mut widest = if out_class.is_vector() {
        output.dtype.size()
    } else {
        1
    };
    for o in inputs {
        let c = classify_rows(shape, o.strides);
        strided |= c.has_strides();
        if c == Class::Contiguous {
            widest = widest.max(o.dtype.size());
        }
        in_classes.push(c);
    }
    let mut vec = 1;
    if out_class.is_vector() {
        vec = (VECTOR_BYTES / widest).max(1);
        if out_class == Class::Rows {
            vec = rows_vec(shape, output.strides, vec);
        }
        vec = aligned_vec(output, vec);
        for (o, c) in inputs.iter().zip(&in_classes) {
            if *c == Class::Contiguous {
                vec = aligned_vec(o, vec);
            }
        }
    }
    let takes_width = |o: &EwOperand<'_>| {
        vec > 1 && rows_vec(shape, o.strides, vec) == vec && aligned_vec(o, vec) == vec
    };
    for (o, c) in inputs.iter().zip(in_classes.iter_mut()) {
        if *c == Class::Rows && !takes_width(o) {
            *c = Class::Strided;
        }
    }
    if vec == 1 && out_class == Class::Rows {
        out_class = Class::Strided;
    }
    let n: usize = shape.iter().product();
    EwLayout {
        inputs: in_classes,
        output: out_class,
        vec: vec as u32,
        ndim: if strided { shape.len() as u32 } else { 0 },
        idx32: strided && n <= u32::MAX as usize,
        transpose: None,
        one_step: false,
        per_thread: 1,
    }
}

/// Threads per block of `ga_ew` (the launch and the generated code both use it).
pub const EW_BLOCK: u32 = 256;

/// Vectors per thread of a program that draws random numbers. Such kernels are bound by
/// instruction issue, not memory, and the vectors of one thread share the Philox key schedule
/// and the index arithmetic: measured on the H200 (`docs/results/hip-elementwise-reduce.md`).
pub const RANDOM_PER_THREAD: u32 = 2;

/// Chooses how the kernel steps over `n` elements: every vector in one launch when the grid
/// allows it (`max_blocks` blocks of [`EW_BLOCK`] threads), [`RANDOM_PER_THREAD`] vectors per
/// thread for programs with random draws; otherwise a grid-stride loop. The one-step form
/// took the f32 normal kernel from 693 to 629 µs for 2^28 outputs on the H200 (the loop's
/// form kept 10 % more instructions: `docs/results/hip-elementwise-reduce.md`).
pub fn plan_steps(l: &mut EwLayout, n: usize, draws_random: bool, max_blocks: usize) {
    l.per_thread = if draws_random && l.vec > 1 {
        RANDOM_PER_THREAD
    } else {
        1
    };
    l.one_step = blocks(l, n) <= max_blocks;
    if !l.one_step {
        l.per_thread = 1;
    }
}

/// Blocks of [`EW_BLOCK`] threads that cover `n` elements in `l`'s form (at least 1; the loop
/// form is launched with at most the grid limit and loops over the rest).
pub fn blocks(l: &EwLayout, n: usize) -> usize {
    let vec = l.vec.max(1) as usize;
    let work = if vec > 1 {
        (n / vec)
            .div_ceil(l.per_thread.max(1) as usize)
            .max(n % vec)
    } else {
        n
    };
    work.div_ceil(EW_BLOCK as usize).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(dtype: DType, addr: u64, strides: &[isize]) -> EwOperand<'_> {
        EwOperand {
            ptr: DevicePtr(addr),
            dtype,
            strides,
        }
    }

    #[test]
    fn classes() {
        assert_eq!(classify(&[10], &[1]), Class::Contiguous);
        assert_eq!(classify(&[4, 5], &[5, 1]), Class::Contiguous);
        assert_eq!(classify(&[4, 5], &[0, 0]), Class::Broadcast);
        assert_eq!(classify(&[4, 5], &[0, 1]), Class::Strided);
        assert_eq!(classify(&[4], &[-1]), Class::Strided);
        assert_eq!(classify(&[1], &[7]), Class::Contiguous);
    }

    #[test]
    fn vector_width_follows_widest_type_and_alignment() {
        let s = [1isize];
        let l = plan(&[100], &[op(DType::F32, 0, &s)], &op(DType::F32, 256, &s));
        assert_eq!((l.vec, l.ndim), (4, 0));
        let l = plan(&[100], &[op(DType::F64, 0, &s)], &op(DType::Bool, 256, &s));
        assert_eq!(l.vec, 2);
        // An f32 view starting 4 bytes in: no 16-byte loads, but 4-byte ones.
        let l = plan(&[100], &[op(DType::F32, 4, &s)], &op(DType::F32, 0, &s));
        assert_eq!(l.vec, 1);
        let l = plan(&[100], &[op(DType::F32, 8, &s)], &op(DType::F32, 0, &s));
        assert_eq!(l.vec, 2);
        let b = [0isize, 1];
        let c = [4isize, 1];
        let l = plan(&[3, 4], &[op(DType::F32, 0, &b)], &op(DType::F32, 0, &c));
        assert_eq!(l.inputs.as_slice(), [Class::Rows]);
        assert_eq!((l.vec, l.ndim, l.idx32), (4, 2, true));
        let t = [1isize, 3];
        let l = plan(&[3, 4], &[op(DType::F32, 0, &t)], &op(DType::F32, 0, &c));
        assert_eq!(
            (l.inputs.as_slice(), l.vec),
            ([Class::Strided].as_slice(), 4)
        );
    }

    #[test]
    fn rows_take_vectors_that_stay_inside_a_row() {
        // Two halves of a [16, 2048] f32 concatenation along the last axis.
        let (rows, unit) = ([2048isize, 1], [1024isize, 1]);
        let right = op(DType::F32, 1024 * 4, &rows);
        let l = plan(&[16, 1024], &[op(DType::F32, 0, &unit)], &right);
        assert_eq!((l.output, l.vec, l.ndim), (Class::Rows, 4, 2));
        // (shape, input strides, output byte address, output strides) -> (input class,
        // output class, width).
        type RowsCase = (
            [usize; 2],
            &'static [isize],
            u64,
            &'static [isize],
            (Class, Class, u32),
        );
        let f32s = |at: u64, st: &'static [isize]| op(DType::F32, at, st);
        #[rustfmt::skip]
        let cases: [RowsCase; 6] = [
            // Rows of 6 elements: vectors of 2. Of 5: none, and the rows are strided again.
            ([16, 6], &[6, 1], 0, &[8, 1], (Class::Contiguous, Class::Rows, 2)),
            ([16, 5], &[5, 1], 0, &[8, 1], (Class::Contiguous, Class::Strided, 1)),
            // A row stride that is not a multiple of the width (a row starts mid-vector).
            ([16, 8], &[8, 1], 0, &[10, 1], (Class::Contiguous, Class::Rows, 2)),
            // Misaligned by one element: the rows go back to strided, element by element.
            ([16, 8], &[8, 1], 4, &[16, 1], (Class::Contiguous, Class::Strided, 1)),
            // A general strided output keeps every operand out of the vector loop.
            ([16, 8], &[16, 1], 0, &[1, 16], (Class::Strided, Class::Strided, 1)),
            // Input rows that do not take the width of a contiguous output are read element
            // by element, and the output keeps its vectors.
            ([16, 5], &[8, 1], 0, &[5, 1], (Class::Strided, Class::Contiguous, 4)),
        ];
        for (shape, input, at, output, want) in cases {
            let l = plan(&shape, &[f32s(0, input)], &f32s(at, output));
            assert_eq!(
                (l.inputs[0], l.output, l.vec),
                want,
                "{shape:?} {input:?} {output:?}"
            );
        }
    }

    /// Whether an operand is loaded a vector at a time when some width allows it: row-major
    /// contiguous, or contiguous along the (longer than one) last axis only.
    fn vector_loaded(shape: &[usize], strides: &[isize]) -> bool {
        let last = shape.len() - 1;
        let broadcast = strides.iter().all(|&s| s == 0);
        !broadcast && (row_major(shape, strides) || (shape[last] > 1 && strides[last] == 1))
    }

    fn row_major(shape: &[usize], strides: &[isize]) -> bool {
        (0..shape.len()).all(|d| {
            shape[d] == 1 || strides[d] == shape[d + 1..].iter().product::<usize>() as isize
        })
    }

    /// The vector width as first written: start at 16 bytes of the widest of the output and
    /// the row-major inputs and halve until each of them is aligned and, for an output of
    /// rows, until the width divides the last axis and the other strides. (Inputs of rows
    /// take the width or not; they do not set it.)
    fn vec_by_halving(inputs: &[EwOperand<'_>], output: &EwOperand<'_>, shape: &[usize]) -> u32 {
        let row_major_input =
            |o: &&EwOperand<'_>| !o.strides.iter().all(|&s| s == 0) && row_major(shape, o.strides);
        let loaded: Vec<&EwOperand<'_>> = inputs
            .iter()
            .filter(row_major_input)
            .chain(std::iter::once(output))
            .collect();
        if !vector_loaded(shape, output.strides) {
            return 1;
        }
        let widest = loaded.iter().map(|o| o.dtype.size()).max().unwrap_or(1);
        let mut vec = (VECTOR_BYTES / widest).max(1);
        let fits = |vec: usize, o: &EwOperand<'_>| {
            let last = shape.len() - 1;
            o.ptr.0 % (vec * o.dtype.size()).min(VECTOR_BYTES) as u64 == 0
                && (row_major(shape, o.strides)
                    || shape[last] % vec == 0
                        && (0..last).all(|d| shape[d] == 1 || o.strides[d] % vec as isize == 0))
        };
        while vec > 1 && !loaded.iter().all(|o| fits(vec, o)) {
            vec /= 2;
        }
        vec as u32
    }

    #[test]
    fn one_pass_vector_width_matches_halving_until_aligned() {
        let dtypes = [DType::Bool, DType::I32, DType::F32, DType::F64, DType::C64];
        let layouts: [&[isize]; 6] = [&[4, 1], &[0, 0], &[0, 1], &[1, 2], &[8, 1], &[-6, 1]];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let count = next() % 4;
            let mut op = || EwOperand {
                ptr: DevicePtr(next() % 64),
                dtype: dtypes[(next() % 5) as usize],
                strides: layouts[(next() % 6) as usize],
            };
            let inputs: Vec<EwOperand<'_>> = (0..count).map(|_| op()).collect();
            let output = op();
            let planned = plan(&[3, 4], &inputs, &output);
            assert_eq!(
                planned.vec,
                vec_by_halving(&inputs, &output, &[3, 4]),
                "{inputs:?} -> {output:?}"
            );
        }
    }
}
