//! The example of docs/guide.md ("Reading and writing data"), kept compiling and true: the
//! guide's `gpuarrays::io` is this crate, its prelude core and the CPU backend, and its
//! files live in a temporary directory here.

use gpuarrays_core::{Array, Backend};
use gpuarrays_cpu_ref::CpuBackend;
use gpuarrays_io::{FromNdarray, load_npy, load_npz, save_npy, save_npz, to_ndarray};

#[test]
fn guide_example() -> gpuarrays_io::Result<()> {
    let dir = std::env::temp_dir().join(format!("gpuarrays-io-guide-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| gpuarrays_io::Error::Io {
        action: "creating",
        path: dir.clone(),
        source: e,
    })?;
    let cpu = CpuBackend::new();

    let m = ndarray::array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let x = m.t().to_gpuarrays(&cpu)?;
    let back = to_ndarray(&x)?;
    assert_eq!(back, m.t().into_dyn());

    save_npy(dir.join("x.npy"), x.raw())?;
    let y = load_npy(&cpu, dir.join("x.npy"))?.into_typed::<f64>()?;
    assert_eq!(y.to_vec()?, x.to_vec()?);

    let n = Array::<i32, _>::arange(&cpu, 0, 1, 5)?;
    save_npz(dir.join("both.npz"), &[("x", x.raw()), ("n", n.raw())])?;
    let mut names = Vec::new();
    for (name, a) in load_npz(&cpu, dir.join("both.npz"))? {
        println!(
            "{name}: {} {:?} on {}",
            a.dtype(),
            a.dims(),
            a.backend().device()
        );
        names.push(name);
    }
    assert_eq!(names, ["x", "n"]);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
