//! `AnyBackend` and the run-time choice of backend: what `default_backend()` picks on this
//! machine, how a request (`GPUARRAYS_BACKEND`'s syntax) is parsed and refused, that the
//! enum computes what the backend it wraps computes (the conformance suite through it), and
//! that mixing buffers of two variants is a typed error, never a panic.

use gpuarrays::conformance::{SuiteConfig, run, run_against_oracle};
use gpuarrays::prelude::*;
use gpuarrays::{BackendChoiceError, BackendKind, choose_backend};

/// Whether HIP runs here.
fn hip_available() -> bool {
    AnyBackend::open(BackendKind::Hip, 0).is_ok()
}

/// Whether backend `kind` has a hardware device here (what the automatic choice takes).
fn has_hardware_device(kind: BackendKind) -> bool {
    AnyBackend::open_preferred(kind).is_ok_and(|b| !b.is_software_device())
}

#[test]
fn the_automatic_choice_is_the_gpu_where_there_is_one_else_the_cpu() {
    let choice = choose_backend(None).expect("the automatic choice never fails");
    let gpus: Vec<BackendKind> = BackendKind::compiled().filter(|k| k.is_gpu()).collect();
    let expected = gpus
        .iter()
        .copied()
        .find(|&k| has_hardware_device(k))
        .unwrap_or(BackendKind::Cpu);
    println!("compiled GPU backends {gpus:?}; the first with a hardware device: {expected}");
    assert_eq!(choice.backend.kind(), expected);
    assert!(!choice.backend.is_software_device());
    // Every GPU backend preferred over the choice was passed over, with its reason.
    let before: Vec<&str> = gpus
        .iter()
        .take_while(|&&k| k != expected)
        .map(|k| k.name())
        .collect();
    assert_eq!(
        choice.passed_over.len(),
        before.len(),
        "{:?}",
        choice.passed_over
    );
    for (e, name) in choice.passed_over.iter().zip(before) {
        match e {
            BackendChoiceError::Unavailable { name: n, .. }
            | BackendChoiceError::NoDevice { name: n }
            | BackendChoiceError::SoftwareDevice { name: n, .. } => assert_eq!(*n, name),
            other => panic!("unexpected reason: {other}"),
        }
        assert!(e.to_string().starts_with(&format!("{name}: ")), "{e}");
    }
    if expected == BackendKind::Cpu {
        assert_eq!(choice.backend.name(), "cpu");
    }
    // "auto" and an empty request mean the same.
    for request in ["auto", "", " AUTO "] {
        let again = choose_backend(Some(request)).expect("automatic");
        assert_eq!(again.backend.kind(), choice.backend.kind(), "{request:?}");
    }
}

#[test]
fn requests_name_a_backend_and_a_device_or_say_what_is_wrong() {
    let cpu = choose_backend(Some("cpu")).expect("cpu is always there");
    assert_eq!(cpu.backend.kind(), BackendKind::Cpu);
    assert_eq!(cpu.backend.device().ordinal, 0);
    assert_eq!(
        choose_backend(Some("CPU:0")).expect("cpu:0").backend.kind(),
        BackendKind::Cpu
    );

    match choose_backend(Some("cuda")) {
        Err(BackendChoiceError::Unknown { name, compiled }) => {
            assert_eq!(name, "cuda");
            assert!(compiled.starts_with("cpu"), "{compiled}");
        }
        other => panic!("expected Unknown, got {other:?}"),
    }
    match choose_backend(Some("cpu:1")) {
        Err(BackendChoiceError::NoSuchDevice {
            name,
            ordinal,
            count,
        }) => assert_eq!((name, ordinal, count), ("cpu", 1, 1)),
        other => panic!("expected NoSuchDevice, got {other:?}"),
    }
    match choose_backend(Some("cpu:first")) {
        Err(e @ BackendChoiceError::Malformed { .. }) => {
            assert!(e.to_string().contains("'first'"), "{e}")
        }
        other => panic!("expected Malformed, got {other:?}"),
    }
    // hip: opened where it runs, else a reason naming it (never a silent fallback).
    match choose_backend(Some("hip")) {
        Ok(choice) => assert_eq!(choice.backend.kind(), BackendKind::Hip),
        Err(e) => {
            assert!(!hip_available());
            let message = e.to_string();
            assert!(message.starts_with("hip: "), "{message}");
            if cfg!(feature = "hip") {
                assert!(
                    matches!(
                        e,
                        BackendChoiceError::Unavailable { .. }
                            | BackendChoiceError::NoDevice { .. }
                    ),
                    "{e:?}"
                );
            } else {
                assert!(matches!(e, BackendChoiceError::NotCompiled { .. }), "{e:?}");
            }
        }
    }
}

#[test]
fn a_choice_error_converts_into_the_core_error_keeping_its_detail() {
    fn open(request: &str) -> Result<AnyBackend> {
        Ok(choose_backend(Some(request))?.backend)
    }
    let err = open("nosuch").unwrap_err();
    assert!(
        err.to_string().contains("unknown backend 'nosuch'"),
        "{err}"
    );
    let source = std::error::Error::source(&err).expect("the choice error is the source");
    assert!(
        matches!(
            source.downcast_ref::<BackendChoiceError>(),
            Some(BackendChoiceError::Unknown { .. })
        ),
        "{source:?}"
    );
    assert!(open("cpu").is_ok());
}

