// Host stand-ins for the HIP names that rocm_backend/hip/common.h and elementwise.hip
// use, so that g++ can compile the element-wise math (complex.h, complex_inv.h,
// math_ops.h, the clip functor) as plain C++ for tests/rocm/test_hip_math_host.py.
// The kernels are never launched here: the launch-geometry variables and atomics only
// have to exist (non-dependent names in templates must resolve at definition), so they
// are single-threaded stubs. The device math library calls (expf, sinh, hypot, fma...)
// resolve to glibc's functions of the same names.
#include <math.h>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static

struct cw_host_dim3 { unsigned x, y, z; };
static const cw_host_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1},
                          gridDim = {1, 1, 1};

template <class T> inline T atomicAdd(T* p, T v) { T old = *p; *p = old + v; return old; }
inline unsigned atomicCAS(unsigned* p, unsigned expected, unsigned v) {
    unsigned old = *p;
    if (old == expected) *p = v;
    return old;
}
inline unsigned atomicOr(unsigned* p, unsigned v) { unsigned old = *p; *p = old | v; return old; }
