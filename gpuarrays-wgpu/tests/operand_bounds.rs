//! Kernel descriptions at the edges of what core sends, straight through the `Backend`
//! trait: a description reaching past an operand's bytes is refused (a pooled buffer's
//! capacity holds what its previous owner left there; a 0-byte array's buffer is such a
//! pooled buffer), and a 0-d elementwise description (what core's box copies send for
//! single elements: `fftshift` of short last axes, zero-padding a last axis of one point)
//! runs like any other.
//!
//! Skips without an adapter unless `GPUARRAYS_REQUIRE_WGPU=1`.

mod common;

use gpuarrays_core::kernel::{ElementwiseArgs, Instr, MatmulArgs, Node, Operand, Program};
use gpuarrays_core::{Backend, DType, ErrorKind, Result};
use gpuarrays_wgpu::{WgpuBackend, WgpuBuffer, WgpuOptions};

fn open() -> Option<WgpuBackend> {
    common::open_or_skip(&WgpuOptions::default())
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A 0-byte buffer whose pooled capacity holds another array's old data (1.5 everywhere).
fn empty_over_stale_data(g: &WgpuBackend) -> Result<WgpuBuffer> {
    let old = g.alloc(256)?;
    g.write(&old, 0, &f32_bytes(&[1.5; 64]))?;
    g.synchronize()?;
    g.release(old);
    g.alloc(0)
}

/// The copy program `out = in0` for f32.
fn copy_program() -> Program {
    Program {
        inputs: vec![DType::F32],
        scalars: vec![],
        instrs: vec![Instr {
            node: Node::Input(0),
            dtype: DType::F32,
        }],
    }
}

fn operand<'a>(
    buffer: &'a WgpuBuffer,
    offset: usize,
    strides: &'a [isize],
) -> Operand<'a, WgpuBuffer> {
    Operand {
        buffer,
        dtype: DType::F32,
        offset,
        strides,
    }
}

/// One (3, 4)·(4, 5) f32 product: `a` and `b` from their buffers at these offsets.
fn product<'a>(
    a: &'a WgpuBuffer,
    b: &'a WgpuBuffer,
    b_offset: usize,
    out: &'a WgpuBuffer,
) -> MatmulArgs<'a, WgpuBuffer> {
    MatmulArgs {
        dtype: DType::F32,
        batch: 1,
        m: 3,
        n: 5,
        k: 4,
        a,
        a_offset: 0,
        a_batch_stride: 12,
        b,
        b_offset,
        b_batch_stride: 0,
        output: out,
        output_offset: 0,
    }
}

/// What core's old batch rule sent for `[0, 3, 4] · [1, 4, 5]`: one (3, 4)·(4, 5) product
/// reading 12 elements of an empty `a`. It computed from the stale data; now it is refused.
#[test]
fn a_product_reading_past_an_operand_is_refused() -> Result<()> {
    let Some(g) = open() else { return Ok(()) };
    let a = empty_over_stale_data(&g)?;
    let b = g.alloc(20 * 4)?;
    g.write(&b, 0, &f32_bytes(&[1.0; 20]))?;
    let out = g.alloc(15 * 4)?;
    let r = g
        .matmul(&product(&a, &b, 0, &out))
        .and_then(|()| g.synchronize());
    let e = r.expect_err("a product over 12 elements of a 0-byte buffer ran");
    assert_eq!(e.kind(), ErrorKind::Backend, "{e}");
    assert!(e.to_string().contains("0-byte buffer"), "{e}");
    // One element past b: refused too; the exact extents run.
    let filled = g.alloc(12 * 4)?;
    g.write(&filled, 0, &f32_bytes(&[2.0; 12]))?;
    assert!(g.matmul(&product(&filled, &b, 1, &out)).is_err());
    g.matmul(&product(&filled, &b, 0, &out))?;
    let mut bytes = vec![0u8; 15 * 4];
    g.read(&out, 0, &mut bytes)?;
    assert!(
        bytes
            .chunks(4)
            .all(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) == 8.0)
    );
    Ok(())
}

/// An elementwise input of four elements from a 0-byte buffer is refused by the binding
/// plan (every kernel binds through it), instead of copying the stale data.
#[test]
fn an_elementwise_input_past_its_buffer_is_refused() -> Result<()> {
    let Some(g) = open() else { return Ok(()) };
    let empty = empty_over_stale_data(&g)?;
    let out = g.alloc(16)?;
    let args = ElementwiseArgs {
        shape: &[4],
        inputs: &[operand(&empty, 0, &[1])],
        scalars: &[],
        output: operand(&out, 0, &[1]),
    };
    let r = g
        .elementwise(&copy_program(), &args)
        .and_then(|()| g.synchronize());
    let e = r.expect_err("a copy of 4 elements from a 0-byte buffer ran");
    assert!(e.to_string().contains("buffer of 0 bytes"), "{e}");
    Ok(())
}

/// A 0-d description (shape `[]`, no strides): one element, at each operand's offset.
#[test]
fn a_rank_zero_elementwise_description_runs() -> Result<()> {
    let Some(g) = open() else { return Ok(()) };
    let src = g.alloc(4 * 4)?;
    g.write(&src, 0, &f32_bytes(&[1.0, 2.0, 3.0, 4.0]))?;
    let out = g.alloc(3 * 4)?;
    g.write(&out, 0, &f32_bytes(&[0.0; 3]))?;
    let args = ElementwiseArgs {
        shape: &[],
        inputs: &[operand(&src, 2, &[])],
        scalars: &[],
        output: operand(&out, 1, &[]),
    };
    g.elementwise(&copy_program(), &args)?;
    let mut bytes = vec![0u8; 12];
    g.read(&out, 0, &mut bytes)?;
    let got: Vec<f32> = bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(got, [0.0, 3.0, 0.0]);
    Ok(())
}
