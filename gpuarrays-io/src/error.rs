//! The crate's one error type.
//!
//! Reading a file is where user data meets gpuarrays, so a failure must say which file format
//! was wrong, what exactly was wrong, and what to do about it: an unsupported NumPy
//! descriptor names the descriptor and the `astype` that fixes it, a truncated file says how
//! many bytes were missing. Bad input is always an `Err`, never a panic.

use std::fmt;
use std::path::PathBuf;

use gpuarrays_core::DType;

/// The file formats (and in-memory layouts) this crate reads and writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// NumPy's `.npy`.
    Npy,
    /// NumPy's `.npz` (a zip of `.npy` files).
    Npz,
    /// Hugging Face's `.safetensors`.
    Safetensors,
    /// An `ndarray` array in memory.
    Ndarray,
    /// A DLPack tensor in memory.
    Dlpack,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Npy => ".npy",
            Format::Npz => ".npz",
            Format::Safetensors => ".safetensors",
            Format::Ndarray => "ndarray",
            Format::Dlpack => "DLPack",
        })
    }
}

/// Everything that can go wrong reading or writing arrays.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The array operation itself failed (allocation, transfer, a freed buffer, ...).
    #[error(transparent)]
    Core(#[from] gpuarrays_core::Error),

    /// The operating system refused a read or write.
    #[error("{action} {}: {source}", path.display())]
    Io {
        /// What was being done ("opening", "reading", "writing", "creating").
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },

    /// A read or write on a caller's stream failed.
    #[error("{format} stream: {source}")]
    Stream {
        /// The format being read or written.
        format: Format,
        /// The stream's error.
        source: std::io::Error,
    },

    /// The file holds an element type gpuarrays has no counterpart for.
    #[error("{format} element type {descr} is not supported by gpuarrays: {hint}")]
    UnsupportedDType {
        /// The format.
        format: Format,
        /// The type as the file spells it (`'<f2'`, `F16`, ...).
        descr: String,
        /// What to do instead.
        hint: String,
    },

    /// The format cannot hold this gpuarrays element type.
    #[error("{format} cannot store {dtype} arrays: {hint}")]
    UnrepresentableDType {
        /// The format.
        format: Format,
        /// The element type of the array.
        dtype: DType,
        /// What to do instead.
        hint: String,
    },

    /// The bytes are not a valid file of the format.
    #[error("not a valid {format} file: {reason}")]
    Malformed {
        /// The format.
        format: Format,
        /// What was wrong.
        reason: String,
    },

    /// The file ends before the data its header declares.
    #[error(
        "{format} data ends after {got} of the {expected} bytes its header declares: the file is truncated (re-save or re-download it)"
    )]
    Truncated {
        /// The format.
        format: Format,
        /// Bytes the header declares.
        expected: u64,
        /// Bytes present.
        got: u64,
    },

    /// A DLPack tensor lives on another device than the backend it is imported into.
    #[error(
        "{format} tensor is on device (type {}, id {}) but the backend is device (type {}, id {}): move it first (e.g. `.cpu()`, `.to(\"cuda:N\")`) or import into the matching backend",
        got.0, got.1, expected.0, expected.1
    )]
    DeviceMismatch {
        /// The format.
        format: Format,
        /// The backend's (DLPack device type, device id).
        expected: (i32, i32),
        /// The tensor's.
        got: (i32, i32),
    },

    /// The tensor is flagged read-only and the import would allow writes.
    #[error(
        "{format} tensor is read-only: import it with the `_read_only` function (and do not write it) or pass a writable copy"
    )]
    ReadOnly {
        /// The format.
        format: Format,
    },

    /// The caller passed something the format cannot name (an empty or repeated array name).
    #[error("{format}: {reason}")]
    InvalidInput {
        /// The format.
        format: Format,
        /// What was wrong.
        reason: String,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn malformed(format: Format, reason: impl Into<String>) -> Self {
        Error::Malformed {
            format,
            reason: reason.into(),
        }
    }

    pub(crate) fn stream(format: Format) -> impl FnOnce(std::io::Error) -> Self {
        move |source| Error::Stream { format, source }
    }

    pub(crate) fn io(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    }
}
