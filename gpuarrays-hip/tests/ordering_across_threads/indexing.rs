//! Gathers and scatters ordered against other threads' work on each of their operands.

use super::*;
use gpuarrays_core::kernel::{GatherArgs, IndexMode, IndexSpace, ScatterArgs, ScatterOp, Strided3};

fn line(buffer: &HipBuffer) -> Strided3<'_, HipBuffer> {
    Strided3 {
        buffer,
        offset: 0,
        strides: [0, 1, 0],
    }
}

fn space(index: &HipBuffer) -> IndexSpace<'_, HipBuffer> {
    IndexSpace {
        dims: [1, N, 1],
        index: line(index),
        extent: N,
        mode: IndexMode::Wrap,
    }
}

/// `op(index, rows, table)` on this thread while three other threads' kernels writing one
/// operand each may still run, each thread reading its operand back afterwards: every pair
/// must be ordered. Each operand's last writer is a stream of its own, so an operand the
/// operation left out of its ordering shows up as a race. (Whether a written operand is
/// declared a write the double cannot tell: it takes the declarations as the truth.)
fn after_three_writers(op: impl Fn(&HipBackend, &HipBuffer, &HipBuffer, &HipBuffer)) {
    let (_h, f, b) = fake_with(FakeConfig {
        kernel_time: Duration::from_millis(20),
        ..FakeConfig::default()
    });
    let bufs = [N * 8, N * 4, N * 4].map(|bytes| b.alloc(bytes).expect("alloc"));
    let step = Barrier::new(4);
    std::thread::scope(|s| {
        for buf in &bufs {
            let (b, step) = (&b, &step);
            s.spawn(move || {
                fill(b, buf, 1.0);
                step.wait();
                step.wait();
                let mut back = vec![0u8; N * 4];
                b.read(buf, 0, &mut back).expect("read back");
            });
        }
        step.wait();
        op(&b, &bufs[0], &bufs[1], &bufs[2]);
        step.wait();
    });
    assert_no_races(&f);
}

#[test]
fn gathers_and_scatters_are_ordered_with_other_threads_work() {
    after_three_writers(|b, index, rows, table| {
        b.gather(&GatherArgs {
            dtype: DType::F32,
            space: space(index),
            source: line(table),
            output: rows,
            output_offset: 0,
            out_of_range: None,
        })
        .expect("gather");
    });
    for op in ScatterOp::ALL {
        after_three_writers(|b, index, rows, table| {
            b.scatter(&ScatterArgs {
                op,
                dtype: DType::F32,
                space: space(index),
                target: line(table),
                values: line(rows),
            })
            .expect("scatter");
        });
    }
}
