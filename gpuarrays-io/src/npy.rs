//! NumPy `.npy` files: one array, its element type, shape and memory order in a small
//! header, then the raw elements.
//!
//! Reading takes whatever NumPy wrote: either byte order (big-endian data is swapped on the
//! host), C or Fortran order (Fortran data is uploaded as the transposed array and made
//! row-major on the device), 0-d and empty arrays. The element type comes from the file; a
//! type gpuarrays lacks is [`Error::UnsupportedDType`] naming the descriptor. The data's
//! length is checked against the header before anything is allocated for it, and a stream
//! is read in the pieces it actually holds, so a corrupt header cannot make the reader
//! allocate more than the input's size.
//!
//! Writing produces what `np.save` does: a version 1.0 header (npyz writes it) and
//! little-endian C-order data, from an array of any strides.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;

use gpuarrays_core::{Backend, RawArray};
use npyz::WriterBuilder;

use crate::dtype_map::npy_descr_of;
use crate::error::{Error, Format, Result};
use crate::host::{download, swap_bytes, upload};
use crate::npy_header::{Header, read_header};

/// The most bytes reserved ahead of a stream's data; the rest grows as it arrives.
const MAX_RESERVE: usize = 64 << 20;

/// Reads one `.npy` array from a stream onto `backend`. The element type is the file's.
pub fn read_npy<B: Backend>(backend: &B, reader: impl Read) -> Result<RawArray<B>> {
    read_npy_as(backend, reader, Format::Npy, None)
}

/// Writes `array` (any strides) to a stream as a `.npy` file.
pub fn write_npy<B: Backend>(writer: impl Write, array: &RawArray<B>) -> Result<()> {
    write_npy_as(writer, array, Format::Npy)
}

/// Loads a `.npy` file onto `backend`, like `np.load(path)`.
pub fn load_npy<B: Backend>(backend: &B, path: impl AsRef<Path>) -> Result<RawArray<B>> {
    let path = path.as_ref();
    let file = File::open(path).map_err(Error::io("opening", path))?;
    let file_len = file.metadata().map_err(Error::io("reading", path))?.len();
    read_npy_as(backend, BufReader::new(file), Format::Npy, Some(file_len))
}

/// Saves `array` to a `.npy` file, like `np.save(path, array)` (the path is used as given:
/// no `.npy` is appended).
pub fn save_npy<B: Backend>(path: impl AsRef<Path>, array: &RawArray<B>) -> Result<()> {
    let path = path.as_ref();
    let file = File::create(path).map_err(Error::io("creating", path))?;
    let mut w = BufWriter::new(file);
    write_npy_as(&mut w, array, Format::Npy)?;
    w.flush().map_err(Error::io("writing", path))
}

/// Reads one array; `total_len` is the stream's whole length when known (a file), to refuse
/// a header that declares more data than there is before reading any.
pub(crate) fn read_npy_as<B: Backend>(
    backend: &B,
    mut reader: impl Read,
    format: Format,
    total_len: Option<u64>,
) -> Result<RawArray<B>> {
    let header = read_header(&mut reader, format)?;
    if let Some(total) = total_len {
        let available = total.saturating_sub(header.header_len as u64);
        if available < header.data_len as u64 {
            return Err(Error::Truncated {
                format,
                expected: header.data_len as u64,
                got: available,
            });
        }
    }
    let mut data = Vec::with_capacity(header.data_len.min(MAX_RESERVE));
    reader
        .take(header.data_len as u64)
        .read_to_end(&mut data)
        .map_err(Error::stream(format))?;
    if data.len() < header.data_len {
        return Err(Error::Truncated {
            format,
            expected: header.data_len as u64,
            got: data.len() as u64,
        });
    }
    decode(backend, &header, data)
}

/// Uploads the data of a checked header: byte order fixed on the host, Fortran order on the
/// device.
fn decode<B: Backend>(backend: &B, header: &Header, mut data: Vec<u8>) -> Result<RawArray<B>> {
    if header.big_endian {
        swap_bytes(&mut data, header.dtype);
    }
    if !header.fortran_order || header.dims.len() < 2 {
        return upload(backend, header.dtype, &header.dims, &data);
    }
    // Fortran order is C order of the reversed shape; reversing the axes back gives the
    // array, which `contiguous` makes row-major.
    let reversed: Vec<usize> = header.dims.iter().rev().copied().collect();
    let transposed = upload(backend, header.dtype, &reversed, &data)?;
    let axes: Vec<usize> = (0..reversed.len()).rev().collect();
    Ok(transposed.permute(&axes)?.contiguous()?)
}

pub(crate) fn write_npy_as<B: Backend>(
    mut writer: impl Write,
    array: &RawArray<B>,
    format: Format,
) -> Result<()> {
    let bytes = download(array)?;
    let descr = npy_descr_of(array.dtype()).ok_or_else(|| Error::UnrepresentableDType {
        format,
        dtype: array.dtype(),
        hint: "NumPy has no bfloat16 type: cast to f32 with .cast_dyn(DType::F32), or save as .safetensors (which has BF16)".to_string(),
    })?;
    let descr: npyz::TypeStr = descr
        .parse()
        .map_err(|e| Error::malformed(format, format!("descriptor table: {e}")))?;
    let shape: Vec<u64> = array.dims().iter().map(|&d| d as u64).collect();
    npyz::WriteOptions::new_header_only()
        .dtype(npyz::DType::Plain(descr))
        .shape(&shape)
        .writer(&mut writer)
        .write_header_only()
        .map_err(Error::stream(format))?;
    writer.write_all(&bytes).map_err(Error::stream(format))
}
