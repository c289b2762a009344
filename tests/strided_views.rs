//! Strided views on every backend at hand: selections with steps and negative steps,
//! transposes, broadcasts and diagonals read back; writes through views (a column, a
//! reversed axis, a 2-D interior); a stencil reading overlapping views of the buffer it
//! writes; every kernel family taking strided inputs; the refusals (writing a broadcast,
//! reshaping what no stride describes). Expected values come from plain index arithmetic
//! on host vectors.
//!
//! Backends: the CPU reference (writes strided outputs itself), the same CPU kernels
//! behind a backend that writes contiguous outputs only (core splits a strided destination
//! into contiguous runs), and wgpu when an adapter exists (required with
//! `GPUARRAYS_REQUIRE_WGPU=1`), which also writes contiguous outputs only.

use gpuarrays::prelude::*;
use gpuarrays::{BackendKind, ErrorKind, NEW_AXIS, s};

/// The CPU reference's kernels, with `writes_strided_outputs` left at its default (false).
#[derive(Clone)]
struct ContiguousOut(CpuBackend);

impl Backend for ContiguousOut {
    type Buffer = gpuarrays::cpu::CpuBuffer;
    fn name(&self) -> &'static str {
        "contiguous-out"
    }
    fn device(&self) -> &gpuarrays::DeviceInfo {
        self.0.device()
    }
    fn supports(&self, dtype: DType, op: gpuarrays::OpKind) -> gpuarrays::Support {
        self.0.supports(dtype, op)
    }
    fn alloc(&self, bytes: usize) -> Result<Self::Buffer> {
        self.0.alloc(bytes)
    }
    fn release(&self, buffer: Self::Buffer) {
        self.0.release(buffer)
    }
    fn write(&self, dst: &Self::Buffer, at: usize, src: &[u8]) -> Result<()> {
        self.0.write(dst, at, src)
    }
    fn read(&self, src: &Self::Buffer, at: usize, dst: &mut [u8]) -> Result<()> {
        self.0.read(src, at, dst)
    }
    fn elementwise(
        &self,
        program: &gpuarrays::kernel::Program,
        args: &gpuarrays::kernel::ElementwiseArgs<'_, Self::Buffer>,
    ) -> Result<()> {
        let contiguous = gpuarrays::shape::is_contiguous(args.shape, args.output.strides);
        assert!(
            contiguous,
            "a strided output reached a contiguous-only backend: {args:?}"
        );
        self.0.elementwise(program, args)
    }
}

/// Row-major host matrix `rows × cols` of `f(r, c)`.
fn host(rows: usize, cols: usize, f: impl Fn(usize, usize) -> f32) -> Vec<f32> {
    (0..rows * cols).map(|k| f(k / cols, k % cols)).collect()
}

fn check_reads<B: Backend>(b: &B) {
    let (r, c) = (5, 7);
    let values = host(r, c, |i, j| (i * 10 + j) as f32);
    let a = Array::<f32, B>::from_slice(b, &[r, c], &values).unwrap();
    // a[1:-1, ::-2]
    let v = a.at(&s![1..-1, ..;-2]).unwrap();
    assert_eq!(v.dims(), [3, 4]);
    let want: Vec<f32> = (1..4)
        .flat_map(|i| [6, 4, 2, 0].map(|j| (i * 10 + j) as f32))
        .collect();
    assert_eq!(v.to_vec().unwrap(), want);
    // The transpose, a column, a new axis, the diagonal, a broadcast.
    let t = a.transpose().unwrap();
    assert_eq!(t.to_vec().unwrap(), host(c, r, |i, j| (j * 10 + i) as f32));
    assert_eq!(
        a.at(&s![.., 3]).unwrap().to_vec().unwrap(),
        [3., 13., 23., 33., 43.]
    );
    assert_eq!(a.at(&s![NEW_AXIS, 2]).unwrap().dims(), [1, 7]);
    let diag = a.diagonal(1, 0, 1).unwrap().to_vec().unwrap();
    assert_eq!(diag, [1., 12., 23., 34., 45.]);
    let row = a.at(&s![2..3, ..]).unwrap();
    let bc = row.broadcast_to(&[4, 1, 7]).unwrap();
    assert_eq!(bc.strides(), [0, 7, 1]);
    assert_eq!(bc.to_vec().unwrap(), host(4, 7, |_, j| (20 + j) as f32));
    // An empty selection and a selection of one element.
    assert_eq!(a.at(&s![3..1]).unwrap().dims(), [0, 7]);
    assert_eq!(a.at(&s![-1, -1]).unwrap().item().unwrap(), 46.0);
}

