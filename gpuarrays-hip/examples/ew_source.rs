//! Writes the NVIDIA source of the elementwise kernel of a random draw (`uniform_f32`,
//! `normal_f32`) for a given vector width, as the backend would compile it, so that
//! `benches/h200/ew_variants.py` can time variants of it side by side on the GPU machine.
//!
//! ```text
//! cargo run -p gpuarrays-hip --example ew_source -- DIR [VEC ...]
//! ```
//! writes `DIR/{uniform,normal}_f32_{loop,v{VEC}u{U}}.cu` for each VEC (default 4): the
//! grid-stride form with VEC, and the one-step form with U = 1 and 2 vectors per thread.

use gpuarrays_core::DType;
use gpuarrays_core::kernel::{Distribution, Instr, Node, Program};
use gpuarrays_hip::kernels::cpp::header::{Dialect, kernel_header};
use gpuarrays_hip::kernels::elementwise::codegen;
use gpuarrays_hip::kernels::elementwise::layout::{Class, EwLayout};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let dir = args.next().ok_or("usage: ew_source DIR [VEC ...]")?;
    let mut vecs: Vec<u32> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    if vecs.is_empty() {
        vecs.push(4);
    }
    std::fs::create_dir_all(&dir)?;
    for (dist, name) in [
        (Distribution::Uniform, "uniform"),
        (Distribution::Normal, "normal"),
    ] {
        let program = Program {
            inputs: vec![],
            scalars: vec![DType::U64],
            instrs: vec![Instr {
                node: Node::Random(dist, 0),
                dtype: DType::F32,
            }],
        };
        for &vec in &vecs {
            for (one_step, per_thread) in [(false, 1), (true, 1), (true, 2)] {
                let layout = EwLayout {
                    inputs: Default::default(),
                    output: Class::Contiguous,
                    vec,
                    ndim: 0,
                    idx32: false,
                    transpose: None,
                    one_step,
                    per_thread,
                };
                let mut src = kernel_header(Dialect::Nvidia, 32);
                src.push_str(&codegen::body(&program, &layout, DType::F32)?);
                let form = if one_step { "step" } else { "loop" };
                let path = format!("{dir}/{name}_f32_{form}_v{vec}u{per_thread}.cu");
                std::fs::write(&path, src)?;
                println!("{path}");
            }
        }
    }
    Ok(())
}
