//! The readers and writers checked against real NumPy (and the Python `safetensors`
//! package when it is installed): Rust writes files that Python loads and verifies, Python
//! writes files (Fortran order, big-endian, 0-d, empty, every type, unsupported types) that
//! Rust loads and verifies. Elements are compared as little-endian row-major bytes (hex),
//! so the comparison is exact.
//!
//! Without python3 + NumPy the NumPy checks print why and pass, unless
//! `GPUARRAYS_REQUIRE_NUMPY=1` (CI), which makes that a failure. `GPUARRAYS_PYTHON` picks
//! the interpreter. Without the `safetensors` Python package the safetensors check prints
//! why and passes unless `GPUARRAYS_REQUIRE_SAFETENSORS=1`.

mod common;
mod py_harness;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::sample;
use gpuarrays_core::{DType, RawArray, s};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::{
    Error, load_npy, load_npz, load_safetensors, save_npy, save_npz, save_safetensors,
};
use serde_json::{Value, json};

/// The interpreter with `module` importable, or `None` after printing why the check is
/// skipped (a panic instead when `require_var=1`).
fn python_or_skip(module: &str, require_var: &str) -> Option<String> {
    py_harness::python_or_skip(&format!("import {module}"), &[require_var])
}

fn run_python(py: &str, script: &str, dir: &Path) {
    let out = Command::new(py)
        .arg("-c")
        .arg(script)
        .arg(dir)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprint!("{}", String::from_utf8_lossy(&out.stdout));
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gpuarrays-io-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What Python should find: descriptor, shape and bytes of an array.
fn expectation(a: &RawArray<CpuBackend>) -> Value {
    json!({
        "descr": gpuarrays_io::dtype_map::npy_descr_of(a.dtype()).expect("a NumPy type"),
        "shape": a.dims(),
        "hex": hex(&a.to_bytes().expect("bytes")),
    })
}

fn assert_matches(a: &RawArray<CpuBackend>, want: &Value, what: &str) {
    let descr = want["descr"].as_str().expect("descr");
    assert_eq!(
        gpuarrays_io::dtype_map::npy_descr_of(a.dtype()).expect("a NumPy type"),
        descr,
        "{what}: dtype"
    );
    let shape: Vec<usize> = serde_json::from_value(want["shape"].clone()).expect("shape");
    assert_eq!(a.dims(), shape.as_slice(), "{what}: shape");
    assert_eq!(
        hex(&a.to_bytes().expect("bytes")),
        want["hex"].as_str().expect("hex"),
        "{what}: elements"
    );
}

/// Arrays of every type in many shapes, plus strided views.
fn rust_arrays(cpu: &CpuBackend) -> Vec<(String, RawArray<CpuBackend>)> {
    let mut out = Vec::new();
    // Every type NumPy has (not bf16: a .npy of it is refused, see `roundtrip.rs`).
    for dtype in DType::ALL.into_iter().filter(|&d| d != DType::BF16) {
        for (j, dims) in common::SHAPES.iter().enumerate() {
            out.push((format!("{dtype}_{j}"), sample(cpu, dtype, dims)));
        }
        let base = sample(cpu, dtype, &[3, 4, 5]);
        out.push((
            format!("{dtype}_perm"),
            base.permute(&[2, 0, 1]).expect("permute"),
        ));
        out.push((
            format!("{dtype}_rev"),
            base.at(&s![..;-1, 1..;2]).expect("at"),
        ));
    }
    out
}

const PY_VERIFY: &str = r#"
import json, sys, os, numpy as np
d = sys.argv[1]
want = json.load(open(os.path.join(d, "expect.json")))
def check(a, w, what):
    assert a.dtype.str == w["descr"], (what, a.dtype.str, w["descr"])
    assert list(a.shape) == w["shape"], (what, a.shape, w["shape"])
    got = np.ascontiguousarray(a).tobytes().hex()
    assert got == w["hex"], (what, got[:64], w["hex"][:64])
n = 0
for name, w in want.items():
    check(np.load(os.path.join(d, name + ".npy")), w, name); n += 1
for npz in ["all.npz"]:
    with np.load(os.path.join(d, npz)) as z:
        assert sorted(z.files) == sorted(want), (sorted(z.files)[:5],)
        for name, w in want.items():
            check(z[name], w, npz + ":" + name); n += 1
print(f"numpy {np.__version__} verified {n} arrays written by Rust")
"#;

#[test]
fn numpy_loads_what_rust_writes() {
    let Some(py) = python_or_skip("numpy", "GPUARRAYS_REQUIRE_NUMPY") else {
        return;
    };
    let cpu = CpuBackend::new();
    let dir = temp_dir("to-numpy");
    let arrays = rust_arrays(&cpu);
    let mut expect = serde_json::Map::new();
    for (name, a) in &arrays {
        save_npy(dir.join(format!("{name}.npy")), a).expect("save_npy");
        expect.insert(name.clone(), expectation(&a.contiguous().expect("c")));
    }
    let named: Vec<(&str, &RawArray<CpuBackend>)> =
        arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    save_npz(dir.join("all.npz"), &named).expect("save_npz");
    std::fs::write(dir.join("expect.json"), Value::Object(expect).to_string()).expect("json");
    run_python(&py, PY_VERIFY, &dir);
    std::fs::remove_dir_all(&dir).ok();
}

const PY_WRITE: &str = r#"
import json, sys, os, numpy as np
d = sys.argv[1]
rng = np.random.default_rng(7)
def vals(dt, shape):
    n = int(np.prod(shape))
    x = rng.standard_normal(n) * 1000
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(n)
    if np.dtype(dt).kind == "b":
        x = x > 0
    return x.astype(dt).reshape(shape)
arrays = {}
for dt in ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f2", "<f4", "<f8",
           "<c8", "<c16"]:
    for shape in [(), (0,), (2, 0, 3), (7,), (3, 4), (2, 3, 4)]:
        arrays[f"le{dt[1:]}_{len(shape)}_{int(np.prod(shape))}"] = vals(dt, shape)
