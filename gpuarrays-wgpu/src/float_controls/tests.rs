//! The SPIR-V patch on modules naga writes from WGSL like the backend's.

use spirv::{Capability, Decoration, ExecutionMode, Op};

use super::spirv_patch::{Controls, PatchError, patch};
use super::{SpirvMode, compile};

const ALL: Controls = Controls {
    preserve_f32: true,
    preserve_f64: true,
    denorm_f32: true,
    denorm_f64: true,
};

fn mode(version: (u8, u8), controls: Controls) -> SpirvMode {
    SpirvMode {
        controls,
        version,
        f64: true,
        int64: true,
    }
}

/// (opcode, operands) of every instruction after the header.
fn instructions(words: &[u32]) -> Vec<(u32, Vec<u32>)> {
    let mut out = Vec::new();
    let mut at = 5;
    while at < words.len() {
        let n = (words[at] >> 16) as usize;
        assert!(n > 0 && at + n <= words.len(), "malformed at word {at}");
        out.push((words[at] & 0xffff, words[at + 1..at + n].to_vec()));
        at += n;
    }
    out
}

const F32_SRC: &str = "
@group(0) @binding(0) var<storage, read_write> b: array<f32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  let i = g.x;
  b[i] = (b[i] * 3.0 + b[i + 1u]) - b[i] / b[i + 2u];
}
";

const F64_SRC: &str = "
@group(0) @binding(0) var<storage, read_write> b: array<f64>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) g: vec3<u32>) {
  b[g.x] = b[g.x] * b[g.x + 1u] - b[g.x + 2u];
}
";

fn has(insts: &[(u32, Vec<u32>)], op: Op, operands: &[u32]) -> bool {
    insts
        .iter()
        .any(|(o, v)| *o == op as u32 && v.as_slice() == operands)
}

#[test]
fn every_float_operation_gets_no_contraction_and_the_entry_point_the_modes() {
    let words = compile(F32_SRC, &mode((1, 5), ALL)).expect("compiles");
    let insts = instructions(&words);
    let entry = insts
        .iter()
        .find(|(o, _)| *o == Op::EntryPoint as u32)
        .map(|(_, v)| v[1])
        .expect("an entry point");
    let preserve = ExecutionMode::SignedZeroInfNanPreserve as u32;
    let denorm = ExecutionMode::DenormPreserve as u32;
    assert!(has(&insts, Op::ExecutionMode, &[entry, preserve, 32]));
    assert!(has(&insts, Op::ExecutionMode, &[entry, denorm, 32]));
    // No f64 in the module: no 64-bit modes.
    assert!(!has(&insts, Op::ExecutionMode, &[entry, preserve, 64]));
    assert!(has(
        &insts,
        Op::Capability,
        &[Capability::SignedZeroInfNanPreserve as u32]
    ));
    assert!(has(
        &insts,
        Op::Capability,
        &[Capability::DenormPreserve as u32]
    ));
    // SPIR-V 1.5: float controls are core, no extension.
    assert!(!insts.iter().any(|(o, _)| *o == Op::Extension as u32));
    let float_ops = [Op::FMul, Op::FAdd, Op::FSub, Op::FDiv];
    let results: Vec<u32> = insts
        .iter()
        .filter(|(o, _)| float_ops.iter().any(|f| *f as u32 == *o))
        .map(|(_, v)| v[1])
        .collect();
    assert_eq!(results.len(), 4, "mul, add, div, sub");
    for r in results {
        assert!(
            has(&insts, Op::Decorate, &[r, Decoration::NoContraction as u32]),
            "result %{r} lacks NoContraction"
        );
    }
}

#[test]
fn the_patched_module_keeps_the_section_order_and_the_id_bound() {
    for (src, version) in [(F32_SRC, (1, 3)), (F64_SRC, (1, 6))] {
        let plain = {
            let m = naga::front::wgsl::parse_str(src).expect("parses");
            let info = naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::FLOAT64,
            )
            .validate(&m)
            .expect("valid");
            let opts = naga::back::spv::Options {
                lang_version: version,
                ..Default::default()
            };
            naga::back::spv::write_vec(&m, &info, &opts, None).expect("writes")
        };
        let patched = patch(&plain, ALL).expect("patches");
        assert_eq!(patched[3], plain[3], "id bound unchanged");
        assert_eq!(&patched[..5], &plain[..5]);
        // Everything of the original, in the original order, is still there.
        let (a, b) = (instructions(&plain), instructions(&patched));
        let mut it = b.iter();
        for inst in &a {
            assert!(it.any(|x| x == inst), "lost or reordered {inst:?}");
        }
        // Sections in order: capabilities, extensions, imports, memory model, entry
        // points, execution modes first, and all decorations before the first type.
        let pos = |op: Op| b.iter().rposition(|(o, _)| *o == op as u32);
        let first = |op: Op| b.iter().position(|(o, _)| *o == op as u32);
        assert!(pos(Op::Capability) < first(Op::MemoryModel));
        assert!(pos(Op::ExecutionMode) < first(Op::TypeVoid));
        assert!(pos(Op::Decorate) < first(Op::TypeVoid));
        let ext = b.iter().any(|(o, _)| *o == Op::Extension as u32);
        assert_eq!(
            ext,
            version < (1, 4),
            "the extension only before SPIR-V 1.4"
        );
        let preserve = ExecutionMode::SignedZeroInfNanPreserve as u32;
        let modes64 = b
            .iter()
            .filter(|(o, v)| *o == Op::ExecutionMode as u32 && v[1] == preserve && v[2] == 64)
            .count();
        assert_eq!(modes64, usize::from(src == F64_SRC));
    }
}

#[test]
fn nothing_is_added_when_nothing_is_asked_and_garbage_is_refused() {
    let words = compile(F32_SRC, &mode((1, 5), Controls::default())).expect("compiles");
    let insts = instructions(&words);
    let float_modes = [
        ExecutionMode::SignedZeroInfNanPreserve as u32,
        ExecutionMode::DenormPreserve as u32,
    ];
    assert!(
        !insts
            .iter()
            .any(|(o, v)| *o == Op::ExecutionMode as u32 && float_modes.contains(&v[1]))
    );
    assert!(!has(
        &insts,
        Op::Capability,
        &[Capability::SignedZeroInfNanPreserve as u32]
    ));
    assert!(matches!(
        patch(&[1, 2, 3], ALL),
        Err(PatchError::Malformed(_))
    ));
    let mut bad = words.clone();
    bad.push(0xffff_0000 | Op::FAdd as u32);
    assert!(matches!(patch(&bad, ALL), Err(PatchError::Malformed(_))));
    // A capability after a type: sections out of order.
    let mut swapped = words.clone();
    swapped.extend([(2 << 16) | Op::Capability as u32, Capability::Shader as u32]);
    assert!(matches!(
        patch(&swapped, ALL),
        Err(PatchError::OutOfOrder { .. })
    ));
}

#[test]
fn invalid_wgsl_is_an_error_not_a_module() {
    let e = compile("fn main( {", &mode((1, 5), ALL)).expect_err("does not parse");
    assert!(!e.is_empty());
    let f64_without = SpirvMode {
        f64: false,
        ..mode((1, 5), ALL)
    };
    assert!(
        compile(F64_SRC, &f64_without).is_err(),
        "f64 needs SHADER_F64"
    );
}
