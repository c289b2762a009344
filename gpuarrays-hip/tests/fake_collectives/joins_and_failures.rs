//! Joining (blocking until every rank has joined), and what fails instead of hanging or
//! computing garbage: disagreeing ranks, missing ranks, misuse, a machine without the
//! library; and the race detector seeing a collective's accesses.

use super::*;

#[test]
fn comm_init_rank_blocks_until_every_rank_has_joined() {
    let p = fake(2);
    let id = p.collective_id().unwrap();
    assert_ne!(id, p.collective_id().unwrap(), "ids are never repeated");
    let joined = AtomicBool::new(false);
    std::thread::scope(|s| {
        let first = s.spawn(|| {
            let c = p.comm_init_rank(D0, 2, &id, 0);
            joined.store(true, Ordering::SeqCst);
            c
        });
        std::thread::sleep(Duration::from_millis(200));
        assert!(
            !joined.load(Ordering::SeqCst),
            "rank 0 returned before rank 1 joined"
        );
        let second = p.comm_init_rank(D1, 2, &id, 1).unwrap();
        let first = first.join().unwrap().unwrap();
        assert_ne!(first, second);
    });
    assert_eq!(p.live_comms(), 2);
}

#[test]
fn ranks_that_disagree_fail_and_error_every_participant() {
    let p = fake(2);
    let ranks = ranks_grouped(&p, 2);
    let b: Vec<_> = ranks.iter().map(|&rk| upload(&p, rk, &[0; 16])).collect();
    let sum = CollectiveKind::AllReduce(ReduceOp::Sum);
    coll(&p, ranks[0], call(sum, b[0], b[0], 4)).unwrap();
    let e = coll(&p, ranks[1], call(sum, b[1], b[1], 2)).unwrap_err();
    assert!(e.to_string().contains("disagree"), "{e}");
    for rk in &ranks {
        assert!(p.synchronize_stream(rk.stream).is_err());
    }
    assert_eq!(p.stats().collectives_completed, 0);
    // Another operation or root disagrees too.
    let p = fake(2);
    let ranks = ranks_grouped(&p, 2);
    let b: Vec<_> = ranks.iter().map(|&rk| upload(&p, rk, &[0; 16])).collect();
    coll(
        &p,
        ranks[0],
        call(CollectiveKind::Broadcast { root: 0 }, b[0], b[0], 4),
    )
    .unwrap();
    let e = coll(
        &p,
        ranks[1],
        call(CollectiveKind::Broadcast { root: 1 }, b[1], b[1], 4),
    );
    assert!(e.is_err());
}

#[test]
fn missing_ranks_fail_within_the_timeout_instead_of_hanging() {
    let p = fake(2);
    let start = Instant::now();
    std::thread::scope(|s| {
        // A lone rank joining without a group.
        let lone = s.spawn(|| p.comm_init_rank(D1, 2, &p.collective_id().unwrap(), 1));
        // A lone rank joining inside a group: group_end waits, then fails.
        let grouped = s.spawn(|| {
            p.group_start().unwrap();
            p.comm_init_rank(D0, 2, &p.collective_id().unwrap(), 0)
                .unwrap();
            p.group_end()
        });
        // A collective whose other rank never enqueues its part.
        let ranks = ranks_grouped(&p, 2);
        let b = upload(&p, ranks[0], &[0; 16]);
        coll(
            &p,
            ranks[0],
            call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 4),
        )
        .unwrap();
        let e = p.synchronize_stream(ranks[0].stream).unwrap_err();
        assert!(e.to_string().contains("would deadlock"), "{e}");
        let e = lone.join().unwrap().unwrap_err();
        assert!(e.to_string().contains("would deadlock"), "{e}");
        let e = grouped.join().unwrap().unwrap_err();
        assert!(e.to_string().contains("would deadlock"), "{e}");
    });
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "{:?}",
        start.elapsed()
    );
    assert_eq!(
        p.live_comms(),
        3,
        "the lone rank left its group when it failed"
    );
}

