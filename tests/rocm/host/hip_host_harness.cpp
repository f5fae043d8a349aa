// The element-wise op functors of rocm_backend/hip, compiled for the host by
// tests/rocm/host/test_hip_math_host.py and driven through ctypes. Each entry point applies
// one functor to n elements; names are cwh_<kind>_<op>_<dtype>.
#include "hip_host_prelude.h"
#include "abi.h"
#include "common.h"
#include "complex.h"
#include "complex_inv.h"
#include "math_ops.h"
#include "elementwise.hip"
#include "binary.hip"

typedef cw_complex<float> c64;
typedef cw_complex<double> c128;

template <class Op, class T> static void cwh_unary(const T* x, void* out, long long n) {
    typedef __typeof__(Op()(x[0])) O;
    for (long long i = 0; i < n; ++i) ((O*)out)[i] = Op()(x[i]);
}
template <class Op, class T> static void cwh_binary(const T* x, const T* y, void* out, long long n) {
    typedef __typeof__(Op()(x[0], y[0])) O;
    for (long long i = 0; i < n; ++i) ((O*)out)[i] = Op()(x[i], y[i]);
}

#define CWH_UNARY(op, dt, T) \
    extern "C" void cwh_unary_##op##_##dt(const T* x, void* out, long long n) { cwh_unary<op_##op, T>(x, out, n); }
#define CWH_UNARY_REAL(op) CWH_UNARY(op, float32, float) CWH_UNARY(op, float64, double)
#define CWH_UNARY_COMPLEX(op) CWH_UNARY(op, complex64, c64) CWH_UNARY(op, complex128, c128)
#define CWH_UNARY_ALL(op) CWH_UNARY_REAL(op) CWH_UNARY_COMPLEX(op)

CWH_UNARY_ALL(exp) CWH_UNARY_ALL(expm1) CWH_UNARY_ALL(log) CWH_UNARY_ALL(log1p)
CWH_UNARY_ALL(sqrt) CWH_UNARY_ALL(sin) CWH_UNARY_ALL(cos) CWH_UNARY_ALL(tan)
CWH_UNARY_ALL(sinh) CWH_UNARY_ALL(cosh) CWH_UNARY_ALL(tanh) CWH_UNARY_ALL(asin)
CWH_UNARY_ALL(acos) CWH_UNARY_ALL(atan) CWH_UNARY_ALL(asinh) CWH_UNARY_ALL(acosh)
CWH_UNARY_ALL(atanh) CWH_UNARY_ALL(log2) CWH_UNARY_ALL(log10) CWH_UNARY_ALL(reciprocal)
CWH_UNARY_ALL(abs) CWH_UNARY_ALL(sign) CWH_UNARY_ALL(square)

#define CWH_BINARY(op, dt, T)                                                                  \
    extern "C" void cwh_binary_##op##_##dt(const T* x, const T* y, void* out, long long n) { \
        cwh_binary<op_##op, T>(x, y, out, n);                                                \
    }
#define CWH_BINARY_REAL(op) CWH_BINARY(op, float32, float) CWH_BINARY(op, float64, double)
#define CWH_BINARY_ALL(op) CWH_BINARY_REAL(op) CWH_BINARY(op, complex64, c64) CWH_BINARY(op, complex128, c128)

CWH_BINARY_ALL(divide) CWH_BINARY_ALL(multiply) CWH_BINARY_ALL(pow)
CWH_BINARY_REAL(hypot) CWH_BINARY_REAL(atan2) CWH_BINARY_REAL(floor_divide) CWH_BINARY_REAL(remainder)

// clip with scalar bounds, as cw_clip sets up its functor from the argument slots
#define CWH_CLIP(dt, T)                                                                         \
    extern "C" void cwh_clip_##dt(const T* x, T* out, long long n, T lo, T hi, int has_lo, int has_hi) { \
        cw_clip_fn<T> f;                                                                        \
        f.lo = lo; f.hi = hi; f.has_lo = has_lo != 0; f.has_hi = has_hi != 0;                  \
        for (long long i = 0; i < n; ++i) out[i] = f(x[i]);                                     \
    }
CWH_CLIP(float32, float) CWH_CLIP(float64, double) CWH_CLIP(int32, int) CWH_CLIP(int64, long long)
