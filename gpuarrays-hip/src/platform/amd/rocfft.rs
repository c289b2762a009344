//! rocFFT on the AMD platform: a small hand-written FFI table, resolved at run time the first
//! time an FFT is planned (so a machine without librocfft runs everything else).
//!
//! Written from rocFFT's published header `rocfft/rocfft.h`; `tests/rocfft_header.rs` checks
//! every name, parameter type, return type and enum value used here against a checked-in
//! copy of the prototypes (`tests/data/rocfft_prototypes.h`, with its source commit). No
//! rocFFT library exists on the build machines, so the table has never been called: what
//! a run on an AMD GPU would show first is listed in `docs/guide.md` (FFT section).
//!
//! rocFFT's conventions, which differ from cuFFT's: lengths and strides are given fastest
//! axis first; the plan fixes the direction and the placement; a plan description carries
//! the data layout; an execution info carries the stream and the work buffer. A plan here is
//! the `rocfft_plan` plus one `rocfft_execution_info` ([`FftPlanHandle::aux`]), which is
//! safe because a plan is only ever used by the thread that leased it.
#![allow(non_snake_case)]

use std::ffi::c_void;

use gpuarrays_core::kernel::{FftDirection, FftKind};

use super::AmdPlatform;
use crate::error::{HipError, Result};
use crate::platform::loader::{
    LoadedLibrary, SymbolSpec, SymbolTable, open_first, versioned_names, with_env_dirs,
};
use crate::platform::{DeviceId, DevicePtr, FftPlanDesc, FftPlanHandle, FftPlanInfo};
use crate::platform::{Platform, PlatformKind, StreamHandle};

/// `rocfft_plan` (an opaque pointer).
pub type RocfftPlan = *mut c_void;
/// `rocfft_plan_description`.
pub type RocfftPlanDescription = *mut c_void;
/// `rocfft_execution_info`.
pub type RocfftExecutionInfo = *mut c_void;

/// The values of rocFFT's enums used here (C enums: `int`).
pub mod values {
    pub const STATUS_SUCCESS: i32 = 0;
    pub const TRANSFORM_COMPLEX_FORWARD: i32 = 0;
    pub const TRANSFORM_COMPLEX_INVERSE: i32 = 1;
    pub const TRANSFORM_REAL_FORWARD: i32 = 2;
    pub const TRANSFORM_REAL_INVERSE: i32 = 3;
    pub const PRECISION_SINGLE: i32 = 0;
    pub const PRECISION_DOUBLE: i32 = 1;
    pub const PLACEMENT_INPLACE: i32 = 0;
    pub const PLACEMENT_NOTINPLACE: i32 = 1;
    pub const ARRAY_COMPLEX_INTERLEAVED: i32 = 0;
    pub const ARRAY_REAL: i32 = 2;
    pub const ARRAY_HERMITIAN_INTERLEAVED: i32 = 3;

    /// `(enumerator name in rocfft.h, value used here)`, for the header test.
    pub const CHECKED: &[(&str, i32)] = &[
        ("rocfft_status_success", STATUS_SUCCESS),
        (
            "rocfft_transform_type_complex_forward",
            TRANSFORM_COMPLEX_FORWARD,
        ),
        (
            "rocfft_transform_type_complex_inverse",
            TRANSFORM_COMPLEX_INVERSE,
        ),
        ("rocfft_transform_type_real_forward", TRANSFORM_REAL_FORWARD),
        ("rocfft_transform_type_real_inverse", TRANSFORM_REAL_INVERSE),
        ("rocfft_precision_single", PRECISION_SINGLE),
        ("rocfft_precision_double", PRECISION_DOUBLE),
        ("rocfft_placement_inplace", PLACEMENT_INPLACE),
        ("rocfft_placement_notinplace", PLACEMENT_NOTINPLACE),
        (
            "rocfft_array_type_complex_interleaved",
            ARRAY_COMPLEX_INTERLEAVED,
        ),
        ("rocfft_array_type_real", ARRAY_REAL),
        (
            "rocfft_array_type_hermitian_interleaved",
            ARRAY_HERMITIAN_INTERLEAVED,
        ),
    ];
}

