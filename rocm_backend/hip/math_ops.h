// Operation functors: one struct per op of candlewick.opdefs, named op_<op value>.
// Each is called on compute types (bool, integers, float, double, cw_complex<R>);
// float16/bfloat16 arrive as float. Integer arithmetic wraps (computed unsigned).

template <class T> __device__ inline T cw_wrap_add(T a, T b) { typedef typename cw_unsigned<T>::type U; return (T)(U)((U)a + (U)b); }
template <class T> __device__ inline T cw_wrap_sub(T a, T b) { typedef typename cw_unsigned<T>::type U; return (T)(U)((U)a - (U)b); }
template <class T> __device__ inline T cw_wrap_mul(T a, T b) { typedef typename cw_unsigned<T>::type U; return (T)(U)((U)a * (U)b); }
__device__ inline float cw_wrap_add(float a, float b) { return a + b; }
__device__ inline double cw_wrap_add(double a, double b) { return a + b; }
__device__ inline float cw_wrap_sub(float a, float b) { return a - b; }
__device__ inline double cw_wrap_sub(double a, double b) { return a - b; }
__device__ inline float cw_wrap_mul(float a, float b) { return a * b; }
__device__ inline double cw_wrap_mul(double a, double b) { return a * b; }
template <class R> __device__ inline cw_complex<R> cw_wrap_add(cw_complex<R> a, cw_complex<R> b) { return a + b; }
template <class R> __device__ inline cw_complex<R> cw_wrap_sub(cw_complex<R> a, cw_complex<R> b) { return a - b; }
template <class R> __device__ inline cw_complex<R> cw_wrap_mul(cw_complex<R> a, cw_complex<R> b) { return a * b; }
__device__ inline bool cw_wrap_add(bool a, bool b) { return a || b; }
__device__ inline bool cw_wrap_mul(bool a, bool b) { return a && b; }

// ---------------------------------------------------------------- unary
// complex64 functions are evaluated in complex128 and rounded once: the float
// formulas lose digits to cancellation and scaling in corners (tan/tanh near the
// zeros of the denominator, sqrt of subnormals, inverse functions near the branch
// points) that double precision covers, and it is what NumPy's oracle does too
__device__ inline cw_complex<double> cw_widen(cw_complex<float> z) { return cw_cplx((double)z.re, (double)z.im); }
__device__ inline cw_complex<float> cw_narrow(cw_complex<double> z) { return cw_cplx((float)z.re, (float)z.im); }

// transcendental ops: float, double and complex overloads
#define CW_UNARY_FDC(name, ffun, dfun, cfun)                                                   \
    struct op_##name {                                                                         \
        __device__ float operator()(float x) const { return ffun(x); }                        \
        __device__ double operator()(double x) const { return dfun(x); }                      \
        __device__ cw_complex<double> operator()(cw_complex<double> z) const { return cfun(z); } \
        __device__ cw_complex<float> operator()(cw_complex<float> z) const { return cw_narrow(cfun(cw_widen(z))); } \
    };
CW_UNARY_FDC(exp, expf, exp, cw_cexp)
CW_UNARY_FDC(expm1, expm1f, expm1, cw_cexpm1)
CW_UNARY_FDC(log, logf, log, cw_clog)
CW_UNARY_FDC(log1p, log1pf, log1p, cw_clog1p)
CW_UNARY_FDC(sqrt, sqrtf, sqrt, cw_csqrt)
CW_UNARY_FDC(sin, sinf, sin, cw_csin)
CW_UNARY_FDC(cos, cosf, cos, cw_ccos)
CW_UNARY_FDC(tan, tanf, tan, cw_ctan)
CW_UNARY_FDC(sinh, sinhf, sinh, cw_csinh)
CW_UNARY_FDC(cosh, coshf, cosh, cw_ccosh)
CW_UNARY_FDC(tanh, tanhf, tanh, cw_ctanh)
CW_UNARY_FDC(asin, asinf, asin, cw_casin)
CW_UNARY_FDC(acos, acosf, acos, cw_cacos)
CW_UNARY_FDC(atan, atanf, atan, cw_catan)
CW_UNARY_FDC(asinh, asinhf, asinh, cw_casinh)
CW_UNARY_FDC(acosh, acoshf, acosh, cw_cacosh)
CW_UNARY_FDC(atanh, atanhf, atanh, cw_catanh)

