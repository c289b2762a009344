//! gpuarrays' operations as named ranges in a GPU profiler: installs
//! `gpuarrays::profiling::RangeLayer`, then sorts, deduplicates and reduces an array on the
//! backend chosen at run time, so Nsight Systems / Nsight Compute (NVTX) or rocprof (roctx)
//! show each operation as a range holding its kernels.
//!
//! ```text
//! cargo run --release --example profile_ranges               # 1 Mi elements
//! nsys profile --trace=cuda,nvtx target/release/examples/profile_ranges
//! ncu --nvtx --nvtx-include "argsort/" target/release/examples/profile_ranges
//! ```

use gpuarrays::prelude::*;
use tracing_subscriber::layer::SubscriberExt;

fn main() -> Result<()> {
    let n: usize = match std::env::args().nth(1) {
        None => 1 << 20,
        Some(arg) => match arg.parse() {
            Ok(n) => n,
            Err(e) => {
                eprintln!("the argument is an element count, got {arg:?}: {e}");
                std::process::exit(2);
            }
        },
    };
    let layer = gpuarrays::profiling::RangeLayer::new();
    println!("range sinks: {layer:?}");
    let subscriber = tracing_subscriber::registry().with(layer);
    if tracing::subscriber::set_global_default(subscriber).is_err() {
        eprintln!("a global tracing subscriber was already set: no ranges");
    }

    let backend = default_backend()?;
    println!("device: {}", backend.device());

    // A scrambled permutation of 0..n (a multiplicative hash, odd multiplier), folded into
    // n/4 distinct values so that `unique` has duplicates to remove.
    let i = Array::<u32, _>::arange(&backend, 0, 1, n)?;
    let keys = ((i.ex() * 2_654_435_761u32) % (n as u32 / 4).max(1)).eval::<u32>()?;
    let x = keys.cast::<f32>()?;

    let order = x.argsort(0, SortOrder::Ascending)?; // range "argsort"
    let distinct = x.unique()?; // range "unique"
    let total = x.sum()?; // a "reduce f32" range (one kernel family)
    backend.synchronize()?;

    // Check on the host: `order` sorts `x` stably, and `unique` has every value once.
    let (xs, perm, uniq) = (x.to_vec()?, order.to_vec()?, distinct.to_vec()?);
    let sorted_ok = perm
        .windows(2)
        .all(|w| (xs[w[0] as usize], w[0]) < (xs[w[1] as usize], w[1]));
    let mut expected: Vec<f32> = xs.clone();
    expected.sort_by(f32::total_cmp);
    expected.dedup();
    println!(
        "{n} elements, {} distinct, sum {}; argsort {}, unique {}",
        uniq.len(),
        total,
        if sorted_ok { "sorted" } else { "NOT SORTED" },
        if uniq == expected { "exact" } else { "WRONG" },
    );
    if !sorted_ok || uniq != expected {
        std::process::exit(1);
    }
    Ok(())
}
