//! Rust-only round trips of every format, for every element type and shape, from contiguous
//! arrays and from strided views (transposed, reversed, stepped), on the CPU backend.

mod common;

use std::collections::HashMap;

use common::{SHAPES, assert_same, sample};
use gpuarrays_core::{DType, RawArray, s};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::{
    Error, read_npy, read_npz, read_safetensors, write_npy, write_npz, write_safetensors,
};

fn npy_round_trip(a: &RawArray<CpuBackend>, cpu: &CpuBackend) -> RawArray<CpuBackend> {
    let mut bytes = Vec::new();
    write_npy(&mut bytes, a).expect("write_npy");
    read_npy(cpu, bytes.as_slice()).expect("read_npy")
}

/// Strided views of a 3-d array: transposed, reversed, stepped, and all at once.
fn views(a: &RawArray<CpuBackend>) -> Vec<(&'static str, RawArray<CpuBackend>)> {
    vec![
        ("permute(2,0,1)", a.permute(&[2, 0, 1]).expect("permute")),
        ("reverse(1)", a.reverse(1).expect("reverse")),
        ("at[.., ..;-2, 1..]", a.at(&s![.., ..;-2, 1..]).expect("at")),
        (
            "permute + reverse + step",
            a.permute(&[1, 2, 0])
                .and_then(|v| v.reverse(0))
                .and_then(|v| v.at(&s![..;2]))
                .expect("chain"),
        ),
        ("at[1] (2-d)", a.at(&s![1]).expect("index")),
        ("at[0, 1, 2] (0-d)", a.at(&s![0, 1, 2]).expect("index")),
    ]
}

/// The types a .npy file holds: all but bf16, which NumPy lacks.
fn npy_types() -> impl Iterator<Item = DType> {
    DType::ALL.into_iter().filter(|&d| d != DType::BF16)
}

#[test]
fn npy_every_dtype_and_shape() {
    let cpu = CpuBackend::new();
    let mut cases = 0;
    for dtype in npy_types() {
        for dims in SHAPES {
            let a = sample(&cpu, dtype, dims);
            assert_same(&a, &npy_round_trip(&a, &cpu), &format!("{dtype} {dims:?}"));
            cases += 1;
        }
    }
    assert_eq!(cases, 14 * SHAPES.len());
    // NumPy has no bfloat16: writing one is a typed refusal that says what to do.
    let e = write_npy(Vec::new(), &sample(&cpu, DType::BF16, &[2])).expect_err("bf16 .npy");
    assert!(
        matches!(
            e,
            Error::UnrepresentableDType {
                dtype: DType::BF16,
                ..
            }
        ) && e.to_string().contains("safetensors"),
        "{e}"
    );
}

#[test]
fn npy_from_strided_views() {
    let cpu = CpuBackend::new();
    for dtype in npy_types() {
        let base = sample(&cpu, dtype, &[3, 4, 5]);
        for (name, view) in views(&base) {
            assert!(name.contains("0-d") || !view.is_contiguous() || name.contains("2-d"));
            let back = npy_round_trip(&view, &cpu);
            assert!(back.is_contiguous());
            assert_same(
                &view.contiguous().expect("contiguous"),
                &back,
                &format!("{dtype} {name}"),
            );
        }
    }
}

