//! Exports whose deleter counts its calls: the producer's deleter and context are moved into
//! a small box, and the managed tensor gets a deleter that counts, puts them back and calls
//! the original. A consumer sees an ordinary DLPack tensor.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};

use gpuarrays_io::dlpack::ffi::{DLManagedTensor, DLManagedTensorVersioned};
use gpuarrays_io::dlpack::{DlpackLegacyTensor, DlpackTensor};

static EXPORTS: AtomicU64 = AtomicU64::new(0);
static DELETER_CALLS: AtomicU64 = AtomicU64::new(0);

/// How many tensors this library has exported (handed out) so far.
#[unsafe(no_mangle)]
pub extern "C" fn ga_exports() -> u64 {
    EXPORTS.load(Ordering::SeqCst)
}

/// How many times consumers have called the deleter of this library's exports so far.
#[unsafe(no_mangle)]
pub extern "C" fn ga_deleter_calls() -> u64 {
    DELETER_CALLS.load(Ordering::SeqCst)
}

/// The producer's own context and deleter, while the counting deleter stands in.
struct Original<M> {
    ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut M)>,
}

macro_rules! counting {
    ($wrap:ident, $deleter:ident, $owner:ty, $managed:ty) => {
        /// Hands the tensor out with the counting deleter in place of its own.
        pub(crate) fn $wrap(tensor: $owner) -> *mut $managed {
            let m = tensor.into_raw();
            // SAFETY: `m` is the live managed tensor `into_raw` just handed to this function,
            // which owns it until it returns it; nothing else reads it meanwhile.
            unsafe {
                let original = Box::new(Original {
                    ctx: (*m).manager_ctx,
                    deleter: (*m).deleter,
                });
                (*m).manager_ctx = Box::into_raw(original).cast();
                (*m).deleter = Some($deleter);
            }
            EXPORTS.fetch_add(1, Ordering::SeqCst);
            m
        }

        /// Counts the call, restores the producer's context and deleter, and calls it.
        ///
        /// # Safety
        /// `m` is null or a tensor from the function above, not yet deleted.
        unsafe extern "C" fn $deleter(m: *mut $managed) {
            if m.is_null() {
                return;
            }
            DELETER_CALLS.fetch_add(1, Ordering::SeqCst);
            // SAFETY: `m` is live and deleted once (the caller's contract); its context is
            // the box made above, taken back once here.
            unsafe {
                let original = Box::from_raw((*m).manager_ctx.cast::<Original<$managed>>());
                (*m).manager_ctx = original.ctx;
                (*m).deleter = original.deleter;
                if let Some(d) = original.deleter {
                    d(m);
                }
            }
        }
    };
}

counting!(
    versioned,
    delete_versioned,
    DlpackTensor,
    DLManagedTensorVersioned
);
counting!(legacy, delete_legacy, DlpackLegacyTensor, DLManagedTensor);
