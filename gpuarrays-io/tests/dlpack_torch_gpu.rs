//! DLPack against PyTorch on a GPU: **prepared, not yet proven** — no run on a machine with a
//! GPU and PyTorch has passed it yet. `tests/dlpack_numpy.py --torch-cuda` with the test
//! library built with its `hip` feature checks `torch.from_dlpack` of our HIP export
//! (zero-copy, values, the consumer's stream passed to our `__dlpack__`), our import of
//! `torch.arange(..).cuda()`'s capsule (sum, a fill torch then sees), a float16 and a CPU
//! tensor refused, and our deleter run once per export.
//!
//! Runs when python3 imports torch with `torch.cuda.is_available()` (CUDA or ROCm builds),
//! or always with `GPUARRAYS_REQUIRE_GPU=1` (then a missing GPU or torch fails); otherwise it
//! prints why it skipped and passes.

mod py_harness;

#[test]
fn torch_on_the_gpu_accepts_our_tensors_and_we_accept_torchs() {
    let Some(py) = py_harness::python_or_skip(
        "import torch; assert torch.cuda.is_available(), 'torch sees no GPU'",
        &["GPUARRAYS_REQUIRE_GPU"],
    ) else {
        return;
    };
    let lib = py_harness::build_test_library(&["hip"], "dlpack_py_hip");
    py_harness::run_script(&py, &lib, &["--torch-cuda"]);
}