for dt in [">i2", ">u2", ">f2", ">i4", ">u4", ">i8", ">u8", ">f4", ">f8", ">c8", ">c16"]:
    arrays["be" + dt[1:]] = vals(dt, (3, 5))
    arrays["be0d" + dt[1:]] = vals(dt, ())
arrays["fortran_f8"] = np.asfortranarray(vals("<f8", (3, 4)))
arrays["fortran_i4_3d"] = np.asfortranarray(vals("<i4", (2, 3, 4)))
arrays["fortran_be_c16"] = np.asfortranarray(vals(">c16", (4, 2, 3)))
arrays["fortran_bool"] = np.asfortranarray(vals("|b1", (5, 3)))
arrays["fortran_empty"] = np.asfortranarray(vals("<f4", (0, 3)))
arrays["special_f8"] = np.array([np.nan, np.inf, -np.inf, -0.0, 5e-324, 1.7976931348623157e308])
arrays["transposed_view_saved"] = vals("<u8", (4, 6)).T[::2]
expect = {}
for name, a in arrays.items():
    np.save(os.path.join(d, name + ".npy"), a)
    le = a.dtype.newbyteorder("<") if a.dtype.byteorder == ">" else a.dtype
    expect[name] = {"descr": le.str, "shape": list(a.shape),
                    "hex": np.ascontiguousarray(a).astype(le).tobytes().hex()}
