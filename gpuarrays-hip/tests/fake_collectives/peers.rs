//! Peer access, peer copies and the staged (host) path.

use super::*;

#[test]
fn peer_copies_move_bytes_and_count_enables_once_per_pair() {
    let p = fake(3);
    assert!(
        !p.can_access_peer(D0, D0).unwrap(),
        "a device is not its own peer"
    );
    assert!(p.can_access_peer(D0, D1).unwrap());
    assert!(p.can_access_peer(D0, DeviceId(3)).is_err());
    assert!(p.enable_peer_access(D0, D0).is_err());
    p.enable_peer_access(D0, D1).unwrap();
    p.enable_peer_access(D0, D1).unwrap();
    assert_eq!(p.stats().peer_enables, 1);
    assert!(p.peer_enabled(D0, D1) && !p.peer_enabled(D1, D0));
    p.enable_peer_access(D1, D0).unwrap();
    assert_eq!(p.stats().peer_enables, 2);

    let s0 = p.create_stream(D0, 0).unwrap();
    let s1 = p.create_stream(D1, 0).unwrap();
    let r0 = Rank {
        dev: D0,
        stream: s0,
        comm: CommHandle(0),
    };
    let r1 = Rank {
        dev: D1,
        stream: s1,
        comm: CommHandle(0),
    };
    let data: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    let src = upload(&p, r1, &data);
    p.synchronize_stream(s1).unwrap();
    let dst = upload(&p, r0, &[0; 64]);
    // Pulled from device 1 on device 0's stream (device 0 enabled access to 1).
    // SAFETY: both ranges are 64-byte allocations of their devices.
    unsafe { p.copy_peer_async(dst, D0, src, D1, 64, s0) }.unwrap();
    assert_eq!(download(&p, r0, dst, 64), data);
    assert_eq!(p.stats().staged_peer_copies, 0);
    assert!(p.log().contains(&FakeOp::PeerCopy { stream: s0 }));
    // The pointers must be memory of the devices named, and the stream of one of them.
    // SAFETY: as above (the calls fail before touching memory).
    unsafe {
        assert!(p.copy_peer_async(src, D0, dst, D1, 64, s0).is_err());
        assert!(p.copy_peer_async(dst, D0, src, D0, 64, s0).is_err());
        let s2 = p.create_stream(DeviceId(2), 0).unwrap();
        p.bind_device(DeviceId(2)).unwrap();
        assert!(p.copy_peer_async(dst, D0, src, D1, 64, s2).is_err());
    }
    assert!(p.races().is_empty(), "{:?}", p.races());
}

#[test]
fn peer_copies_without_enabled_access_are_staged() {
    let p = fake(3);
    let (s0, s2) = (
        p.create_stream(D0, 0).unwrap(),
        p.create_stream(DeviceId(2), 0).unwrap(),
    );
    let r0 = Rank {
        dev: D0,
        stream: s0,
        comm: CommHandle(0),
    };
    let r2 = Rank {
        dev: DeviceId(2),
        stream: s2,
        comm: CommHandle(0),
    };
    let a = upload(&p, r0, &[9; 32]);
    let b = upload(&p, r2, &[0; 32]);
    p.synchronize_stream(s2).unwrap();
    // Pushed from device 0 to device 2: not enabled yet, so staged.
    p.bind_device(D0).unwrap();
    // SAFETY: both ranges are 32-byte allocations of their devices.
    unsafe { p.copy_peer_async(b, DeviceId(2), a, D0, 32, s0) }.unwrap();
    assert_eq!(p.stats().staged_peer_copies, 1);
    p.synchronize_stream(s0).unwrap();
    assert_eq!(download(&p, r2, b, 32), vec![9; 32]);
    // Device 2 enabling access to device 0 does not help a copy on device 0's stream.
    p.enable_peer_access(DeviceId(2), D0).unwrap();
    p.bind_device(D0).unwrap();
    // SAFETY: as above.
    unsafe { p.copy_peer_async(b, DeviceId(2), a, D0, 32, s0) }.unwrap();
    assert_eq!(p.stats().staged_peer_copies, 2);
    p.enable_peer_access(D0, DeviceId(2)).unwrap();
    // SAFETY: as above.
    unsafe { p.copy_peer_async(b, DeviceId(2), a, D0, 32, s0) }.unwrap();
    // Within one device: never staged.
    // SAFETY: `a` holds 32 bytes; source and destination are the same range.
    unsafe { p.copy_peer_async(a, D0, a, D0, 32, s0) }.unwrap();
    assert_eq!(p.stats().staged_peer_copies, 2);
}

#[test]
fn peer_access_off_refuses_enabling_but_still_copies_through_the_host() {
    let p = FakePlatform::new(FakeConfig {
        devices: 2,
        peer_access: false,
        ..FakeConfig::default()
    });
    assert!(!p.can_access_peer(D0, D1).unwrap());
    let e = p.enable_peer_access(D0, D1).unwrap_err();
    assert!(e.to_string().contains("peer access unsupported"), "{e}");
    assert_eq!(e.api_code(), Some(217));
    assert!(!p.peer_enabled(D0, D1));
    let (s0, s1) = (
        p.create_stream(D0, 0).unwrap(),
        p.create_stream(D1, 0).unwrap(),
    );
    let r0 = Rank {
        dev: D0,
        stream: s0,
        comm: CommHandle(0),
    };
    let r1 = Rank {
        dev: D1,
        stream: s1,
        comm: CommHandle(0),
    };
    let src = upload(&p, r0, &[5; 8]);
    p.synchronize_stream(s0).unwrap();
    let dst = upload(&p, r1, &[0; 8]);
    // SAFETY: both ranges are 8-byte allocations of their devices.
    unsafe { p.copy_peer_async(dst, D1, src, D0, 8, s1) }.unwrap();
    assert_eq!(download(&p, r1, dst, 8), vec![5; 8]);
    assert_eq!(p.stats().staged_peer_copies, 1);
    assert_eq!(p.stats().peer_enables, 0);
}