// the complex64 overload of an op whose complex128 form is cfun (widened, as above)
#define CW_C64_VIA_C128(cfun) \
    __device__ cw_complex<float> operator()(cw_complex<float> z) const { return cw_narrow(cfun(cw_widen(z))); }
__device__ inline cw_complex<double> cw_clog2(cw_complex<double> z) {
    cw_complex<double> l = cw_clog(z);
    return cw_cplx(l.re * 1.44269504088896340736, l.im * 1.44269504088896340736);
}
__device__ inline cw_complex<double> cw_clog10(cw_complex<double> z) {
    cw_complex<double> l = cw_clog(z);
    return cw_cplx(l.re * 0.43429448190325182765, l.im * 0.43429448190325182765);
}
__device__ inline cw_complex<double> cw_crecip(cw_complex<double> z) { return cw_cplx(1.0, 0.0) / z; }
struct op_log2 {
    __device__ float operator()(float x) const { return log2f(x); }
    __device__ double operator()(double x) const { return log2(x); }
    __device__ cw_complex<double> operator()(cw_complex<double> z) const { return cw_clog2(z); }
    CW_C64_VIA_C128(cw_clog2)
};
struct op_log10 {
    __device__ float operator()(float x) const { return log10f(x); }
    __device__ double operator()(double x) const { return log10(x); }
    __device__ cw_complex<double> operator()(cw_complex<double> z) const { return cw_clog10(z); }
    CW_C64_VIA_C128(cw_clog10)
};
struct op_reciprocal {
    template <class T> __device__ T operator()(T x) const { return (T)1 / x; }
    __device__ cw_complex<double> operator()(cw_complex<double> z) const { return cw_crecip(z); }
    CW_C64_VIA_C128(cw_crecip)
};
struct op_abs {
    template <class T> __device__ T operator()(T x) const {
        return (cw_is_signed<T>::value && x < (T)0) ? cw_wrap_sub((T)0, x) : x;
    }
    __device__ float operator()(float x) const { return fabsf(x); }
    __device__ double operator()(double x) const { return fabs(x); }
    template <class R> __device__ R operator()(cw_complex<R> z) const { return cw_cabs(z); }
};
struct op_negative {
    template <class T> __device__ T operator()(T x) const { return cw_wrap_sub((T)0, x); }
    __device__ float operator()(float x) const { return -x; }
    __device__ double operator()(double x) const { return -x; }
    template <class R> __device__ cw_complex<R> operator()(cw_complex<R> z) const { return -z; }
};
struct op_square {
    template <class T> __device__ T operator()(T x) const { return cw_wrap_mul(x, x); }
    __device__ cw_complex<float> operator()(cw_complex<float> z) const { cw_complex<double> w = cw_widen(z); return cw_narrow(w * w); }
};
struct op_conj {
    template <class T> __device__ T operator()(T x) const { return x; }
    template <class R> __device__ cw_complex<R> operator()(cw_complex<R> z) const { return cw_cplx(z.re, -z.im); }
};
struct op_real {
    template <class T> __device__ T operator()(T x) const { return x; }
    template <class R> __device__ R operator()(cw_complex<R> z) const { return z.re; }
};
struct op_imag {
    template <class T> __device__ T operator()(T x) const { return (T)0; }
    template <class R> __device__ R operator()(cw_complex<R> z) const { return z.im; }
};
// rounding: identity on integers
#define CW_UNARY_ROUNDING(name, ffun, dfun)                                          \
    struct op_##name {                                                               \
        template <class T> __device__ T operator()(T x) const { return x; }          \
        __device__ float operator()(float x) const { return ffun(x); }               \
        __device__ double operator()(double x) const { return dfun(x); }             \
        template <class R> __device__ cw_complex<R> operator()(cw_complex<R> z) const { \
            return cw_cplx(cw_r_rint(z.re), cw_r_rint(z.im));                        \
        }                                                                            \
    };
CW_UNARY_ROUNDING(ceil, ceilf, ceil)
CW_UNARY_ROUNDING(floor, floorf, floor)
CW_UNARY_ROUNDING(trunc, truncf, trunc)
CW_UNARY_ROUNDING(round, rintf, rint)  // half to even

