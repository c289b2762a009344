//! Re-typing a kernel description's buffers: `Args<'_, A>` → `Args<'_, B>`.
//!
//! A backend that wraps other backends (the facade's runtime-chosen `AnyBackend`, a
//! delegating test backend) receives descriptions over its own buffer type and must hand the
//! wrapped backend the same description over *its* buffer type. `try_map_buffers` rebuilds a
//! description with every buffer reference passed through a function that may refuse it
//! (a buffer of another backend: a typed error, never a panic). Positions, shapes and types
//! are copied unchanged; buffers are visited in a fixed order (inputs, then outputs).

use smallvec::SmallVec;

use super::axis_ops::{FindArgs, MatmulArgs, ReduceArgs, ScanArgs, SearchArgs, SortArgs};
use super::elementwise::{ElementwiseArgs, Operand};
use super::fft::FftArgs;
use super::indexing::{GatherArgs, IndexSpace, ScatterArgs, Strided3};

impl<'a, A> Operand<'a, A> {
    /// This operand with its buffer mapped by `f` (the strides stay borrowed).
    pub fn try_map_buffer<B, E>(
        &self,
        f: impl FnOnce(&'a A) -> Result<&'a B, E>,
    ) -> Result<Operand<'a, B>, E> {
        Ok(Operand {
            buffer: f(self.buffer)?,
            dtype: self.dtype,
            offset: self.offset,
            strides: self.strides,
        })
    }
}

impl<'a, A> ElementwiseArgs<'a, A> {
    /// Runs `run` on these arguments with every buffer (inputs in order, then the output)
    /// mapped by `f`; the first refusal is returned and `run` does not happen.
    ///
    /// Scoped rather than returning the mapped arguments, because the mapped operand list
    /// needs storage: it is built on the stack (up to eight inputs; more spill to the heap),
    /// and the shape, scalars and strides stay borrowed from `self`.
    pub fn with_mapped_buffers<B: 'a, E, R>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'a B, E>,
        run: impl FnOnce(&ElementwiseArgs<'_, B>) -> Result<R, E>,
    ) -> Result<R, E> {
        let mut inputs: SmallVec<[Operand<'a, B>; 8]> = SmallVec::new();
        for input in self.inputs {
            inputs.push(input.try_map_buffer(&mut f)?);
        }
        let output = self.output.try_map_buffer(&mut f)?;
        run(&ElementwiseArgs {
            shape: self.shape,
            inputs: &inputs,
            scalars: self.scalars,
            output,
        })
    }
}

impl<'a, A> ReduceArgs<'a, A> {
    /// These arguments with the input, then the output buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<ReduceArgs<'b, B>, E> {
        Ok(ReduceArgs {
            op: self.op,
            dtype: self.dtype,
            input: f(self.input)?,
            input_offset: self.input_offset,
            outer: self.outer,
            len: self.len,
            inner: self.inner,
            output: f(self.output)?,
            output_offset: self.output_offset,
        })
    }
}

impl<'a, A> ScanArgs<'a, A> {
    /// These arguments with the input, then the output buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<ScanArgs<'b, B>, E> {
        Ok(ScanArgs {
            op: self.op,
            dtype: self.dtype,
            input: f(self.input)?,
            input_offset: self.input_offset,
            outer: self.outer,
            len: self.len,
            inner: self.inner,
            output: f(self.output)?,
            output_offset: self.output_offset,
        })
    }
}

impl<'a, A> SortArgs<'a, A> {
    /// These arguments with the buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        f: impl FnOnce(&'a A) -> Result<&'b B, E>,
    ) -> Result<SortArgs<'b, B>, E> {
        Ok(SortArgs {
            dtype: self.dtype,
            buffer: f(self.buffer)?,
            offset: self.offset,
            rows: self.rows,
            len: self.len,
            ordered_low_bits: self.ordered_low_bits,
        })
    }
}

impl<'a, A> FindArgs<'a, A> {
    /// These arguments with the input buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        f: impl FnOnce(&'a A) -> Result<&'b B, E>,
    ) -> Result<FindArgs<'b, B>, E> {
        Ok(FindArgs {
            input: f(self.input)?,
            offset: self.offset,
            len: self.len,
        })
    }
}

