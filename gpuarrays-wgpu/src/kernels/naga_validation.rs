//! Every generated shader, for every operation and element type, parsed and validated by
//! naga (wgpu's shader compiler) with the capabilities the backend asks for. Needs no GPU:
//! it runs in CI, and it is what keeps the generators honest on adapters we cannot test.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{
    Access as OpAccess, BinaryOp, Distribution, Instr, Node, Program, ReduceOp, ScanOp, UnaryOp,
};

use super::reduce::{Pass, Sink, Source};
use super::{copy_bytes, elementwise, find, matmul, reduce, scan, search, sort};
use crate::pipeline::Access;
use crate::wgsl::types::{Class, is_packed};

/// The element types the backend generates shaders for: every type.
fn generated() -> impl Iterator<Item = DType> {
    DType::ALL.into_iter()
}

fn validate(label: &str, src: &str) {
    let src = &*crate::wgsl::half::complete(src);
    let module = naga::front::wgsl::parse_str(src).unwrap_or_else(|e| {
        panic!(
            "{label}: WGSL does not parse:\n{}\n{src}",
            e.emit_to_string(src)
        )
    });
    let mut v = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::FLOAT64 | naga::valid::Capabilities::SHADER_INT64,
    );
    if let Err(e) = v.validate(&module) {
        panic!("{label}: invalid:\n{}\n{src}", e.emit_to_string(src));
    }
}

fn program_layout(p: &Program, access: &[OpAccess], ndim: usize) -> elementwise::Layout {
    let mut storage: Vec<(Class, Access)> = p
        .inputs
        .iter()
        .map(|d| (Class::of(*d), Access::Read))
        .collect();
    storage.push((Class::of(p.output_dtype()), Access::ReadWrite));
    elementwise::Layout {
        ndim,
        inputs: access.to_vec(),
        vec4_inputs: vec![false; access.len()],
        vec4: false,
        strided_output: false,
        binding: (0..=p.inputs.len()).collect(),
        storage,
    }
}

/// The vec4 kernel's layout: 32-bit contiguous inputs read as words, the rest as elements.
fn vec4_layout(p: &Program, access: &[OpAccess], ndim: usize) -> elementwise::Layout {
    let mut l = program_layout(p, access, ndim);
    l.vec4 = true;
    l.vec4_inputs = p
        .inputs
        .iter()
        .zip(access)
        .map(|(d, a)| *a == OpAccess::Contiguous && elementwise::is_word(*d))
        .collect();
    for (k, &w) in l.vec4_inputs.iter().enumerate() {
        if w {
            l.storage[k].0 = Class::V4;
        }
    }
    let out = l.storage.len() - 1;
    l.storage[out].0 = Class::V4;
    l
}

fn check_program(p: &Program) -> usize {
    let mut n = 0;
    for access in [
        OpAccess::Contiguous,
        OpAccess::Broadcast,
        OpAccess::Strided(3),
    ] {
        let acc = vec![access; p.inputs.len()];
        let ndim = if matches!(access, OpAccess::Strided(_)) {
            3
        } else {
            1
        };
        match elementwise::source(p, &program_layout(p, &acc, ndim)) {
            Ok(src) => {
                validate(&p.describe(), &src);
                n += 1;
            }
            Err(e) => panic!("{}: {e}", p.describe()),
        }
        if matches!(access, OpAccess::Strided(_)) && !is_packed(p.output_dtype()) {
            let mut l = program_layout(p, &acc, ndim);
            l.strided_output = true;
            match elementwise::source(p, &l) {
                Ok(src) => {
                    validate(&format!("strided output {}", p.describe()), &src);
                    n += 1;
                }
                Err(e) => panic!("strided output {}: {e}", p.describe()),
            }
        }
        if elementwise::is_word(p.output_dtype()) {
            match elementwise::source(p, &vec4_layout(p, &acc, ndim)) {
                Ok(src) => {
                    validate(&format!("vec4 {}", p.describe()), &src);
                    n += 1;
                }
                Err(e) => panic!("vec4 {}: {e}", p.describe()),
            }
        }
    }
    n
}

fn ins(node: Node, dtype: DType) -> Instr {
    Instr { node, dtype }
}