np.savez(os.path.join(d, "plain.npz"), **arrays)
np.savez_compressed(os.path.join(d, "compressed.npz"), **arrays)
np.save(os.path.join(d, "unsupported_f16.npy"), np.ones(3, np.longdouble).astype("<f16"))
np.save(os.path.join(d, "unsupported_datetime.npy"), np.zeros(3, "<M8[D]"))
np.save(os.path.join(d, "unsupported_object.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)
np.save(os.path.join(d, "unsupported_struct.npy"), np.zeros(2, dtype=[("x", "<f4"), ("y", "<i8")]))
np.save(os.path.join(d, "unsupported_str.npy"), np.array(["ab", "c"]))
json.dump(expect, open(os.path.join(d, "expect.json"), "w"))
print(f"numpy {np.__version__} wrote {len(arrays)} arrays")
"#;

#[test]
fn rust_loads_what_numpy_writes() {
    let Some(py) = python_or_skip("numpy", "GPUARRAYS_REQUIRE_NUMPY") else {
        return;
    };
    let cpu = CpuBackend::new();
    let dir = temp_dir("from-numpy");
    run_python(&py, PY_WRITE, &dir);
    let expect: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expect.json")).expect("json"))
            .expect("parse");
    let expect = expect.as_object().expect("object");
    for (name, want) in expect {
        let a = load_npy(&cpu, dir.join(format!("{name}.npy")))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(a.is_contiguous(), "{name}");
        assert_matches(&a, want, name);
    }
    for npz in ["plain.npz", "compressed.npz"] {
        let loaded = load_npz(&cpu, dir.join(npz)).unwrap_or_else(|e| panic!("{npz}: {e}"));
        assert_eq!(loaded.len(), expect.len(), "{npz}");
        for (name, a) in &loaded {
            assert_matches(a, &expect[name], &format!("{npz}:{name}"));
        }
    }
    for (file, needle) in [
        ("unsupported_f16", "'<f16'"),
        ("unsupported_datetime", "'<M8[D]'"),
        ("unsupported_object", "'|O'"),
        ("unsupported_struct", "structured"),
        ("unsupported_str", "'<U2'"),
    ] {
        let err = load_npy(&cpu, dir.join(format!("{file}.npy"))).expect_err(file);
        let msg = err.to_string();
        assert!(
            matches!(err, Error::UnsupportedDType { .. }),
            "{file}: {msg}"
        );
        assert!(msg.contains(needle), "{file}: {msg}");
        eprintln!("{file}: {msg}");
    }
    eprintln!(
        "Rust verified {} NumPy arrays (.npy and two .npz)",
        expect.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}

const PY_SAFETENSORS: &str = r#"
import json, sys, os, numpy as np
from safetensors.numpy import load_file, save_file
d = sys.argv[1]
want = json.load(open(os.path.join(d, "expect.json")))
got = load_file(os.path.join(d, "rust.safetensors"))
assert sorted(got) == sorted(want), (sorted(got), sorted(want))
for name, w in want.items():
    a = got[name]
    assert a.dtype.str == w["descr"], (name, a.dtype.str, w["descr"])
    assert list(a.shape) == w["shape"], (name, a.shape)
    assert np.ascontiguousarray(a).tobytes().hex() == w["hex"], name
rng = np.random.default_rng(3)
out = {"f32": rng.standard_normal((3, 4)).astype(np.float32), "i64": np.arange(-5, 7, dtype=np.int64).reshape(2, 6),
       "u8": np.arange(10, dtype=np.uint8), "b": np.array([True, False, True]), "f64_0d": np.array(2.5),
       "empty": np.zeros((0, 3), np.float64), "u32": np.arange(4, dtype=np.uint32), "i32": -np.arange(5, dtype=np.int32),
       "c64": (np.arange(6) - 2.5j).astype(np.complex64).reshape(3, 2)}
save_file(out, os.path.join(d, "py.safetensors"), metadata={"framework": "numpy"})
json.dump({k: {"descr": v.dtype.str, "shape": list(v.shape), "hex": v.tobytes().hex()} for k, v in out.items()},
          open(os.path.join(d, "py.json"), "w"))
print(f"safetensors: Python verified {len(want)} tensors written by Rust and wrote {len(out)}")
"#;

#[test]
fn python_safetensors_both_ways() {
    let Some(py) = python_or_skip("safetensors.numpy", "GPUARRAYS_REQUIRE_SAFETENSORS") else {
        return;
    };
    let cpu = CpuBackend::new();
    let dir = temp_dir("safetensors");
    // Complex<f64> is left out: safetensors has no 128-bit complex (saving it is an error,
    // tested in roundtrip.rs). Complex<f32> is safetensors' C64, NumPy's complex64.
    let arrays: Vec<(String, RawArray<CpuBackend>)> = rust_arrays(&cpu)
        .into_iter()
        .filter(|(_, a)| a.dtype() != DType::C64)
        .collect();
    let named: Vec<(&str, &RawArray<CpuBackend>)> =
        arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    save_safetensors(dir.join("rust.safetensors"), &named, None).expect("save");
    let expect: serde_json::Map<String, Value> = arrays
        .iter()
        .map(|(n, a)| (n.clone(), expectation(&a.contiguous().expect("c"))))
        .collect();
    std::fs::write(dir.join("expect.json"), Value::Object(expect).to_string()).expect("json");
    run_python(&py, PY_SAFETENSORS, &dir);
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("py.json")).expect("json"))
            .expect("parse");
    let (loaded, meta) =
        gpuarrays_io::load_safetensors_with_metadata(&cpu, dir.join("py.safetensors"))
            .expect("load");
    assert_eq!(
        meta.and_then(|m| m.get("framework").cloned()).as_deref(),
        Some("numpy")
    );
    assert_eq!(loaded.len(), want.as_object().expect("obj").len());
    for (name, a) in &loaded {
        assert_matches(a, &want[name], name);
    }
    assert_eq!(
        load_safetensors(&cpu, dir.join("py.safetensors"))
            .expect("load")
            .len(),
        loaded.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}