impl<'a, A> SearchArgs<'a, A> {
    /// These arguments with the table, the values, then the output mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<SearchArgs<'b, B>, E> {
        Ok(SearchArgs {
            dtype: self.dtype,
            side: self.side,
            table: f(self.table)?,
            table_offset: self.table_offset,
            table_len: self.table_len,
            values: f(self.values)?,
            values_offset: self.values_offset,
            len: self.len,
            output: f(self.output)?,
            output_offset: self.output_offset,
        })
    }
}

impl<'a, A> MatmulArgs<'a, A> {
    /// These arguments with the buffers `a`, `b`, then the output mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<MatmulArgs<'b, B>, E> {
        Ok(MatmulArgs {
            dtype: self.dtype,
            batch: self.batch,
            m: self.m,
            n: self.n,
            k: self.k,
            a: f(self.a)?,
            a_offset: self.a_offset,
            a_batch_stride: self.a_batch_stride,
            b: f(self.b)?,
            b_offset: self.b_offset,
            b_batch_stride: self.b_batch_stride,
            output: f(self.output)?,
            output_offset: self.output_offset,
        })
    }
}

impl<'a, A> FftArgs<'a, A> {
    /// These arguments with the input, then the output buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<FftArgs<'b, B>, E> {
        Ok(FftArgs {
            kind: self.kind,
            direction: self.direction,
            real: self.real,
            lengths: self.lengths.clone(),
            batch: self.batch,
            input: f(self.input)?,
            input_layout: self.input_layout,
            output: f(self.output)?,
            output_layout: self.output_layout,
        })
    }
}

impl<'a, A> Strided3<'a, A> {
    /// This operand with its buffer mapped by `f`.
    pub fn try_map_buffer<'b, B, E>(
        &self,
        f: impl FnOnce(&'a A) -> Result<&'b B, E>,
    ) -> Result<Strided3<'b, B>, E> {
        Ok(Strided3 {
            buffer: f(self.buffer)?,
            offset: self.offset,
            strides: self.strides,
        })
    }
}

impl<'a, A> IndexSpace<'a, A> {
    /// This index space with the index's buffer mapped by `f`.
    pub fn try_map_buffer<'b, B, E>(
        &self,
        f: impl FnOnce(&'a A) -> Result<&'b B, E>,
    ) -> Result<IndexSpace<'b, B>, E> {
        Ok(IndexSpace {
            dims: self.dims,
            index: self.index.try_map_buffer(f)?,
            extent: self.extent,
            mode: self.mode,
        })
    }
}

impl<'a, A> GatherArgs<'a, A> {
    /// These arguments with the index, the source, the output, then the report's buffer
    /// mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<GatherArgs<'b, B>, E> {
        Ok(GatherArgs {
            dtype: self.dtype,
            space: self.space.try_map_buffer(&mut f)?,
            source: self.source.try_map_buffer(&mut f)?,
            output: f(self.output)?,
            output_offset: self.output_offset,
            out_of_range: self.out_of_range.map(&mut f).transpose()?,
        })
    }
}

