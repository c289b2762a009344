//! Every generated kernel source, run through the host `g++ -fsyntax-only` with a small shim
//! that defines the CUDA/HIP built-ins the kernels use (`__global__`, `threadIdx`, the
//! shuffles with exactly the overloads CUDA and HIP provide, the bit-cast intrinsics). Syntax
//! and type errors in the code generators are caught here, in CI, without a GPU.
//!
//! Sources are batched: the kernel header once, then each generated body in its own namespace, one
//! `g++` run per family. Skipped (with a printed reason) when `g++` is missing.

use std::io::Write;

use gpuarrays_core::kernel::{
    BinaryOp, Distribution, Instr, Node, Program, ReduceOp, ScanOp, UnaryOp,
};
use gpuarrays_core::{DType, OpKind};
use gpuarrays_hip::kernels::cpp::combine;
use gpuarrays_hip::kernels::cpp::header::{Dialect, kernel_header};
use gpuarrays_hip::kernels::elementwise::codegen;
use gpuarrays_hip::kernels::elementwise::layout::{Class, EwLayout, Tiling};
use gpuarrays_hip::kernels::{find, indexing, matmul, reduce, scan, search, sort};

#[path = "common/cpp_shim.rs"]
mod cpp_shim;
#[path = "common/host_cxx.rs"]
mod host_cxx;
use cpp_shim::SHIM;

/// The element types the backend generates elementwise kernels for (it refuses the others
/// before any code is generated, so their sources are never compiled).
fn generated() -> impl Iterator<Item = DType> {
    generated_for(OpKind::Elementwise)
}

/// The element types the backend generates kernels of kind `op` for.
fn generated_for(op: OpKind) -> impl Iterator<Item = DType> {
    DType::ALL
        .into_iter()
        .filter(move |&d| gpuarrays_hip::backend::supports(d, op).is_yes())
}

fn supported(d: DType, op: OpKind) -> bool {
    gpuarrays_hip::backend::supports(d, op).is_yes()
}

/// Compiles `bodies` (each in its own namespace) after the kernel header; panics with the compiler
/// output on failure.
fn syntax_check(name: &str, dialect: Dialect, warp: u32, bodies: &[String]) {
    let dir = host_cxx::scratch("codegen");
    // One shim per check: checks run on parallel threads, and rewriting a shared shim.h
    // while another g++ reads it made that g++ see a truncated file (flaky failures).
    let shim = dir.join(format!("{name}_shim.h"));
    std::fs::write(&shim, SHIM).expect("write shim");
    let path = dir.join(format!("{name}.cpp"));
    let mut f = std::fs::File::create(&path).expect("create source");
    writeln!(f, "{}", kernel_header(dialect, warp)).expect("write");
    for (i, b) in bodies.iter().enumerate() {
        writeln!(f, "namespace t{i} {{\n{b}\n}}").expect("write");
    }
    drop(f);
    host_cxx::gxx(
        &[
            "-std=c++17".as_ref(),
            "-fsyntax-only".as_ref(),
            "-x".as_ref(),
            "c++".as_ref(),
            "-include".as_ref(),
            shim.as_os_str(),
            path.as_os_str(),
        ],
        &format!(
            "{name}: generated C++ does not compile ({} sources, kept at {})",
            bodies.len(),
            path.display()
        ),
        60,
    );
    if std::env::var_os("GA_KEEP_CODEGEN").is_none() {
        let _ = std::fs::remove_file(&path);
        let _ = std::fs::remove_file(&shim);
    }
}

fn program(inputs: Vec<DType>, scalars: Vec<DType>, instrs: Vec<(Node, DType)>) -> Program {
    Program {
        inputs,
        scalars,
        instrs: instrs
            .into_iter()
            .map(|(node, dtype)| Instr { node, dtype })
            .collect(),
    }
}

