//! NumPy `.npz` archives: a zip holding one `.npy` file per named array, what `np.savez`
//! and `np.savez_compressed` write and `np.load` reads back as a dict.
//!
//! Each member is read by the `.npy` reader (same guards, same types); members whose names
//! do not end in `.npy` are skipped, as `np.load` does not decode them either. Arrays come
//! back in archive order, named without the `.npy` suffix.

use std::collections::HashSet;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use gpuarrays_core::{Backend, RawArray};
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use crate::NamedArrays;
use crate::error::{Error, Format, Result};
use crate::npy::{read_npy_as, write_npy_as};

/// A zip failure as this crate's error.
fn zip_error(e: zip::result::ZipError) -> Error {
    match e {
        zip::result::ZipError::Io(source) => Error::Stream {
            format: Format::Npz,
            source,
        },
        other => Error::malformed(Format::Npz, other.to_string()),
    }
}

/// Reads every array of an `.npz` archive from a seekable stream.
pub fn read_npz<B: Backend>(backend: &B, reader: impl Read + Seek) -> Result<NamedArrays<B>> {
    let mut archive = ZipArchive::new(reader).map_err(zip_error)?;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let member = archive.by_index(i).map_err(zip_error)?;
        let Some(name) = member.name().strip_suffix(".npy").map(str::to_string) else {
            continue;
        };
        if member.is_dir() {
            continue;
        }
        // The member's declared size bounds what its header may claim (and so what is
        // allocated), whatever the compressed stream would inflate to.
        let declared = member.size();
        let array =
            read_npy_as(backend, member, Format::Npz, Some(declared)).map_err(|e| match e {
                Error::Malformed { format, reason } => Error::Malformed {
                    format,
                    reason: format!("member {name}.npy: {reason}"),
                },
                other => other,
            })?;
        out.push((name, array));
    }
    Ok(out)
}

/// Writes named arrays as an `.npz` archive (stored, like `np.savez`; `compressed` deflates
/// each member, like `np.savez_compressed`).
pub fn write_npz<B: Backend>(
    writer: impl Write + Seek,
    arrays: &[(&str, &RawArray<B>)],
    compressed: bool,
) -> Result<()> {
    let mut seen = HashSet::new();
    for (name, _) in arrays {
        if name.is_empty() {
            return Err(Error::InvalidInput {
                format: Format::Npz,
                reason: "an array name is empty: np.load could not look it up".into(),
            });
        }
        if !seen.insert(*name) {
            return Err(Error::InvalidInput {
                format: Format::Npz,
                reason: format!(
                    "the name {name:?} is given twice: an archive holds one array per name"
                ),
            });
        }
    }
    let method = if compressed {
        CompressionMethod::Deflated
    } else {
        CompressionMethod::Stored
    };
    let mut zip = ZipWriter::new(writer);
    for (name, array) in arrays {
        let bytes = array.len().saturating_mul(array.dtype().size());
        let options = SimpleFileOptions::default()
            .compression_method(method)
            .large_file(bytes >= u32::MAX as usize - 4096);
        zip.start_file(format!("{name}.npy"), options)
            .map_err(zip_error)?;
        write_npy_as(&mut zip, array, Format::Npz)?;
    }
    zip.finish().map_err(zip_error)?;
    Ok(())
}

/// Loads every array of an `.npz` file, like `dict(np.load(path))`, in archive order.
pub fn load_npz<B: Backend>(backend: &B, path: impl AsRef<Path>) -> Result<NamedArrays<B>> {
    let path = path.as_ref();
    let file = File::open(path).map_err(Error::io("opening", path))?;
    read_npz(backend, BufReader::new(file))
}

/// Saves named arrays to an `.npz` file, like `np.savez(path, name=array, ...)`.
pub fn save_npz<B: Backend>(path: impl AsRef<Path>, arrays: &[(&str, &RawArray<B>)]) -> Result<()> {
    save_npz_with(path, arrays, false)
}

/// Saves named arrays to a deflated `.npz` file, like `np.savez_compressed`.
pub fn save_npz_compressed<B: Backend>(
    path: impl AsRef<Path>,
    arrays: &[(&str, &RawArray<B>)],
) -> Result<()> {
    save_npz_with(path, arrays, true)
}

fn save_npz_with<B: Backend>(
    path: impl AsRef<Path>,
    arrays: &[(&str, &RawArray<B>)],
    compressed: bool,
) -> Result<()> {
    let path = path.as_ref();
    let file = File::create(path).map_err(Error::io("creating", path))?;
    let mut w = BufWriter::new(file);
    write_npz(&mut w, arrays, compressed)?;
    w.flush().map_err(Error::io("writing", path))
}