impl<'a, A> ScatterArgs<'a, A> {
    /// These arguments with the index, the values, then the target buffer mapped by `f`.
    pub fn try_map_buffers<'b, B, E>(
        &self,
        mut f: impl FnMut(&'a A) -> Result<&'b B, E>,
    ) -> Result<ScatterArgs<'b, B>, E> {
        let space = self.space.try_map_buffer(&mut f)?;
        let values = self.values.try_map_buffer(&mut f)?;
        Ok(ScatterArgs {
            op: self.op,
            dtype: self.dtype,
            space,
            target: self.target.try_map_buffer(&mut f)?,
            values,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dtype::DType;
    use crate::kernel::{ReduceOp, ScanOp};
    use crate::scalar::Scalar;

    /// Two "backends'" buffers: mapping keeps the index, refusing names it.
    #[derive(Debug, PartialEq)]
    enum Either {
        Left(u32),
        Right(u32),
    }

    fn left(b: &Either) -> Result<&u32, String> {
        match b {
            Either::Left(x) => Ok(x),
            Either::Right(x) => Err(format!("right {x}")),
        }
    }

    fn operand(buffer: &Either, offset: usize) -> Operand<'_, Either> {
        Operand {
            buffer,
            dtype: DType::F32,
            offset,
            strides: &[3, -1],
        }
    }

    #[test]
    fn elementwise_maps_every_buffer_in_order_and_keeps_the_layout() {
        let (x, y, z) = (Either::Left(1), Either::Left(2), Either::Left(3));
        let inputs = [operand(&x, 5), operand(&y, 6)];
        let args = ElementwiseArgs {
            shape: &[4, 3],
            inputs: &inputs,
            scalars: &[Scalar::F32(1.5)],
            output: operand(&z, 7),
        };
        let mut seen = Vec::new();
        let checked = args.with_mapped_buffers(
            |b| {
                seen.push(b as *const Either);
                left(b)
            },
            |mapped| {
                assert_eq!(mapped.shape, args.shape);
                assert_eq!(mapped.scalars, args.scalars);
                assert_eq!(
                    mapped.inputs.iter().map(|o| *o.buffer).collect::<Vec<_>>(),
                    [1, 2]
                );
                assert_eq!(*mapped.output.buffer, 3);
                for (m, a) in mapped
                    .inputs
                    .iter()
                    .chain([&mapped.output])
                    .zip(args.inputs.iter().chain([&args.output]))
                {
                    assert_eq!(
                        (m.dtype, m.offset, m.strides),
                        (a.dtype, a.offset, a.strides)
                    );
                }
                Ok(mapped.inputs.len() + 1)
            },
        );
        assert_eq!(checked, Ok(3));
        assert_eq!(seen, [&x as *const _, &y as *const _, &z as *const _]);
    }

    #[test]
    fn a_refused_buffer_is_the_error() {
        let (x, y) = (Either::Left(1), Either::Right(9));
        let inputs = [operand(&x, 0)];
        let args = ElementwiseArgs {
            shape: &[2],
            inputs: &inputs,
            scalars: &[],
            output: operand(&y, 0),
        };
        let refused = args.with_mapped_buffers(left, |_| -> Result<(), String> {
            panic!("ran with a refused buffer")
        });
        assert_eq!(refused.unwrap_err(), "right 9");
        let reduce = ReduceArgs {
            op: ReduceOp::Sum,
            dtype: DType::I32,
            input: &y,
            input_offset: 0,
            outer: 1,
            len: 2,
            inner: 1,
            output: &x,
            output_offset: 0,
        };
        assert_eq!(reduce.try_map_buffers(left).unwrap_err(), "right 9");
        let sort = SortArgs {
            dtype: DType::U8,
            buffer: &y,
            offset: 0,
            rows: 1,
            len: 2,
            ordered_low_bits: 0,
        };
        assert!(sort.try_map_buffers(left).is_err());
    }

    #[test]
    fn axis_kernels_keep_every_position() {
        let (a, b, c) = (Either::Left(1), Either::Left(2), Either::Left(3));
        let scan = ScanArgs {
            op: ScanOp::Prod,
            dtype: DType::F64,
            input: &a,
            input_offset: 4,
            outer: 5,
            len: 6,
            inner: 7,
            output: &b,
            output_offset: 8,
        };
        let s = scan.try_map_buffers(left).unwrap();
        assert_eq!(
            (*s.input, *s.output, s.op, s.dtype),
            (1, 2, ScanOp::Prod, DType::F64)
        );
        assert_eq!(
            (s.input_offset, s.outer, s.len, s.inner, s.output_offset),
            (4, 5, 6, 7, 8)
        );
        let find = FindArgs {
            input: &c,
            offset: 3,
            len: 9,
        };
        let f = find.try_map_buffers(left).unwrap();
        assert_eq!((*f.input, f.offset, f.len), (3, 3, 9));
        let mm = MatmulArgs {
            dtype: DType::C64,
            batch: 2,
            m: 3,
            n: 4,
            k: 5,
            a: &a,
            a_offset: 6,
            a_batch_stride: 7,
            b: &b,
            b_offset: 8,
            b_batch_stride: 0,
            output: &c,
            output_offset: 9,
        };
        let m = mm.try_map_buffers(left).unwrap();
        assert_eq!((*m.a, *m.b, *m.output), (1, 2, 3));
        assert_eq!(
            (
                m.dtype,
                m.batch,
                m.m,
                m.n,
                m.k,
                m.a_offset,
                m.a_batch_stride,
                m.b_offset,
                m.b_batch_stride,
                m.output_offset
            ),
            (DType::C64, 2, 3, 4, 5, 6, 7, 8, 0, 9)
        );
    }
}
