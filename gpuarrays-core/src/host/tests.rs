//! The kit's pieces that the conformance suite (run on kit backends by the facade's tests
//! and `examples/custom-backend/`) does not reach: copies longer than one host piece, and
//! `find` with no true position. Over a storage-only backend of host vectors.

use std::sync::Mutex;

use crate::backend::Backend;
use crate::capability::{OpKind, Support};
use crate::device::DeviceInfo;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::kernel::FindArgs;

#[derive(Clone)]
struct VecBackend(DeviceInfo);

fn out_of_range() -> Error {
    Error::invalid_arg("vec backend", "range outside the buffer")
}

impl Backend for VecBackend {
    type Buffer = Mutex<Vec<u8>>;
    fn name(&self) -> &'static str {
        "vec"
    }
    fn device(&self) -> &DeviceInfo {
        &self.0
    }
    fn supports(&self, _: DType, _: OpKind) -> Support {
        Support::Yes
    }
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer> {
        Ok(Mutex::new(vec![0; bytes]))
    }
    fn release(&self, _: Self::Buffer) {}
    fn write(&self, dst: &Self::Buffer, at: usize, src: &[u8]) -> Result<()> {
        let mut v = dst.lock().map_err(|_| out_of_range())?;
        let d = v.get_mut(at..at + src.len()).ok_or_else(out_of_range)?;
        d.copy_from_slice(src);
        Ok(())
    }
    fn read(&self, src: &Self::Buffer, at: usize, dst: &mut [u8]) -> Result<()> {
        let v = src.lock().map_err(|_| out_of_range())?;
        dst.copy_from_slice(v.get(at..at + dst.len()).ok_or_else(out_of_range)?);
        Ok(())
    }
}

fn backend() -> VecBackend {
    VecBackend(DeviceInfo {
        backend: "vec",
        id: crate::device::next_device_id(),
        ordinal: 0,
        name: "host vectors".into(),
        flushes_subnormals: Default::default(),
    })
}

#[test]
fn a_copy_longer_than_one_piece_moves_every_byte_and_no_other() {
    let b = backend();
    let n = (9 << 20) + 5;
    let src = b.alloc(n + 3).unwrap();
    let bytes: Vec<u8> = (0..n + 3).map(|i| (i * 7 % 251) as u8).collect();
    b.write(&src, 0, &bytes).unwrap();
    let dst = b.alloc(n + 10).unwrap();
    b.copy(&src, 3, &dst, 7, n).unwrap();
    let mut got = vec![0u8; n + 10];
    b.read(&dst, 0, &mut got).unwrap();
    assert!(got[..7].iter().all(|&x| x == 0));
    assert_eq!(&got[7..7 + n], &bytes[3..3 + n]);
    assert!(got[7 + n..].iter().all(|&x| x == 0));
}

#[test]
fn find_with_no_true_position_returns_an_empty_buffer() {
    let b = backend();
    let mask = b.alloc(5).unwrap();
    b.write(&mask, 0, &[0, 0, 0, 0, 0]).unwrap();
    let args = FindArgs {
        input: &mask,
        offset: 1,
        len: 4,
    };
    let (positions, count) = b.find(&args).unwrap();
    assert_eq!(count, 0);
    assert_eq!(positions.lock().map(|v| v.len()).ok(), Some(0));
    b.write(&mask, 0, &[9, 0, 2, 0, 255]).unwrap();
    let (positions, count) = b.find(&args).unwrap();
    assert_eq!(count, 2);
    let mut got = [0u8; 16];
    b.read(&positions, 0, &mut got).unwrap();
    let positions: Vec<i64> = got
        .chunks(8)
        .map(|c| i64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]))
        .collect();
    assert_eq!(positions, [1, 3]);
}
