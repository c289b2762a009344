//! Collectives through the real NCCL/RCCL: a group of one rank on one device (every
//! collective and element type through the library: the FFI table, its types and argument
//! order), and a group of every device of the machine when it has two or more (reductions,
//! layouts, point-to-point, ranks on threads).
//!
//! Without a GPU, or without the collective library, every test prints why and passes,
//! unless `GPUARRAYS_REQUIRE_NCCL=1` (set it where NCCL/RCCL is installed), which makes that
//! a failure. The test-double versions of these tests run everywhere
//! (`multi_device_fake.rs`).

use gpuarrays_core::{Array, Complex32, Error, bf16, f16};
use gpuarrays_hip::HipBackend;
use gpuarrays_hip::collectives::{Communicator, ReduceOp, group};

fn required() -> bool {
    std::env::var("GPUARRAYS_REQUIRE_NCCL").is_ok_and(|v| v == "1")
}

/// Every device, if there is one and the collective library loads.
fn devices() -> Option<Vec<HipBackend>> {
    let devices = match HipBackend::all() {
        Ok(d) if !d.is_empty() => d,
        Ok(_) | Err(_) if !required() => {
            eprintln!("skipped: no HIP device");
            return None;
        }
        other => panic!("GPUARRAYS_REQUIRE_NCCL=1 but no HIP device: {other:?}"),
    };
    match Communicator::library_version(&devices[0]) {
        Ok(v) => {
            eprintln!("{v} on {} device(s)", devices.len());
            Some(devices)
        }
        Err(e) => {
            assert!(
                !required(),
                "GPUARRAYS_REQUIRE_NCCL=1 but the library is missing: {e}"
            );
            eprintln!("skipped: {e}");
            None
        }
    }
}