#[test]
fn the_conformance_suite_passes_through_the_enum() {
    let any = AnyBackend::cpu();
    let oracle = run_against_oracle(&any, &SuiteConfig::quick());
    assert!(oracle.rows.len() >= 700, "{} rows", oracle.rows.len());
    assert!(
        oracle.ok(),
        "{}{}",
        oracle.failure_details(),
        oracle.summary()
    );
    // Against the CPU reference it wraps: every row, bit for bit.
    let reference = run(&any, &SuiteConfig::quick());
    assert!(reference.ok(), "{}", reference.failure_details());
    for r in &reference.rows {
        assert_eq!(
            r.max_err,
            0.0,
            "{} differs from the wrapped backend",
            r.key()
        );
    }
}

#[test]
fn arrays_of_two_devices_do_not_mix() {
    let (a, b) = (AnyBackend::cpu(), AnyBackend::cpu());
    let x = Array::<f32, _>::from_vec(&a, vec![1.0, 2.0]).unwrap();
    let y = Array::<f32, _>::from_vec(&b, vec![1.0, 2.0]).unwrap();
    match (x.ex() + y.ex()).eval::<f32>() {
        Err(Error::DeviceMismatch { .. }) => {}
        other => panic!("expected DeviceMismatch, got {other:?}"),
    }
}

/// Buffers of another variant reaching a backend method: the HIP variant runs over the HIP
/// backend's platform test double, so this needs no GPU.
#[cfg(feature = "hip")]
#[test]
fn a_buffer_of_another_variant_is_a_device_mismatch_error() {
    use std::sync::Arc;

    use gpuarrays::AnyBuffer;
    use gpuarrays::hip::kernels::DiskCache;
    use gpuarrays::hip::platform::test_double::{FakeConfig, FakePlatform};
    use gpuarrays::hip::{HipBackend, HipRuntime, RuntimeConfig};
    use gpuarrays::kernel::{ElementwiseArgs, Instr, Node, Operand, Program, ReduceArgs, ReduceOp};

    let platform = Arc::new(FakePlatform::new(FakeConfig::default()));
    let runtime = HipRuntime::new(platform, RuntimeConfig::default()).expect("fake runtime");
    let hip = AnyBackend::from(
        HipBackend::with_runtime(runtime, 0, DiskCache::off()).expect("fake HIP device"),
    );
    let cpu = AnyBackend::cpu();
    assert_eq!(hip.kind(), BackendKind::Hip);

    let on_cpu = cpu.alloc(64).unwrap();
    let on_hip = hip.alloc(64).unwrap();
    assert!(matches!(on_cpu, AnyBuffer::Cpu(_)));
    assert!(matches!(on_hip, AnyBuffer::Hip(_)));

    let mismatch = |r: Result<()>, op: &str| match r {
        Err(e @ Error::DeviceMismatch { .. }) => {
            let message = e.to_string();
            assert!(message.starts_with(op), "{message}");
            assert!(message.contains("a buffer of the"), "{message}");
        }
        other => panic!("{op}: expected DeviceMismatch, got {other:?}"),
    };
    mismatch(hip.write(&on_cpu, 0, &[1, 2, 3, 4]), "write");
    mismatch(cpu.read(&on_hip, 0, &mut [0; 4]), "read");
    mismatch(cpu.copy(&on_cpu, 0, &on_hip, 0, 4), "copy");
    let operand = |buffer| Operand {
        buffer,
        dtype: DType::F32,
        offset: 0,
        strides: &[1],
    };
    let copy_program = Program {
        inputs: vec![DType::F32],
        scalars: vec![],
        instrs: vec![Instr {
            node: Node::Input(0),
            dtype: DType::F32,
        }],
    };
    let args = ElementwiseArgs {
        shape: &[4],
        inputs: &[operand(&on_cpu)],
        scalars: &[],
        output: operand(&on_hip),
    };
    mismatch(cpu.elementwise(&copy_program, &args), "elementwise");
    mismatch(hip.elementwise(&copy_program, &args), "elementwise");
    let reduce = ReduceArgs {
        op: ReduceOp::Sum,
        dtype: DType::F32,
        input: &on_hip,
        input_offset: 0,
        outer: 1,
        len: 4,
        inner: 1,
        output: &on_cpu,
        output_offset: 0,
    };
    mismatch(cpu.reduce(&reduce), "reduce");
    // Releasing a buffer on the wrong variant logs and drops it: no panic.
    cpu.release(on_hip);
    hip.release(on_cpu);
}

/// What `fn main() -> gpuarrays::Result<()>` prints when the backend cannot be opened: the
/// message and the causes it does not already say, not a structural dump of nested errors.
#[test]
fn a_backend_error_from_main_prints_readably() {
    let inner = BackendChoiceError::Unavailable {
        name: "hip",
        source: Box::new(std::io::Error::other(
            "no HIP runtime found (neither the CUDA driver nor libamdhip64); install one",
        )),
        detail: (0..40)
            .map(|i| format!("tried /opt/lib{i}/libamdhip64.so: not found"))
            .collect(),
    };
    let e: Error = BackendChoiceError::Environment {
        var: "GPUARRAYS_BACKEND",
        value: "hip".into(),
        source: Box::new(inner),
    }
    .into();
    let debug = format!("{e:?}");
    println!("{debug}");
    assert!(debug.starts_with("Backend: "), "{debug}");
    assert!(debug.contains("install one"), "{debug}");
    assert!(
        debug.contains("unset it to choose automatically"),
        "{debug}"
    );
    assert!(
        !debug.contains("detail") && !debug.contains("{ ") && !debug.contains("tried /opt"),
        "a structural dump: {debug}"
    );
    assert!(debug.len() < 400, "{} characters: {debug}", debug.len());
    // A cause that the message does not contain is shown on its own line.
    let wrapped = Error::backend("wgpu", std::io::Error::other("the adapter was lost"));
    assert_eq!(
        format!("{wrapped:?}"),
        "Backend: wgpu: the adapter was lost"
    );
}
