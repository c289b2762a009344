//! Putting host inputs on a device, directly or as derived arrays (slices, row views,
//! reinterprets) with offsets into larger buffers, and reading results back.

use std::ops::Range;

use gpuarrays_core::{Array, Backend, DType, Error, RawArray, Result, SliceArg, dispatch_dtype, s};

use crate::case::{Input, Layout};
use crate::host::{HostArray, HostData};

/// An input on the device: the array the operation sees, and the buffer it lives in.
pub struct Placed<B: Backend> {
    pub base: RawArray<B>,
    pub array: RawArray<B>,
}

/// The array of the `k`-th placed input (an error if the case has fewer inputs).
pub fn input<B: Backend>(placed: &[Placed<B>], k: usize) -> Result<&RawArray<B>> {
    placed
        .get(k)
        .map(|p| &p.array)
        .ok_or_else(|| internal("missing input"))
}

/// Uploads `data` as a new array of shape `dims`.
pub fn upload<B: Backend>(backend: &B, dims: &[usize], data: &HostData) -> Result<RawArray<B>> {
    dispatch_dtype!(data.dtype(), T => {
        let values = data.as_slice::<T>().ok_or_else(|| internal("upload: wrong host type"))?;
        Ok(Array::<T, B>::from_slice(backend, dims, values)?.into_raw())
    })
}

/// Downloads an array.
pub fn download<B: Backend>(a: &RawArray<B>) -> Result<HostArray> {
    Ok(HostArray::new(
        a.dims().to_vec(),
        HostData::from_bytes(a.dtype(), &a.to_bytes()?)?,
    ))
}

/// Downloads the whole buffer `base` as elements of `dtype` (for in-place operations).
pub fn download_base<B: Backend>(base: &RawArray<B>, dtype: DType) -> Result<HostArray> {
    let data = HostData::from_bytes(dtype, &base.to_bytes()?)?;
    Ok(HostArray::new(vec![data.len()], data))
}

/// Places an input on the device with its layout.
pub fn place<B: Backend>(backend: &B, input: &Input) -> Result<Placed<B>> {
    let dims = &input.array.dims;
    let dtype = input.array.dtype();
    let (pre, n) = (input.pad_before.len(), input.array.len());
    let base_data = input.base();
    let placed = match input.layout {
        Layout::Plain => {
            let a = upload(backend, dims, &input.array.data)?;
            Placed {
                base: a.clone(),
                array: a,
            }
        }
        Layout::Slice => {
            let base = upload(backend, &[base_data.len()], &base_data)?;
            let range = pre..pre + n;
            let array = base
                .view(std::slice::from_ref(&range))?
                .reshape(&signed(dims))?;
            Placed { base, array }
        }
        Layout::RowView if !dims.is_empty() => {
            let mut base_dims = dims.clone();
            base_dims[0] += 2;
            let base = upload(backend, &base_dims, &base_data)?;
            let mut ranges: Vec<Range<usize>> = dims.iter().map(|&d| 0..d).collect();
            ranges[0] = 1..dims[0] + 1;
            let array = base.view(&ranges)?;
            Placed { base, array }
        }
        Layout::Reinterpret if dtype != DType::Bool => {
            let bytes = base_data.to_bytes();
            let base = upload(backend, &[bytes.len()], &HostData::U8(bytes))?;
            let size = dtype.size();
            let range = pre * size..(pre + n) * size;
            let array = base
                .view(std::slice::from_ref(&range))?
                .reinterpret(dtype)?
                .reshape(&signed(dims))?;
            Placed { base, array }
        }
        Layout::BoolBytes if dtype == DType::Bool => {
            let len = base_data.len();
            let trues = base_data
                .as_slice::<bool>()
                .ok_or_else(|| internal("bool bytes: wrong host type"))?;
            let bytes: Vec<u8> = trues
                .iter()
                .enumerate()
                .map(|(i, &t)| if t { true_byte(i) } else { 0 })
                .collect();
            let base = Array::<bool, B>::zeros(backend, &[len])?;
            let src = Array::<u8, B>::from_vec(backend, bytes)?;
            base.reinterpret::<u8>()?.assign(&src)?;
            let base = base.into_raw();
            let array = base
                .view(std::slice::from_ref(&(pre..pre + n)))?
                .reshape(&signed(dims))?;
            Placed { base, array }
        }
        Layout::Strided | Layout::Reversed if !dims.is_empty() => {
            let (len, _) = input.layout.positions(dims);
            let flat = upload(backend, &[len], &base_data)?;
            let (shape, step): (Vec<usize>, SliceArg) = if input.layout == Layout::Strided {
                (dims.iter().map(|&d| 2 * d + 1).collect(), s![1..;2][0])
            } else {
                (dims.iter().map(|&d| d + 1).collect(), s![..0;-1][0])
            };
            let array = flat.reshape(&signed(&shape))?.at(&vec![step; dims.len()])?;
            Placed { base: flat, array }
        }
        Layout::Transposed if dims.len() >= 2 => {
            let n = input.array.len();
            let base = upload(backend, &[n + 1], &base_data)?;
            let rev: Vec<usize> = dims.iter().rev().copied().collect();
            let axes: Vec<usize> = (0..dims.len()).rev().collect();
            let array = base
                .view(std::slice::from_ref(&(1..n + 1)))?
                .reshape(&signed(&rev))?
                .permute(&axes)?;
            Placed { base, array }
        }
        other => {
            return Err(internal(&format!(
                "layout {} does not apply to {dtype}{dims:?}",
                other.name()
            )));
        }
    };
    Ok(placed)
}

/// The byte that stands for true at element `i` of a `BoolBytes` input: every value from 1
/// to 255 in turn (1, the canonical byte, is one of them).
fn true_byte(i: usize) -> u8 {
    1 + ((i * 37 + 11) % 255) as u8
}

fn signed(dims: &[usize]) -> Vec<isize> {
    dims.iter().map(|&d| d as isize).collect()
}

/// An error of the suite itself (a case that cannot be set up), never of the backend.
pub fn internal(msg: &str) -> Error {
    Error::InvalidArgument {
        op: "conformance suite".into(),
        reason: msg.to_string(),
    }
}
