//! Arrays across devices on the platform test double: copies between devices
//! (`Array::to_device`, `to_backend`) take the peer route once peer access is enabled (once
//! per pair) and are ordered on both devices (the race detector sees no unordered use when
//! the source is freed and its memory reused at once while the copy is in flight), or go
//! through the host where the devices cannot reach each other; collectives on arrays
//! (`Communicator`) for ranks in one group or on threads, with their type rules, device
//! checks and ordering. The same tests on GPUs are `multi_gpu.rs` and `collectives_gpu.rs`.

use gpuarrays_core::{Array, Backend, Complex32, Error};
use gpuarrays_hip::collectives::{Communicator, ReduceOp, group};
use gpuarrays_hip::kernels::DiskCache;
use gpuarrays_hip::platform::test_double::{FakeConfig, FakeOp, FakePlatform};
use gpuarrays_hip::{DeviceCopyRoute, HipBackend, HipRuntime, RuntimeConfig};
use std::sync::Arc;
use std::time::Duration;

type Hip<T> = Array<T, HipBackend>;
/// One rank's part of a collective, given its communicator and its input.
type RankOp<'a> = &'a dyn Fn(&Communicator, &Hip<f32>) -> gpuarrays_core::Result<Hip<f32>>;
/// One rank's part of a collective, given its communicator and its device.
type RankOn<'a> = &'a dyn Fn(&Communicator, &HipBackend) -> gpuarrays_core::Result<Hip<f64>>;

/// `n` devices of one double (copies taking `copy_time`), one backend each.
fn machine(config: FakeConfig) -> (Arc<FakePlatform>, Vec<HipBackend>) {
    let n = config.devices;
    let fake = Arc::new(FakePlatform::new(config));
    let rt = HipRuntime::new(fake.clone(), RuntimeConfig::default()).expect("runtime");
    let backends = (0..n)
        .map(|d| HipBackend::with_runtime(rt.clone(), d, DiskCache::off()).expect("backend"))
        .collect();
    (fake, backends)
}

fn devices(n: usize) -> FakeConfig {
    FakeConfig {
        devices: n,
        copy_time: Duration::from_millis(2),
        ..FakeConfig::default()
    }
}

fn peer_copies(fake: &FakePlatform) -> usize {
    let log = fake.log();
    log.iter()
        .filter(|op| matches!(op, FakeOp::PeerCopy { .. }))
        .count()
}

#[test]
fn copies_between_devices_are_peer_copies_ordered_on_both_devices() {
    let (fake, d) = machine(devices(2));
    assert_eq!(d[0].device_copy_route(&d[1]), DeviceCopyRoute::Peer);
    let x: Vec<f32> = (0..50_000).map(|i| i as f32 * 0.5).collect();
    for round in 0..3 {
        let a = Array::from_slice(&d[0], &[x.len()], &x).unwrap();
        let b = a.to_device(&d[1]).unwrap();
        // The copy is in flight (copies take 2 ms): free the source and reuse its memory on
        // device 0 at once, and overwrite the copy on device 1.
        drop(a);
        let _reuse = Array::<f32, _>::from_slice(&d[0], &[x.len()], &vec![-1.0; x.len()]).unwrap();
        assert_eq!(b.backend().device().id, d[1].device().id);
        assert_eq!(b.to_vec().unwrap(), x, "round {round}");
        let back = b.to_backend(&d[0]).unwrap();
        drop(b);
        assert_eq!(back.to_vec().unwrap(), x);
    }
    assert_eq!(fake.races(), Vec::<String>::new());
    assert_eq!(peer_copies(&fake), 6);
    let stats = fake.stats();
    // Peer access enabled once per ordered pair; every copy ran with access enabled.
    assert_eq!(stats.peer_enables, 2);
    assert_eq!(stats.staged_peer_copies, 0);
    assert!(fake.peer_enabled(gpuarrays_hip::DeviceId(1), gpuarrays_hip::DeviceId(0)));
}

#[test]
fn devices_that_cannot_reach_each_other_copy_through_the_host() {
    let (fake, d) = machine(FakeConfig {
        peer_access: false,
        ..devices(2)
    });
    let route = d[0].device_copy_route(&d[1]);
    assert!(
        matches!(route, DeviceCopyRoute::ThroughHost(_)),
        "{route:?}"
    );
    let x: Vec<i64> = (0..10_000).map(|i| i * 3 - 7).collect();
    let a = Array::from_slice(&d[0], &[100, 100], &x).unwrap();
    let b = a.to_device(&d[1]).unwrap();
    assert_eq!(b.dims(), &[100, 100]);
    assert_eq!(b.to_vec().unwrap(), x);
    assert_eq!(peer_copies(&fake), 0);
    assert_eq!(fake.races(), Vec::<String>::new());
}

