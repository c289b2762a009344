//! The `Backend` trait: the one thing a new backend implements.
//!
//! A backend value is a cheap, cloneable handle to one device. Arrays keep a clone, so the
//! destructor registered with each buffer can release it on the right device, whichever
//! thread drops the last reference. Generic array operations (in [`crate::ops`]) check
//! shapes, types and capabilities, then call the methods below; backends never
//! re-implement shape logic. See `docs/backend-guide.md` for a walk-through.
//!
//! Seven methods are required: the device's identity (`name`, `device`), its capability
//! answers (`supports`) and its storage (`alloc`, `release`, `write`, `read`). Every other
//! method has a default from the small-backend kit ([`crate::host`]): `copy` and each
//! kernel family go through the host with `read` and `write`, and `synchronize` does
//! nothing. So a new backend conforms first and becomes fast method by method; a device
//! whose calls are asynchronous must override `synchronize`.

use crate::capability::{OpKind, Support};
use crate::device::DeviceInfo;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::graph::GraphReplay;
use crate::host;
use crate::kernel::{
    ElementwiseArgs, FftArgs, FindArgs, GatherArgs, MatmulArgs, Program, ReduceArgs, ScanArgs,
    ScatterArgs, SearchArgs, SortArgs,
};
use crate::memory::{MemoryStats, MemoryTracker};

