//! Every operation on a freed buffer, and on an empty view of one, returns `Freed`.

use super::*;

#[test]
fn every_operation_on_a_freed_buffer_returns_freed() {
    let b = cpu();
    let base = iota(&b, &[4, 6]);
    let view = base.view(&[1..3, 0..6]).unwrap();
    let reshaped = base.reshape(&[6, 4]).unwrap();
    let words = base.reinterpret::<u32>().unwrap();
    let mut dst = iota(&b, &[2, 6]);
    view.free_all_shared().unwrap();
    let msg = ["free_all_shared", "can no longer be used"];
    for a in [&base, &view, &reshaped] {
        fails(a.to_vec(), ErrorKind::Freed, &msg);
        fails(a.sum(), ErrorKind::Freed, &msg);
        fails(a.max(), ErrorKind::Freed, &msg);
        fails(a.mean(), ErrorKind::Freed, &msg);
        fails(a.any(), ErrorKind::Freed, &msg);
        fails(a.sum_axis(0), ErrorKind::Freed, &msg);
        fails(a.cumsum(0), ErrorKind::Freed, &msg);
        // Views (like `view` and `reshape`) are made without touching the buffer; their
        // first read is the use that fails.
        fails(
            a.reverse(0).and_then(|v| v.to_vec()),
            ErrorKind::Freed,
            &msg,
        );
        fails(
            a.permute(&[1, 0]).and_then(|v| v.to_vec()),
            ErrorKind::Freed,
            &msg,
        );
        fails(a.transpose().and_then(|v| v.copy()), ErrorKind::Freed, &msg);
        fails(a.sort(), ErrorKind::Freed, &msg);
        fails(a.find(), ErrorKind::Freed, &msg);
        fails(a.find_first(), ErrorKind::Freed, &msg);
        fails(a.copy(), ErrorKind::Freed, &msg);
        fails(a.cast::<f64>(), ErrorKind::Freed, &msg);
        let mut target = vec![2];
        target.extend(a.dims());
        fails(
            a.broadcast_to(&target).and_then(|v| v.copy()),
            ErrorKind::Freed,
            &msg,
        );
        fails((a.ex() * 2.0).eval::<f32>(), ErrorKind::Freed, &msg);
        fails(
            a.matmul(&iota(&b, &[a.dims()[1], 2])),
            ErrorKind::Freed,
            &msg,
        );
        let mut shared = a.share();
        fails(shared.fill(1.0), ErrorKind::Freed, &msg);
    }
    fails(words.to_vec(), ErrorKind::Freed, &msg);
    fails(dst.assign(&view), ErrorKind::Freed, &msg);
    let mut v = view.share();
    fails(v.assign(&dst), ErrorKind::Freed, &msg);
    fails((dst.ex() + 1.0).eval_into(&mut v), ErrorKind::Freed, &msg);
    // Freeing twice, and dropping everything afterwards, is fine.
    base.free_all_shared().unwrap();
    drop((base, view, reshaped, words));
}

/// Empty arrays read no element, but an empty view of a freed buffer is still a use of
/// that buffer: every operation says `Freed` (it used to return empty or identity results).
#[test]
fn every_operation_on_an_empty_view_of_a_freed_buffer_returns_freed() {
    let b = cpu();
    let base = iota(&b, &[4, 6]);
    let empty = base.view(&[2..2, 0..6]).unwrap();
    let flat = base.slice(3..3).unwrap();
    assert!(empty.is_empty() && flat.is_empty());
    base.free_all_shared().unwrap();
    let msg = ["free_all_shared", "can no longer be used"];
    for a in [&empty, &flat] {
        fails(a.to_vec(), ErrorKind::Freed, &msg);
        fails(a.sum(), ErrorKind::Freed, &msg);
        fails(a.prod(), ErrorKind::Freed, &msg);
        fails(a.mean(), ErrorKind::Freed, &msg);
        fails(a.any(), ErrorKind::Freed, &msg);
        fails(a.all(), ErrorKind::Freed, &msg);
        fails(a.sum_axis(0), ErrorKind::Freed, &msg);
        fails(a.cumsum(0), ErrorKind::Freed, &msg);
        fails(
            a.reverse(0).and_then(|v| v.to_vec()),
            ErrorKind::Freed,
            &msg,
        );
        fails(a.sort(), ErrorKind::Freed, &msg);
        fails(a.find(), ErrorKind::Freed, &msg);
        fails(a.find_first(), ErrorKind::Freed, &msg);
        fails(a.copy(), ErrorKind::Freed, &msg);
        fails(a.cast::<f64>(), ErrorKind::Freed, &msg);
        fails((a.ex() * 2.0).eval::<f32>(), ErrorKind::Freed, &msg);
        fails(a.fftshift(None), ErrorKind::Freed, &msg);
        fails(
            a.rfft(Some(4), a.ndim() - 1, FftNorm::Backward),
            ErrorKind::Freed,
            &msg,
        );
        let mut shared = a.share();
        fails(shared.fill(1.0), ErrorKind::Freed, &msg);
        let mut target = vec![2];
        target.extend(a.dims());
        fails(
            a.broadcast_to(&target).and_then(|v| v.copy()),
            ErrorKind::Freed,
            &msg,
        );
    }
    fails(
        empty.permute(&[1, 0]).and_then(|v| v.to_vec()),
        ErrorKind::Freed,
        &msg,
    );
    fails(
        empty.transpose().and_then(|v| v.copy()),
        ErrorKind::Freed,
        &msg,
    );
    fails(empty.sum_axis(1), ErrorKind::Freed, &msg);
    fails(empty.max_axis(1), ErrorKind::Freed, &msg);
    fails(empty.matmul(&iota(&b, &[6, 2])), ErrorKind::Freed, &msg);
    fails(iota(&b, &[3, 0]).matmul(&empty), ErrorKind::Freed, &msg);
    let mut live = iota(&b, &[0, 6]);
    fails(live.assign(&empty), ErrorKind::Freed, &msg);
    fails(
        (live.ex() + empty.ex()).eval::<f32>(),
        ErrorKind::Freed,
        &msg,
    );
    let mut dead = empty.share();
    fails(
        (live.ex() + 1.0).eval_into(&mut dead),
        ErrorKind::Freed,
        &msg,
    );
}