// z / |z|, scaled by max(|Re z|, |Im z|) first so that neither |z| nor the quotient
// overflows or underflows; z itself (signed zeros kept) for z = 0
__device__ inline cw_complex<double> cw_csign(cw_complex<double> z) {
    if (cw_r_isnan(z.re) || cw_r_isnan(z.im)) return cw_cplx(cw_nan_d(), cw_nan_d());
    double m = cw_r_fabs(z.re) > cw_r_fabs(z.im) ? cw_r_fabs(z.re) : cw_r_fabs(z.im);
    if (m == 0.0) return cw_cplx(0.0, 0.0);  // the standard: 0 + 0j for any signed zeros
    if (cw_r_isinf(m)) {  // the direction of an infinite value
        double re = cw_r_isinf(z.re) ? cw_r_copysign(1.0, z.re) : cw_r_copysign(0.0, z.re);
        double im = cw_r_isinf(z.im) ? cw_r_copysign(1.0, z.im) : cw_r_copysign(0.0, z.im);
        double n = cw_r_hypot(re, im);
        return cw_cplx(re / n, im / n);
    }
    double xs = z.re / m, ys = z.im / m, n = cw_r_hypot(xs, ys);
    return cw_cplx(xs / n, ys / n);
}
struct op_sign {
    template <class T> __device__ T operator()(T x) const {
        return x > (T)0 ? (T)1 : ((cw_is_signed<T>::value && x < (T)0) ? (T)-1 : (T)0);
    }
    // +0 for either zero, as the reference backend (NumPy); NaN stays NaN
    __device__ float operator()(float x) const { return x > 0.f ? 1.f : (x < 0.f ? -1.f : (x == x ? 0.f : x)); }
    __device__ double operator()(double x) const { return x > 0. ? 1. : (x < 0. ? -1. : (x == x ? 0. : x)); }
    __device__ cw_complex<double> operator()(cw_complex<double> z) const { return cw_csign(z); }
    CW_C64_VIA_C128(cw_csign)
};
struct op_signbit {
    __device__ bool operator()(float x) const { return (cw_f32_bits(x) >> 31) != 0u; }
    __device__ bool operator()(double x) const { return (cw_f64_bits(x) >> 63) != 0ull; }
};
struct op_isnan {
    template <class T> __device__ bool operator()(T x) const { return false; }
    __device__ bool operator()(float x) const { return !(x == x); }
    __device__ bool operator()(double x) const { return !(x == x); }
    template <class R> __device__ bool operator()(cw_complex<R> z) const { return cw_r_isnan(z.re) || cw_r_isnan(z.im); }
};
struct op_isinf {
    template <class T> __device__ bool operator()(T x) const { return false; }
    __device__ bool operator()(float x) const { return cw_r_isinf(x); }
    __device__ bool operator()(double x) const { return cw_r_isinf(x); }
    template <class R> __device__ bool operator()(cw_complex<R> z) const { return cw_r_isinf(z.re) || cw_r_isinf(z.im); }
};
struct op_isfinite {
    template <class T> __device__ bool operator()(T x) const { return true; }
    __device__ bool operator()(float x) const { return x == x && !cw_r_isinf(x); }
    __device__ bool operator()(double x) const { return x == x && !cw_r_isinf(x); }
    template <class R> __device__ bool operator()(cw_complex<R> z) const { return (*this)(z.re) && (*this)(z.im); }
};
struct op_logical_not {
    __device__ bool operator()(bool x) const { return !x; }
};
struct op_bitwise_invert {
    template <class T> __device__ T operator()(T x) const { return (T)~x; }
    __device__ bool operator()(bool x) const { return !x; }
};
struct op_erf {
    __device__ float operator()(float x) const { return erff(x); }
    __device__ double operator()(double x) const { return erf(x); }
};
struct op_relu {
    template <class T> __device__ T operator()(T x) const { return x > (T)0 ? x : (T)0; }
    __device__ float operator()(float x) const { return x > 0.f ? x : (x == x ? 0.f : x); }
    __device__ double operator()(double x) const { return x > 0. ? x : (x == x ? 0. : x); }
};
struct op_gelu {
    __device__ float operator()(float x) const { return 0.5f * x * (1.f + erff(x * 0.70710678118654752f)); }
    __device__ double operator()(double x) const { return 0.5 * x * (1. + erf(x * 0.70710678118654752440)); }
};
// for x < 0 the e^x form keeps tiny results (e^-x would overflow to inf); float (and
// the half types) go through double, so that results in float's subnormal range are
// not lost: the device's expf flushes subnormal results to zero
struct op_sigmoid {
    __device__ double operator()(double x) const {
        if (x < 0.) { double e = exp(x); return e / (1. + e); }
        return 1. / (1. + exp(-x));
    }
    __device__ float operator()(float x) const { return (float)(*this)((double)x); }
};
struct op_silu {
    __device__ double operator()(double x) const { return x * op_sigmoid()(x); }
    __device__ float operator()(float x) const { return (float)(*this)((double)x); }
};