#[test]
fn misuse_of_communicators_and_groups_is_refused() {
    let p = fake(2);
    let id = p.collective_id().unwrap();
    assert!(
        p.comm_init_rank(D0, 2, &id, 2).is_err(),
        "rank out of range"
    );
    assert!(p.comm_init_rank(D0, 0, &id, 0).is_err(), "no ranks");
    assert!(
        p.comm_init_rank(DeviceId(5), 1, &id, 0).is_err(),
        "no such device"
    );
    assert!(p.group_end().is_err(), "group_end without group_start");
    let one = p.comm_init_rank(D0, 1, &id, 0).unwrap();
    assert!(p.comm_init_rank(D0, 1, &id, 0).is_err(), "rank taken");
    let rk = Rank {
        dev: D0,
        stream: p.create_stream(D0, 0).unwrap(),
        comm: one,
    };
    let b = upload(&p, rk, &[0; 16]);
    // A group of one: the collective completes at once.
    coll(
        &p,
        rk,
        call(CollectiveKind::AllReduce(ReduceOp::Max), b, b, 4),
    )
    .unwrap();
    assert!(
        coll(&p, rk, call(CollectiveKind::Broadcast { root: 1 }, b, b, 4)).is_err(),
        "root"
    );
    assert!(
        coll(&p, rk, call(CollectiveKind::Send { peer: 0 }, b, b, 4)).is_err(),
        "self"
    );
    assert!(
        coll(
            &p,
            rk,
            call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 5)
        )
        .is_err(),
        "bounds"
    );
    let other = Rank {
        stream: p.create_stream(D1, 0).unwrap(),
        dev: D1,
        ..rk
    };
    assert!(
        coll(
            &p,
            other,
            call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 4)
        )
        .is_err()
    );
    p.bind_device(D0).unwrap();
    p.begin_capture(rk.stream, gpuarrays_hip::platform::CaptureMode::Relaxed)
        .unwrap();
    assert!(
        coll(
            &p,
            rk,
            call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 4)
        )
        .is_err(),
        "capture"
    );
    p.end_capture(rk.stream).unwrap();
    assert_eq!(p.stats().collectives_completed, 1);
    p.comm_destroy(one).unwrap();
    assert!(p.comm_destroy(one).is_err(), "destroyed twice");
    assert_eq!(p.live_comms(), 0);
}

#[test]
fn collective_accesses_reach_the_race_detector() {
    let p = fake(2);
    let ranks = ranks_grouped(&p, 2);
    let b: Vec<_> = ranks.iter().map(|&rk| upload(&p, rk, &[0; 16])).collect();
    p.synchronize_stream(ranks[1].stream).unwrap();
    p.bind_device(D0).unwrap();
    p.synchronize_stream(ranks[0].stream).unwrap();
    for (&rk, &b) in ranks.iter().zip(&b) {
        coll(
            &p,
            rk,
            call(CollectiveKind::AllReduce(ReduceOp::Sum), b, b, 4),
        )
        .unwrap();
    }
    // A write from another stream of device 0, not ordered after the collective.
    p.bind_device(D0).unwrap();
    let other = p.create_stream(D0, 0).unwrap();
    // SAFETY: `b[0]` holds 16 bytes.
    unsafe { p.memset_async(b[0], 1, 16, other) }.unwrap();
    assert!(
        !p.races().is_empty(),
        "an unordered write after a collective is a race"
    );
}

#[test]
fn without_the_library_every_call_is_library_not_found() {
    let p = FakePlatform::new(FakeConfig {
        devices: 2,
        collectives_available: false,
        ..FakeConfig::default()
    });
    let missing = |r: Result<(), HipError>| match r {
        Err(e @ HipError::LibraryNotFound { .. }) => assert!(e.to_string().contains("NCCL"), "{e}"),
        other => panic!("expected LibraryNotFound, got {other:?}"),
    };
    missing(p.collectives_version().map(drop));
    missing(p.collective_id().map(drop));
    let id = gpuarrays_hip::platform::CollectiveId([0; 128]);
    missing(p.comm_init_rank(D0, 1, &id, 0).map(drop));
    missing(p.comm_destroy(CommHandle(1)));
    missing(p.group_start());
    missing(p.group_end());
    let rk = Rank {
        dev: D0,
        stream: p.create_stream(D0, 0).unwrap(),
        comm: CommHandle(1),
    };
    missing(coll(
        &p,
        rk,
        call(CollectiveKind::AllGather, DevicePtr(0), DevicePtr(0), 1),
    ));
    // With it: a version.
    assert!(fake(1).collectives_version().unwrap().contains("NCCL"));
}
