//! Sharing a collective group's id among its ranks before they join.
//!
//! A group of ranks builds a communicator with `ncclCommInitRank`, and every rank must pass
//! the same 128-byte [`CollectiveId`]: rank 0 makes it (`ncclGetUniqueId`), the others need
//! a copy. Ranks in one process can simply share the value; ranks in separate processes,
//! possibly on several hosts, need a channel for it, and that is all this module provides:
//! once every rank has the id, NCCL/RCCL itself connects the ranks (the id holds rank 0's
//! bootstrap address).
//!
//! [`Bootstrap`] names the channel: an environment variable a launcher filled in on every
//! rank, a file on a filesystem every rank sees, or a TCP connection to rank 0.
//! [`Bootstrap::from_env`] reads the choice from `GPUARRAYS_BOOTSTRAP`, and
//! [`RankInfo::from_env`] reads the rank and group size that launchers (torchrun, Open MPI,
//! Slurm) set.
//!
//! Security: the TCP channel has no authentication and no encryption; run it on a trusted
//! network only. Anyone who can reach rank 0's port while it waits can obtain the id. The
//! id only lets a process join the group (and so see or disturb what the group exchanges).

use std::ffi::OsString;
use std::io::{ErrorKind, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::error::{HipError, Result};
use crate::platform::CollectiveId;

mod rank_info;
mod tcp;

pub use rank_info::RankInfo;
use tcp::{fetch, serve};

/// The variable [`Bootstrap::from_env`] reads the channel from.
pub const BOOTSTRAP_ENV: &str = "GPUARRAYS_BOOTSTRAP";
/// The variable [`Bootstrap::from_env`] reads the timeout (seconds) from.
pub const BOOTSTRAP_TIMEOUT_ENV: &str = "GPUARRAYS_BOOTSTRAP_TIMEOUT";
/// The timeout [`Bootstrap::from_env`] uses when [`BOOTSTRAP_TIMEOUT_ENV`] is unset.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

/// The id as 256 lowercase hex digits (how it travels in variables and files).
pub fn id_to_hex(id: &CollectiveId) -> String {
    id.0.iter().map(|b| format!("{b:02x}")).collect()
}

/// The id from 256 hex digits (either case; surrounding whitespace is ignored).
pub fn id_from_hex(s: &str) -> Result<CollectiveId> {
    let s = s.trim();
    if s.len() != 256 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        let shown: String = s.chars().take(16).collect();
        return Err(HipError::InvalidArgument(format!(
            "a collective id is 256 hex digits (128 bytes); got {} characters starting {shown:?}",
            s.chars().count()
        )));
    }
    let mut id = [0u8; 128];
    for (byte, pair) in id.iter_mut().zip(s.as_bytes().chunks_exact(2)) {
        *byte = (hex_digit(pair[0]) << 4) | hex_digit(pair[1]);
    }
    Ok(CollectiveId(id))
}

/// The value of one hex digit (already checked to be one).
fn hex_digit(b: u8) -> u8 {
    (b as char).to_digit(16).map_or(0, |d| d as u8)
}

/// How rank 0's [`CollectiveId`] reaches the other ranks of a group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// Every rank, rank 0 included, reads the id (hex) from environment variable `var`,
    /// which a launcher set to the same value everywhere (`gpuarrays collective-id` prints a
    /// fresh one). `make_id` is never called.
    Env {
        /// The variable's name.
        var: String,
    },
    /// Rank 0 writes the id (hex) to `path` (atomically: a temporary file, then a rename);
    /// the others poll every 10 ms until it exists and parses, for up to `timeout`. Rank 0
    /// first removes a file left at `path`, but a rank that looks before rank 0 starts would
    /// read a stale one: start rank 0 first, or make sure no file from an earlier run is
    /// left. On several hosts, `path` must be on a filesystem they share.
    File {
        /// The file.
        path: PathBuf,
        /// How long the other ranks wait for it.
        timeout: Duration,
    },
    /// Rank 0 listens on `addr` ("host:port", an address of rank 0's host) and hands the id
    /// to each other rank that connects; it returns once every rank has confirmed receipt
    /// or fails after `timeout`. The others retry connecting every 50 ms (rank 0 may start
    /// later) for up to `timeout`. No authentication: use a trusted network.
    Tcp {
        /// "host:port" of rank 0.
        addr: String,
        /// How long any rank waits for the others.
        timeout: Duration,
    },
}

impl Bootstrap {
    /// The channel `GPUARRAYS_BOOTSTRAP` names (`env:VAR`, `file:PATH` or `tcp:HOST:PORT`),
    /// with the timeout `GPUARRAYS_BOOTSTRAP_TIMEOUT` gives in seconds (default 120); `None`
    /// when the variable is unset or empty.
    pub fn from_env() -> Result<Option<Bootstrap>> {
        Self::from_lookup(env_lookup)
    }