fn layouts(n_inputs: usize) -> Vec<EwLayout> {
    let all = |c: Class| -> gpuarrays_hip::kernels::elementwise::layout::Classes {
        std::iter::repeat_n(c, n_inputs).collect()
    };
    let mut v = vec![
        EwLayout {
            inputs: all(Class::Contiguous),
            output: Class::Contiguous,
            vec: 4,
            ndim: 0,
            idx32: false,
            transpose: None,
            one_step: false,
            per_thread: 1,
        },
        EwLayout {
            inputs: all(Class::Contiguous),
            output: Class::Contiguous,
            vec: 1,
            ndim: 0,
            idx32: false,
            transpose: None,
            one_step: false,
            per_thread: 1,
        },
    ];
    if n_inputs > 0 {
        let mut mixed = all(Class::Strided);
        mixed[0] = Class::Contiguous;
        if n_inputs > 1 {
            mixed[1] = Class::Broadcast;
        }
        v.push(EwLayout {
            inputs: mixed.clone(),
            output: Class::Contiguous,
            vec: 2,
            ndim: 3,
            idx32: true,
            transpose: None,
            one_step: false,
            per_thread: 1,
        });
        v.push(EwLayout {
            inputs: mixed.clone(),
            output: Class::Strided,
            vec: 1,
            ndim: 2,
            idx32: false,
            transpose: None,
            one_step: false,
            per_thread: 1,
        });
        // Rows: vector loads and stores at an offset computed once per vector.
        let mut rows = mixed.clone();
        rows[0] = Class::Rows;
        v.push(EwLayout {
            inputs: rows,
            output: Class::Rows,
            vec: 4,
            ndim: 2,
            idx32: true,
            transpose: None,
            one_step: false,
            per_thread: 1,
        });
        // The tiled kernel: the strided inputs from shared memory (large tiles, the grid
        // a loop over every tile).
        let mut tiled = mixed;
        tiled[0] = Class::Strided;
        v.push(EwLayout {
            inputs: tiled,
            output: Class::Contiguous,
            vec: 1,
            ndim: 3,
            idx32: true,
            transpose: Some(Tiling {
                a: 1,
                elems_log2: 12,
                side_l_log2: 6,
                grid3: false,
            }),
            one_step: false,
            per_thread: 1,
        });
    }
    // The same layouts in the one-step form (no grid-stride loop; two vectors per thread
    // where there are vectors, as for programs with random draws).
    let one_step: Vec<EwLayout> = v
        .iter()
        .filter(|l| l.transpose.is_none())
        .map(|l| EwLayout {
            one_step: true,
            per_thread: if l.vec > 1 { 2 } else { 1 },
            ..l.clone()
        })
        .collect();
    v.extend(one_step);
    v
}

fn elementwise_bodies() -> Vec<String> {
    let mut progs: Vec<Program> = Vec::new();
    for d in generated() {
        for op in UnaryOp::ALL {
            if let Ok(r) = op.result_dtype(d) {
                progs.push(program(
                    vec![d],
                    vec![],
                    vec![(Node::Input(0), d), (Node::Unary(op, 0), r)],
                ));
            }
        }
        for op in BinaryOp::ALL {
            if let Ok(r) = op.result_dtype(d, d) {
                progs.push(program(
                    vec![d, d],
                    vec![],
                    vec![
                        (Node::Input(0), d),
                        (Node::Input(1), d),
                        (Node::Binary(op, 0, 1), r),
                    ],
                ));
                // The same with a scalar right-hand side.
                progs.push(program(
                    vec![d],
                    vec![d],
                    vec![
                        (Node::Input(0), d),
                        (Node::Scalar(0), d),
                        (Node::Binary(op, 0, 1), r),
                    ],
                ));
            }
        }
        for to in generated() {
            progs.push(program(
                vec![d],
                vec![],
                vec![(Node::Input(0), d), (Node::Cast(to, 0), to)],
            ));
        }
        progs.push(program(
            vec![DType::Bool, d],
            vec![d],
            vec![
                (Node::Input(0), DType::Bool),
                (Node::Input(1), d),
                (Node::Scalar(0), d),
                (Node::Select(0, 1, 2), d),
            ],
        ));
        progs.push(program(
            vec![],
            vec![],
            vec![(Node::Index, DType::I64), (Node::Cast(d, 0), d)],
        ));
    }
    for d in [DType::F32, DType::F64] {
        for dist in [Distribution::Uniform, Distribution::Normal] {
            progs.push(program(
                vec![],
                vec![DType::U64],
                vec![(Node::Random(dist, 0), d)],
            ));
        }
    }
    let mut bodies = Vec::new();
    for p in &progs {
        for l in layouts(p.inputs.len()) {
            let body = codegen::body(p, &l, p.output_dtype());
            if l.transpose.is_some() && p.draws_random() {
                assert!(body.is_err(), "the tiled kernel draws no random numbers");
                continue;
            }
            bodies.push(body.expect("codegen"));
        }
    }
    bodies
}

#[test]
fn elementwise_sources_compile() {
    if !host_cxx::gxx_or_skip("the generated C++") {
        return;
    }
    let bodies = elementwise_bodies();
    // Several translation units, checked two at a time (CI machines have few cores).
    let chunks: Vec<Vec<String>> = bodies
        .chunks(bodies.len().div_ceil(4))
        .map(<[String]>::to_vec)
        .collect();
    std::thread::scope(|s| {
        for pair in chunks.chunks(2) {
            let handles: Vec<_> = pair
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    s.spawn(move || syntax_check(&format!("ew{i}"), Dialect::Nvidia, 32, c))
                })
                .collect();
            for h in handles {
                h.join().expect("syntax check thread");
            }
        }
    });
}