#[test]
fn every_elementwise_shader_validates() {
    let mut n = 0;
    for d in generated() {
        for op in UnaryOp::ALL {
            if let Ok(out) = op.result_dtype(d) {
                n += check_program(&Program {
                    inputs: vec![d],
                    scalars: vec![],
                    instrs: vec![ins(Node::Input(0), d), ins(Node::Unary(op, 0), out)],
                });
            }
        }
        for op in BinaryOp::ALL {
            if let Ok(out) = op.result_dtype(d, d) {
                // Input op scalar: both parameter paths (64-bit scalars included).
                n += check_program(&Program {
                    inputs: vec![d],
                    scalars: vec![d],
                    instrs: vec![
                        ins(Node::Input(0), d),
                        ins(Node::Scalar(0), d),
                        ins(Node::Binary(op, 0, 1), out),
                    ],
                });
            }
        }
        for to in generated() {
            n += check_program(&Program {
                inputs: vec![d],
                scalars: vec![],
                instrs: vec![ins(Node::Input(0), d), ins(Node::Cast(to, 0), to)],
            });
        }
        n += check_program(&Program {
            inputs: vec![DType::Bool, d, d],
            scalars: vec![],
            instrs: vec![
                ins(Node::Input(0), DType::Bool),
                ins(Node::Input(1), d),
                ins(Node::Input(2), d),
                ins(Node::Select(0, 1, 2), d),
            ],
        });
    }
    for d in [DType::F32, DType::F64] {
        for dist in [Distribution::Uniform, Distribution::Normal] {
            n += check_program(&Program {
                inputs: vec![],
                scalars: vec![DType::U64],
                instrs: vec![ins(Node::Random(dist, 0), d)],
            });
        }
    }
    n += check_program(&Program {
        inputs: vec![],
        scalars: vec![],
        instrs: vec![
            ins(Node::Index, DType::I64),
            ins(Node::Cast(DType::F32, 0), DType::F32),
        ],
    });
    assert!(n > 700, "only {n} shaders checked");
}

#[test]
fn every_axis_kernel_shader_validates() {
    let w = (Class::W32, Access::Read);
    let rw = (Class::W32, Access::ReadWrite);
    for d in generated() {
        let c = Class::of(d);
        for op in ReduceOp::ALL {
            let Ok(out) = op.result_dtype(d) else {
                continue;
            };
            let tc = Class::of(super::temp::temp_dtype(d));
            let arg = matches!(op, ReduceOp::ArgMin | ReduceOp::ArgMax);
            for lanes in [1, 256] {
                let p = Pass {
                    op,
                    dtype: d,
                    source: Source::Array,
                    sink: Sink::Final,
                    lanes,
                };
                let oc = if arg {
                    Class::W32
                } else {
                    Class::of(super::temp::temp_dtype(out))
                };
                let st = [(c, Access::Read), (oc, Access::ReadWrite)];
                validate(
                    &format!("reduce {op} {d}"),
                    &reduce::general_source(&p, &st, 0, None, 1, None).unwrap(),
                );
                let p = Pass {
                    op,
                    dtype: d,
                    source: Source::Array,
                    sink: Sink::Partial,
                    lanes,
                };
                let st = [(c, Access::Read), (tc, Access::ReadWrite), rw];
                validate(
                    &format!("reduce partial {op} {d}"),
                    &reduce::general_source(&p, &st, 0, None, 1, arg.then_some(2)).unwrap(),
                );
                let p = Pass {
                    op,
                    dtype: d,
                    source: Source::Partial,
                    sink: Sink::Final,
                    lanes,
                };
                let st = [(tc, Access::Read), w, (oc, Access::ReadWrite)];
                validate(
                    &format!("reduce final {op} {d}"),
                    &reduce::general_source(&p, &st, 0, arg.then_some(1), 2, None).unwrap(),
                );
            }
        }
        for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max] {
            if matches!(d, DType::F32 | DType::I32 | DType::U32) {
                let st = [(Class::V4, Access::Read), w, (c, Access::ReadWrite)];
                validate(
                    &format!("reduce rows {op} {d}"),
                    &reduce::rows_source(op, d, &st, 0, 1, 2).unwrap(),
                );
            }
        }
        let tc = Class::of(super::temp::temp_dtype(d));
        if d != DType::Bool {
            for op in ScanOp::ALL {
                if op.check_dtype(d).is_err() {
                    continue;
                }
                validate(
                    &format!("scan lines {d}"),
                    &scan::lines_source(op, d, &[(c, Access::Read), (tc, Access::ReadWrite)], 0, 1)
                        .unwrap(),
                );
                let st = [(c, Access::Read), (c, Access::ReadWrite)];
                validate(
                    &format!("scan totals {d}"),
                    &scan::blocked_source(op, d, scan::BlockMode::Totals, &st, 0, 1, 1).unwrap(),
                );
                let st = [(c, Access::Read), (c, Access::Read), (c, Access::ReadWrite)];
                validate(
                    &format!("scan apply {d}"),
                    &scan::blocked_source(op, d, scan::BlockMode::Apply, &st, 0, 1, 2).unwrap(),
                );
            }
            for kernel in matmul::Kernel::ALL {
                validate(
                    &format!("matmul {kernel:?} {d}"),
                    &matmul::source(
                        kernel,
                        d,
                        &[
                            (c, Access::Read),
                            (c, Access::Read),
                            (tc, Access::ReadWrite),
                        ],
                        0,
                        1,
                        2,
                    )
                    .unwrap(),
                );
            }
        }
        if !d.is_complex() {
            let kc = if d.size() == 8 {
                Class::U64
            } else {
                Class::W32
            };
            let k = (kc, Access::ReadWrite);
            for (stage, st, b0, b1) in [
                (sort::Stage::Keys, vec![(c, Access::Read), k], 0, 1),
                (sort::Stage::Local, vec![k], 0, 0),
                (sort::Stage::Pairs, vec![k, k], 0, 1),
                (
                    sort::Stage::Values,
                    vec![(tc, Access::ReadWrite), (kc, Access::Read)],
                    0,
                    1,
                ),
            ] {
                validate(
                    &format!("sort {stage:?} {d}"),
                    &sort::source(d, stage, &st, b0, b1),
                );
            }
        }
    }
    validate("find count", &find::count_source(&[w, rw]));
    validate("find write", &find::write_source(&[w, w, rw]));
    for words in [1, 2] {
        for side in [gpuarrays_core::Side::Left, gpuarrays_core::Side::Right] {
            let label = format!("search {words} words {side:?}");
            validate(&label, &search::source(words, side, &[w, w, rw], [0, 1, 2]));
            // The table and the values in one buffer share a binding.
            validate(&label, &search::source(words, side, &[w, rw], [0, 0, 1]));
        }
    }
    validate("copy bytes", &copy_bytes::source(&[w, rw], 0, 1));
    validate("copy bytes in place", &copy_bytes::source(&[rw], 0, 0));
}

