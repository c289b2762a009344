//! The TCP channel of the bootstrap: rank 0 listens and hands the id to every other rank.
//!
//! Protocol (version in the magic's last byte): a rank sends the magic, its rank and the
//! group size (u32 LE each); once every rank has arrived, rank 0 answers each with the magic,
//! a status byte and either the 128 id bytes (status 0) or its group size (u32 LE); a rank
//! that got the id answers with one receipt byte, so rank 0 returns only once every rank has
//! it. All or nothing: on a mismatch, a duplicate rank or the timeout, rank 0 tells every
//! waiting rank it gave up.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::platform::CollectiveId;

/// Opens every TCP message of the protocol (its version is the last byte).
const MAGIC: [u8; 8] = *b"GPUABS\x00\x01";
/// Reply statuses: the id follows; the client's group size differs from rank 0's (rank 0's
/// size follows as u32 LE); the client's rank is out of range or taken; rank 0 gave up.
const OK: u8 = 0;
const SIZE_MISMATCH: u8 = 1;
const BAD_RANK: u8 = 2;
const ABORTED: u8 = 3;

/// Time left until `deadline`, at least 1 ms (a zero socket timeout is an error).
fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

/// Rank 0's side: collect one hello from each other rank, then hand all of them the id (or
/// an error) and wait for their receipts.
pub(super) fn serve(
    listener: &TcpListener,
    id: &CollectiveId,
    ranks: usize,
    deadline: Instant,
    timeout: Duration,
) -> std::result::Result<(), String> {
    let mut clients: Vec<Option<TcpStream>> = (0..ranks).map(|_| None).collect();
    let mut arrived = 1;
    // Tells the ranks waiting for the id that rank 0 gave up.
    let abort = |clients: &mut Vec<Option<TcpStream>>, message: String| {
        for stream in clients.iter_mut().filter_map(Option::take) {
            let _ = reply(stream, ABORTED, ranks);
        }
        Err(message)
    };
    while arrived < ranks {
        let (mut stream, peer) = match listener.accept() {
            Ok(conn) => conn,
            Err(e) if e.kind() == ErrorKind::WouldBlock && Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                let message = format!(
                    "only {arrived} of {ranks} ranks (rank 0 included) arrived within \
                     {timeout:?}; check that every rank runs with the same address and can \
                     reach it"
                );
                return abort(&mut clients, message);
            }
            Err(e) => return abort(&mut clients, format!("accept failed: {e}")),
        };
        let mut hello = [0u8; 16];
        let read = stream
            .set_nonblocking(false)
            .and_then(|()| {
                stream.set_read_timeout(Some(left(deadline).min(Duration::from_secs(5))))
            })
            .and_then(|()| stream.set_write_timeout(Some(Duration::from_secs(5))))
            .and_then(|()| stream.read_exact(&mut hello));
        if let Err(e) = read {
            tracing::debug!(%peer, error = %e, "ignored a connection without a hello");
            continue;
        }
        if hello[..8] != MAGIC {
            tracing::debug!(%peer, "ignored a connection that does not speak the protocol");
            continue;
        }
        let word =
            |i: usize| u32::from_le_bytes([hello[i], hello[i + 1], hello[i + 2], hello[i + 3]]);
        let (rank, size) = (word(8) as usize, word(12) as usize);
        if size != ranks {
            let _ = reply(stream, SIZE_MISMATCH, ranks);
            let message = format!(
                "rank {rank} ({peer}) was started for a group of {size} ranks, rank 0 for \
                 {ranks}; start every rank with the same group size"
            );
            return abort(&mut clients, message);
        }
        let slot = clients.get_mut(rank).filter(|_| rank != 0);
        match slot {
            Some(slot @ None) => {
                tracing::debug!(%peer, rank, "rank arrived");
                *slot = Some(stream);
                arrived += 1;
            }
            _ => {
                let _ = reply(stream, BAD_RANK, ranks);
                let message = format!(
                    "a second rank 0 or rank {rank} connected ({peer}); give every process \
                     its own rank from 1 to {}",
                    ranks - 1
                );
                return abort(&mut clients, message);
            }
        }
    }
    let mut message = MAGIC.to_vec();
    message.push(OK);
    message.extend_from_slice(&id.0);
    for (rank, stream) in clients.iter_mut().enumerate() {
        let Some(stream) = stream else { continue };
        let mut receipt = [0u8; 1];
        stream
            .set_read_timeout(Some(left(deadline).max(Duration::from_secs(1))))
            .and_then(|()| stream.write_all(&message))
            .and_then(|()| stream.read_exact(&mut receipt))
            .map_err(|e| format!("rank {rank} did not confirm receiving the id: {e}"))?;
    }
    Ok(())
}

/// Sends an error reply: the magic, the status and rank 0's group size.
fn reply(mut stream: TcpStream, status: u8, ranks: usize) -> std::io::Result<()> {
    let mut message = MAGIC.to_vec();
    message.push(status);
    message.extend_from_slice(&(ranks as u32).to_le_bytes());
    stream.write_all(&message)
}

/// Another rank's side: connect to rank 0 (retrying every 50 ms), say who we are, read the
/// id and confirm it.
pub(super) fn fetch(
    addr: &str,
    rank: usize,
    ranks: usize,
    deadline: Instant,
    timeout: Duration,
) -> std::result::Result<CollectiveId, String> {
    let mut stream = loop {
        let attempt = addr.to_socket_addrs().and_then(|mut addrs| {
            let mut last = std::io::Error::new(ErrorKind::NotFound, "no address");
            addrs
                .find_map(|a| {
                    let limit = left(deadline).min(Duration::from_secs(2));
                    TcpStream::connect_timeout(&a, limit)
                        .map_err(|e| last = e)
                        .ok()
                })
                .ok_or(last)
        });
        match attempt {
            Ok(stream) => break stream,
            Err(e) if Instant::now() >= deadline => {
                return Err(format!(
                    "rank {rank} could not reach rank 0 within {timeout:?} (last attempt: \
                     {e}); check that rank 0 runs and listens there"
                ));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&(rank as u32).to_le_bytes());
    hello.extend_from_slice(&(ranks as u32).to_le_bytes());
    let mut head = [0u8; 9];
    stream
        .set_write_timeout(Some(left(deadline)))
        .and_then(|()| stream.set_read_timeout(Some(left(deadline))))
        .and_then(|()| stream.write_all(&hello))
        .and_then(|()| stream.read_exact(&mut head))
        .map_err(|e| format!("rank {rank} got no reply from rank 0: {e}"))?;
    if head[..8] != MAGIC {
        return Err(format!(
            "rank {rank}: the peer at {addr} does not speak the protocol"
        ));
    }
    if head[8] != OK {
        let mut size = [0u8; 4];
        let theirs = stream
            .read_exact(&mut size)
            .map(|()| u32::from_le_bytes(size));
        return Err(match (head[8], theirs) {
            (SIZE_MISMATCH, Ok(theirs)) => format!(
                "rank {rank} was started for a group of {ranks} ranks, rank 0 for {theirs}; \
                 start every rank with the same group size"
            ),
            (BAD_RANK, _) => format!("rank {rank} is taken or out of range, says rank 0"),
            _ => format!("rank 0 gave up (status {}); see its error", head[8]),
        });
    }
    let mut id = [0u8; 128];
    stream
        .read_exact(&mut id)
        .and_then(|()| stream.write_all(&[OK]))
        .map_err(|e| format!("rank {rank} lost the connection to rank 0: {e}"))?;
    tracing::debug!(rank, %addr, "received the collective id");
    Ok(CollectiveId(id))
}
