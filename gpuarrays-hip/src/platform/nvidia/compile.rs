//! Run-time compilation with NVRTC (to a cubin for the device's `sm_XY`).

use super::{NvidiaPlatform, guarded};
use crate::error::{HipError, Result};
use crate::platform::{CompileRequest, CompiledProgram, PlatformKind};
use cudarc::nvrtc::sys as rtc;
use std::ffi::{CStr, CString};

struct Program(rtc::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: destroys a program created by nvrtcCreateProgram, exactly once.
        let _ = guarded("nvrtcDestroyProgram", || unsafe {
            rtc::nvrtcDestroyProgram(&mut self.0)
        });
    }
}

fn rtc_call(
    req: &CompileRequest<'_>,
    call: &'static str,
    f: impl FnOnce() -> rtc::nvrtcResult,
) -> Result<()> {
    let r = guarded(call, f)?;
    if r == rtc::nvrtcResult::NVRTC_SUCCESS {
        return Ok(());
    }
    // SAFETY: nvrtcGetErrorString returns a static string for any result code.
    let msg = guarded("nvrtcGetErrorString", || unsafe {
        rtc::nvrtcGetErrorString(r)
    })
    .ok()
    .filter(|p| !p.is_null())
    // SAFETY: non-null static NUL-terminated string from NVRTC.
    .map(|p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    .unwrap_or_else(|| format!("nvrtc error {}", r as i32));
    Err(compile_error(req, call, msg))
}

fn compile_error(req: &CompileRequest<'_>, call: &'static str, log: String) -> HipError {
    HipError::Compile {
        platform: PlatformKind::Nvidia,
        program: req.name.to_string(),
        arch: req.arch.to_string(),
        call,
        log,
    }
}

fn cstring(req: &CompileRequest<'_>, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| compile_error(req, "CString::new", format!("{s:?} contains NUL")))
}

impl NvidiaPlatform {
    pub(super) fn nvrtc_version(&self) -> Result<String> {
        let (mut major, mut minor) = (0i32, 0i32);
        // SAFETY: valid out-pointers.
        let r = guarded("nvrtcVersion", || unsafe {
            rtc::nvrtcVersion(&mut major, &mut minor)
        })?;
        if r != rtc::nvrtcResult::NVRTC_SUCCESS {
            return Err(HipError::Compile {
                platform: PlatformKind::Nvidia,
                program: String::new(),
                arch: String::new(),
                call: "nvrtcVersion",
                log: format!("error {}", r as i32),
            });
        }
        Ok(format!("nvrtc {major}.{minor}"))
    }

    pub(super) fn nvrtc_compile(&self, req: &CompileRequest<'_>) -> Result<CompiledProgram> {
        let src = cstring(req, req.source)?;
        let name = cstring(req, req.name)?;
        let mut prog = Program(std::ptr::null_mut());
        // SAFETY: `src`/`name` are NUL-terminated; no headers are passed.
        rtc_call(req, "nvrtcCreateProgram", || unsafe {
            rtc::nvrtcCreateProgram(
                &mut prog.0,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        })?;
        let names: Vec<CString> = req
            .kernel_names
            .iter()
            .map(|k| cstring(req, k))
            .collect::<Result<_>>()?;
        for n in &names {
            // SAFETY: `prog` is live and `n` NUL-terminated.
            rtc_call(req, "nvrtcAddNameExpression", || unsafe {
                rtc::nvrtcAddNameExpression(prog.0, n.as_ptr())
            })?;
        }
        let mut opts = vec![format!("--gpu-architecture={}", req.arch)];
        opts.extend(req.options.iter().map(|o| o.to_string()));
        let opts: Vec<CString> = opts
            .iter()
            .map(|o| cstring(req, o))
            .collect::<Result<_>>()?;
        let opt_ptrs: Vec<*const std::ffi::c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `opt_ptrs` holds `len` valid NUL-terminated strings that outlive the call.
        let compiled = guarded("nvrtcCompileProgram", || unsafe {
            rtc::nvrtcCompileProgram(prog.0, opt_ptrs.len() as i32, opt_ptrs.as_ptr())
        })?;
        let log = self.program_log(&prog);
        if compiled != rtc::nvrtcResult::NVRTC_SUCCESS {
            return Err(compile_error(req, "nvrtcCompileProgram", log));
        }
        let mut size = 0usize;
        // SAFETY: valid out-pointer; `prog` compiled successfully.
        rtc_call(req, "nvrtcGetCUBINSize", || unsafe {
            rtc::nvrtcGetCUBINSize(prog.0, &mut size)
        })?;
        let mut binary = vec![0u8; size];
        // SAFETY: `binary` has the size NVRTC reported.
        rtc_call(req, "nvrtcGetCUBIN", || unsafe {
            rtc::nvrtcGetCUBIN(prog.0, binary.as_mut_ptr().cast())
        })?;
        let mut lowered_names = Vec::with_capacity(names.len());
        for (k, n) in req.kernel_names.iter().zip(&names) {
            let mut p: *const std::ffi::c_char = std::ptr::null();
            // SAFETY: `n` was added as a name expression before compiling.
            rtc_call(req, "nvrtcGetLoweredName", || unsafe {
                rtc::nvrtcGetLoweredName(prog.0, n.as_ptr(), &mut p)
            })?;
            if p.is_null() {
                return Err(compile_error(
                    req,
                    "nvrtcGetLoweredName",
                    format!("no symbol for {k}"),
                ));
            }
            // SAFETY: NVRTC returns a NUL-terminated string owned by the live program.
            let l = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
            lowered_names.push((k.to_string(), l));
        }
        Ok(CompiledProgram {
            binary,
            lowered_names,
            log,
        })
    }

    fn program_log(&self, prog: &Program) -> String {
        let mut size = 0usize;
        // SAFETY: valid out-pointer.
        let ok = guarded("nvrtcGetProgramLogSize", || unsafe {
            rtc::nvrtcGetProgramLogSize(prog.0, &mut size)
        });
        if !matches!(ok, Ok(rtc::nvrtcResult::NVRTC_SUCCESS)) || size == 0 {
            return String::new();
        }
        let mut buf = vec![0u8; size];
        // SAFETY: `buf` has the size NVRTC reported.
        let ok = guarded("nvrtcGetProgramLog", || unsafe {
            rtc::nvrtcGetProgramLog(prog.0, buf.as_mut_ptr().cast())
        });
        if !matches!(ok, Ok(rtc::nvrtcResult::NVRTC_SUCCESS)) {
            return String::new();
        }
        String::from_utf8_lossy(&buf)
            .trim_end_matches('\0')
            .trim()
            .to_string()
    }
}