#[test]
fn every_indexing_shader_validates() {
    use super::indexing::{Bind, Direct, Stage, direct_source, gather_source, staged_source};
    use gpuarrays_core::kernel::IndexMode;
    let w = (Class::W32, Access::Read);
    let rw = (Class::W32, Access::ReadWrite);
    let a32 = (Class::A32, Access::ReadWrite);
    let mut n = 0;
    for mode in IndexMode::ALL {
        for size in [1, 2, 4, 8, 16] {
            // Apart, and the output sharing the source's buffer (one binding).
            validate("gather", &gather_source(size, mode, &[w, w, rw], 0, 1, 2));
            validate(
                "gather shared",
                &gather_source(size, mode, &[w, rw], 0, 1, 1),
            );
            n += 2;
        }
        for kind in Direct::ALL {
            validate(
                &format!("scatter {kind:?}"),
                &direct_source(kind, mode, &[w, a32, w], 0, 1, 2),
            );
            n += 1;
        }
        for (stages, sizes) in [(Stage::CLAIM, [8, 16]), (Stage::LIST, [8, 16])] {
            for stage in stages {
                for size in sizes {
                    let (tc, ta, _) = stage.target();
                    let mut st = vec![w, (tc, ta)];
                    let mut b = Bind {
                        i: 0,
                        t: 1,
                        ..Default::default()
                    };
                    if stage.values() {
                        b.v = st.len();
                        let vc = if tc == Class::F64 {
                            Class::F64
                        } else {
                            Class::W32
                        };
                        st.push((vc, Access::Read));
                    }
                    if let Some(acc) = stage.scratch() {
                        b.s = st.len();
                        st.push((Class::W32, acc));
                    }
                    if let Some(acc) = stage.saved() {
                        b.f = st.len();
                        st.push((Class::F64, acc));
                    }
                    validate(
                        &format!("scatter {stage:?} {size}"),
                        &staged_source(stage, size, mode, &st, b),
                    );
                    n += 1;
                }
            }
        }
    }
    assert!(n > 80, "{n} indexing shaders validated");
}

#[test]
fn every_fft_shader_validates() {
    use super::fft::{FftBindings, FftLinesKernel, Load, Store, edge_source, lines_source};
    let w = (Class::W32, Access::Read);
    let rw = (Class::W32, Access::ReadWrite);
    let apart = FftBindings {
        src: 1,
        dst: 2,
        table: Some(3),
    };
    let in_place = FftBindings {
        src: 1,
        dst: 1,
        table: Some(2),
    };
    let mut n = 0;
    for m in (0..=12).map(|b| 1usize << b) {
        for load in [Load::Complex, Load::Real, Load::Hermitian] {
            for store in [Store::Complex, Store::Real] {
                for (twiddle, interleave) in [(false, false), (true, false), (true, true)] {
                    let least = FftLinesKernel::min_lines_per_group(m);
                    let k = FftLinesKernel {
                        m,
                        load,
                        store,
                        twiddle,
                        lines_per_group: if interleave { least.max(16) } else { least },
                        interleave,
                    };
                    let label = format!("fft lines {k:?}");
                    validate(&label, &lines_source(&k, &[w, rw, w], apart));
                    validate(&label, &lines_source(&k, &[rw, w], in_place));
                    n += 2;
                }
            }
        }
    }
    for extend in [false, true] {
        let b = FftBindings {
            src: 1,
            dst: 2,
            table: None,
        };
        validate("fft edge", &edge_source(extend, &[w, rw], b));
        n += 1;
    }
    assert!(n > 300, "{n} FFT shaders validated");
}