fn check_writes<B: Backend>(b: &B) {
    let (r, c) = (6, 5);
    let zeros = vec![0f32; r * c];
    // A column, a reversed row and a stepped block, each filled or assigned.
    let a = Array::<f32, B>::from_slice(b, &[r, c], &zeros).unwrap();
    a.at(&s![.., 1]).unwrap().fill(1.0).unwrap();
    let src = Array::<f32, B>::from_vec(b, vec![1., 2., 3., 4., 5.]).unwrap();
    a.at(&s![0, ..;-1]).unwrap().assign(&src).unwrap();
    let mut block = a.at(&s![2..;2, 2..;2]).unwrap();
    (block.ex() + 7.0f32).eval_into(&mut block).unwrap();
    let want = host(r, c, |i, j| {
        if i == 0 {
            (5 - j) as f32
        } else if i >= 2 && i % 2 == 0 && j >= 2 && j % 2 == 0 {
            7.0
        } else if j == 1 {
            1.0
        } else {
            0.0
        }
    });
    assert_eq!(a.to_vec().unwrap(), want);
    // Values that depend on the output index, into a column (a contiguous-only backend
    // evaluates them into a temporary first).
    let col = a.at(&s![.., 4]).unwrap();
    Expr::index(b, &[r])
        .cast(DType::F32)
        .eval_into_raw(col.raw())
        .unwrap();
    let got = a.to_vec().unwrap();
    for i in 0..r {
        assert_eq!(got[i * c + 4], i as f32);
    }
    // Writing a broadcast view is refused; nothing is written.
    let row = a.at(&s![1..2, ..]).unwrap();
    let mut bc = row.broadcast_to(&[3, 5]).unwrap();
    let err = bc.fill(9.0).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidArgument, "{err}");
    assert!(err.to_string().contains("broadcast"), "{err}");
    assert_eq!(a.to_vec().unwrap(), got);
}

/// One Jacobi step of the heat equation on the interior, written in place: the source
/// views overlap the destination, so the result must be as if they were read first.
fn check_stencil<B: Backend>(b: &B) {
    let n = 9;
    let init = host(n, n, |i, j| ((i * 7 + j * 3) % 11) as f32);
    let u = Array::<f32, B>::from_slice(b, &[n, n], &init).unwrap();
    let mut interior = u.at(&s![1..-1, 1..-1]).unwrap();
    let up = u.at(&s![..-2, 1..-1]).unwrap();
    let down = u.at(&s![2.., 1..-1]).unwrap();
    let left = u.at(&s![1..-1, ..-2]).unwrap();
    let right = u.at(&s![1..-1, 2..]).unwrap();
    ((up.ex() + down.ex() + left.ex() + right.ex()) * 0.25f32)
        .eval_into(&mut interior)
        .unwrap();
    let want = host(n, n, |i, j| {
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            init[i * n + j]
        } else {
            let at = |a: usize, b: usize| init[a * n + b];
            (at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1)) * 0.25
        }
    });
    assert_eq!(u.to_vec().unwrap(), want);
}