macro_rules! rocfft_table {
    ($( $sym:ident : fn($($arg:ty),*) -> $ret:ty ),* $(,)?) => {
        /// Typed function pointers of librocfft.
        #[derive(Debug, Clone, Copy)]
        pub struct RocfftFns {
            $( pub $sym: unsafe extern "C" fn($($arg),*) -> $ret, )*
        }

        impl RocfftFns {
            /// The table from resolved addresses (`None` if one is missing).
            pub fn from_table(t: &SymbolTable) -> Option<RocfftFns> {
                Some(RocfftFns {
                    $(
                        // SAFETY: the address was resolved for this exact symbol, whose C
                        // signature (rocfft.h) is the type it is transmuted to.
                        $sym: unsafe {
                            std::mem::transmute::<usize, unsafe extern "C" fn($($arg),*) -> $ret>(
                                t.get(stringify!($sym))?,
                            )
                        },
                    )*
                })
            }
        }

        /// Every symbol of the table.
        pub const ROCFFT: SymbolSpec = SymbolSpec {
            required: &[$(stringify!($sym)),*],
            optional: &[],
        };

        /// `(name, return type, parameter types)` of each entry, as written in the table
        /// (checked against the header by `tests/rocfft_header.rs`).
        pub const SIGNATURES: &[(&str, &str, &[&str])] = &[
            $( (stringify!($sym), stringify!($ret), &[$(stringify!($arg)),*]), )*
        ];
    };
}

rocfft_table! {
    rocfft_setup: fn() -> i32,
    rocfft_cleanup: fn() -> i32,
    rocfft_plan_description_create: fn(*mut RocfftPlanDescription) -> i32,
    rocfft_plan_description_destroy: fn(RocfftPlanDescription) -> i32,
    rocfft_plan_description_set_data_layout: fn(
        RocfftPlanDescription, i32, i32, *const usize, *const usize,
        usize, *const usize, usize, usize, *const usize, usize
    ) -> i32,
    rocfft_plan_create: fn(
        *mut RocfftPlan, i32, i32, i32, usize, *const usize, usize, RocfftPlanDescription
    ) -> i32,
    rocfft_plan_destroy: fn(RocfftPlan) -> i32,
    rocfft_plan_get_work_buffer_size: fn(RocfftPlan, *mut usize) -> i32,
    rocfft_execution_info_create: fn(*mut RocfftExecutionInfo) -> i32,
    rocfft_execution_info_destroy: fn(RocfftExecutionInfo) -> i32,
    rocfft_execution_info_set_work_buffer: fn(RocfftExecutionInfo, *mut c_void, usize) -> i32,
    rocfft_execution_info_set_stream: fn(RocfftExecutionInfo, *mut c_void) -> i32,
    rocfft_execute: fn(RocfftPlan, *mut *mut c_void, *mut *mut c_void, RocfftExecutionInfo) -> i32,
}

const ROCFFT_HINT: &str = "install ROCm's rocFFT (librocfft.so.0) or set ROCM_PATH";

/// The library names tried for librocfft, in order.
pub fn rocfft_candidates() -> Vec<String> {
    let names = versioned_names("rocfft", &["0", "1"]);
    let mut out = with_env_dirs(&["ROCM_PATH", "HIP_PATH"], &names);
    out.extend(names.iter().map(|n| format!("/opt/rocm/lib/{n}")));
    out
}

/// librocfft, loaded and resolved, after `rocfft_setup`.
#[derive(Debug)]
pub struct Rocfft {
    pub library: LoadedLibrary,
    pub fns: RocfftFns,
}

impl Drop for Rocfft {
    /// `rocfft_cleanup`, once, after the last use and before the library is closed.
    fn drop(&mut self) {
        // SAFETY: no plan outlives the platform that owns this value.
        let status = unsafe { (self.fns.rocfft_cleanup)() };
        if let Err(e) = check("rocfft_cleanup", status) {
            tracing::debug!(error = %e, "rocFFT cleanup failed");
        }
    }
}

/// Open librocfft, resolve the table and run `rocfft_setup`.
pub fn load_rocfft() -> Result<Rocfft> {
    let library = open_first(
        PlatformKind::Amd,
        "ROCm's rocFFT (librocfft)",
        "ROCm's rocFFT",
        &rocfft_candidates(),
        ROCFFT_HINT,
    )?;
    let table = SymbolTable::resolve(
        PlatformKind::Amd,
        "ROCm's rocFFT (librocfft)",
        &library,
        &ROCFFT,
        ROCFFT_HINT,
    )?;
    let fns = RocfftFns::from_table(&table).ok_or_else(|| HipError::MissingSymbols {
        platform: PlatformKind::Amd,
        library: "ROCm's rocFFT (librocfft)",
        path: library.path.clone(),
        missing: vec!["(table)".into()],
        hint: ROCFFT_HINT,
    })?;
    // SAFETY: takes no arguments; called once, before any other rocFFT function.
    check("rocfft_setup", unsafe { (fns.rocfft_setup)() })?;
    Ok(Rocfft { library, fns })
}