fn axis_bodies() -> Vec<String> {
    let mut bodies = Vec::new();
    for d in generated() {
        for op in ReduceOp::ALL {
            if op.result_dtype(d).is_ok() {
                let c = combine::reduction(op, d).expect("combiner");
                bodies.push(reduce::codegen::body(d, op, &c));
            }
        }
        if d.is_numeric() {
            for op in ScanOp::ALL {
                // Halves are scanned by core as f32: no half scan kernel is generated.
                if op.check_dtype(d).is_err() || !supported(d, OpKind::Scan) || d.is_half() {
                    continue;
                }
                let c = combine::scan(op, d).expect("combiner");
                bodies.push(scan::body(d, &c));
            }
            bodies.push(matmul::body(d).expect("matmul"));
        }
        if d.is_ordered() && supported(d, OpKind::Sort) {
            bodies.push(sort::body(d));
        }
        bodies.push(indexing::codegen::body(d));
    }
    bodies.push(find::body().expect("find"));
    for d in [DType::U32, DType::U64] {
        bodies.push(search::body(d).expect("search"));
    }
    for d in generated() {
        // Oblong tiles of 1024 on a three-dimensional grid; large tiles in 64-bit indices.
        let oblong = Tiling {
            a: 0,
            elems_log2: 10,
            side_l_log2: 3,
            grid3: true,
        };
        let large = Tiling {
            a: 1,
            elems_log2: 12,
            side_l_log2: 6,
            grid3: true,
        };
        for (ndim, tiling, idx32) in [(2, oblong, true), (3, large, false)] {
            let copy = program(vec![d], vec![], vec![(Node::Input(0), d)]);
            let tiled = EwLayout {
                inputs: [Class::Strided].into_iter().collect(),
                output: Class::Contiguous,
                vec: 1,
                ndim,
                idx32,
                transpose: Some(tiling),
                one_step: false,
                per_thread: 1,
            };
            bodies.push(codegen::body(&copy, &tiled, d).expect("tiled copy"));
        }
    }
    bodies
}

#[test]
fn axis_sources_compile_for_both_dialects() {
    if !host_cxx::gxx_or_skip("the generated C++") {
        return;
    }
    let bodies = axis_bodies();
    std::thread::scope(|s| {
        let b = &bodies;
        let nv = s.spawn(move || syntax_check("axis_nvidia", Dialect::Nvidia, 32, b));
        let amd = s.spawn(move || syntax_check("axis_amd", Dialect::Amd, 64, b));
        nv.join().expect("nvidia check");
        amd.join().expect("amd check");
    });
}

#[test]
fn every_listed_kernel_is_defined() {
    let has = |body: &str, k: &str| body.contains(&format!(" {k}(")) && body.contains("__global__");
    let c = combine::reduction(ReduceOp::ArgMax, DType::F32).expect("combiner");
    let r = reduce::codegen::body(DType::F32, ReduceOp::ArgMax, &c);
    for k in reduce::codegen::KERNELS {
        assert!(has(&r, k), "reduce kernel {k} missing");
    }
    let c = combine::scan(ScanOp::Sum, DType::C64).expect("combiner");
    let s = scan::body(DType::C64, &c);
    for k in scan::codegen::KERNELS {
        assert!(has(&s, k), "scan kernel {k} missing");
    }
    let s = sort::body(DType::F64);
    for k in sort::kernels() {
        assert!(has(&s, k), "sort kernel {k} missing");
    }
    let f = find::body().expect("find");
    for k in find::KERNELS {
        assert!(has(&f, k), "find kernel {k} missing");
    }
    let s = search::body(DType::U64).expect("search");
    for k in search::KERNELS {
        assert!(has(&s, k), "search kernel {k} missing");
    }
    for d in generated() {
        let b = indexing::codegen::body(d);
        for k in indexing::codegen::kernels(d) {
            assert!(has(&b, k), "indexing kernel {k} missing for {d}");
        }
    }
}

#[test]
fn scalars_are_parameters_not_literals() {
    // The program holds scalar types only; the kernel reads the value from parameter s0.
    let p = program(
        vec![DType::F32],
        vec![DType::F32],
        vec![
            (Node::Input(0), DType::F32),
            (Node::Scalar(0), DType::F32),
            (Node::Binary(BinaryOp::Mul, 0, 1), DType::F32),
        ],
    );
    let l = &layouts(1)[0];
    let b = codegen::body(&p, l, DType::F32).expect("codegen");
    assert!(b.contains("const f32 s0"), "{b}");
    assert!(
        b.contains("GaVec_f32") && b.contains("alignas(16)"),
        "vector loads expected:\n{b}"
    );
}

#[test]
fn invalid_programs_are_errors_not_sources() {
    let p = program(
        vec![DType::F32],
        vec![],
        vec![(Node::Unary(UnaryOp::Neg, 3), DType::F32)],
    );
    assert!(codegen::body(&p, &layouts(1)[0], DType::F32).is_err());
    let p = program(
        vec![DType::I32],
        vec![],
        vec![
            (Node::Input(0), DType::I32),
            (Node::Unary(UnaryOp::Sqrt, 0), DType::I32),
        ],
    );
    assert!(codegen::body(&p, &layouts(1)[0], DType::I32).is_err());
}