#[test]
fn one_device_to_itself_is_a_device_copy() {
    let (fake, d) = machine(devices(1));
    assert_eq!(d[0].device_copy_route(&d[0]), DeviceCopyRoute::SameDevice);
    let x: Vec<u8> = (0..=255).collect();
    let a = Array::from_slice(&d[0], &[256], &x).unwrap();
    let b = a.to_device(&d[0]).unwrap();
    drop(a);
    assert_eq!(b.to_vec().unwrap(), x);
    assert_eq!(peer_copies(&fake), 0);
}

/// Three ranks on three devices, `x_r = r·1000 + i`.
fn three_ranks() -> (Arc<FakePlatform>, Vec<HipBackend>, Vec<Communicator>) {
    let (fake, d) = machine(devices(3));
    let comms = Communicator::for_devices(&d).unwrap();
    (fake, d, comms)
}

#[test]
fn collectives_of_one_group_from_one_thread() {
    let (fake, d, comms) = three_ranks();
    let n = 3;
    let len = 900;
    let xs: Vec<Array<f32, _>> = d
        .iter()
        .enumerate()
        .map(|(r, b)| {
            let v: Vec<f32> = (0..len).map(|i| (r * 1000 + i) as f32).collect();
            Array::from_slice(b, &[len], &v).unwrap()
        })
        .collect();
    let each = |f: RankOp<'_>| {
        group(&d[0], || {
            comms
                .iter()
                .zip(&xs)
                .map(|(c, x)| f(c, x))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
    };
    let sums = each(&|c, x| c.all_reduce(x, ReduceOp::Sum));
    let maxes = each(&|c, x| c.all_reduce(x, ReduceOp::Max));
    let gathered = each(&|c, x| c.all_gather(x));
    let scattered = each(&|c, x| c.reduce_scatter(&x.reshape(&[9, 100]).unwrap(), ReduceOp::Min));
    for r in 0..n {
        let s = sums[r].to_vec().unwrap();
        let m = maxes[r].to_vec().unwrap();
        for i in 0..len {
            assert_eq!(s[i], (3000 + 3 * i) as f32);
            assert_eq!(m[i], (2000 + i) as f32);
        }
        assert_eq!(gathered[r].dims(), &[n, len]);
        let g = gathered[r].to_vec().unwrap();
        assert_eq!(g[..len], xs[0].to_vec().unwrap()[..]);
        assert_eq!(g[2 * len..], xs[2].to_vec().unwrap()[..]);
        // Each rank's [9, 100] in 3 blocks of 3 rows: rank r gets rows 3r..3r+3 of the
        // minimum over ranks, i.e. of rank 0's.
        assert_eq!(scattered[r].dims(), &[3, 100]);
        let want: Vec<f32> = (300 * r..300 * (r + 1)).map(|i| i as f32).collect();
        assert_eq!(scattered[r].to_vec().unwrap(), want);
    }
    // In place: each rank's own array becomes the sum; a view sharing it sees it too.
    let mut own: Vec<Hip<f32>> = xs.iter().map(|x| x.copy().unwrap()).collect();
    let views: Vec<Hip<f32>> = own.iter().map(|x| x.reshape(&[9, 100]).unwrap()).collect();
    group(&d[0], || {
        for (c, x) in comms.iter().zip(own.iter_mut()) {
            c.all_reduce_in_place(x, ReduceOp::Sum)?;
        }
        Ok(())
    })
    .unwrap();
    for v in &views {
        assert_eq!(v.to_vec().unwrap(), sums[0].to_vec().unwrap());
    }
    let mut strided = xs[0].reshape(&[9, 100]).unwrap().transpose().unwrap();
    assert!(
        comms[0]
            .all_reduce_in_place(&mut strided, ReduceOp::Sum)
            .is_err()
    );
    // Broadcast from rank 2 and reduce to rank 1.
    let b = group(&d[0], || {
        comms
            .iter()
            .zip(&xs)
            .map(|(c, x)| c.broadcast(x, 2))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    for a in &b {
        assert_eq!(a.to_vec().unwrap(), xs[2].to_vec().unwrap());
    }
    let red = group(&d[0], || {
        comms
            .iter()
            .zip(&xs)
            .map(|(c, x)| c.reduce(x, ReduceOp::Prod, 1))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    assert!(red[0].is_none() && red[2].is_none());
    let p = red[1]
        .as_ref()
        .expect("the root's result")
        .to_vec()
        .unwrap();
    assert_eq!(p[1], 1.0 * 1001.0 * 2001.0);
    assert_eq!(fake.races(), Vec::<String>::new());
}

#[test]
fn ranks_on_threads_join_with_a_shared_id_and_pass_arrays_around_a_ring() {
    let (fake, d) = machine(devices(3));
    let id = Communicator::new_id(&d[0]).unwrap();
    let n = d.len();
    // The double moves a collective's bytes when its last rank issues it (data at enqueue,
    // timing simulated), so each rank reads only after every rank has issued.
    let issued = std::sync::Barrier::new(n);
    let issued = &issued;
    std::thread::scope(|s| {
        for (r, b) in d.iter().enumerate() {
            s.spawn(move || {
                let c = Communicator::join(b, r, n, &id).unwrap();
                assert_eq!((c.rank(), c.ranks()), (r, n));
                let x = Array::<i32, _>::from_slice(b, &[5], &[r as i32; 5]).unwrap();
                // Even ranks send first, odd ranks receive first: no rank waits on itself.
                let from = (r + n - 1) % n;
                let got = if r % 2 == 0 {
                    c.send(&x, (r + 1) % n).unwrap();
                    c.recv::<i32>(&[5], from).unwrap()
                } else {
                    let got = c.recv::<i32>(&[5], from).unwrap();
                    c.send(&x, (r + 1) % n).unwrap();
                    got
                };
                let total = c.all_reduce(&x, ReduceOp::Sum).unwrap();
                issued.wait();
                assert_eq!(got.to_vec().unwrap(), vec![from as i32; 5]);
                assert_eq!(total.to_vec().unwrap(), vec![3; 5]);
            });
        }
    });
    assert_eq!(fake.races(), Vec::<String>::new());
}

#[test]
fn element_types_travel_as_the_library_types_or_are_refused_with_a_reason() {
    let (_fake, d, comms) = three_ranks();
    // Inside a group only collectives are issued; results are read after it ends.
    let issue = |f: RankOn<'_>| {
        group(&d[0], || {
            comms
                .iter()
                .zip(&d)
                .map(|(c, b)| f(c, b))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
        .iter()
        .map(|a| a.to_vec().unwrap())
        .collect::<Vec<_>>()
    };
    // Bool: max is "any", min is "all"; a sum is refused.
    let any = group(&d[0], || {
        comms
            .iter()
            .zip(&d)
            .map(|(c, b)| {
                let x = Array::from_slice(b, &[3], &[c.rank() == 1, false, true])?;
                c.all_reduce(&x, ReduceOp::Max)
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    assert_eq!(any[0].to_vec().unwrap(), vec![true, false, true]);
    let x = Array::from_slice(&d[0], &[2], &[true, false]).unwrap();
    let e = comms[0].all_reduce(&x, ReduceOp::Sum).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument { .. }) && e.to_string().contains("bool"),
        "{e}"
    );
    // i16 travels as bytes where nothing is computed, and has no reduction type.
    let h = Array::from_slice(&d[0], &[2], &[-3i16, 300]).unwrap();
    let e = comms[0].all_reduce(&h, ReduceOp::Max).unwrap_err();
    assert!(e.to_string().contains("i16"), "{e}");
    let shorts = group(&d[0], || {
        comms
            .iter()
            .zip(&d)
            .map(|(c, b)| {
                let x = Array::from_slice(b, &[2], &[c.rank() as i16 - 3, 300])?;
                c.broadcast(&x, 0)
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    assert_eq!(shorts[2].to_vec().unwrap(), vec![-3, 300]);
    // Complex numbers sum as pairs of reals; other reductions are refused.
    let sums = group(&d[0], || {
        comms
            .iter()
            .zip(&d)
            .map(|(c, b)| {
                let r = c.rank() as f32;
                let x =
                    Array::from_slice(b, &[2], &[Complex32::new(r, -r), Complex32::new(1.0, 2.0)])?;
                c.all_reduce(&x, ReduceOp::Sum)
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    assert_eq!(
        sums[1].to_vec().unwrap(),
        vec![Complex32::new(3.0, -3.0), Complex32::new(3.0, 6.0)]
    );
    let doubles = issue(&|c, b| {
        let x = Array::from_slice(b, &[2], &[c.rank() as f64, 0.5])?;
        c.all_reduce(&x, ReduceOp::Min)
    });
    assert_eq!(doubles[1], vec![0.0, 0.5]);
    let z = Array::from_slice(&d[0], &[1], &[Complex32::new(1.0, 1.0)]).unwrap();
    assert!(comms[0].all_reduce(&z, ReduceOp::Max).is_err());
}

#[test]
fn arguments_are_checked_before_anything_is_enqueued() {
    let (fake, d, comms) = three_ranks();
    let before = fake.stats().collectives_completed;
    let on_one = Array::<f32, _>::full(&d[1], &[4], 1.0).unwrap();
    let e = comms[0].all_reduce(&on_one, ReduceOp::Sum).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    let x = Array::<f32, _>::full(&d[0], &[4], 1.0).unwrap();
    assert!(matches!(
        comms[0].broadcast(&x, 3),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        comms[0].send(&x, 0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        comms[0].recv::<f32>(&[4], 7),
        Err(Error::InvalidArgument { .. })
    ));
    let e = comms[0].reduce_scatter(&x, ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("3 equal blocks"), "{e}");
    assert!(Communicator::for_devices(&[d[0].clone(), d[0].clone()]).is_err());
    assert!(Communicator::for_devices(&[]).is_err());
    assert!(Communicator::join(&d[0], 3, 3, &Communicator::new_id(&d[0]).unwrap()).is_err());
    assert_eq!(fake.stats().collectives_completed, before);
    assert!(
        fake.log()
            .iter()
            .all(|op| !matches!(op, FakeOp::Collective { .. }))
    );
}

#[test]
fn a_machine_without_the_library_says_what_to_install() {
    let (_fake, d) = machine(FakeConfig {
        collectives_available: false,
        ..devices(2)
    });
    let e = Communicator::for_devices(&d).unwrap_err();
    assert!(
        matches!(e, gpuarrays_hip::HipError::LibraryNotFound { .. }),
        "{e}"
    );
    assert!(Communicator::library_version(&d[0]).is_err());
}

#[test]
fn collectives_and_peer_copies_are_refused_inside_a_graph_capture() {
    let (_fake, d) = machine(devices(2));
    let comms = Communicator::for_devices(&d[..1]).unwrap();
    let x = Array::<f32, _>::from_slice(&d[0], &[4], &[1.0; 4]).unwrap();
    let e = d[0]
        .capture(&mut || comms[0].all_reduce(&x, ReduceOp::Sum).map(drop))
        .unwrap_err();
    assert!(matches!(e, Error::NotCapturable { .. }), "{e}");
    let e = d[0]
        .capture(&mut || x.to_device(&d[1]).map(drop))
        .unwrap_err();
    assert!(matches!(e, Error::NotCapturable { .. }), "{e}");
    // Outside the capture both work.
    assert_eq!(
        comms[0]
            .all_reduce(&x, ReduceOp::Sum)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![1.0; 4]
    );
    assert_eq!(x.to_device(&d[1]).unwrap().to_vec().unwrap(), vec![1.0; 4]);
}

#[test]
fn a_panic_inside_a_group_still_ends_it() {
    let (_fake, d, comms) = three_ranks();
    // (A rank that issued a collective before the panic would be one collective ahead of
    // the others, with NCCL as here: the panic comes before any.)
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        group(&d[0], || -> gpuarrays_core::Result<()> {
            panic!("the group's closure panics");
        })
    }));
    assert!(panicked.is_err());
    // The library's group was ended: another end is a misuse, not a close of an open group.
    let platform = d[0].device_state().platform();
    assert!(platform.group_end().is_err());
    // And the thread issues groups as before.
    let sums = group(&d[0], || {
        comms
            .iter()
            .zip(&d)
            .map(|(c, b)| c.all_reduce(&Array::from_slice(b, &[4], &[2.0f32; 4])?, ReduceOp::Sum))
            .collect::<Result<Vec<_>, _>>()
    })
    .unwrap();
    assert_eq!(sums[2].to_vec().unwrap(), vec![6.0; 4]);
}