fn check(call: &'static str, status: i32) -> Result<()> {
    const NAMES: [&str; 9] = [
        "rocfft_status_success",
        "rocfft_status_failure",
        "rocfft_status_invalid_arg_value",
        "rocfft_status_invalid_dimensions",
        "rocfft_status_invalid_array_type",
        "rocfft_status_invalid_strides",
        "rocfft_status_invalid_distance",
        "rocfft_status_invalid_offset",
        "rocfft_status_invalid_work_buffer",
    ];
    if status == values::STATUS_SUCCESS {
        return Ok(());
    }
    Err(HipError::Api {
        platform: PlatformKind::Amd,
        call,
        code: status,
        name: NAMES
            .get(status as usize)
            .copied()
            .unwrap_or("rocfft_status_unknown")
            .to_string(),
        message: "rocFFT reported an error".into(),
    })
}

/// Strides fastest axis first, for an embed (row-major, slowest first) and element stride.
fn strides(embed: &[usize], stride: usize) -> Vec<usize> {
    let mut out = Vec::with_capacity(embed.len());
    let mut acc = stride;
    for &e in embed.iter().rev() {
        out.push(acc);
        acc *= e;
    }
    out
}

impl AmdPlatform {
    fn rocfft(&self) -> Result<&RocfftFns> {
        self.rocfft
            .get_or_init(load_rocfft)
            .as_ref()
            .map(|r| &r.fns)
            .map_err(Clone::clone)
    }

    pub(super) fn rocfft_plan_create(
        &self,
        device: DeviceId,
        desc: &FftPlanDesc,
    ) -> Result<FftPlanInfo> {
        use values::*;
        let f = *self.rocfft()?;
        self.bind_device(device)?;
        let (in_type, out_type, transform) = match (desc.kind, desc.direction) {
            (FftKind::C2C, FftDirection::Forward) => (
                ARRAY_COMPLEX_INTERLEAVED,
                ARRAY_COMPLEX_INTERLEAVED,
                TRANSFORM_COMPLEX_FORWARD,
            ),
            (FftKind::C2C, FftDirection::Inverse) => (
                ARRAY_COMPLEX_INTERLEAVED,
                ARRAY_COMPLEX_INTERLEAVED,
                TRANSFORM_COMPLEX_INVERSE,
            ),
            (FftKind::R2C, _) => (
                ARRAY_REAL,
                ARRAY_HERMITIAN_INTERLEAVED,
                TRANSFORM_REAL_FORWARD,
            ),
            (FftKind::C2R, _) => (
                ARRAY_HERMITIAN_INTERLEAVED,
                ARRAY_REAL,
                TRANSFORM_REAL_INVERSE,
            ),
        };
        let rank = desc.lengths.len();
        let lengths: Vec<usize> = desc.lengths.iter().rev().copied().collect();
        let (ist, ost) = (
            strides(&desc.input_embed(), desc.input_stride),
            strides(&desc.output_embed(), desc.output_stride),
        );
        let mut description: RocfftPlanDescription = std::ptr::null_mut();
        // SAFETY: valid out-pointer.
        check("rocfft_plan_description_create", unsafe {
            (f.rocfft_plan_description_create)(&mut description)
        })?;
        let mut plan: RocfftPlan = std::ptr::null_mut();
        let made = (|| {
            // SAFETY: `description` is live; the stride arrays hold `rank` values and
            // outlive the call; null offsets mean 0.
            check("rocfft_plan_description_set_data_layout", unsafe {
                (f.rocfft_plan_description_set_data_layout)(
                    description,
                    in_type,
                    out_type,
                    std::ptr::null(),
                    std::ptr::null(),
                    rank,
                    ist.as_ptr(),
                    desc.input_dist,
                    rank,
                    ost.as_ptr(),
                    desc.output_dist,
                )
            })?;
            let placement = if desc.in_place {
                PLACEMENT_INPLACE
            } else {
                PLACEMENT_NOTINPLACE
            };
            let precision = if desc.double {
                PRECISION_DOUBLE
            } else {
                PRECISION_SINGLE
            };
            // SAFETY: valid out-pointer; `lengths` holds `rank` values; the description
            // is live.
            check("rocfft_plan_create", unsafe {
                (f.rocfft_plan_create)(
                    &mut plan,
                    placement,
                    transform,
                    precision,
                    rank,
                    lengths.as_ptr(),
                    desc.batch,
                    description,
                )
            })?;
            let mut work_bytes = 0usize;
            // SAFETY: `plan` was created above; valid out-pointer.
            check("rocfft_plan_get_work_buffer_size", unsafe {
                (f.rocfft_plan_get_work_buffer_size)(plan, &mut work_bytes)
            })?;
            let mut info: RocfftExecutionInfo = std::ptr::null_mut();
            // SAFETY: valid out-pointer.
            check("rocfft_execution_info_create", unsafe {
                (f.rocfft_execution_info_create)(&mut info)
            })?;
            Ok(FftPlanInfo {
                handle: FftPlanHandle {
                    plan: plan as usize as u64,
                    aux: info as usize as u64,
                },
                work_bytes,
            })
        })();
        // SAFETY: the description may be destroyed once the plan is created (rocfft.h).
        let _ = unsafe { (f.rocfft_plan_description_destroy)(description) };
        if made.is_err() && !plan.is_null() {
            // SAFETY: destroys the plan created above, which nothing else holds.
            let _ = unsafe { (f.rocfft_plan_destroy)(plan) };
        }
        made
    }

