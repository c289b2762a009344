//! Run-time compilation with hiprtc (to a code object for the device's `gfxNNN`).

use super::AmdPlatform;
use super::ffi::{RtcFns, RtcProgram};
use crate::error::{HipError, Result};
use crate::platform::{CompileRequest, CompiledProgram, PlatformKind};
use std::ffi::{CStr, CString, c_char};

struct Program<'a>(RtcProgram, &'a RtcFns);

impl Drop for Program<'_> {
    fn drop(&mut self) {
        // SAFETY: destroys a program created by hiprtcCreateProgram, exactly once.
        unsafe { (self.1.hiprtcDestroyProgram)(&mut self.0) };
    }
}

fn err(req: &CompileRequest<'_>, call: &'static str, log: String) -> HipError {
    HipError::Compile {
        platform: PlatformKind::Amd,
        program: req.name.into(),
        arch: req.arch.into(),
        call,
        log,
    }
}

fn cstring(req: &CompileRequest<'_>, s: &str) -> Result<CString> {
    CString::new(s).map_err(|_| err(req, "CString::new", format!("{s:?} contains NUL")))
}

fn check(rtc: &RtcFns, req: &CompileRequest<'_>, call: &'static str, code: i32) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    // SAFETY: returns a static string for any result code.
    let p = unsafe { (rtc.hiprtcGetErrorString)(code) };
    let msg = if p.is_null() {
        format!("hiprtc error {code}")
    } else {
        // SAFETY: non-null static NUL-terminated string.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    };
    Err(err(req, call, msg))
}

impl AmdPlatform {
    pub(super) fn rtc_version(&self) -> Result<String> {
        let rtc = self.rtc()?;
        let (mut major, mut minor) = (0, 0);
        // SAFETY: valid out-pointers.
        let code = unsafe { (rtc.hiprtcVersion)(&mut major, &mut minor) };
        let mut rt = 0;
        // SAFETY: valid out-pointer.
        let _ = unsafe { (self.f().hipRuntimeGetVersion)(&mut rt) };
        if code != 0 {
            return Err(HipError::Compile {
                platform: PlatformKind::Amd,
                program: String::new(),
                arch: String::new(),
                call: "hiprtcVersion",
                log: format!("error {code}"),
            });
        }
        Ok(format!("hiprtc {major}.{minor} (HIP runtime {rt})"))
    }

    pub(super) fn rtc_compile(&self, req: &CompileRequest<'_>) -> Result<CompiledProgram> {
        let rtc = self.rtc()?;
        let src = cstring(req, req.source)?;
        let name = cstring(req, req.name)?;
        let mut prog = Program(std::ptr::null_mut(), rtc);
        // SAFETY: NUL-terminated strings; no headers.
        check(rtc, req, "hiprtcCreateProgram", unsafe {
            (rtc.hiprtcCreateProgram)(
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
            // SAFETY: live program, NUL-terminated name expression.
            check(rtc, req, "hiprtcAddNameExpression", unsafe {
                (rtc.hiprtcAddNameExpression)(prog.0, n.as_ptr())
            })?;
        }
        let mut opts = vec![format!("--offload-arch={}", req.arch)];
        opts.extend(req.options.iter().map(|o| o.to_string()));
        let opts: Vec<CString> = opts
            .iter()
            .map(|o| cstring(req, o))
            .collect::<Result<_>>()?;
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `ptrs` holds valid strings that outlive the call.
        let code = unsafe { (rtc.hiprtcCompileProgram)(prog.0, ptrs.len() as i32, ptrs.as_ptr()) };
        let log = program_log(rtc, &prog);
        if code != 0 {
            return Err(err(req, "hiprtcCompileProgram", log));
        }
        let mut size = 0usize;
        // SAFETY: valid out-pointer.
        check(rtc, req, "hiprtcGetCodeSize", unsafe {
            (rtc.hiprtcGetCodeSize)(prog.0, &mut size)
        })?;
        let mut binary = vec![0u8; size];
        // SAFETY: `binary` has the reported size.
        check(rtc, req, "hiprtcGetCode", unsafe {
            (rtc.hiprtcGetCode)(prog.0, binary.as_mut_ptr().cast())
        })?;
        let mut lowered_names = Vec::new();
        for (k, n) in req.kernel_names.iter().zip(&names) {
            let mut l: *const c_char = std::ptr::null();
            // SAFETY: `n` was added before compiling; valid out-pointer.
            check(rtc, req, "hiprtcGetLoweredName", unsafe {
                (rtc.hiprtcGetLoweredName)(prog.0, n.as_ptr(), &mut l)
            })?;
            if l.is_null() {
                return Err(err(
                    req,
                    "hiprtcGetLoweredName",
                    format!("no symbol for {k}"),
                ));
            }
            // SAFETY: NUL-terminated string owned by the live program.
            lowered_names.push((
                k.to_string(),
                unsafe { CStr::from_ptr(l) }.to_string_lossy().into_owned(),
            ));
        }
        Ok(CompiledProgram {
            binary,
            lowered_names,
            log,
        })
    }
}

fn program_log(rtc: &RtcFns, prog: &Program<'_>) -> String {
    let mut size = 0usize;
    // SAFETY: valid out-pointer.
    if unsafe { (rtc.hiprtcGetProgramLogSize)(prog.0, &mut size) } != 0 || size == 0 {
        return String::new();
    }
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` has the reported size.
    if unsafe { (rtc.hiprtcGetProgramLog)(prog.0, buf.as_mut_ptr().cast()) } != 0 {
        return String::new();
    }
    String::from_utf8_lossy(&buf)
        .trim_end_matches('\0')
        .trim()
        .to_string()
}
