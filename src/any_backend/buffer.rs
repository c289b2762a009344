//! `AnyBuffer`: the buffer of [`AnyBackend`](super::AnyBackend), one variant per backend
//! (the enum, `kind` and `len` are generated from the table in `registry.rs`).

use super::AnyBuffer;

impl AnyBuffer {
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for AnyBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AnyBuffer::{}({} bytes)", self.kind(), self.len())
    }
}
