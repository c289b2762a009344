//! Adds IEEE float controls to a SPIR-V module that naga wrote.
//!
//! Vulkan lets a driver assume that floats are never infinite or NaN and that the sign of
//! a zero does not matter (the `NotInf`, `NotNaN` and `NSZ` fast-math flags) unless the
//! entry point declares `SignedZeroInfNanPreserve`; and it lets the driver contract a
//! multiply and an add into one fused operation unless the result carries
//! `NoContraction`. naga's SPIR-V writer has no option for either, so this pass adds, to
//! a module naga wrote:
//! - `OpCapability SignedZeroInfNanPreserve` (and `DenormPreserve` where asked), plus
//!   `OpExtension "SPV_KHR_float_controls"` before SPIR-V 1.4 (where the extension became
//!   core);
//! - `OpExecutionMode <entry> SignedZeroInfNanPreserve <width>` for every float width the
//!   module declares that the device preserves (and `DenormPreserve <width>` where asked);
//! - `OpDecorate <result> NoContraction` on every float add, subtract, multiply, divide,
//!   negate, dot product and vector-times-scalar.
//!
//! The module keeps its ids (nothing new is allocated), and the instructions stay in the
//! section order SPIR-V requires: every instruction is classified by section, the
//! additions go to the end of their section, and a module whose sections are not in order
//! (which naga never writes) is refused rather than reordered.

use spirv::{Capability, Decoration, ExecutionMode, Op};

/// What to declare, per float width.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Controls {
    /// `SignedZeroInfNanPreserve` for 32-bit floats.
    pub preserve_f32: bool,
    /// `SignedZeroInfNanPreserve` for 64-bit floats.
    pub preserve_f64: bool,
    /// `DenormPreserve` for 32-bit floats.
    pub denorm_f32: bool,
    /// `DenormPreserve` for 64-bit floats.
    pub denorm_f64: bool,
}

impl Controls {
    /// Whether anything is declared at all.
    pub fn any(&self) -> bool {
        self.preserve_f32 || self.preserve_f64 || self.denorm_f32 || self.denorm_f64
    }
}

/// Why a module could not be patched.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error("not a SPIR-V module: {0}")]
    Malformed(&'static str),
    #[error("SPIR-V sections out of order at instruction {index} ({op:?})")]
    OutOfOrder { index: usize, op: u32 },
}

/// The logical-layout section of an instruction (SPIR-V 2.4), in module order.
fn section(op: u32) -> u8 {
    const DEBUG: [Op; 8] = [
        Op::SourceContinued,
        Op::Source,
        Op::SourceExtension,
        Op::Name,
        Op::MemberName,
        Op::String,
        Op::ModuleProcessed,
        Op::NoLine,
    ];
    const ANNOTATION: [Op; 8] = [
        Op::Decorate,
        Op::MemberDecorate,
        Op::DecorationGroup,
        Op::GroupDecorate,
        Op::GroupMemberDecorate,
        Op::DecorateId,
        Op::DecorateString,
        Op::MemberDecorateString,
    ];
    let is = |o: Op| o as u32 == op;
    if is(Op::Capability) {
        0
    } else if is(Op::Extension) {
        1
    } else if is(Op::ExtInstImport) {
        2
    } else if is(Op::MemoryModel) {
        3
    } else if is(Op::EntryPoint) {
        4
    } else if is(Op::ExecutionMode) || is(Op::ExecutionModeId) {
        5
    } else if DEBUG.iter().any(|&o| is(o)) {
        6
    } else if ANNOTATION.iter().any(|&o| is(o)) {
        7
    } else {
        8
    }
}

/// Float operations whose results get `NoContraction` (result id in word 2).
fn contractible(op: u32) -> bool {
    [
        Op::FAdd,
        Op::FSub,
        Op::FMul,
        Op::FDiv,
        Op::FNegate,
        Op::VectorTimesScalar,
        Op::Dot,
    ]
    .iter()
    .any(|&o| o as u32 == op)
}

