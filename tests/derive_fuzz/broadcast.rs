//! Broadcast cases: an expression over operands at offsets inside larger buffers, checked
//! element by element against the model's broadcast.

use super::*;

fn broadcast_expected(
    values: &[Vec<i32>],
    dims: &[&[usize]],
    out: &[usize],
    f: impl Fn(&[i32]) -> i32,
) -> Vec<i32> {
    model::indices(out)
        .iter()
        .map(|idx| {
            let args: Vec<i32> = values
                .iter()
                .zip(dims)
                .map(|(v, d)| v[model::source_index(d, idx)])
                .collect();
            f(&args)
        })
        .collect()
}

pub(crate) fn run_broadcast(
    cpu: &CpuBackend,
    seed: u64,
    c: &BroadcastCase,
    tally: &mut Tally,
) -> std::result::Result<(), String> {
    let mut r = Rng::new(seed ^ 0xb40a);
    let mut values = Vec::new();
    let mut arrays = Vec::new();
    for op in &c.operands {
        let n = model::count(&op.dims) as usize;
        let host: Vec<i32> = (0..op.pad + n).map(|_| r.below(101) as i32 - 50).collect();
        let dims: Vec<isize> = op.dims.iter().map(|&d| d as isize).collect();
        let arr = Array::<i32, _>::from_vec(cpu, host.clone())
            .and_then(|a| a.slice(op.pad..op.pad + n))
            .and_then(|a| a.reshape(&dims))
            .map_err(|e| format!("operand setup failed: {e}"))?;
        // An empty view starts where its parent starts (nothing is read from it).
        if n > 0 && arr.offset() != op.pad {
            return Err(format!(
                "operand at element {} instead of {}",
                arr.offset(),
                op.pad
            ));
        }
        values.push(host[op.pad..].to_vec());
        arrays.push(arr);
    }
    let dims: Vec<&[usize]> = c.operands.iter().map(|o| o.dims.as_slice()).collect();
    let (model_out, actual) = match &c.op {
        BroadcastOp::Add => (
            model::broadcast(dims[0], dims[1]).map(|out| {
                (
                    broadcast_expected(&values, &dims, &out, |v| v[0].wrapping_add(v[1])),
                    out,
                )
            }),
            (arrays[0].ex() + arrays[1].ex()).eval::<i32>(),
        ),
        BroadcastOp::MulSub => (
            model::broadcast(dims[0], dims[1])
                .and_then(|ab| model::broadcast(&ab, dims[2]))
                .map(|out| {
                    let f = |v: &[i32]| v[0].wrapping_mul(v[1]).wrapping_sub(v[2]);
                    (broadcast_expected(&values, &dims, &out, f), out)
                }),
            (arrays[0].ex() * arrays[1].ex() - arrays[2].ex()).eval::<i32>(),
        ),
        BroadcastOp::To(target) => (
            model::broadcast(dims[0], target)
                .filter(|out| out == target)
                .map(|out| (broadcast_expected(&values, &dims, &out, |v| v[0]), out)),
            arrays[0].broadcast_to(target),
        ),
    };
    let model_out = model_out.ok_or(Expect::ShapeMismatch);
    let what = format!("{:?}", c.op);
    agree(
        &what,
        model_out.as_ref().err().copied(),
        actual.as_ref().err(),
    )?;
    tally.note(model_out.as_ref().err().copied(), "broadcast ok");
    if let (Ok((expected, out)), Ok(got)) = (model_out, actual) {
        if got.dims() != out.as_slice() {
            return Err(format!("{what}: shape {:?}, the model {out:?}", got.dims()));
        }
        let got = got
            .to_vec()
            .map_err(|e| format!("{what}: read failed: {e}"))?;
        if got != expected {
            return Err(format!("{what}: {got:?}, the model {expected:?}"));
        }
    }
    Ok(())
}
