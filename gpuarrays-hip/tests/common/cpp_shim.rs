//! A shim that lets the host `g++` compile generated kernel sources: it defines the
//! CUDA/HIP built-ins the kernels use (`__global__`, `threadIdx`, the shuffles with exactly
//! the overloads CUDA and HIP provide, the bit-cast intrinsics). Kernels compile against it;
//! device-only functions (`__syncthreads`, shuffles) are declared, not defined, so only code
//! that does not call them can run on the host.

pub const SHIM: &str = r#"
#include <cmath>
#include <cstring>
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
#define __launch_bounds__(...)
struct GaShimDim3 { unsigned int x, y, z; };
extern GaShimDim3 threadIdx, blockIdx, blockDim, gridDim;
inline void __syncthreads() {}
inline void __threadfence() {}
unsigned int __ballot_sync(unsigned int, int);
unsigned long long __ballot(int);
int __ffsll(long long);
int __ffs(int);
unsigned long long atomicAdd(unsigned long long*, unsigned long long);
unsigned int atomicAdd(unsigned int*, unsigned int);
float atomicAdd(float*, float);
double atomicAdd(double*, double);
unsigned int atomicCAS(unsigned int*, unsigned int, unsigned int);
inline void __syncwarp(unsigned int = 0xffffffffu) {}
inline void __builtin_amdgcn_wave_barrier() {}
int __popcll(unsigned long long);
int __popc(unsigned int);
int __clzll(long long);
#define GA_SHIM_SHFL(T) \
  T __shfl_down_sync(unsigned int, T, unsigned int, int = 32); \
  T __shfl_up_sync(unsigned int, T, unsigned int, int = 32); \
  T __shfl_sync(unsigned int, T, int, int = 32); \
  T __shfl_xor_sync(unsigned int, T, int, int = 32); \
  T __shfl_xor(T, int, int = 64); \
  T __shfl(T, int, int = 64); \
  T __shfl_down(T, unsigned int, int = 64); \
  T __shfl_up(T, unsigned int, int = 64);
GA_SHIM_SHFL(int)
GA_SHIM_SHFL(unsigned int)
GA_SHIM_SHFL(long)
GA_SHIM_SHFL(unsigned long)
GA_SHIM_SHFL(long long)
GA_SHIM_SHFL(unsigned long long)
GA_SHIM_SHFL(float)
GA_SHIM_SHFL(double)
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned int __float_as_uint(float f) { unsigned int i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline double __longlong_as_double(long long i) { double f; std::memcpy(&f, &i, 8); return f; }
inline long long __double_as_longlong(double f) { long long i; std::memcpy(&i, &f, 8); return i; }
"#;