fn inst(op: Op, operands: &[u32]) -> Vec<u32> {
    let mut v = Vec::with_capacity(operands.len() + 1);
    v.push(((operands.len() as u32 + 1) << 16) | op as u32);
    v.extend_from_slice(operands);
    v
}

/// A literal string operand: UTF-8, NUL-terminated, padded to whole words.
fn string_words(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    while bytes.len() % 4 != 0 {
        bytes.push(0);
    }
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `words` with the float controls `c` added (see the module docs).
pub fn patch(words: &[u32], c: Controls) -> Result<Vec<u32>, PatchError> {
    if words.len() < 5 || words[0] != spirv::MAGIC_NUMBER {
        return Err(PatchError::Malformed("no SPIR-V header"));
    }
    let version = ((words[1] >> 16) & 0xff, (words[1] >> 8) & 0xff);
    // Split into instructions, check the section order, collect what the additions need.
    let mut insts: Vec<&[u32]> = Vec::new();
    let mut at = 5;
    let mut last_section = 0u8;
    let (mut entries, mut contract) = (Vec::new(), Vec::new());
    let (mut f32_used, mut f64_used) = (false, false);
    let mut capabilities = Vec::new();
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        let op = words[at] & 0xffff;
        if count == 0 || at + count > words.len() {
            return Err(PatchError::Malformed("an instruction runs past the end"));
        }
        let i = &words[at..at + count];
        let s = section(op);
        if s < last_section {
            return Err(PatchError::OutOfOrder {
                index: insts.len(),
                op,
            });
        }
        last_section = s;
        if op == Op::EntryPoint as u32 && count > 2 {
            entries.push(i[2]);
        } else if op == Op::Capability as u32 && count > 1 {
            capabilities.push(i[1]);
        } else if op == Op::TypeFloat as u32 && count > 2 {
            f32_used |= i[2] == 32;
            f64_used |= i[2] == 64;
        } else if contractible(op) && count > 2 {
            contract.push(i[2]);
        }
        insts.push(i);
        at += count;
    }
    // The additions, by section.
    let mut add: [Vec<u32>; 9] = Default::default();
    let preserve = [
        (32, c.preserve_f32 && f32_used),
        (64, c.preserve_f64 && f64_used),
    ];
    let denorm = [
        (32, c.denorm_f32 && f32_used),
        (64, c.denorm_f64 && f64_used),
    ];
    let want_preserve = preserve.iter().any(|p| p.1);
    let want_denorm = denorm.iter().any(|p| p.1);
    for (cap, wanted) in [
        (Capability::SignedZeroInfNanPreserve, want_preserve),
        (Capability::DenormPreserve, want_denorm),
    ] {
        if wanted && !capabilities.contains(&(cap as u32)) {
            add[0].extend(inst(Op::Capability, &[cap as u32]));
        }
    }
    if (want_preserve || want_denorm) && version < (1, 4) {
        add[1].extend(inst(Op::Extension, &string_words("SPV_KHR_float_controls")));
    }
    for &e in &entries {
        for (width, on) in preserve {
            if on {
                let mode = ExecutionMode::SignedZeroInfNanPreserve as u32;
                add[5].extend(inst(Op::ExecutionMode, &[e, mode, width]));
            }
        }
        for (width, on) in denorm {
            if on {
                let mode = ExecutionMode::DenormPreserve as u32;
                add[5].extend(inst(Op::ExecutionMode, &[e, mode, width]));
            }
        }
    }
    for id in contract {
        add[7].extend(inst(Op::Decorate, &[id, Decoration::NoContraction as u32]));
    }
    // Reassemble: each section's instructions, then its additions.
    let mut out = Vec::with_capacity(words.len() + add.iter().map(Vec::len).sum::<usize>());
    out.extend_from_slice(&words[..5]);
    let mut next = 0;
    for (s, extra) in add.iter().enumerate() {
        while next < insts.len() && section(insts[next][0] & 0xffff) as usize == s {
            out.extend_from_slice(insts[next]);
            next += 1;
        }
        out.extend_from_slice(extra);
    }
    Ok(out)
}
