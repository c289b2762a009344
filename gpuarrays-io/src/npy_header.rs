//! The `.npy` header: magic, version, length and the Python dict that describes the array.
//!
//! npyz's own header reader (`NpyHeader::from_reader`) is not used on untrusted bytes
//! because of three things it does with them: it allocates whatever the length field says
//! (up to 4 GiB for a version-2 header) before reading, it multiplies the shape with plain
//! `u64` arithmetic (a debug build panics on `(2**40, 2**40, 2**40)`), and it hands arbitrarily
//! nested brackets to a recursive parser. This module reads the preamble itself, caps the
//! header length, rejects deep nesting, then parses the dict with `py_literal` (the parser
//! npyz uses) and checks the shape with overflow-checked arithmetic. npyz still decides what
//! a descriptor means ([`npyz::TypeStr`]).

use std::io::Read;

use gpuarrays_core::DType;
use py_literal::Value;

use crate::dtype_map::{dtype_from_npy, npy_structured_hint};
use crate::error::{Error, Format, Result};
use crate::host::checked_numel;

/// The longest header accepted. NumPy's `np.load` refuses headers over 10,000 bytes unless
/// told otherwise (`max_header_size`); a plain array's header is under 200 bytes. The cap
/// bounds what a corrupt length field can make this reader allocate.
pub(crate) const MAX_HEADER_LEN: usize = 1 << 16;

/// The deepest bracket nesting accepted in the header dict (a plain array's has 2).
const MAX_NESTING: usize = 32;

/// What the header says about the data that follows it.
#[derive(Debug, Clone)]
pub(crate) struct Header {
    pub(crate) dtype: DType,
    pub(crate) big_endian: bool,
    pub(crate) fortran_order: bool,
    pub(crate) dims: Vec<usize>,
    /// Bytes of data that follow the header (element count × element size, checked).
    pub(crate) data_len: usize,
    /// Bytes of the preamble and header together (where the data starts).
    pub(crate) header_len: usize,
}

/// Reads the preamble and header from `r`, leaving it at the first data byte.
pub(crate) fn read_header(r: &mut impl Read, format: Format) -> Result<Header> {
    let bad = |reason: String| Error::malformed(format, reason);
    let mut magic = [0u8; 8];
    read_exact_or(r, &mut magic, format, || {
        bad("shorter than the 8-byte .npy preamble (\\x93NUMPY and a version)".into())
    })?;
    if &magic[..6] != b"\x93NUMPY" {
        return Err(bad(
            "it does not start with \\x93NUMPY (is it a .npz, a pickle or a text file?)".into(),
        ));
    }
    let (major, minor) = (magic[6], magic[7]);
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => {
            return Err(bad(format!(
                "format version {major}.{minor} is unknown (NumPy writes 1.0, 2.0 and 3.0)"
            )));
        }
    };
    let mut len_buf = [0u8; 4];
    read_exact_or(r, &mut len_buf[..len_bytes], format, || {
        bad("it ends inside the header length".into())
    })?;
    let text_len = usize::try_from(u32::from_le_bytes(len_buf))
        .map_err(|_| bad("header length overflows usize".into()))?;
    if text_len > MAX_HEADER_LEN {
        return Err(bad(format!(
            "the header claims {text_len} bytes, over the {MAX_HEADER_LEN}-byte limit (the file is corrupt)"
        )));
    }
    let mut text = Vec::with_capacity(text_len);
    r.by_ref()
        .take(text_len as u64)
        .read_to_end(&mut text)
        .map_err(Error::stream(format))?;
    if text.len() < text_len {
        return Err(bad(format!(
            "it ends inside the header ({} of {text_len} bytes)",
            text.len()
        )));
    }
    let mut header = parse_dict(&text, format)?;
    header.header_len = 8 + len_bytes + text_len;
    Ok(header)
}

fn read_exact_or(
    r: &mut impl Read,
    buf: &mut [u8],
    format: Format,
    on_eof: impl FnOnce() -> Error,
) -> Result<()> {
    r.read_exact(buf).map_err(|e| {
        if e.kind() == std::io::ErrorKind::UnexpectedEof {
            on_eof()
        } else {
            Error::Stream { format, source: e }
        }
    })
}

/// Parses `{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }`.
fn parse_dict(text: &[u8], format: Format) -> Result<Header> {
    let bad = |reason: String| Error::malformed(format, reason);
    let mut depth = 0usize;
    for &b in text {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(bad(format!(
                        "the header nests brackets over {MAX_NESTING} deep"
                    )));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    let text = text.strip_suffix(b"\n").unwrap_or(text);
    let text = std::str::from_utf8(text).map_err(|_| bad("the header is not UTF-8".into()))?;
    let value: Value = text
        .trim_end()
        .parse()
        .map_err(|e| bad(format!("the header is not a Python literal: {e}")))?;
    let Value::Dict(entries) = value else {
        return Err(bad("the header is not a dict".into()));
    };
    let get = |key: &str| {
        entries.iter().find_map(|(k, v)| match k {
            Value::String(s) if s == key => Some(v),
            _ => None,
        })
    };
    let missing = |key: &str| bad(format!("the header has no '{key}'"));
    let descr = match get("descr").ok_or_else(|| missing("descr"))? {
        Value::String(s) => s.clone(),
        Value::List(_) => {
            return Err(Error::UnsupportedDType {
                format,
                descr: "a structured dtype".into(),
                hint: npy_structured_hint(),
            });
        }
        other => return Err(bad(format!("'descr' is {other:?}, not a string"))),
    };
    let ty: npyz::TypeStr = descr
        .parse()
        .map_err(|e| bad(format!("'descr' {descr:?} is not a NumPy type string: {e}")))?;
    let (dtype, big_endian) = dtype_from_npy(&ty, format)?;
    let fortran_order = match get("fortran_order").ok_or_else(|| missing("fortran_order"))? {
        Value::Boolean(b) => *b,
        other => {
            return Err(bad(format!(
                "'fortran_order' is {other:?}, not True or False"
            )));
        }
    };
    let dims = match get("shape").ok_or_else(|| missing("shape"))? {
        Value::Tuple(items) | Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::Integer(n) => usize::try_from(n)
                    .map_err(|_| bad(format!("shape entry {n} is negative or overflows usize"))),
                other => Err(bad(format!("shape entry {other:?} is not an integer"))),
            })
            .collect::<Result<Vec<usize>>>()?,
        other => return Err(bad(format!("'shape' is {other:?}, not a tuple"))),
    };
    let data_len = checked_numel(&dims)
        .and_then(|n| n.checked_mul(dtype.size()))
        .ok_or_else(|| {
            bad(format!(
                "shape {dims:?} of {dtype} is more bytes than this machine can address"
            ))
        })?;
    Ok(Header {
        dtype,
        big_endian,
        fortran_order,
        dims,
        data_len,
        header_len: 0,
    })
}