fn check_other_kernels<B: Backend>(b: &B) {
    let (r, c) = (4, 6);
    let values = host(r, c, |i, j| ((i * 5 + j * 7) % 9) as f32 - 3.0);
    let a = Array::<f32, B>::from_slice(b, &[r, c], &values).unwrap();
    let t = a.transpose().unwrap(); // [6, 4], strides [1, 6]
    let tv = t.to_vec().unwrap();
    // Reductions, scans and sorts read a contiguous copy of the view.
    let sums = t.sum_axis(1).unwrap().to_vec().unwrap();
    for j in 0..c {
        assert_eq!(sums[j], (0..r).map(|i| values[i * c + j]).sum::<f32>());
    }
    let rev = a.reverse(1).unwrap();
    let cum = rev.cumsum(1).unwrap().to_vec().unwrap();
    for i in 0..r {
        let mut acc = 0.0;
        for k in 0..c {
            acc += values[i * c + (c - 1 - k)];
            assert_eq!(cum[i * c + k], acc);
        }
    }
    let mut col: Vec<f32> = (0..r).map(|i| values[i * c + 2]).collect();
    let sorted = a.at(&s![.., 2]).unwrap().sort().unwrap().to_vec().unwrap();
    col.sort_by(f32::total_cmp);
    assert_eq!(sorted, col);
    // A product with a transposed operand: tᵀ·t = a·aᵀ.
    let p = a.matmul(&t).unwrap().to_vec().unwrap();
    for i in 0..r {
        for k in 0..r {
            let dot: f32 = (0..c).map(|j| values[i * c + j] * tv[j * r + k]).sum();
            assert!((p[i * r + k] - dot).abs() <= 1e-4 * (1.0 + dot.abs()));
        }
    }
}

fn check_layout_rules<B: Backend>(b: &B) {
    let a = Array::<i32, B>::from_slice(b, &[3, 4], &(0..12).collect::<Vec<_>>()).unwrap();
    let t = a.transpose().unwrap();
    assert!(!t.is_contiguous());
    let err = t.reshape(&[-1]).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::NonContiguousView);
    assert!(err.to_string().contains("contiguous()"), "{err}");
    let flat = t.contiguous().unwrap().reshape(&[-1]).unwrap();
    assert_eq!(
        flat.to_vec().unwrap(),
        [0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]
    );
    // A view a stride still describes stays a view.
    let col = a.at(&s![.., 1..2]).unwrap().reshape(&[3]).unwrap();
    assert!(gpuarrays::DataRef::same_buffer(a.data(), col.data()));
    assert_eq!(col.to_vec().unwrap(), [1, 5, 9]);
    // Views share the buffer: a write through a reversed view is seen in the original.
    let r = a.reverse(0).unwrap();
    r.at(&s![0, 0]).unwrap().fill(-1).unwrap();
    assert_eq!(a.to_vec().unwrap()[8], -1);
    // Bad selections are typed errors.
    assert_eq!(a.at(&s![3]).unwrap_err().kind(), ErrorKind::InvalidArgument);
    assert_eq!(
        a.at(&s![..;0]).unwrap_err().kind(),
        ErrorKind::InvalidArgument
    );
    assert_eq!(
        a.at(&s![0, 0, 0]).unwrap_err().kind(),
        ErrorKind::RankMismatch
    );
}

fn check_all<B: Backend>(b: &B) {
    check_reads(b);
    check_writes(b);
    check_stencil(b);
    check_other_kernels(b);
    check_layout_rules(b);
}

#[test]
fn strided_views_on_the_cpu_reference() {
    check_all(&CpuBackend::new());
}

#[test]
fn strided_views_on_a_backend_that_writes_contiguous_outputs_only() {
    check_all(&ContiguousOut(CpuBackend::new()));
}

#[test]
fn strided_views_on_wgpu() {
    match AnyBackend::open(BackendKind::Wgpu, 0) {
        Ok(b) => check_all(&b),
        Err(e) if std::env::var("GPUARRAYS_REQUIRE_WGPU").as_deref() == Ok("1") => {
            panic!("GPUARRAYS_REQUIRE_WGPU=1 but no wgpu adapter: {e}")
        }
        Err(e) => eprintln!("skipped: no wgpu adapter ({e})"),
    }
}