/// A device that can hold arrays and run the generic operations.
///
/// Contract common to every method:
/// - offsets and lengths are validated by core before the call (in bounds, non-empty
///   kernels), so a backend may treat violations as its own bug;
/// - work may be asynchronous, but [`read`](Self::read) returns the finished data, and work
///   enqueued by one call is ordered before work enqueued by a later call on the same thread;
/// - errors are returned, never panicked; drop paths never panic.
pub trait Backend: Clone + Send + Sync + 'static {
    /// The backend's device buffer. Shared between arrays through [`crate::DataRef`].
    type Buffer: Send + Sync + 'static;

    /// Short lowercase name: "cpu", "hip", "wgpu".
    fn name(&self) -> &'static str;

    /// The device this handle runs on.
    fn device(&self) -> &DeviceInfo;

    /// Whether this device can run `dtype` for `op`. Checked by core before allocation and
    /// dispatch; a `No` becomes [`crate::Error::Unsupported`].
    ///
    /// Answer only for what this device cannot do. Pairs excluded by core's type rules
    /// ([`OpKind::type_rule`]: complex sort, bool scan and matmul, find kernels on anything but
    /// bool and i64) are rejected by core before any backend is asked, so restating them
    /// here changes nothing and makes capability listings differ between backends.
    fn supports(&self, dtype: DType, op: OpKind) -> Support;

    /// Whether this device computes FFTs of these logical `lengths` (slowest axis first; the
    /// lengths of every axis of one user call) in the precision `real`. Asked by core after
    /// [`supports`](Self::supports) for [`OpKind::Fft`] and before anything is allocated;
    /// a `No` becomes [`crate::Error::Unsupported`] for the complex type. For refusals that
    /// depend on more than the type, e.g. "only power-of-two lengths". Default: `Yes`.
    fn supports_fft_lengths(&self, real: DType, lengths: &[usize]) -> Support {
        let _ = (real, lengths);
        Support::Yes
    }

    /// Allocates `bytes` bytes (contents unspecified). `bytes` may be 0. The buffer's base
    /// must be aligned to at least 16 bytes.
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer>;

    /// Releases a buffer: the destructor registered with its `DataRef`. Must not panic.
    fn release(&self, buffer: Self::Buffer);

    /// Copies host bytes into the buffer at `byte_offset`. `src` may be reused on return.
    fn write(&self, dst: &Self::Buffer, byte_offset: usize, src: &[u8]) -> Result<()>;

    /// Copies bytes from the buffer at `byte_offset` to the host, after all work enqueued
    /// before on this thread has finished.
    fn read(&self, src: &Self::Buffer, byte_offset: usize, dst: &mut [u8]) -> Result<()>;

    /// Device-to-device copy between (or within, non-overlapping) buffers of this device.
    /// Default: through the host ([`host::copy`]).
    fn copy(
        &self,
        src: &Self::Buffer,
        src_byte_offset: usize,
        dst: &Self::Buffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        host::copy(self, src, src_byte_offset, dst, dst_byte_offset, bytes)
    }

    /// Copies `bytes` bytes at `src_byte_offset` of `src`, a buffer of this device, to
    /// `dst_byte_offset` of `dst`, a buffer of `to`: another handle of this backend, on this
    /// device or another one (what [`crate::Array::to_device`] and `to_backend` between two
    /// devices of one backend call). The ranges are validated by core. A backend whose
    /// devices copy to each other directly (GPU peer copies) overrides it. Default: through
    /// the host ([`host::copy_across`]: read here, write there, in pieces).
    fn copy_to_device(
        &self,
        src: &Self::Buffer,
        src_byte_offset: usize,
        to: &Self,
        dst: &Self::Buffer,
        dst_byte_offset: usize,
        bytes: usize,
    ) -> Result<()> {
        host::copy_across(self, src, src_byte_offset, to, dst, dst_byte_offset, bytes)
    }

    /// Waits until all work this thread enqueued on the device has finished; refused with
    /// [`Error::NotCapturable`] while the thread captures a graph on the device
    /// ([`crate::graph::refuse_while_recording`]). Default: that refusal, and otherwise
    /// nothing to wait for (right for a backend whose calls finish before they return).
    fn synchronize(&self) -> Result<()> {
        crate::graph::refuse_while_recording(self, "synchronize")
    }

    /// The counters of this device's memory, if the backend keeps them: it reserves each
    /// allocation there (refusing one past the limit with the tracker's error) and releases
    /// it when the buffer is released. Default: `None`, so
    /// [`memory_stats`](Self::memory_stats) says nothing is tracked and
    /// [`set_memory_limit`](Self::set_memory_limit) is refused.
    fn memory_tracker(&self) -> Option<&MemoryTracker> {
        None
    }

    /// Bytes of freed buffers the backend keeps for reuse. Default: 0 (nothing cached).
    fn cached_bytes(&self) -> usize {
        0
    }

    /// Returns the cached buffers to the device (PyTorch's `torch.cuda.empty_cache()`,
    /// CuPy's `free_all_blocks`). Default: nothing is cached.
    fn empty_cache(&self) -> Result<()> {
        Ok(())
    }

    /// The device's memory statistics: bytes in use, peak, cached, limit ([`MemoryStats`]).
    /// Provided from [`memory_tracker`](Self::memory_tracker) and
    /// [`cached_bytes`](Self::cached_bytes).
    fn memory_stats(&self) -> MemoryStats {
        match self.memory_tracker() {
            Some(t) => t.stats(self.cached_bytes()),
            None => MemoryStats::default(),
        }
    }

    /// Caps the bytes in use on this device (`None`: no cap): an allocation that would pass
    /// it is [`Error::OutOfMemory`] naming the limit, before the device is asked. Cached
    /// buffers do not count. A backend without a tracker refuses (`InvalidArgument`).
    fn set_memory_limit(&self, limit: Option<usize>) -> Result<()> {
        match self.memory_tracker() {
            Some(t) => {
                t.set_limit(limit);
                Ok(())
            }
            None => Err(Error::invalid_arg(
                "set_memory_limit",
                format!("the {} backend does not track its memory", self.name()),
            )),
        }
    }

    /// Starts the peak of [`memory_stats`](Self::memory_stats) again from the bytes in use.
    fn reset_peak_memory(&self) {
        if let Some(t) = self.memory_tracker() {
            t.reset_peak();
        }
    }

    /// Whether [`elementwise`](Self::elementwise) writes outputs of `dtype` with any
    /// strides (a view of a column, a reversed axis). Default `false`: core then sends
    /// row-major contiguous outputs only, one kernel per contiguous run of a strided
    /// destination (per element of a stepped last axis: slow, but right).
    fn writes_strided_outputs(&self, dtype: DType) -> bool {
        let _ = dtype;
        false
    }

    /// Runs a fused elementwise program. Default: [`host::elementwise`].
    fn elementwise(
        &self,
        program: &Program,
        args: &ElementwiseArgs<'_, Self::Buffer>,
    ) -> Result<()> {
        host::elementwise(self, program, args)
    }

    /// Runs a reduction. Default: [`host::reduce`].
    fn reduce(&self, args: &ReduceArgs<'_, Self::Buffer>) -> Result<()> {
        host::reduce(self, args)
    }

    /// Runs an inclusive scan. Default: [`host::scan`].
    fn scan(&self, args: &ScanArgs<'_, Self::Buffer>) -> Result<()> {
        host::scan(self, args)
    }

    /// Whether [`scan`](Self::scan) takes f16 and bf16 itself, keeping an f32 running value
    /// and rounding each output once to the half type (the rule of `cumsum` and friends on
    /// halves). Default `false`: core then widens halves to f32, scans f32 and rounds, three
    /// passes over the data, and the backend's scan never sees a half.
    fn scans_halves(&self) -> bool {
        false
    }

    /// Sorts rows in place. Default: [`host::sort`].
    fn sort(&self, args: &SortArgs<'_, Self::Buffer>) -> Result<()> {
        host::sort(self, args)
    }

    /// Sorts like [`sort`](Self::sort) rows of u64 words whose low 32 bits increase along
    /// every row (`ordered_low_bits == 32`: the packed words of core's sorting permutations)
    /// and writes the low 32 bits of each sorted word as i64 to `positions`, from element
    /// `positions_offset`, in the words' layout, when the backend can do that within its
    /// sort (its last pass writes them instead of the words, whose contents are then
    /// unspecified): a pass over 16 bytes per element saved. Returns `Ok(false)`, having
    /// changed nothing, when it cannot; core then sorts and extracts them itself. Default
    /// `Ok(false)`.
    fn sort_into_positions(
        &self,
        args: &SortArgs<'_, Self::Buffer>,
        positions: &Self::Buffer,
        positions_offset: usize,
    ) -> Result<bool> {
        let _ = (args, positions, positions_offset);
        Ok(false)
    }

    /// Finds the true positions of a bool range; returns a new buffer of i64 positions and
    /// their count. Default: [`host::find`].
    fn find(&self, args: &FindArgs<'_, Self::Buffer>) -> Result<(Self::Buffer, usize)> {
        host::find(self, args)
    }

    /// Finds the insertion points of u32 or u64 keys in an ascending table of keys (binary
    /// search; semantics in [`SearchArgs`]). Default: [`host::search_sorted`].
    fn search_sorted(&self, args: &SearchArgs<'_, Self::Buffer>) -> Result<()> {
        host::search_sorted(self, args)
    }

    /// Reads elements at the positions an index array holds (semantics in
    /// [`crate::kernel::indexing`]). Default: [`host::gather`].
    fn gather(&self, args: &GatherArgs<'_, Self::Buffer>) -> Result<()> {
        host::gather(self, args)
    }

    /// Whether [`gather`](Self::gather) reports out-of-range indices of an
    /// [`IndexMode::Raise`](crate::kernel::IndexMode::Raise) gather itself, through
    /// [`GatherArgs::out_of_range`]. Then core does not check the indices in a pass of its own
    /// before the gather (an extra read of every index, a reduction and a read-back); it reads
    /// the report after the gather, and only on a report looks for the offending index to
    /// name it in the error. Default `false` (core checks first; `out_of_range` is `None`).
    /// [`host::gather`] fills the report, so a backend whose gathers are the kit's may answer
    /// `true`.
    fn reports_gather_range(&self) -> bool {
        false
    }

    /// Stores or adds elements at the positions an index array holds, in place (semantics,
    /// and what may differ between backends, in [`crate::kernel::indexing`]). Default:
    /// [`host::scatter`].
    fn scatter(&self, args: &ScatterArgs<'_, Self::Buffer>) -> Result<()> {
        host::scatter(self, args)
    }

    /// Runs a (batched) matrix product. Default: [`host::matmul`].
    fn matmul(&self, args: &MatmulArgs<'_, Self::Buffer>) -> Result<()> {
        host::matmul(self, args)
    }

    /// Runs one batched FFT: 1 to 3 transform lengths, a batch, and a strided layout per
    /// operand, unnormalised (exact semantics in [`crate::kernel::fft`]). Core has already
    /// asked [`supports`](Self::supports) with [`OpKind::Fft`] for the precision's real and
    /// complex types; call [`FftArgs::validate`] before trusting the description. A backend
    /// without FFTs answers `Support::No` for `OpKind::Fft` and returns the same refusal here.
    /// Default: [`host::fft()`] (rustfft; a refusal without core's `host-fft` feature, when
    /// `supports` should answer [`host::supports_fft`]).
    fn fft(&self, args: &FftArgs<'_, Self::Buffer>) -> Result<()> {
        host::fft(self, args)
    }

    /// Whether this backend records graphs itself ([`capture_graph`](Self::capture_graph)).
    /// Default `false`: [`crate::graph::capture`] then records the calls core makes to this
    /// backend and replays them (core's graphs; nothing to implement). A backend that wraps
    /// others answers for the one it delegates to.
    fn records_graphs(&self) -> bool {
        false
    }

    /// Runs `record` once on the calling thread and records the work it enqueues into a
    /// graph that can be launched again and again ([`crate::graph`] gives the rules every
    /// backend keeps). Called only when [`records_graphs`](Self::records_graphs) is `true`.
    /// `record` returns an error to abandon the capture; the backend then returns that
    /// error, records nothing and leaves no capture running. Default:
    /// [`Error::NotCapturable`] (the backend records no graphs).
    fn capture_graph(
        &self,
        record: &mut dyn FnMut() -> Result<()>,
    ) -> Result<Box<dyn GraphReplay>> {
        let _ = record;
        Err(Error::NotCapturable {
            what: "a graph capture".into(),
            backend: self.name().into(),
            reason: "this backend records no graphs; run the operations eagerly".into(),
        })
    }
}

/// The kit's view of a backend: its storage methods, under the names [`host::HostStorage`]
/// gives them (so the kit need not name `Backend`, whose defaults call it).
impl<B: Backend> host::HostStorage for B {
    type Buffer = B::Buffer;

    fn storage_name(&self) -> &'static str {
        self.name()
    }

    fn storage_device(&self) -> &DeviceInfo {
        self.device()
    }

    fn alloc_bytes(&self, bytes: usize) -> Result<B::Buffer> {
        self.alloc(bytes)
    }

    fn release_buffer(&self, buffer: B::Buffer) {
        self.release(buffer)
    }

    fn read_bytes(&self, src: &B::Buffer, byte_offset: usize, dst: &mut [u8]) -> Result<()> {
        self.read(src, byte_offset, dst)
    }

    fn write_bytes(&self, dst: &B::Buffer, byte_offset: usize, src: &[u8]) -> Result<()> {
        self.write(dst, byte_offset, src)
    }
}
