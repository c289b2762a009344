//! Keeping the Vulkan loader's Wayland probe quiet on machines without a display.
//!
//! Mesa's device-select layer (an implicit Vulkan layer that `mesa-vulkan-drivers` installs)
//! connects to the Wayland display to find the display's GPU whenever the application enables
//! `VK_KHR_wayland_surface`, which wgpu does whenever the driver offers it. Without
//! `XDG_RUNTIME_DIR` (a headless machine, CI, a service) libwayland-client's connect prints
//! "error: XDG_RUNTIME_DIR is invalid or not set in the environment." to stderr, through its
//! log handler, for every Vulkan instance: on every run of a program that merely looks for a
//! GPU, even one that then computes on the CPU.
//!
//! On such a machine no Wayland client can connect, so before the first instance is created
//! libwayland-client's log (where the library is installed) goes to `tracing::debug!` instead,
//! through `wl_log_set_handler_client`. Where `XDG_RUNTIME_DIR` is set (a desktop session)
//! nothing changes: the program's own Wayland logging stays as it is.

use std::sync::Once;

/// Routes libwayland-client's log to `tracing` when no Wayland session can exist here (see
/// the module documentation). Idempotent and cheap after the first call.
pub(crate) fn quiet_headless_wayland() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let session = std::env::var_os("XDG_RUNTIME_DIR")
            .is_some_and(|d| std::path::Path::new(&d).is_absolute());
        if !session {
            imp::route_log_to_tracing();
        }
    });
}

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
mod imp {
    use std::ffi::{CStr, c_char, c_void};

    /// libwayland's `wl_log_func_t`: `void (*)(const char *fmt, va_list args)`. The `va_list`
    /// reaches the function as a pointer on x86-64 (an array type) and on AArch64 (a 32-byte
    /// struct, passed by reference); it is never read here.
    type LogFn = unsafe extern "C" fn(*const c_char, *mut c_void);
    type SetHandler = unsafe extern "C" fn(LogFn);

    pub(super) fn route_log_to_tracing() {
        // SAFETY: loading libwayland-client runs only its own initialisers (it has no
        // constructor with side effects beyond its globals); it is never unloaded (below), so
        // the handler installed in it stays valid for the process.
        let lib = match unsafe { libloading::Library::new("libwayland-client.so.0") } {
            Ok(lib) => lib,
            Err(e) => {
                tracing::trace!(error = %e, "no libwayland-client: nothing to quiet");
                return;
            }
        };
        // SAFETY: `wl_log_set_handler_client` has this signature in every libwayland-client
        // release (wayland-client-core.h); the symbol is looked up by name in that library.
        let set = match unsafe { lib.get::<SetHandler>(b"wl_log_set_handler_client\0") } {
            Ok(set) => set,
            Err(e) => {
                tracing::debug!(error = %e, "libwayland-client without wl_log_set_handler_client");
                return;
            }
        };
        // SAFETY: `log_to_tracing` matches `wl_log_func_t` (see `LogFn`) and lives for the
        // whole program; libwayland stores the pointer in a global and calls it for messages.
        unsafe { set(log_to_tracing) };
        // Never unloaded: the handler must stay valid as long as the library is loaded.
        std::mem::forget(lib);
    }

    /// Logs libwayland's format string (its arguments, a `va_list`, are not expanded).
    unsafe extern "C" fn log_to_tracing(fmt: *const c_char, _args: *mut c_void) {
        if fmt.is_null() {
            return;
        }
        // SAFETY: libwayland passes a NUL-terminated format string that lives for the call.
        let text = unsafe { CStr::from_ptr(fmt) }.to_string_lossy();
        tracing::debug!(target: "gpuarrays_wgpu::wayland", "libwayland-client: {}", text.trim_end());
    }
}

#[cfg(not(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
)))]
mod imp {
    /// Elsewhere there is no libwayland-client to quiet.
    pub(super) fn route_log_to_tracing() {}
}
