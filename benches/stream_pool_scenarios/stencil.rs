//! Scenario 4: a 5-point Jacobi sweep on an `n`×`n` f32 grid split into `c`×`c` chunks, with
//! one new thread per chunk per phase (as a task runtime spawns a task per chunk): each
//! iteration, every chunk's thread fills its halo from its neighbours' arrays, then every
//! chunk's thread computes its new interior. Reported: ms per iteration; the result must
//! equal a plain CPU loop over the whole grid.
//!
//! Each chunk is an (h+2)×(w+2) array with a one-cell halo. Views are contiguous runs, so
//! the sweep works on the flat row-major layout: neighbours `k±1` and `k±(w+2)` are slices of
//! the same buffer shifted by a constant, and the column of flat index `k` is computed in the
//! expression (`k - (k / (w+2))·(w+2)`) to leave halo columns alone. Global boundary: the top
//! edge is held at 1, the others at 0.

use std::time::Instant;

use gpuarrays::hip::HipBackend;
use gpuarrays::prelude::*;

type A = Array<f32, HipBackend>;

struct Chunk {
    u: A,
    v: A,
}

fn err(e: Error) -> String {
    e.to_string()
}

/// Fills chunk (bi, bj)'s halo columns and rows from its neighbours' `u`.
fn exchange(
    hip: &HipBackend,
    chunks: &[Chunk],
    c: usize,
    bi: usize,
    bj: usize,
    h: usize,
    w: usize,
) -> Result<(), Error> {
    let me = &chunks[bi * c + bj].u;
    let w2 = w + 2;
    let nb = |i: usize, j: usize| &chunks[i * c + j].u;
    if bi > 0 {
        me.slice(1..w + 1)?
            .assign(&nb(bi - 1, bj).slice(h * w2 + 1..h * w2 + w + 1)?)?;
    }
    if bi + 1 < c {
        me.slice((h + 1) * w2 + 1..(h + 1) * w2 + w + 1)?
            .assign(&nb(bi + 1, bj).slice(w2 + 1..w2 + w + 1)?)?;
    }
    if c == 1 {
        return Ok(());
    }
    // Rows 1..=h as one flat run: flat index k = w2 + i.
    let (start, end) = (w2, (h + 1) * w2);
    let len = end - start;
    let col = || {
        let k = || Expr::index(hip, &[len]) + start as i64;
        k() - (k() / w2 as i64) * w2 as i64
    };
    let mut value = me.slice(start..end)?.ex();
    if bj > 0 {
        value = col()
            .eq(0)
            .select(&nb(bi, bj - 1).slice(start + w..end + w)?, value);
    }
    if bj + 1 < c {
        value = col()
            .eq(w as i64 + 1)
            .select(&nb(bi, bj + 1).slice(start - w..end - w)?, value);
    }
    value.eval_into(&mut me.slice(start..end)?)
}

/// Computes chunk `k`'s new interior into its `v` from its `u`.
fn sweep(hip: &HipBackend, chunk: &Chunk, h: usize, w: usize) -> Result<(), Error> {
    let w2 = w + 2;
    let (a, end) = (w2 + 1, (h + 1) * w2 - 1);
    let len = end - a;
    let u = |shift: isize| {
        chunk
            .u
            .slice((a as isize + shift) as usize..(end as isize + shift) as usize)
    };
    let col = || {
        let k = || Expr::index(hip, &[len]) + a as i64;
        k() - (k() / w2 as i64) * w2 as i64
    };
    let stencil = (((u(-1)?.ex() + &u(1)?) + &u(-(w2 as isize))?) + &u(w2 as isize)?) * 0.25;
    let interior = col().ge(1) & col().le(w as i64);
    let mut dst = chunk.v.slice(a..end)?;
    interior.select(stencil, &dst.share()).eval_into(&mut dst)
}

/// Runs `f(index)` on one new thread per chunk and collects the first error.
fn per_chunk(n: usize, f: impl Fn(usize) -> Result<(), Error> + Sync) -> Result<(), String> {
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|i| {
                let f = &f;
                s.spawn(move || f(i))
            })
            .collect();
        hs.into_iter().try_for_each(|h| {
            h.join()
                .map_err(|_| "a chunk thread panicked".to_string())?
                .map_err(err)
        })
    })
}

fn reference(n: usize, iters: usize) -> Vec<f32> {
    let n2 = n + 2;
    let mut u = vec![0f32; n2 * n2];
    u[..n2].fill(1.0);
    let mut v = u.clone();
    for _ in 0..iters {
        for i in 1..=n {
            for j in 1..=n {
                let k = i * n2 + j;
                v[k] = (((u[k - 1] + u[k + 1]) + u[k - n2]) + u[k + n2]) * 0.25;
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    u
}

pub fn run(hip: &HipBackend, n: usize, c: usize, iters: usize) -> Result<(), String> {
    let (h, w) = (n / c, n / c);
    let w2 = w + 2;
    let mut chunks = Vec::new();
    for bi in 0..c {
        for _ in 0..c {
            let mut init = vec![0f32; (h + 2) * w2];
            if bi == 0 {
                init[..w2].fill(1.0);
            }
            let u = Array::from_slice(hip, &[h + 2, w2], &init).map_err(err)?;
            let v = Array::from_slice(hip, &[h + 2, w2], &init).map_err(err)?;
            chunks.push(Chunk { u, v });
        }
    }
    let warmup = 2;
    let mut t = Instant::now();
    for it in 0..warmup + iters {
        if it == warmup {
            hip.synchronize().map_err(err)?;
            t = Instant::now();
        }
        per_chunk(c * c, |k| exchange(hip, &chunks, c, k / c, k % c, h, w))?;
        per_chunk(c * c, |k| sweep(hip, &chunks[k], h, w))?;
        for ch in &mut chunks {
            std::mem::swap(&mut ch.u, &mut ch.v);
        }
    }
    hip.synchronize().map_err(err)?;
    let ms = t.elapsed().as_secs_f64() * 1e3 / iters as f64;
    // Compare with the CPU loop (interior cells).
    let want = reference(n, warmup + iters);
    let mut max_diff = 0f32;
    for (k, ch) in chunks.iter().enumerate() {
        let (bi, bj) = (k / c, k % c);
        let got = ch.u.to_vec().map_err(err)?;
        for i in 1..=h {
            for j in 1..=w {
                let g = got[i * w2 + j];
                let r = want[(bi * h + i) * (n + 2) + bj * w + j];
                max_diff = max_diff.max((g - r).abs());
            }
        }
    }
    println!(
        "scenario,stencil,grid,chunks,threads_per_iteration,ms_per_iteration,max_abs_diff_vs_cpu"
    );
    println!(
        "scenario,stencil,{n},{c}x{c},{},{ms:.3},{max_diff:e}",
        2 * c * c
    );
    if max_diff > 1e-6 {
        Err(format!(
            "stencil {c}x{c}: differs from the CPU loop by {max_diff}"
        ))
    } else {
        Ok(())
    }
}
