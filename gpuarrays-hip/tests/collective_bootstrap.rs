//! Sharing a collective group's id (`collectives::bootstrap`): the hex form, the file and
//! TCP channels with ranks as threads (and, for TCP, as separate processes), the variable
//! channel, and reading the channel and the rank from launcher variables.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use gpuarrays_hip::HipError;
use gpuarrays_hip::collectives::bootstrap::{Bootstrap, RankInfo, id_from_hex, id_to_hex};
use gpuarrays_hip::platform::CollectiveId;

/// A different id on every call (pid, time and a counter mixed into all 128 bytes).
fn fresh_id() -> CollectiveId {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut x = nanos
        ^ (u64::from(std::process::id()) << 32)
        ^ (CALLS.fetch_add(1, Ordering::Relaxed) as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut id = [0u8; 128];
    for b in &mut id {
        // xorshift64*
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        *b = (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
    }
    CollectiveId(id)
}

/// A `make_id` that counts its calls.
fn counted(calls: &AtomicUsize) -> impl FnOnce() -> gpuarrays_hip::Result<CollectiveId> + '_ {
    move || {
        calls.fetch_add(1, Ordering::SeqCst);
        Ok(fresh_id())
    }
}

/// A path in the temporary directory, unique to this process and `name`, with no file.
fn temp_path(name: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("gpuarrays-bootstrap-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

/// A TCP port that was free a moment ago on 127.0.0.1.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    listener.local_addr().expect("local address").port()
}

fn tcp(port: u16, timeout: Duration) -> Bootstrap {
    Bootstrap::Tcp {
        addr: format!("127.0.0.1:{port}"),
        timeout,
    }
}

/// The message of a `Bootstrap` error (fails the test on any other result).
fn bootstrap_message(result: gpuarrays_hip::Result<CollectiveId>) -> String {
    match result {
        Err(HipError::Bootstrap { message, .. }) => message,
        other => panic!("expected a bootstrap error, got {other:?}"),
    }
}

fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| map.get(name).cloned()
}

#[test]
fn hex_round_trip_and_rejections() {
    let id = fresh_id();
    let hex = id_to_hex(&id);
    assert_eq!(hex.len(), 256);
    assert!(
        hex.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    );
    assert_eq!(id_from_hex(&hex).unwrap(), id);
    assert_eq!(
        id_from_hex(&format!("  {}\n", hex.to_uppercase())).unwrap(),
        id
    );
    let mut known = [0u8; 128];
    known[0] = 0xab;
    known[127] = 0x01;
    let known_hex = id_to_hex(&CollectiveId(known));
    assert!(known_hex.starts_with("ab00") && known_hex.ends_with("0001"));

    let wrong_char = format!("g{}", &hex[1..]);
    for bad in [&hex[..255], &format!("{hex}00"), "", wrong_char.as_str()] {
        match id_from_hex(bad) {
            Err(HipError::InvalidArgument(m)) => assert!(m.contains("256 hex digits"), "{m}"),
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

#[test]
fn share_rejects_bad_rank_or_group_size() {
    let calls = AtomicUsize::new(0);
    let file = Bootstrap::File {
        path: temp_path("bad-rank"),
        timeout: Duration::from_millis(10),
    };
    for (rank, ranks) in [(0, 0), (2, 2), (5, 3)] {
        let r = file.share(rank, ranks, counted(&calls));
        assert!(
            matches!(r, Err(HipError::InvalidArgument(_))),
            "{rank}/{ranks}: {r:?}"
        );
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn file_single_rank_only_makes_the_id() {
    let path = temp_path("single");
    let calls = AtomicUsize::new(0);
    let boot = Bootstrap::File {
        path: path.clone(),
        timeout: Duration::from_secs(1),
    };
    boot.share(0, 1, counted(&calls)).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert!(!path.exists(), "one rank needs no file");
}

#[test]
fn file_four_ranks_with_rank0_last() {
    let path = temp_path("four");
    let boot = Arc::new(Bootstrap::File {
        path: path.clone(),
        timeout: Duration::from_secs(20),
    });
    let calls = Arc::new(AtomicUsize::new(0));
    let readers: Vec<_> = (1..4)
        .map(|rank| {
            let (boot, calls) = (boot.clone(), calls.clone());
            thread::spawn(move || boot.share(rank, 4, counted(&calls)))
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    let id = boot.share(0, 4, counted(&calls)).unwrap();
    for reader in readers {
        assert_eq!(reader.join().unwrap().unwrap(), id);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(
        id_from_hex(&std::fs::read_to_string(&path).unwrap()).unwrap(),
        id
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn file_rank0_replaces_a_stale_file() {
    let path = temp_path("stale");
    let stale = fresh_id();
    std::fs::write(&path, id_to_hex(&stale)).unwrap();
    let boot = Bootstrap::File {
        path: path.clone(),
        timeout: Duration::from_secs(5),
    };
    let calls = AtomicUsize::new(0);
    let id = boot.share(0, 2, counted(&calls)).unwrap();
    assert_ne!(id, stale);
    assert_eq!(boot.share(1, 2, counted(&calls)).unwrap(), id);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn file_times_out_without_rank0() {
    let path = temp_path("timeout");
    let boot = Bootstrap::File {
        path: path.clone(),
        timeout: Duration::from_millis(300),
    };
    let calls = AtomicUsize::new(0);
    let start = Instant::now();
    let result = boot.share(2, 3, counted(&calls));
    let waited = start.elapsed();
    let how = match &result {
        Err(HipError::Bootstrap { how, .. }) => how.clone(),
        _ => String::new(),
    };
    let message = bootstrap_message(result);
    assert!(
        message.contains("rank 0 did not write the file"),
        "{message}"
    );
    assert_eq!(how, format!("file {}", path.display()));
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
}

#[test]
fn tcp_four_ranks_with_clients_first() {
    let port = free_port();
    let boot = Arc::new(tcp(port, Duration::from_secs(20)));
    let calls = Arc::new(AtomicUsize::new(0));
    let clients: Vec<_> = (1..4)
        .map(|rank| {
            let (boot, calls) = (boot.clone(), calls.clone());
            thread::spawn(move || boot.share(rank, 4, counted(&calls)))
        })
        .collect();
    thread::sleep(Duration::from_millis(200));
    let id = boot.share(0, 4, counted(&calls)).unwrap();
    for client in clients {
        assert_eq!(client.join().unwrap().unwrap(), id);
    }
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn tcp_group_size_mismatch_fails_both_sides() {
    let port = free_port();
    let start = Instant::now();
    let client =
        thread::spawn(move || tcp(port, Duration::from_secs(20)).share(1, 3, || Ok(fresh_id())));
    let server = tcp(port, Duration::from_secs(20)).share(0, 2, || Ok(fresh_id()));
    let server_message = bootstrap_message(server);
    let client_message = bootstrap_message(client.join().unwrap());
    assert!(
        server_message.contains("group of 3 ranks, rank 0 for 2"),
        "{server_message}"
    );
    assert!(
        client_message.contains("group of 3 ranks, rank 0 for 2"),
        "{client_message}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "a mismatch must not wait for the timeout"
    );
}

#[test]
fn tcp_duplicate_rank_fails() {
    let port = free_port();
    let clients: Vec<_> = (0..2)
        .map(|_| {
            thread::spawn(move || tcp(port, Duration::from_secs(20)).share(1, 3, || Ok(fresh_id())))
        })
        .collect();
    thread::sleep(Duration::from_millis(100));
    let server = tcp(port, Duration::from_secs(20)).share(0, 3, || Ok(fresh_id()));
    assert!(bootstrap_message(server).contains("rank 1"));
    for client in clients {
        bootstrap_message(client.join().unwrap());
    }
}

#[test]
fn tcp_server_times_out_naming_arrivals() {
    let port = free_port();
    let client =
        thread::spawn(move || tcp(port, Duration::from_secs(20)).share(1, 3, || Ok(fresh_id())));
    let start = Instant::now();
    let server = tcp(port, Duration::from_millis(300)).share(0, 3, || Ok(fresh_id()));
    let message = bootstrap_message(server);
    assert!(message.contains("only 2 of 3 ranks"), "{message}");
    assert!(start.elapsed() < Duration::from_secs(5));
    // The waiting client hears that rank 0 gave up instead of waiting out its own timeout.
    let client_message = bootstrap_message(client.join().unwrap());
    assert!(
        client_message.contains("rank 0 gave up"),
        "{client_message}"
    );
}

#[test]
fn tcp_client_times_out_without_rank0() {
    let boot = tcp(free_port(), Duration::from_millis(300));
    let start = Instant::now();
    let message = bootstrap_message(boot.share(1, 2, || Ok(fresh_id())));
    assert!(message.contains("could not reach rank 0"), "{message}");
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_secs(5),
        "{waited:?}"
    );
}

/// Marks a run of this binary as the second process of `tcp_two_processes`; its value is
/// the port.
const CHILD_ENV: &str = "GPUARRAYS_TEST_BOOTSTRAP_CHILD_PORT";

#[test]
fn tcp_two_processes() {
    if let Ok(port) = std::env::var(CHILD_ENV) {
        // The child: rank 1, which prints the id it got.
        let port: u16 = port.parse().unwrap();
        let id = tcp(port, Duration::from_secs(30))
            .share(1, 2, || Ok(fresh_id()))
            .unwrap();
        println!("CHILD_ID={}", id_to_hex(&id));
        return;
    }
    let port = free_port();
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "tcp_two_processes",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, port.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let id = tcp(port, Duration::from_secs(30)).share(0, 2, || Ok(fresh_id()));
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "child failed:\n{stdout}\n{stderr}");
    let id = id.unwrap();
    // The harness prints "test tcp_two_processes ... " on the same line.
    let child_hex = stdout
        .split("CHILD_ID=")
        .nth(1)
        .and_then(|rest| rest.lines().next())
        .unwrap_or_else(|| panic!("the child printed no id:\n{stdout}\n{stderr}"));
    assert_eq!(id_from_hex(child_hex).unwrap(), id);
}

#[test]
fn env_channel_reads_the_variable_on_every_rank() {
    let var = format!("GPUARRAYS_TEST_BOOTSTRAP_ID_{}", std::process::id());
    let boot = Bootstrap::Env { var: var.clone() };
    let calls = AtomicUsize::new(0);

    let message = bootstrap_message(boot.share(0, 2, counted(&calls)));
    assert!(
        message.contains(&var) && message.contains("gpuarrays collective-id"),
        "{message}"
    );

    let id = fresh_id();
    // SAFETY: the variable's name is unique to this test and process, and nothing in this
    // test binary reads the environment from outside std (whose reads are serialized with
    // `set_var`): the TCP tests use numeric addresses, which resolve without getaddrinfo.
    unsafe { std::env::set_var(&var, id_to_hex(&id)) };
    for (rank, ranks) in [(0, 1), (0, 3), (2, 3)] {
        assert_eq!(boot.share(rank, ranks, counted(&calls)).unwrap(), id);
    }
    assert_eq!(
        calls.load(Ordering::SeqCst),
        0,
        "the variable channel never makes an id"
    );

    // SAFETY: as above.
    unsafe { std::env::set_var(&var, "not an id") };
    let message = bootstrap_message(boot.share(1, 3, counted(&calls)));
    assert!(
        message.contains(&var) && message.contains("256 hex digits"),
        "{message}"
    );
    // SAFETY: as above.
    unsafe { std::env::remove_var(&var) };
}

fn config_var(r: gpuarrays_hip::Result<impl std::fmt::Debug>) -> &'static str {
    match r {
        Err(HipError::InvalidConfig { var, .. }) => var,
        other => panic!("expected InvalidConfig, got {other:?}"),
    }
}

#[test]
fn bootstrap_from_lookup() {
    let from = |vars: &[(&str, &str)]| Bootstrap::from_lookup(lookup(vars));
    assert_eq!(from(&[]).unwrap(), None);
    assert_eq!(from(&[("GPUARRAYS_BOOTSTRAP", " ")]).unwrap(), None);
    assert_eq!(
        from(&[("GPUARRAYS_BOOTSTRAP", "env:MY_ID")]).unwrap(),
        Some(Bootstrap::Env {
            var: "MY_ID".into()
        })
    );
    assert_eq!(
        from(&[("GPUARRAYS_BOOTSTRAP", "file:/shared/run 1/id")]).unwrap(),
        Some(Bootstrap::File {
            path: "/shared/run 1/id".into(),
            timeout: Duration::from_secs(120)
        })
    );
    assert_eq!(
        from(&[
            ("GPUARRAYS_BOOTSTRAP", "tcp:10.0.0.1:29500"),
            ("GPUARRAYS_BOOTSTRAP_TIMEOUT", "30")
        ])
        .unwrap(),
        Some(tcp_addr("10.0.0.1:29500", Duration::from_secs(30)))
    );
    assert_eq!(
        from(&[
            ("GPUARRAYS_BOOTSTRAP", "tcp:[::1]:29500"),
            ("GPUARRAYS_BOOTSTRAP_TIMEOUT", "0.5")
        ])
        .unwrap(),
        Some(tcp_addr("[::1]:29500", Duration::from_millis(500)))
    );
    for bad in [
        "tcp:host",
        "tcp:host:port",
        "tcp::29500",
        "tcp:h:70000",
        "udp:h:1",
        "env:",
        "file:",
        "x",
    ] {
        assert_eq!(
            config_var(from(&[("GPUARRAYS_BOOTSTRAP", bad)])),
            "GPUARRAYS_BOOTSTRAP",
            "{bad}"
        );
    }
    for bad in ["abc", "0", "-1", "", "inf"] {
        let vars = [
            ("GPUARRAYS_BOOTSTRAP", "env:X"),
            ("GPUARRAYS_BOOTSTRAP_TIMEOUT", bad),
        ];
        assert_eq!(
            config_var(from(&vars)),
            "GPUARRAYS_BOOTSTRAP_TIMEOUT",
            "{bad}"
        );
    }
}

fn tcp_addr(addr: &str, timeout: Duration) -> Bootstrap {
    Bootstrap::Tcp {
        addr: addr.into(),
        timeout,
    }
}

#[test]
fn rank_info_from_lookup() {
    let from = |vars: &[(&str, &str)]| RankInfo::from_lookup(lookup(vars));
    let info = |rank, ranks, local_rank| {
        Some(RankInfo {
            rank,
            ranks,
            local_rank,
        })
    };
    assert_eq!(from(&[]).unwrap(), None);
    let ours = [
        ("GPUARRAYS_RANK", "3"),
        ("GPUARRAYS_RANKS", "8"),
        ("GPUARRAYS_LOCAL_RANK", "1"),
    ];
    assert_eq!(from(&ours).unwrap(), info(3, 8, 1));
    // Ours come before torchrun's, torchrun's before Open MPI's, Open MPI's before Slurm's.
    let torch = [("RANK", "5"), ("WORLD_SIZE", "6"), ("LOCAL_RANK", "2")];
    let ompi = [("OMPI_COMM_WORLD_RANK", "1"), ("OMPI_COMM_WORLD_SIZE", "2")];
    let slurm = [
        ("SLURM_PROCID", "4"),
        ("SLURM_NTASKS", "16"),
        ("SLURM_LOCALID", "0"),
    ];
    let all: Vec<_> = [&ours[..], &torch, &ompi, &slurm].concat();
    assert_eq!(from(&all).unwrap(), info(3, 8, 1));
    assert_eq!(
        from(&[&torch[..], &ompi, &slurm].concat()).unwrap(),
        info(5, 6, 2)
    );
    assert_eq!(
        from(&[&ompi[..], &slurm].concat()).unwrap(),
        info(1, 2, 1),
        "local = rank"
    );
    assert_eq!(from(&slurm).unwrap(), info(4, 16, 0));
    // A lone RANK (no WORLD_SIZE) is not torchrun's: Slurm's variables count.
    assert_eq!(
        from(&[&[("RANK", "9")][..], &slurm].concat()).unwrap(),
        info(4, 16, 0)
    );
    assert_eq!(from(&[("RANK", "9")]).unwrap(), None);

    let bad: [(&[(&str, &str)], &str); 8] = [
        (&[("GPUARRAYS_RANK", "1")], "GPUARRAYS_RANKS"),
        (&[("GPUARRAYS_RANKS", "2")], "GPUARRAYS_RANK"),
        (
            &[("GPUARRAYS_RANK", "x"), ("GPUARRAYS_RANKS", "2")],
            "GPUARRAYS_RANK",
        ),
        (
            &[("GPUARRAYS_RANK", "2"), ("GPUARRAYS_RANKS", "2")],
            "GPUARRAYS_RANK",
        ),
        (
            &[("GPUARRAYS_RANK", "0"), ("GPUARRAYS_RANKS", "0")],
            "GPUARRAYS_RANKS",
        ),
        (&[("RANK", "0"), ("WORLD_SIZE", "-1")], "WORLD_SIZE"),
        (
            &[("RANK", "0"), ("WORLD_SIZE", "2"), ("LOCAL_RANK", "a")],
            "LOCAL_RANK",
        ),
        (
            &[("SLURM_PROCID", "16"), ("SLURM_NTASKS", "16")],
            "SLURM_PROCID",
        ),
    ];
    for (vars, var) in bad {
        assert_eq!(config_var(from(vars)), var, "{vars:?}");
    }
}
