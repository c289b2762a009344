//! The subscripts of `einsum` (NumPy's notation): parsed and checked against the operands'
//! shapes before anything runs on the device.

use crate::error::{Error, Result};

const OP: &str = "einsum";

/// Parsed subscripts: one letter per axis of each operand, and the output's letters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Subscripts {
    pub inputs: Vec<Vec<u8>>,
    pub output: Vec<u8>,
}

/// Parses `spec` for operands of dimensions `dims` (one slice per operand) and checks it:
/// one ASCII letter per axis, at most one `->`, output letters distinct and each present in
/// an input (`InvalidArgument` otherwise), as many letters as dimensions (`RankMismatch`),
/// every letter of one length wherever it appears (`ShapeMismatch`). Spaces are ignored. Without
/// `->` the output is the letters that appear exactly once, in ASCII order (upper case
/// before lower case), as NumPy's implicit mode.
pub(crate) fn parse(spec: &str, dims: &[&[usize]]) -> Result<Subscripts> {
    let bad = |reason: String| Error::invalid_arg(OP, reason);
    let spec: String = spec.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    if spec.contains('.') {
        return Err(bad(
            "the ellipsis `...` (broadcast axes) is not supported; name every axis".into(),
        ));
    }
    let (lhs, rhs) = match spec.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (spec.as_str(), None),
    };
    let letters = |part: &str| -> Result<Vec<u8>> {
        match part.bytes().find(|b| !b.is_ascii_alphabetic()) {
            Some(b) => Err(bad(format!(
                "`{}` in \"{spec}\" is not a subscript letter (a-z, A-Z)",
                char::from(b)
            ))),
            None => Ok(part.bytes().collect()),
        }
    };
    let inputs = lhs.split(',').map(letters).collect::<Result<Vec<_>>>()?;
    if inputs.len() != dims.len() {
        return Err(bad(format!(
            "\"{spec}\" names {} operands, {} given",
            inputs.len(),
            dims.len()
        )));
    }
    // Per letter: its length and the operand it was first seen in.
    let mut length = [None::<(usize, usize)>; 128];
    let mut count = [0usize; 128];
    for (k, (letters, d)) in inputs.iter().zip(dims).enumerate() {
        if letters.len() != d.len() {
            return Err(Error::RankMismatch {
                op: format!("{OP} (operand {k} has subscripts \"{}\")", as_str(letters)),
                expected: format!("{} dimensions", letters.len()),
                got: d.len(),
            });
        }
        for (&l, &n) in letters.iter().zip(d.iter()) {
            let slot = &mut length[usize::from(l)];
            match *slot {
                Some((m, first)) if m != n => {
                    return Err(Error::ShapeMismatch {
                        op: format!(
                            "{OP} (subscript `{}` has lengths {m} and {n}; lengths must be \
                             equal, size-1 axes do not broadcast)",
                            char::from(l)
                        ),
                        lhs: dims[first].to_vec(),
                        rhs: d.to_vec(),
                    });
                }
                Some(_) => {}
                None => *slot = Some((n, k)),
            }
            count[usize::from(l)] += 1;
        }
    }
    let output = match rhs {
        Some(r) => {
            let out = letters(r)?;
            for (i, &l) in out.iter().enumerate() {
                if out[..i].contains(&l) {
                    return Err(bad(format!(
                        "output subscript `{}` appears twice",
                        char::from(l)
                    )));
                }
                if count[usize::from(l)] == 0 {
                    return Err(bad(format!(
                        "output subscript `{}` is not an input subscript",
                        char::from(l)
                    )));
                }
            }
            out
        }
        None => (0u8..128).filter(|&l| count[usize::from(l)] == 1).collect(),
    };
    Ok(Subscripts { inputs, output })
}

pub(crate) fn as_str(letters: &[u8]) -> String {
    letters.iter().map(|&b| char::from(b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;

    fn kind(spec: &str, dims: &[&[usize]]) -> ErrorKind {
        match parse(spec, dims) {
            Ok(s) => panic!("{spec} parsed as {s:?}"),
            Err(e) => e.kind(),
        }
    }

    #[test]
    fn implicit_output_is_single_letters_in_ascii_order() {
        let s = parse("ij,jk", &[&[2, 3], &[3, 4]]).map(|s| s.output);
        assert_eq!(s.ok(), Some(b"ik".to_vec()));
        let s = parse("ba", &[&[2, 3]]).map(|s| s.output);
        assert_eq!(s.ok(), Some(b"ab".to_vec()));
        let s = parse("aB", &[&[2, 3]]).map(|s| s.output);
        assert_eq!(s.ok(), Some(b"Ba".to_vec()));
        let s = parse("ii", &[&[3, 3]]).map(|s| s.output);
        assert_eq!(s.ok(), Some(Vec::new()));
        let s = parse(" i j -> j ", &[&[2, 3]]).map(|s| s.output);
        assert_eq!(s.ok(), Some(b"j".to_vec()));
    }

    #[test]
    fn bad_subscripts_are_typed_errors() {
        let m: &[usize] = &[2, 3];
        assert_eq!(kind("...ij->ij", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("i1->i", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("ij->ii", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("ij->k", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("ij,jk->ik", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("ij->i->j", &[m]), ErrorKind::InvalidArgument);
        assert_eq!(kind("i->i", &[m]), ErrorKind::RankMismatch);
        assert_eq!(kind("ii->i", &[m]), ErrorKind::ShapeMismatch);
        assert_eq!(kind("ij,jk->ik", &[m, &[4, 2]]), ErrorKind::ShapeMismatch);
    }
}
