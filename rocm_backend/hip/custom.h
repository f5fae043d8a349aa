// What the bodies of candlewick's custom kernels (ElementwiseKernel, ReductionKernel:
// rocm_backend/codegen/custom_source.py) may use beyond the device's own math library.
//
// Values of float16/bfloat16 parameters are floats; a raw parameter of those dtypes (or
// bool) points to the storage type (cw_f16, cw_bf16, cw_bool): cw_get / cw_set read and
// write its elements as the compute type. Complex values are cw_complex<float> (cw_c64)
// and cw_complex<double> (cw_c128) with .re and .im, the arithmetic operators of
// complex.h, and the functions below, which apply the element-wise kernels' own functors.

template <class S> __device__ inline typename cw_traits<S>::compute cw_get(const S* p, cw_i64 j) {
    return cw_traits<S>::load(p[j]);
}
template <class S, class V> __device__ inline void cw_set(S* p, cw_i64 j, V v) {
    p[j] = cw_traits<S>::store(cw_cast<typename cw_traits<S>::compute>(v));
}

template <class R> __device__ inline R real(cw_complex<R> z) { return z.re; }
template <class R> __device__ inline R imag(cw_complex<R> z) { return z.im; }
template <class R> __device__ inline cw_complex<R> conj(cw_complex<R> z) { return cw_cplx(z.re, -z.im); }
template <class R> __device__ inline R abs(cw_complex<R> z) { return op_abs()(z); }
#define CW_CUSTOM_COMPLEX(name) \
    template <class R> __device__ inline cw_complex<R> name(cw_complex<R> z) { return op_##name()(z); }
CW_CUSTOM_COMPLEX(exp)
CW_CUSTOM_COMPLEX(expm1)
CW_CUSTOM_COMPLEX(log)
CW_CUSTOM_COMPLEX(log1p)
CW_CUSTOM_COMPLEX(log2)
CW_CUSTOM_COMPLEX(log10)
CW_CUSTOM_COMPLEX(sqrt)
CW_CUSTOM_COMPLEX(sin)
CW_CUSTOM_COMPLEX(cos)
CW_CUSTOM_COMPLEX(tan)
CW_CUSTOM_COMPLEX(sinh)
CW_CUSTOM_COMPLEX(cosh)
CW_CUSTOM_COMPLEX(tanh)
CW_CUSTOM_COMPLEX(asin)
CW_CUSTOM_COMPLEX(acos)
CW_CUSTOM_COMPLEX(atan)
CW_CUSTOM_COMPLEX(asinh)
CW_CUSTOM_COMPLEX(acosh)
CW_CUSTOM_COMPLEX(atanh)
#undef CW_CUSTOM_COMPLEX

// a scalar parameter's 16-byte slot k of cw_kernel_args, as the compute type of storage S
template <class S> __device__ inline typename cw_traits<S>::compute cw_kernel_scalar(const cw_kernel_args& a, int k) {
    union { cw_i64 w[2]; S s; } u;
    u.w[0] = a.scalar[2 * k];
    u.w[1] = a.scalar[2 * k + 1];
    return cw_traits<S>::load(u.s);
}