#[test]
fn npy_files_on_disk() {
    let cpu = CpuBackend::new();
    let dir = std::env::temp_dir().join(format!("gpuarrays-io-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let a = sample(&cpu, DType::C64, &[4, 3]);
    let path = dir.join("a.npy");
    gpuarrays_io::save_npy(&path, &a).expect("save");
    assert_same(
        &a,
        &gpuarrays_io::load_npy(&cpu, &path).expect("load"),
        "file",
    );
    // A missing file names the path.
    let err = gpuarrays_io::load_npy(&cpu, dir.join("missing.npy")).expect_err("missing");
    assert!(
        matches!(err, Error::Io { .. }) && err.to_string().contains("missing.npy"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn npz_all_types_in_one_archive() {
    let cpu = CpuBackend::new();
    let arrays: Vec<(String, RawArray<CpuBackend>)> = npy_types()
        .enumerate()
        .map(|(i, d)| (format!("a_{d}"), sample(&cpu, d, SHAPES[i % SHAPES.len()])))
        .chain([(
            "view".to_string(),
            sample(&cpu, DType::F32, &[3, 4])
                .permute(&[1, 0])
                .expect("t"),
        )])
        .collect();
    let named: Vec<(&str, &RawArray<CpuBackend>)> =
        arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    for compressed in [false, true] {
        let mut buf = std::io::Cursor::new(Vec::new());
        write_npz(&mut buf, &named, compressed).expect("write_npz");
        buf.set_position(0);
        let back = read_npz(&cpu, buf).expect("read_npz");
        assert_eq!(back.len(), arrays.len());
        for ((n, a), (m, b)) in arrays.iter().zip(&back) {
            assert_eq!(n, m);
            assert_same(&a.contiguous().expect("c"), b, n);
        }
    }
}

#[test]
fn npz_rejects_repeated_and_empty_names() {
    let cpu = CpuBackend::new();
    let a = sample(&cpu, DType::U8, &[2]);
    let mut buf = std::io::Cursor::new(Vec::new());
    let err = write_npz(&mut buf, &[("x", &a), ("x", &a)], false).expect_err("dup");
    assert!(err.to_string().contains("twice"), "{err}");
    let err = write_npz(&mut buf, &[("", &a)], false).expect_err("empty");
    assert!(matches!(err, Error::InvalidInput { .. }), "{err}");
}

#[test]
fn safetensors_every_supported_dtype_with_metadata() {
    let cpu = CpuBackend::new();
    let mut arrays = Vec::new();
    for dtype in DType::ALL.into_iter().filter(|&d| d != DType::C64) {
        for (j, dims) in SHAPES.iter().enumerate() {
            arrays.push((format!("{dtype}_{j}"), sample(&cpu, dtype, dims)));
        }
    }
    let base = sample(&cpu, DType::F64, &[3, 4, 5]);
    for (i, (_, v)) in views(&base).into_iter().enumerate() {
        arrays.push((format!("view_{i}"), v));
    }
    let named: Vec<(&str, &RawArray<CpuBackend>)> =
        arrays.iter().map(|(n, a)| (n.as_str(), a)).collect();
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    let bytes = write_safetensors(&named, Some(meta.clone())).expect("write");
    let (back, back_meta) = read_safetensors(&cpu, &bytes).expect("read");
    assert_eq!(back_meta, Some(meta));
    assert_eq!(back.len(), arrays.len());
    let back: HashMap<String, RawArray<CpuBackend>> = back.into_iter().collect();
    for (n, a) in &arrays {
        assert_same(&a.contiguous().expect("c"), &back[n], n);
    }
}

#[test]
fn safetensors_refuses_complex128_with_a_hint() {
    let cpu = CpuBackend::new();
    let a = sample(&cpu, DType::C64, &[2]);
    let err = write_safetensors(&[("z", &a)], None).expect_err("c64");
    assert!(
        matches!(
            err,
            Error::UnrepresentableDType {
                dtype: DType::C64,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("cast"), "{err}");
}

#[test]
fn safetensors_files_on_disk() {
    let cpu = CpuBackend::new();
    let path = std::env::temp_dir().join(format!(
        "gpuarrays-io-st-{}.safetensors",
        std::process::id()
    ));
    let a = sample(&cpu, DType::I64, &[2, 2]);
    gpuarrays_io::save_safetensors(&path, &[("w", &a)], None).expect("save");
    let back = gpuarrays_io::load_safetensors(&cpu, &path).expect("load");
    assert_eq!(back.len(), 1);
    assert_same(&a, &back[0].1, "w");
    std::fs::remove_file(&path).ok();
}
