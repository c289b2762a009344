//! Where a conformance input lives on the device: its own buffer, or a derived array (a
//! slice, a row view, a reinterpret, a strided, reversed or transposed view) inside a larger
//! buffer whose other elements hold other values, and the buffer position of each element.

/// How an input is placed on the device: directly, or as a derived array with an offset
/// into a larger buffer whose other elements (`pad_before`, `pad_after`) hold other values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Its own buffer.
    Plain,
    /// `base.slice(3..3 + n).reshape(dims)` of a 1-D buffer of `3 + n + 2` elements.
    Slice,
    /// Rows `1..=d0` of a buffer of `d0 + 2` rows (`view` with an offset); rank >= 1.
    RowView,
    /// The bytes of elements `1..=n` of a u8 buffer, reinterpreted and reshaped (not bool).
    Reinterpret,
    /// Bool only: elements `1..=n` of a bool buffer whose bytes were written through its u8
    /// view, each true as some byte of 1 to 255 (any nonzero byte is true).
    BoolBytes,
    /// Every other element along each axis, from index 1: `base.at(s![1..;2, ..])` of a
    /// buffer of shape `[2·d + 1 for each d]` (rank >= 1).
    Strided,
    /// Every axis walked backwards: `base.at(s![..0;-1, ..])` of a buffer of shape
    /// `[d + 1 for each d]`, index 0 of each axis left out (rank >= 1).
    Reversed,
    /// Axes in reverse order: the `permute` view of a buffer (from its element 1) holding
    /// the array's transpose (rank >= 2).
    Transposed,
}

impl Layout {
    pub fn name(self) -> &'static str {
        match self {
            Layout::Plain => "plain",
            Layout::Slice => "slice",
            Layout::RowView => "rowview",
            Layout::Reinterpret => "reinterpret",
            Layout::BoolBytes => "boolbytes",
            Layout::Strided => "strided",
            Layout::Reversed => "reversed",
            Layout::Transposed => "transposed",
        }
    }

    /// The buffer length and the buffer position of each element (row-major) of an array
    /// of `dims` placed with this layout.
    pub fn positions(self, dims: &[usize]) -> (usize, Vec<usize>) {
        let n: usize = dims.iter().product();
        let index = |mut k: usize| -> Vec<usize> {
            let mut idx = vec![0; dims.len()];
            for a in (0..dims.len()).rev() {
                idx[a] = k % dims[a];
                k /= dims[a];
            }
            idx
        };
        // Row-major position of `idx` in a buffer of shape `shape`.
        let flat = |idx: &[usize], shape: &[usize]| -> usize {
            idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
        };
        let gather = |shape: Vec<usize>, at: &dyn Fn(&[usize]) -> usize| {
            let len = shape.iter().product();
            (len, (0..n).map(|k| at(&index(k))).collect())
        };
        match self {
            Layout::Strided => {
                let shape: Vec<usize> = dims.iter().map(|&d| 2 * d + 1).collect();
                let s = shape.clone();
                gather(shape, &|i: &[usize]| {
                    flat(&i.iter().map(|&x| 2 * x + 1).collect::<Vec<_>>(), &s)
                })
            }
            Layout::Reversed => {
                let shape: Vec<usize> = dims.iter().map(|&d| d + 1).collect();
                let s = shape.clone();
                gather(shape, &|i: &[usize]| {
                    let back: Vec<usize> = i.iter().zip(dims).map(|(&x, &d)| d - x).collect();
                    flat(&back, &s)
                })
            }
            Layout::Transposed => {
                let rev: Vec<usize> = dims.iter().rev().copied().collect();
                let (_, pos) = gather(Vec::new(), &|i: &[usize]| {
                    let t: Vec<usize> = i.iter().rev().copied().collect();
                    1 + flat(&t, &rev)
                });
                (n + 1, pos)
            }
            _ => {
                let (before, after) = self.pads(dims);
                (before + n + after, (before..before + n).collect())
            }
        }
    }

    /// Padding elements (before, after) for an array of `dims`.
    pub fn pads(self, dims: &[usize]) -> (usize, usize) {
        match self {
            Layout::Plain => (0, 0),
            Layout::Slice => (3, 2),
            Layout::RowView => {
                let row = dims.iter().skip(1).product();
                (row, row)
            }
            Layout::Reinterpret | Layout::BoolBytes => (1, 1),
            // Strided layouts: the elements around the array's own, all "before".
            Layout::Strided | Layout::Reversed | Layout::Transposed => {
                let n: usize = dims.iter().product();
                (self.positions(dims).0 - n, 0)
            }
        }
    }
}