/// The tests share the machine's devices: one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn one_rank_runs_every_collective_and_type_through_the_library() {
    let _s = serial();
    let Some(devices) = devices() else { return };
    let d = &devices[0];
    let comms = Communicator::for_devices(std::slice::from_ref(d)).unwrap();
    let c = &comms[0];
    assert_eq!((c.rank(), c.ranks()), (0, 1));

    let x: Vec<f32> = (0..10_007).map(|i| (i % 101) as f32 * 0.5 - 7.0).collect();
    let a = Array::from_slice(d, &[x.len()], &x).unwrap();
    for op in [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max] {
        assert_eq!(c.all_reduce(&a, op).unwrap().to_vec().unwrap(), x, "{op:?}");
    }
    let mut b = a.copy().unwrap();
    c.all_reduce_in_place(&mut b, ReduceOp::Sum).unwrap();
    assert_eq!(b.to_vec().unwrap(), x);
    let r = c
        .reduce(&a, ReduceOp::Sum, 0)
        .unwrap()
        .expect("the root's result");
    assert_eq!(r.to_vec().unwrap(), x);
    assert_eq!(c.broadcast(&a, 0).unwrap().to_vec().unwrap(), x);
    let g = c.all_gather(&a).unwrap();
    assert_eq!(g.dims(), &[1, x.len()]);
    assert_eq!(g.to_vec().unwrap(), x);
    let s = c.reduce_scatter(&a, ReduceOp::Max).unwrap();
    assert_eq!(s.to_vec().unwrap(), x);

    // Every element type the library has, and those that travel as others.
    macro_rules! round_trip {
        ($t:ty, $f:expr) => {{
            let v: Vec<$t> = (0..257).map($f).collect();
            let a = Array::from_slice(d, &[v.len()], &v).unwrap();
            let got = c.all_reduce(&a, ReduceOp::Max).unwrap().to_vec().unwrap();
            assert_eq!(got, v, "{}", stringify!($t));
        }};
    }
    round_trip!(f64, |i| i as f64 / 3.0);
    round_trip!(i32, |i| i - 100);
    round_trip!(i64, |i| (i as i64) << 40);
    round_trip!(u32, |i| i as u32 * 7);
    round_trip!(u64, |i| i as u64 * 11);
    round_trip!(i8, |i| (i % 200) as i8);
    round_trip!(u8, |i| i as u8);
    round_trip!(f16, |i| f16::from_f32(i as f32 * 0.25));
    round_trip!(bf16, |i| bf16::from_f32(i as f32 * 0.25));
    round_trip!(bool, |i| i % 3 == 0);
    let z: Vec<Complex32> = (0..99)
        .map(|i| Complex32::new(i as f32, -(i as f32)))
        .collect();
    let za = Array::from_slice(d, &[z.len()], &z).unwrap();
    assert_eq!(
        c.all_reduce(&za, ReduceOp::Sum).unwrap().to_vec().unwrap(),
        z
    );
    let h: Vec<i16> = (0..99).map(|i| i * 300 - 9000).collect();
    let ha = Array::from_slice(d, &[h.len()], &h).unwrap();
    assert_eq!(c.broadcast(&ha, 0).unwrap().to_vec().unwrap(), h);
    assert!(matches!(
        c.all_reduce(&ha, ReduceOp::Sum),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn one_rank_joins_with_an_id_and_orders_after_the_inputs_kernels() {
    let _s = serial();
    let Some(devices) = devices() else { return };
    let d = &devices[0];
    let id = Communicator::new_id(d).unwrap();
    let c = Communicator::join(d, 0, 1, &id).unwrap();
    // The input is written by a kernel just before: the collective must read it after.
    let a = Array::<f32, _>::full(d, &[1 << 22], 1.5).unwrap();
    let b: Array<f32, _> = (a.ex() * 4.0).eval().unwrap();
    let s = c.all_reduce(&b, ReduceOp::Sum).unwrap();
    let t: Array<f32, _> = (s.ex() + 1.0).eval().unwrap();
    assert_eq!(t.sum().unwrap(), 7.0 * (1 << 22) as f32);
}

#[test]
fn every_device_is_a_rank_of_one_group() {
    let _s = serial();
    let Some(devices) = devices() else { return };
    let n = devices.len();
    if n < 2 {
        eprintln!("skipped: one device (this test needs two or more)");
        return;
    }
    let comms = Communicator::for_devices(&devices).unwrap();
    let len = 1 << 20;
    let xs: Vec<Array<f32, _>> = devices
        .iter()
        .enumerate()
        .map(|(r, d)| {
            let v: Vec<f32> = (0..len).map(|i| (r * 1000 + i % 997) as f32).collect();
            Array::from_slice(d, &[len], &v).unwrap()
        })
        .collect();
    let sums = group(&devices[0], || {
        comms
            .iter()
            .zip(&xs)
            .map(|(c, x)| c.all_reduce(x, ReduceOp::Sum))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    let want: Vec<f32> = (0..len)
        .map(|i| (0..n).map(|r| (r * 1000 + i % 997) as f32).sum())
        .collect();
    for s in &sums {
        assert_eq!(s.to_vec().unwrap(), want);
    }
    // All-gather: rank r's array at index r; reduce-scatter: block r of the sum.
    let gathered = group(&devices[0], || {
        comms
            .iter()
            .zip(&xs)
            .map(|(c, x)| c.all_gather(x))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    let all: Vec<f32> = xs.iter().flat_map(|x| x.to_vec().unwrap()).collect();
    for g in &gathered {
        assert_eq!(g.dims(), &[n, len]);
        assert_eq!(g.to_vec().unwrap(), all);
    }
    let big: Vec<Array<f32, _>> = xs
        .iter()
        .map(|x| x.reshape(&[n as isize, -1]).unwrap())
        .collect();
    let blocks = group(&devices[0], || {
        comms
            .iter()
            .zip(&big)
            .map(|(c, x)| c.reduce_scatter(x, ReduceOp::Sum))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    let per = len / n;
    for (r, b) in blocks.iter().enumerate() {
        assert_eq!(b.to_vec().unwrap(), want[r * per..(r + 1) * per].to_vec());
    }
    // A ring of sends: rank r sends to r+1 and receives from r-1.
    let received = group(&devices[0], || {
        let mut out = Vec::new();
        for (r, c) in comms.iter().enumerate() {
            c.send(&xs[r], (r + 1) % n)?;
            out.push(c.recv::<f32>(&[len], (r + n - 1) % n)?);
        }
        Ok(out)
    })
    .unwrap();
    for (r, got) in received.iter().enumerate() {
        assert_eq!(got.to_vec().unwrap(), xs[(r + n - 1) % n].to_vec().unwrap());
    }
}

#[test]
fn ranks_on_threads_join_one_group() {
    let _s = serial();
    let Some(devices) = devices() else { return };
    let n = devices.len();
    if n < 2 {
        eprintln!("skipped: one device (this test needs two or more)");
        return;
    }
    let id = Communicator::new_id(&devices[0]).unwrap();
    std::thread::scope(|s| {
        for (r, d) in devices.iter().enumerate() {
            s.spawn(move || {
                let c = Communicator::join(d, r, n, &id).unwrap();
                let x = Array::<i64, _>::full(d, &[4097], r as i64 + 1).unwrap();
                let m = c.all_reduce(&x, ReduceOp::Max).unwrap();
                assert_eq!(m.to_vec().unwrap(), vec![n as i64; 4097]);
                let b = c.broadcast(&x, n - 1).unwrap();
                assert_eq!(b.to_vec().unwrap(), vec![n as i64; 4097]);
            });
        }
    });
}
