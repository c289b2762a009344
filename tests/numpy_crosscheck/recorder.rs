//! Runs operations on the CPU backend and records inputs and results for the Python side:
//! one `data.bin` (raw little-endian arrays, 16-byte aligned) and a `manifest.json` that
//! names every array (dtype, shape, byte offset) and every case (operation, input
//! references, and either the result array or the error the operation returned).

use std::path::Path;

use gpuarrays_core::{Array, DType, Element, RawArray, Scalar, dispatch_dtype};
use gpuarrays_cpu_ref::CpuBackend;
use serde_json::{Value, json};

use crate::values;

pub type B = CpuBackend;

/// An input: the array on the backend and how the Python side rebuilds it.
#[derive(Clone)]
pub struct In {
    pub raw: RawArray<B>,
    pub json: Value,
}

impl In {
    pub fn dtype(&self) -> DType {
        self.raw.dtype()
    }

    /// A derived array (`RawArray::view`) sharing the buffer; NumPy slices the same ranges.
    pub fn view(&self, ranges: &[std::ops::Range<usize>]) -> In {
        let raw = self.raw.view(ranges).expect("a valid view");
        let r: Vec<[usize; 2]> = ranges.iter().map(|r| [r.start, r.end]).collect();
        self.derived(raw, json!({"view": r}))
    }

    /// A derived array (`RawArray::reshape`); NumPy reshapes the same way.
    pub fn reshape(&self, dims: &[isize]) -> In {
        let raw = self.raw.reshape(dims).expect("a valid reshape");
        self.derived(raw, json!({"reshape": dims}))
    }

    /// A derived array (`RawArray::reinterpret`); NumPy uses `ndarray.view(dtype)`.
    pub fn reinterpret(&self, to: DType) -> In {
        let raw = self.raw.reinterpret(to).expect("a valid reinterpret");
        self.derived(raw, json!({"reinterpret": to.name()}))
    }

    /// A strided view (`RawArray::at`); NumPy indexes with the same slices.
    pub fn at(&self, args: &[gpuarrays_core::SliceArg]) -> In {
        let raw = self.raw.at(args).expect("a valid selection");
        self.derived(raw, json!({"at": selection_json(args)}))
    }

    /// An axis permutation view (`RawArray::permute`); NumPy `transpose(axes)`.
    pub fn permute(&self, axes: &[usize]) -> In {
        let raw = self.raw.permute(axes).expect("a valid permutation");
        self.derived(raw, json!({"permute": axes}))
    }

    fn derived(&self, raw: RawArray<B>, step: Value) -> In {
        let mut json = self.json.clone();
        json["derive"]
            .as_array_mut()
            .expect("derive list")
            .push(step);
        In { raw, json }
    }
}

/// A selection as the Python side reads it: `{"i": k}`, `{"s": [start, end, step]}` (null
/// for a missing bound) or `"new"`.
pub fn selection_json(args: &[gpuarrays_core::SliceArg]) -> Value {
    use gpuarrays_core::SliceArg;
    args.iter()
        .map(|a| match *a {
            SliceArg::Index(i) => json!({"i": i}),
            SliceArg::Range { start, end, step } => json!({"s": [start, end, step]}),
            SliceArg::NewAxis => json!("new"),
        })
        .collect()
}

/// A result: its element type, shape and bytes.
pub struct Out {
    pub dtype: DType,
    pub dims: Vec<usize>,
    pub bytes: Vec<u8>,
}

impl Out {
    pub fn raw(r: &RawArray<B>) -> gpuarrays_core::Result<Out> {
        Ok(Out {
            dtype: r.dtype(),
            dims: r.dims().to_vec(),
            bytes: r.to_bytes()?,
        })
    }

    pub fn typed<T: Element>(a: &Array<T, B>) -> gpuarrays_core::Result<Out> {
        Out::raw(a.raw())
    }

    /// A 0-d result.
    pub fn scalar(s: Scalar) -> Out {
        Out {
            dtype: s.dtype(),
            dims: Vec::new(),
            bytes: s.to_le_bytes(),
        }
    }
}

pub struct Recorder {
    pub backend: B,
    data: Vec<u8>,
    arrays: Vec<Value>,
    cases: Vec<Value>,
    ids: std::collections::HashSet<String>,
}

impl Recorder {
    pub fn new(backend: B) -> Self {
        Recorder {
            backend,
            data: Vec::new(),
            arrays: Vec::new(),
            cases: Vec::new(),
            ids: Default::default(),
        }
    }

    pub fn case_count(&self) -> usize {
        self.cases.len()
    }

    fn store(&mut self, dtype: DType, dims: &[usize], bytes: &[u8]) -> usize {
        while self.data.len() % 16 != 0 {
            self.data.push(0);
        }
        let offset = self.data.len();
        self.data.extend_from_slice(bytes);
        self.arrays.push(json!({
            "dtype": dtype.name(),
            "shape": dims,
            "offset": offset,
            "nbytes": bytes.len(),
        }));
        self.arrays.len() - 1
    }

    /// Uploads `values` as an array of `dims` and records it.
    pub fn array(&mut self, dtype: DType, dims: &[usize], values: &[Scalar]) -> In {
        assert!(
            values.iter().all(|v| v.dtype() == dtype),
            "values of {dtype}"
        );
        let bytes = values::to_bytes(values);
        let id = self.store(dtype, dims, &bytes);
        let raw = dispatch_dtype!(dtype, T => {
            let host = T::from_bytes(&bytes).expect("valid host bytes");
            Array::<T, B>::from_slice(&self.backend, dims, &host)
                .expect("upload")
                .into_raw()
        });
        In {
            raw,
            json: json!({"array": id, "derive": []}),
        }
    }

    /// A 0-d array holding `s` (scalar operands travel to NumPy this way).
    pub fn scalar(&mut self, s: Scalar) -> In {
        self.array(s.dtype(), &[], &[s])
    }

    /// Records one case: the operation (a JSON object with at least `"op"`), the element type
    /// it is about (for coverage), its inputs and what the backend returned.
    pub fn case(
        &mut self,
        id: impl Into<String>,
        op: Value,
        dtype: DType,
        inputs: &[&In],
        result: gpuarrays_core::Result<Out>,
    ) {
        let mut id = id.into();
        if !self.ids.insert(id.clone()) {
            id = format!("{id}#{}", self.cases.len());
            self.ids.insert(id.clone());
        }
        let result = match result {
            Ok(out) => {
                let a = self.store(out.dtype, &out.dims, &out.bytes);
                json!({"ok": a})
            }
            Err(e) => json!({"err": {"kind": e.kind().name(), "message": e.to_string()}}),
        };
        self.cases.push(json!({
            "id": id,
            "op": op,
            "dtype": dtype.name(),
            "inputs": inputs.iter().map(|i| i.json.clone()).collect::<Vec<_>>(),
            "result": result,
        }));
    }

    /// Writes `data.bin` and `manifest.json` into `dir`.
    pub fn write(&self, dir: &Path, seed: u64) -> std::io::Result<()> {
        std::fs::write(dir.join("data.bin"), &self.data)?;
        let manifest = json!({
            "version": 1,
            "seed": seed.to_string(),
            "arrays": self.arrays,
            "cases": self.cases,
        });
        std::fs::write(
            dir.join("manifest.json"),
            serde_json::to_vec(&manifest).expect("serialisable"),
        )
    }
}
