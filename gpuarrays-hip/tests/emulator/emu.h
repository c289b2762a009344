// A CPU emulation of the CUDA built-ins the generated kernels use, so that CI (no GPU) can run
// them for real against the CPU reference. Included before each generated source (NVIDIA
// dialect); see emulator/mod.rs.
//
// Three blocks are resident at a time, each on its own OS thread, taken in blockIdx order (so
// a block that waits on an earlier block's published state, as look-back scans do, may find it
// published, half-published or not yet, but is never waiting on a block nobody runs); atomics
// are real atomics. The threads of a block are fibers
// on one OS thread (a hand-written stack switch on x86-64, ucontext elsewhere): each runs until it reaches __syncthreads, a warp operation
// (ballot, shuffle, __syncwarp) or its end. A warp operation completes when every unfinished
// lane of the warp has reached one, and the lanes must agree on the kind; a block barrier
// completes when every unfinished thread has reached it. Anything else (lanes of one warp split
// between a warp operation and a barrier, or nobody able to move) is reported as a deadlock and
// aborts. The order in which runnable threads run is shuffled at every step, so code that relies
// on an order without a barrier tends to fail here as it would on a GPU.
//
// Shared memory is `static thread_local`: one copy per resident block; launches are serialised
// by the host.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>
#include <ucontext.h>

#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static thread_local
#define __restrict__
#define __launch_bounds__(...)

struct GaEmuDim3 { unsigned int x, y, z; };

namespace ga_emu {
enum Op { OP_NONE = 0, OP_BALLOT, OP_SHFL_UP, OP_SHFL_DOWN, OP_SHFL_IDX, OP_SHFL_XOR, OP_SYNCWARP };
enum State { RUNNABLE = 0, AT_BARRIER, AT_WARP, DONE };

struct Fiber {
#if defined(__x86_64__)
  void* sp;  // the saved stack pointer (see switch_stack)
#else
  ucontext_t ctx;
#endif
  GaEmuDim3 tid;
  int linear;
  State state;
  Op op;
  uint64_t value;
  int arg;
  uint64_t result;
};

inline GaEmuDim3 block_dim, grid_dim;
inline thread_local GaEmuDim3 block_idx;
inline thread_local Fiber* current = nullptr;
inline thread_local std::vector<Fiber> fibers;
// The fibers' stacks: not zero-filled (a std::vector would write every byte of n * 256 KiB per
// launch thread, most of the emulator's time in page faults); a fiber touches only the pages
// it uses.
inline thread_local std::unique_ptr<char[]> stacks;
inline thread_local size_t stacks_size = 0;
inline const size_t kStack = 256 * 1024;
#if defined(__x86_64__)
inline thread_local void* scheduler_sp = nullptr;
#else
inline thread_local ucontext_t scheduler;
#endif
inline const std::function<void()>* body = nullptr;
inline thread_local uint64_t rng = 0x9E3779B97F4A7C15ull;
inline thread_local long long spins = 0;
// Lanes per warp: the module's GA_WARP, set by each launch (32, or 64 to emulate an AMD
// wavefront).
inline int warp_size = 32;
inline const unsigned kResident = 3;

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "ga_emu: %s (block %u,%u,%u)\n", what, block_idx.x, block_idx.y, block_idx.z);
  std::fflush(stderr);
  std::abort();
}

extern "C" inline void fiber_entry();