    pub(super) fn rocfft_plan_destroy(&self, device: DeviceId, plan: FftPlanHandle) -> Result<()> {
        let f = *self.rocfft()?;
        let mut previous = 0i32;
        // SAFETY: valid out-pointer.
        let had = unsafe { (self.f().hipGetDevice)(&mut previous) } == 0;
        self.bind_device(device)?;
        // SAFETY: the caller passes a plan it created and no longer uses.
        let info = check("rocfft_execution_info_destroy", unsafe {
            (f.rocfft_execution_info_destroy)(plan.aux as usize as RocfftExecutionInfo)
        });
        // SAFETY: as above.
        let destroyed = check("rocfft_plan_destroy", unsafe {
            (f.rocfft_plan_destroy)(plan.plan as usize as RocfftPlan)
        });
        if had {
            // SAFETY: restores the ordinal that was current a moment ago.
            self.check("hipSetDevice", unsafe { (self.f().hipSetDevice)(previous) })?;
        }
        info.and(destroyed)
    }

    /// # Safety
    /// As [`crate::platform::FftLibrary::fft_execute`].
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn rocfft_execute(
        &self,
        plan: FftPlanHandle,
        desc: &FftPlanDesc,
        input: DevicePtr,
        output: DevicePtr,
        work: DevicePtr,
        work_bytes: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let f = *self.rocfft()?;
        let info = plan.aux as usize as RocfftExecutionInfo;
        // SAFETY: `info` belongs to this plan, used by this thread only; the stream is live.
        check("rocfft_execution_info_set_stream", unsafe {
            (f.rocfft_execution_info_set_stream)(info, stream.0 as usize as *mut c_void)
        })?;
        let area = if work_bytes == 0 {
            std::ptr::null_mut()
        } else {
            work.0 as usize as *mut c_void
        };
        // SAFETY: the caller guarantees `work` holds `work_bytes` bytes.
        check("rocfft_execution_info_set_work_buffer", unsafe {
            (f.rocfft_execution_info_set_work_buffer)(info, area, work_bytes)
        })?;
        let mut inputs = [input.0 as usize as *mut c_void];
        let mut outputs = [output.0 as usize as *mut c_void];
        let out_ptr = if desc.in_place {
            std::ptr::null_mut()
        } else {
            outputs.as_mut_ptr()
        };
        // SAFETY: one interleaved buffer per side, laid out as the plan describes and alive
        // until the transform has run (the caller's contract).
        check("rocfft_execute", unsafe {
            (f.rocfft_execute)(
                plan.plan as usize as RocfftPlan,
                inputs.as_mut_ptr(),
                out_ptr,
                info,
            )
        })
    }
}