    /// The same as [`Bootstrap::from_env`], reading variables through `get`.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Option<Bootstrap>> {
        let Some(value) = get(BOOTSTRAP_ENV).filter(|v| !v.trim().is_empty()) else {
            return Ok(None);
        };
        let timeout = match get(BOOTSTRAP_TIMEOUT_ENV) {
            None => DEFAULT_TIMEOUT,
            Some(t) => t
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|s| *s > 0.0)
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| HipError::InvalidConfig {
                    var: BOOTSTRAP_TIMEOUT_ENV,
                    value: t.clone(),
                    expected: "a positive number of seconds, e.g. 120",
                })?,
        };
        let bad = || HipError::InvalidConfig {
            var: BOOTSTRAP_ENV,
            value: value.clone(),
            expected: "env:VAR, file:PATH or tcp:HOST:PORT",
        };
        let (kind, rest) = value.trim().split_once(':').ok_or_else(bad)?;
        let rest = rest.trim();
        let bootstrap = match kind.trim().to_ascii_lowercase().as_str() {
            "env" if !rest.is_empty() && !rest.contains('=') => Bootstrap::Env { var: rest.into() },
            "file" if !rest.is_empty() => Bootstrap::File {
                path: rest.into(),
                timeout,
            },
            "tcp" => match rest.rsplit_once(':') {
                Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {
                    Bootstrap::Tcp {
                        addr: rest.into(),
                        timeout,
                    }
                }
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        Ok(Some(bootstrap))
    }

    /// The channel in words, as errors name it: "env VAR", "file PATH" or "tcp HOST:PORT".
    pub fn describe(&self) -> String {
        match self {
            Bootstrap::Env { var } => format!("env {var}"),
            Bootstrap::File { path, .. } => format!("file {}", path.display()),
            Bootstrap::Tcp { addr, .. } => format!("tcp {addr}"),
        }
    }

    /// The group's id on rank `rank` of `ranks`: rank 0 calls `make_id` (except with
    /// [`Bootstrap::Env`], where every rank reads the variable) and hands its result to the
    /// others; every rank returns the same id. With one rank, only `make_id` runs (again
    /// except for `Env`). Blocks until the id has arrived (on rank 0 of `Tcp`: until every
    /// rank has it) or the channel's timeout passes.
    pub fn share(
        &self,
        rank: usize,
        ranks: usize,
        make_id: impl FnOnce() -> Result<CollectiveId>,
    ) -> Result<CollectiveId> {
        if ranks == 0 || rank >= ranks || u32::try_from(ranks).is_err() {
            return Err(HipError::InvalidArgument(format!(
                "collective bootstrap: rank {rank} of {ranks} ranks; a group has 1 to {} ranks, \
                 numbered from 0",
                u32::MAX
            )));
        }
        let fail = |message: String| HipError::Bootstrap {
            how: self.describe(),
            message,
        };
        tracing::debug!(channel = %self.describe(), rank, ranks, "sharing the collective id");
        match self {
            Bootstrap::Env { var } => match std::env::var(var) {
                Ok(v) => id_from_hex(&v).map_err(|e| {
                    fail(format!("variable {var} does not hold a collective id: {e}"))
                }),
                Err(e) => Err(fail(format!(
                    "variable {var} is unusable ({e}); set it on every rank to the same id, \
                     e.g. one printed by `gpuarrays collective-id`"
                ))),
            },
            _ if ranks == 1 => make_id(),
            Bootstrap::File { path, timeout } if rank == 0 => {
                match std::fs::remove_file(path) {
                    Ok(()) => tracing::info!(path = %path.display(), "removed a stale id file"),
                    Err(e) if e.kind() == ErrorKind::NotFound => {}
                    Err(e) => return Err(fail(format!("cannot remove the old file: {e}"))),
                }
                let id = make_id()?;
                let mut tmp = OsString::from(path.as_os_str());
                tmp.push(format!(".tmp.{}", std::process::id()));
                let tmp = PathBuf::from(tmp);
                let written = std::fs::File::create(&tmp).and_then(|mut f| {
                    f.write_all(id_to_hex(&id).as_bytes())?;
                    f.write_all(b"\n")?;
                    f.sync_all()
                });
                if let Err(e) = written.and_then(|()| std::fs::rename(&tmp, path)) {
                    let _ = std::fs::remove_file(&tmp);
                    return Err(fail(format!(
                        "cannot write the id ({e}); check that the directory exists and is \
                         writable (after {timeout:?} the other ranks give up)"
                    )));
                }
                tracing::info!(path = %path.display(), ranks, "wrote the collective id");
                Ok(id)
            }
            Bootstrap::File { path, timeout } => {
                let deadline = Instant::now() + *timeout;
                loop {
                    let last = match std::fs::read_to_string(path) {
                        Ok(text) => match id_from_hex(&text) {
                            Ok(id) => return Ok(id),
                            Err(e) => format!("the file holds no id ({e})"),
                        },
                        Err(e) => format!("last attempt: {e}"),
                    };
                    if Instant::now() >= deadline {
                        return Err(fail(format!(
                            "rank 0 did not write the file within {timeout:?} ({last}); check \
                             that rank 0 runs and that every rank sees the same path"
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
            }
            Bootstrap::Tcp { addr, timeout } if rank == 0 => {
                let deadline = Instant::now() + *timeout;
                let listener = TcpListener::bind(addr.as_str())
                    .and_then(|l| l.set_nonblocking(true).map(|()| l))
                    .map_err(|e| {
                        fail(format!(
                            "rank 0 cannot listen on {addr} ({e}); the address must be one of \
                             this host's and the port free"
                        ))
                    })?;
                let id = make_id()?;
                serve(&listener, &id, ranks, deadline, *timeout).map_err(fail)?;
                tracing::info!(%addr, ranks, "every rank received the collective id");
                Ok(id)
            }
            Bootstrap::Tcp { addr, timeout } => {
                fetch(addr, rank, ranks, Instant::now() + *timeout, *timeout).map_err(fail)
            }
        }
    }
}

/// Reads a variable for `from_env`; a value that is not UTF-8 arrives mangled, so that it
/// is rejected as invalid rather than ignored.
pub(super) fn env_lookup(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}