#if defined(__x86_64__)
// Fiber switches on x86-64 save what the SysV ABI makes callee-saved (rbx, rbp, r12-r15, the
// stack pointer, MXCSR and the x87 control word) and nothing else: swapcontext also saves and
// restores the signal mask, a system call per switch, which was most of the emulator's run
// time (kernels switch fibers at every barrier and warp operation). Hidden: each module has
// its own copy.
extern "C" void ga_emu_switch_stack(void** save_sp, void* load_sp);
asm(R"(
  .pushsection .text
  .globl ga_emu_switch_stack
  .hidden ga_emu_switch_stack
  .type ga_emu_switch_stack, @function
ga_emu_switch_stack:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $16, %rsp
  stmxcsr 8(%rsp)
  fnstcw (%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr 8(%rsp)
  fldcw (%rsp)
  addq $16, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size ga_emu_switch_stack, .-ga_emu_switch_stack
  .popsection
)");

// A new fiber's stack, as ga_emu_switch_stack leaves a suspended one: the control words and
// six zeroed registers, then fiber_entry as the return address, above it a null return
// address for fiber_entry's frame (which never returns), keeping the ABI's 16-byte alignment.
inline void init_fiber(Fiber& f, char* stack, size_t size) {
  uintptr_t top = ((uintptr_t)(stack + size)) & ~(uintptr_t)15;
  uint64_t* sp = (uint64_t*)top;
  *--sp = 0;
  *--sp = (uint64_t)(uintptr_t)&fiber_entry;
  for (int r = 0; r < 6; ++r) *--sp = 0;
  sp -= 2;
  uint32_t mxcsr;
  uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  std::memcpy((char*)sp + 8, &mxcsr, 4);
  std::memcpy((char*)sp, &fpucw, 2);
  f.sp = sp;
}
inline void resume(Fiber& f) { ga_emu_switch_stack(&scheduler_sp, f.sp); }
inline void yield_to_scheduler() { ga_emu_switch_stack(&current->sp, scheduler_sp); }
#else
inline void init_fiber(Fiber& f, char* stack, size_t size) {
  getcontext(&f.ctx);
  f.ctx.uc_stack.ss_sp = stack;
  f.ctx.uc_stack.ss_size = size;
  f.ctx.uc_link = nullptr;
  makecontext(&f.ctx, (void (*)())fiber_entry, 0);
}
inline void resume(Fiber& f) { swapcontext(&scheduler, &f.ctx); }
inline void yield_to_scheduler() { swapcontext(&current->ctx, &scheduler); }
#endif

extern "C" inline void fiber_entry() {
  (*body)();
  current->state = DONE;
  yield_to_scheduler();
  fail("a finished fiber was resumed");
}

inline uint64_t warp_op(Op op, uint64_t value, int arg) {
  current->op = op;
  current->value = value;
  current->arg = arg;
  current->state = AT_WARP;
  yield_to_scheduler();
  return current->result;
}

inline void barrier() {
  current->state = AT_BARRIER;
  yield_to_scheduler();
}

inline uint64_t next_random() {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return rng;
}

// Completes the warp operations of every warp whose unfinished lanes all wait on one.
inline bool complete_warps() {
  bool progress = false;
  const int n = (int)fibers.size();
  for (int w0 = 0; w0 < n; w0 += warp_size) {
    const int w1 = w0 + warp_size < n ? w0 + warp_size : n;
    bool any = false, all = true;
    Op op = OP_NONE;
    for (int i = w0; i < w1; ++i) {
      Fiber& f = fibers[i];
      if (f.state == DONE) continue;
      if (f.state == AT_WARP) {
        if (any && f.op != op) fail("lanes of one warp wait on different warp operations");
        op = f.op;
        any = true;
      } else {
        all = false;
      }
    }
    if (!any || !all) continue;
    for (int i = w0; i < w1; ++i) {
      Fiber& f = fibers[i];
      if (f.state != AT_WARP) continue;
      const int lane = i - w0;
      uint64_t r = 0;
      switch (op) {
        case OP_BALLOT:
          for (int j = w0; j < w1; ++j)
            if (fibers[j].state == AT_WARP && fibers[j].value != 0) r |= 1ull << (j - w0);
          break;
        case OP_SHFL_UP: {
          const int src = lane - f.arg;
          r = (src >= 0) ? fibers[w0 + src].value : f.value;
          break;
        }
        case OP_SHFL_DOWN: {
          const int src = lane + f.arg;
          r = (src < w1 - w0) ? fibers[w0 + src].value : f.value;
          break;
        }
        case OP_SHFL_IDX: {
          const int src = ((f.arg % warp_size) + warp_size) % warp_size;
          r = (w0 + src < w1) ? fibers[w0 + src].value : f.value;
          break;
        }
        case OP_SHFL_XOR: {
          // A lane mask outside the warp is a kernel bug here, not a value to wrap.
          if (f.arg < 0 || f.arg >= warp_size) fail("shuffle xor with a lane mask outside the warp");
          const int src = lane ^ f.arg;
          r = (w0 + src < w1) ? fibers[w0 + src].value : f.value;
          break;
        }
        default:
          break;
      }
      f.result = r;
    }
    for (int i = w0; i < w1; ++i)
      if (fibers[i].state == AT_WARP) fibers[i].state = RUNNABLE;
    progress = true;
  }
  return progress;
}

inline void run_block(const std::function<void()>& fn) {
  const int n = (int)(block_dim.x * block_dim.y * block_dim.z);
  fibers.assign(n, Fiber{});
  if (stacks_size < (size_t)n * kStack) {
    stacks.reset(new char[(size_t)n * kStack]);
    stacks_size = (size_t)n * kStack;
  }
  for (int i = 0; i < n; ++i) {
    Fiber& f = fibers[i];
    f.linear = i;
    f.tid.x = i % block_dim.x;
    f.tid.y = (i / block_dim.x) % block_dim.y;
    f.tid.z = i / (block_dim.x * block_dim.y);
    f.state = RUNNABLE;
    init_fiber(f, stacks.get() + (size_t)i * kStack, kStack);
  }
  std::vector<int> order(n);
  for (;;) {
    int k = 0;
    for (int i = 0; i < n; ++i)
      if (fibers[i].state == RUNNABLE) order[k++] = i;
    for (int i = k - 1; i > 0; --i) {
      const int j = (int)(next_random() % (uint64_t)(i + 1));
      const int t = order[i]; order[i] = order[j]; order[j] = t;
    }
    for (int i = 0; i < k; ++i) {
      current = &fibers[order[i]];
      resume(*current);
    }
    current = nullptr;
    if (complete_warps()) continue;
    int done = 0, at_barrier = 0, at_warp = 0, runnable = 0;
    for (const Fiber& f : fibers) {
      done += f.state == DONE;
      at_barrier += f.state == AT_BARRIER;
      at_warp += f.state == AT_WARP;
      runnable += f.state == RUNNABLE;
    }
    if (done == n) return;
    if (runnable > 0) continue;  // threads busy-waiting on other blocks
    if (at_warp > 0) fail("deadlock: a warp operation that not every lane of the warp reaches");
    if (at_barrier + done == n) {
      for (Fiber& f : fibers)
        if (f.state == AT_BARRIER) f.state = RUNNABLE;
      continue;
    }
    fail("deadlock: no thread can run");
  }
}

inline void run_grid(const unsigned* grid, const unsigned* block, int warp, const std::function<void()>& fn) {
  if (warp != 32 && warp != 64) fail("emulated warps have 32 or 64 lanes");
  warp_size = warp;
  grid_dim = GaEmuDim3{grid[0], grid[1], grid[2]};
  block_dim = GaEmuDim3{block[0], block[1], block[2]};
  body = &fn;
  const unsigned long long total = (unsigned long long)grid[0] * grid[1] * grid[2];
  std::atomic<unsigned long long> next{0};
  auto worker = [&](unsigned seed) {
    rng ^= 0x2545F4914F6CDD1Dull * (seed + 1);
    for (;;) {
      const unsigned long long b = next.fetch_add(1);
      if (b >= total) return;
      block_idx = GaEmuDim3{(unsigned)(b % grid[0]), (unsigned)((b / grid[0]) % grid[1]),
                            (unsigned)(b / ((unsigned long long)grid[0] * grid[1]))};
      spins = 0;
      run_block(fn);
    }
  };
  const unsigned n = total < kResident ? (unsigned)total : kResident;
  std::vector<std::thread> threads;
  for (unsigned i = 0; i < n; ++i) threads.emplace_back(worker, i);
  for (std::thread& t : threads) t.join();
}

// A busy-wait on another block: the other threads of this block run meanwhile (as they would
// on a GPU), and so do the other resident blocks.
inline void spin_wait() {
  if (++spins > (1ll << 22)) fail("spin wait never ends");
  std::this_thread::yield();
  yield_to_scheduler();
}

template <class T>
inline uint64_t bits_of(T v) {
  static_assert(sizeof(T) <= 8, "warp operations move at most 8 bytes");
  uint64_t b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(uint64_t b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}
}  // namespace ga_emu

#define threadIdx (ga_emu::current->tid)
#define blockIdx (ga_emu::block_idx)
#define blockDim (ga_emu::block_dim)
#define gridDim (ga_emu::grid_dim)
// Busy-waits on other blocks yield the OS thread (and fail after 2^24 rounds).
#define GA_SPIN_WAIT() ga_emu::spin_wait()

inline void __syncthreads() { ga_emu::barrier(); }
inline void __syncwarp(unsigned int = 0xffffffffu) { ga_emu::warp_op(ga_emu::OP_SYNCWARP, 0, 0); }
inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
inline void __threadfence_block() { std::atomic_thread_fence(std::memory_order_seq_cst); }
// 64 bits (CUDA's is 32): the emulator also runs 64-lane warps, whose ballot GA_BALLOT widens.
inline unsigned long long __ballot_sync(unsigned int, int p) {
  return ga_emu::warp_op(ga_emu::OP_BALLOT, p != 0, 0);
}
template <class T>
inline T __shfl_up_sync(unsigned int, T v, unsigned int d, int = 32) {
  return ga_emu::from_bits<T>(ga_emu::warp_op(ga_emu::OP_SHFL_UP, ga_emu::bits_of(v), (int)d));
}
template <class T>
inline T __shfl_down_sync(unsigned int, T v, unsigned int d, int = 32) {
  return ga_emu::from_bits<T>(ga_emu::warp_op(ga_emu::OP_SHFL_DOWN, ga_emu::bits_of(v), (int)d));
}
template <class T>
inline T __shfl_sync(unsigned int, T v, int l, int = 32) {
  return ga_emu::from_bits<T>(ga_emu::warp_op(ga_emu::OP_SHFL_IDX, ga_emu::bits_of(v), l));
}
template <class T>
inline T __shfl_xor_sync(unsigned int, T v, int m, int = 32) {
  return ga_emu::from_bits<T>(ga_emu::warp_op(ga_emu::OP_SHFL_XOR, ga_emu::bits_of(v), m));
}

inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }

// Read-modify-write of any 4- or 8-byte type through a compare-and-swap loop on its bits.
template <class T, class F>
inline T ga_emu_rmw(T* p, F f) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomics on 4- or 8-byte values");
  using W = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  W* w = reinterpret_cast<W*>(p);
  W old = __atomic_load_n(w, __ATOMIC_SEQ_CST);
  for (;;) {
    T a;
    std::memcpy(&a, &old, sizeof(T));
    const T b = f(a);
    W nw;
    std::memcpy(&nw, &b, sizeof(T));
    if (__atomic_compare_exchange_n(w, &old, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return a;
  }
}
template <class T>
inline T atomicAdd(T* p, T v) { return ga_emu_rmw(p, [&](T a) { return (T)(a + v); }); }
template <class T>
inline T atomicMax(T* p, T v) { return ga_emu_rmw(p, [&](T a) { return v > a ? v : a; }); }
template <class T>
inline T atomicMin(T* p, T v) { return ga_emu_rmw(p, [&](T a) { return v < a ? v : a; }); }
template <class T>
inline T atomicExch(T* p, T v) { return ga_emu_rmw(p, [&](T) { return v; }); }
template <class T>
inline T atomicCAS(T* p, T cmp, T v) { return ga_emu_rmw(p, [&](T a) { return a == cmp ? v : a; }); }

inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
inline long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
inline void __nanosleep(unsigned int) {}
