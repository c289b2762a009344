//! DLPack against a real consumer and producer: NumPy (host memory). The test library
//! `tests/dlpack_py` (a cdylib over `gpuarrays_io::dlpack`) is built here and loaded by
//! `tests/dlpack_numpy.py` with ctypes, which checks, for every element type gpuarrays
//! exchanges (bool and both complex types included), 0-d, empty and 2-D shapes, versioned
//! and legacy capsules:
//!
//! - our exports through `np.from_dlpack`: values, dtype, shape, strides (a transposed,
//!   reversed view: negative strides and a byte offset), the same address (no copy), writes
//!   shared both ways with the array gpuarrays keeps, our deleter run exactly once when
//!   NumPy frees the array;
//! - NumPy's `__dlpack__` capsules through our imports (the capsule renamed "used_…" as the
//!   spec asks of a consumer): sums, a fill NumPy then sees (a strided view included),
//!   NumPy's deleter run once our array is gone, and typed refusals (float16, int8, int16,
//!   uint16, a read-only array) that still run it.
//!
//! Without python3 + NumPy this prints why and passes, unless `GPUARRAYS_REQUIRE_NUMPY=1`
//! (CI), which makes that a failure. `GPUARRAYS_PYTHON` picks the interpreter.

mod py_harness;

#[test]
fn numpy_accepts_our_tensors_and_we_accept_numpys() {
    let Some(py) = py_harness::python_or_skip("import numpy", &["GPUARRAYS_REQUIRE_NUMPY"]) else {
        return;
    };
    let lib = py_harness::build_test_library(&[], "dlpack_py");
    py_harness::run_script(&py, &lib, &[]);
}
