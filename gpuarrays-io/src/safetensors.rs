//! Hugging Face `.safetensors` files: a JSON header naming each tensor's type, shape and
//! byte range, then the little-endian data; model weights are shared this way.
//!
//! The `safetensors` crate validates the header (its size, every offset, that each byte
//! range matches its shape) before this module touches a tensor, so a corrupt file is
//! [`Error::Malformed`]. Types map as in [`crate::dtype_map`]: safetensors has `C64`
//! (`Complex<f32>`, gpuarrays' `C32`) but no 128-bit complex, so saving a `C64` array is
//! [`Error::UnrepresentableDType`]; the 8-bit floats and the other types gpuarrays lacks load
//! as [`Error::UnsupportedDType`] naming the type. Tensors load in file (offset) order.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use gpuarrays_core::{Backend, RawArray};
use safetensors::tensor::{Dtype as StDtype, SafeTensors, View};

use crate::NamedArrays;
use crate::dtype_map::{dtype_from_safetensors, safetensors_dtype};
use crate::error::{Error, Format, Result};
use crate::host::{download, upload};

/// A `.safetensors` header's `__metadata__`: free-form string pairs (a model's format,
/// framework, ...).
pub type Metadata = Option<HashMap<String, String>>;

/// A downloaded array in the shape `safetensors::serialize` wants.
struct HostTensor {
    dtype: StDtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

impl View for &HostTensor {
    fn dtype(&self) -> StDtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.bytes)
    }
    fn data_len(&self) -> usize {
        self.bytes.len()
    }
}

fn st_error(e: safetensors::SafeTensorError) -> Error {
    match e {
        safetensors::SafeTensorError::IoError(source) => Error::Stream {
            format: Format::Safetensors,
            source,
        },
        other => Error::malformed(Format::Safetensors, other.to_string()),
    }
}

/// Encodes named arrays (any strides) and optional string metadata as `.safetensors` bytes.
pub fn write_safetensors<B: Backend>(
    arrays: &[(&str, &RawArray<B>)],
    metadata: Metadata,
) -> Result<Vec<u8>> {
    let mut tensors = Vec::with_capacity(arrays.len());
    let mut seen = std::collections::HashSet::new();
    for (name, array) in arrays {
        if !seen.insert(*name) {
            return Err(Error::InvalidInput {
                format: Format::Safetensors,
                reason: format!(
                    "the name {name:?} is given twice: a file holds one tensor per name"
                ),
            });
        }
        let dtype = safetensors_dtype(array.dtype())?;
        tensors.push((
            name.to_string(),
            HostTensor {
                dtype,
                shape: array.dims().to_vec(),
                bytes: download(array)?,
            },
        ));
    }
    safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata).map_err(st_error)
}

/// Decodes `.safetensors` bytes onto `backend`: the tensors in file order, and the
/// header's `__metadata__` map if it has one.
pub fn read_safetensors<B: Backend>(
    backend: &B,
    bytes: &[u8],
) -> Result<(NamedArrays<B>, Metadata)> {
    let (_, meta) = SafeTensors::read_metadata(bytes).map_err(st_error)?;
    let file = SafeTensors::deserialize(bytes).map_err(st_error)?;
    let mut out = Vec::new();
    for name in meta.offset_keys() {
        let view = file.tensor(&name).map_err(st_error)?;
        let dtype = dtype_from_safetensors(view.dtype()).map_err(|e| match e {
            Error::UnsupportedDType {
                format,
                descr,
                hint,
            } => Error::UnsupportedDType {
                format,
                descr: format!("{descr} (tensor {name:?})"),
                hint,
            },
            other => other,
        })?;
        let array = upload(backend, dtype, view.shape(), view.data())?;
        out.push((name, array));
    }
    Ok((out, meta.metadata().clone()))
}

/// Saves named arrays to a `.safetensors` file, with optional string metadata (the header's
/// `__metadata__`), like `safetensors.numpy.save_file(dict, path, metadata)`.
pub fn save_safetensors<B: Backend>(
    path: impl AsRef<Path>,
    arrays: &[(&str, &RawArray<B>)],
    metadata: Metadata,
) -> Result<()> {
    let path = path.as_ref();
    let bytes = write_safetensors(arrays, metadata)?;
    std::fs::write(path, bytes).map_err(Error::io("writing", path))
}

/// Loads every tensor of a `.safetensors` file onto `backend`, in file order, like
/// `safetensors.numpy.load_file(path)`. [`load_safetensors_with_metadata`] also returns the
/// metadata.
pub fn load_safetensors<B: Backend>(backend: &B, path: impl AsRef<Path>) -> Result<NamedArrays<B>> {
    Ok(load_safetensors_with_metadata(backend, path)?.0)
}

/// [`load_safetensors`], with the file's string metadata.
pub fn load_safetensors_with_metadata<B: Backend>(
    backend: &B,
    path: impl AsRef<Path>,
) -> Result<(NamedArrays<B>, Metadata)> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(Error::io("reading", path))?;
    read_safetensors(backend, &bytes)
}
