// Host stand-ins for the HIP names that rocm_backend/hip/common.h and elementwise.hip
// use, so that g++ can compile the element-wise math (complex.h, complex_inv.h,
// math_ops.h, the clip functor) as plain C++ for tests/rocm/host/test_hip_math_host.py.
// The kernels are never launched here: the launch-geometry variables and atomics only
// have to exist (non-dependent names in templates must resolve at definition), so they
// are single-threaded stubs. The device math library calls (expf, sinh, hypot, fma...)
// resolve to glibc's functions of the same names.
#include "hip_host_common.h"

struct cw_host_dim3 { unsigned x, y, z; };
static const cw_host_dim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1},
                          gridDim = {1, 1, 1};