// ---------------------------------------------------------------- binary
struct op_add { template <class T> __device__ T operator()(T a, T b) const { return cw_wrap_add(a, b); } };
struct op_subtract { template <class T> __device__ T operator()(T a, T b) const { return cw_wrap_sub(a, b); } };
// complex64 products and quotients in complex128, rounded once (as the reference
// backend): a*c - b*d and Smith's scaling overflow or underflow in single precision
// where the result does not
struct op_multiply {
    template <class T> __device__ T operator()(T a, T b) const { return cw_wrap_mul(a, b); }
    __device__ cw_complex<float> operator()(cw_complex<float> a, cw_complex<float> b) const {
        return cw_narrow(cw_widen(a) * cw_widen(b));
    }
};
struct op_divide {
    template <class T> __device__ T operator()(T a, T b) const { return a / b; }
    __device__ cw_complex<float> operator()(cw_complex<float> a, cw_complex<float> b) const {
        return cw_narrow(cw_widen(a) / cw_widen(b));
    }
};

// NumPy's npy_divmod for floating types: returns floor quotient, stores modulus
template <class R> __device__ inline R cw_fdivmod(R a, R b, R* modulus) {
    R mod = (sizeof(R) == 4) ? (R)fmodf((float)a, (float)b) : (R)fmod((double)a, (double)b);
    if (b == (R)0) { *modulus = mod; return a / b; }
    R div = (a - mod) / b;
    if (mod != (R)0) {
        if ((b < (R)0) != (mod < (R)0)) { mod += b; div -= (R)1; }
    } else {
        mod = cw_r_copysign((R)0, b);
    }
    R floordiv;
    if (div != (R)0) {
        floordiv = (sizeof(R) == 4) ? (R)floorf((float)div) : (R)floor((double)div);
        if (div - floordiv > (R)0.5) floordiv += (R)1;
    } else {
        floordiv = cw_r_copysign((R)0, a / b);
    }
    *modulus = mod;
    return floordiv;
}
struct op_floor_divide {
    template <class T> __device__ T operator()(T a, T b) const {
        if (b == (T)0) return (T)0;
        if (cw_is_signed<T>::value) {
            if (b == (T)-1) return cw_wrap_sub((T)0, a);
            T q = a / b;
            if ((a % b != (T)0) && ((a < (T)0) != (b < (T)0))) q = q - (T)1;
            return q;
        }
        return a / b;
    }
    // an infinite operand: the standard's primary result floor(a / b) (inf // 2 = inf,
    // 1 // -inf = -0), not Python's divmod (NaN, -1)
    __device__ float operator()(float a, float b) const {
        if (cw_r_isinf(a) || cw_r_isinf(b)) return floorf(a / b);
        float m; return cw_fdivmod(a, b, &m);
    }
    __device__ double operator()(double a, double b) const {
        if (cw_r_isinf(a) || cw_r_isinf(b)) return floor(a / b);
        double m; return cw_fdivmod(a, b, &m);
    }
};
struct op_remainder {
    template <class T> __device__ T operator()(T a, T b) const {
        if (b == (T)0) return (T)0;
        if (cw_is_signed<T>::value) {
            if (b == (T)-1) return (T)0;
            T r = a % b;
            if (r != (T)0 && ((r < (T)0) != (b < (T)0))) r = r + b;
            return r;
        }
        return a % b;
    }
    __device__ float operator()(float a, float b) const { float m; cw_fdivmod(a, b, &m); return m; }
    __device__ double operator()(double a, double b) const { double m; cw_fdivmod(a, b, &m); return m; }
};
struct op_pow {
    template <class T> __device__ T operator()(T a, T b) const {
        if (cw_is_signed<T>::value && b < (T)0) {
            if (a == (T)1) return (T)1;
            if (a == (T)-1) return ((b & (T)1) != (T)0) ? (T)-1 : (T)1;
            return (T)0;
        }
        T r = (T)1, p = a;
        unsigned long long e = (unsigned long long)b;
        while (e) { if (e & 1ull) r = cw_wrap_mul(r, p); p = cw_wrap_mul(p, p); e >>= 1; }
        return r;
    }
    __device__ float operator()(float a, float b) const { return powf(a, b); }
    __device__ double operator()(double a, double b) const { return pow(a, b); }
    __device__ cw_complex<double> operator()(cw_complex<double> a, cw_complex<double> b) const { return cw_cpow(a, b); }
    __device__ cw_complex<float> operator()(cw_complex<float> a, cw_complex<float> b) const {
        return cw_narrow(cw_cpow(cw_widen(a), cw_widen(b)));  // NumPy's oracle: complex128, rounded
    }
};
struct op_atan2 {
    __device__ float operator()(float a, float b) const { return atan2f(a, b); }
    __device__ double operator()(double a, double b) const { return atan2(a, b); }
};
struct op_hypot {  // ours, not the device library's (see cw_r_hypot)
    __device__ float operator()(float a, float b) const { return cw_r_hypot(a, b); }
    __device__ double operator()(double a, double b) const { return cw_r_hypot(a, b); }
};
struct op_copysign {
    __device__ float operator()(float a, float b) const { return copysignf(a, b); }
    __device__ double operator()(double a, double b) const { return copysign(a, b); }
};
struct op_nextafter {
    __device__ float operator()(float a, float b) const { return nextafterf(a, b); }
    __device__ double operator()(double a, double b) const { return nextafter(a, b); }
};
// nextafter in a 16-bit format: step the bits, so the result is the neighbour in that format
template <class S> struct op_nextafter_16 {
    __device__ float operator()(float a, float b) const {
        if (!(a == a) || !(b == b)) return a + b;
        if (a == b) return b;
        unsigned short ab = cw_traits<S>::store(a).bits;
        if (a == 0.f) {
            S s; s.bits = (unsigned short)((b < 0.f ? 0x8000u : 0u) | 1u);
            return cw_traits<S>::load(s);
        }
        bool up = (b > a) == (a > 0.f);
        S s; s.bits = (unsigned short)(up ? ab + 1u : ab - 1u);
        return cw_traits<S>::load(s);
    }
};
struct op_logaddexp {
    template <class R> __device__ R operator()(R x, R y) const {
        if (x == y) return x + (R)0.69314718055994530942;
        R t = x - y;
        if (t > (R)0) return x + cw_r_log1p(cw_r_exp(-t));
        if (t <= (R)0) return y + cw_r_log1p(cw_r_exp(t));
        return t;  // NaN
    }
};
struct op_maximum { template <class T> __device__ T operator()(T a, T b) const { return (a >= b || !(a == a)) ? a : b; } };
struct op_minimum { template <class T> __device__ T operator()(T a, T b) const { return (a <= b || !(a == a)) ? a : b; } };
struct op_bitwise_and { template <class T> __device__ T operator()(T a, T b) const { return (T)(a & b); } };
struct op_bitwise_or { template <class T> __device__ T operator()(T a, T b) const { return (T)(a | b); } };
struct op_bitwise_xor { template <class T> __device__ T operator()(T a, T b) const { return (T)(a ^ b); } };
struct op_bitwise_left_shift {
    template <class T> __device__ T operator()(T a, T b) const {
        if ((cw_is_signed<T>::value && b < (T)0) || (unsigned long long)b >= sizeof(T) * 8ull) return (T)0;
        typedef typename cw_unsigned<T>::type U;
        return (T)(U)((U)a << (int)b);
    }
};
struct op_bitwise_right_shift {
    template <class T> __device__ T operator()(T a, T b) const {
        if ((cw_is_signed<T>::value && b < (T)0) || (unsigned long long)b >= sizeof(T) * 8ull)
            return (cw_is_signed<T>::value && a < (T)0) ? (T)-1 : (T)0;
        return (T)(a >> (int)b);
    }
};
struct op_logical_and { __device__ bool operator()(bool a, bool b) const { return a && b; } };
struct op_logical_or { __device__ bool operator()(bool a, bool b) const { return a || b; } };
struct op_logical_xor { __device__ bool operator()(bool a, bool b) const { return a != b; } };

// ---------------------------------------------------------------- compare
struct op_equal { template <class T> __device__ bool operator()(T a, T b) const { return a == b; } };
struct op_not_equal { template <class T> __device__ bool operator()(T a, T b) const { return !(a == b); } };
struct op_less { template <class T> __device__ bool operator()(T a, T b) const { return a < b; } };
struct op_less_equal { template <class T> __device__ bool operator()(T a, T b) const { return a <= b; } };
struct op_greater { template <class T> __device__ bool operator()(T a, T b) const { return a > b; } };
struct op_greater_equal { template <class T> __device__ bool operator()(T a, T b) const { return a >= b; } };
