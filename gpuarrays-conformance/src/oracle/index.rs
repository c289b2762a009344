//! Row-major index arithmetic for the oracle, written out plainly.

/// Number of elements of a shape (1 for 0-d).
pub fn numel(dims: &[usize]) -> usize {
    dims.iter().product()
}

/// The multi-index of linear position `i` in a row-major array of shape `dims`.
pub fn unravel(mut i: usize, dims: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; dims.len()];
    for k in (0..dims.len()).rev() {
        idx[k] = i % dims[k];
        i /= dims[k];
    }
    idx
}

/// The linear position of multi-index `idx` in shape `dims`.
pub fn ravel(idx: &[usize], dims: &[usize]) -> usize {
    idx.iter().zip(dims).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Where an operand of shape `src` is read for output multi-index `idx` when broadcast:
/// `src` aligns with the trailing dimensions; its dimensions of size 1 repeat.
pub fn broadcast_source(idx: &[usize], src: &[usize]) -> usize {
    let lead = idx.len() - src.len();
    src.iter().enumerate().fold(0, |acc, (k, &d)| {
        let i = if d == 1 { 0 } else { idx[lead + k] };
        acc * d + i
    })
}

/// Splits `dims` around `axis` into (outer, len, inner) counts.
pub fn split(dims: &[usize], axis: usize) -> (usize, usize, usize) {
    (numel(&dims[..axis]), dims[axis], numel(&dims[axis + 1..]))
}
