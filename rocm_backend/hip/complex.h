// Complex arithmetic and elementary functions (NumPy's conventions where they matter:
// Smith's division, integer powers by repeated multiplication).

template <class R> __device__ inline cw_complex<R> cw_cplx(R re, R im) { cw_complex<R> z; z.re = re; z.im = im; return z; }

// real functions by precision, so one template serves complex64 and complex128
__device__ inline float cw_r_exp(float x) { return expf(x); }
__device__ inline double cw_r_exp(double x) { return exp(x); }
__device__ inline float cw_r_expm1(float x) { return expm1f(x); }
__device__ inline double cw_r_expm1(double x) { return expm1(x); }
__device__ inline float cw_r_log(float x) { return logf(x); }
__device__ inline double cw_r_log(double x) { return log(x); }
__device__ inline float cw_r_log1p(float x) { return log1pf(x); }
__device__ inline double cw_r_log1p(double x) { return log1p(x); }
__device__ inline float cw_r_sqrt(float x) { return sqrtf(x); }
__device__ inline double cw_r_sqrt(double x) { return sqrt(x); }
__device__ inline float cw_r_sin(float x) { return sinf(x); }
__device__ inline double cw_r_sin(double x) { return sin(x); }
__device__ inline float cw_r_cos(float x) { return cosf(x); }
__device__ inline double cw_r_cos(double x) { return cos(x); }
__device__ inline float cw_r_sinh(float x) { return sinhf(x); }
__device__ inline double cw_r_sinh(double x) { return sinh(x); }
__device__ inline float cw_r_cosh(float x) { return coshf(x); }
__device__ inline double cw_r_cosh(double x) { return cosh(x); }
__device__ inline float cw_r_tanh(float x) { return tanhf(x); }
__device__ inline double cw_r_tanh(double x) { return tanh(x); }
__device__ inline float cw_r_atan2(float y, float x) { return atan2f(y, x); }
__device__ inline double cw_r_atan2(double y, double x) { return atan2(y, x); }
__device__ inline float cw_r_hypot(float x, float y) { return hypotf(x, y); }
__device__ inline double cw_r_hypot(double x, double y) { return hypot(x, y); }
__device__ inline float cw_r_fabs(float x) { return fabsf(x); }
__device__ inline double cw_r_fabs(double x) { return fabs(x); }
__device__ inline float cw_r_rint(float x) { return rintf(x); }
__device__ inline double cw_r_rint(double x) { return rint(x); }
__device__ inline float cw_r_copysign(float x, float y) { return copysignf(x, y); }
__device__ inline double cw_r_copysign(double x, double y) { return copysign(x, y); }

template <class R> __device__ inline bool cw_r_isnan(R x) { return !(x == x); }
template <class R> __device__ inline bool cw_r_isinf(R x) { return cw_r_fabs(x) == cw_inf<R>(); }

template <class R> __device__ inline cw_complex<R> operator+(cw_complex<R> a, cw_complex<R> b) { return cw_cplx(a.re + b.re, a.im + b.im); }
template <class R> __device__ inline cw_complex<R> operator-(cw_complex<R> a, cw_complex<R> b) { return cw_cplx(a.re - b.re, a.im - b.im); }
template <class R> __device__ inline cw_complex<R> operator-(cw_complex<R> a) { return cw_cplx(-a.re, -a.im); }
template <class R> __device__ inline cw_complex<R> operator*(cw_complex<R> a, cw_complex<R> b) {
    return cw_cplx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
template <class R> __device__ inline cw_complex<R> operator/(cw_complex<R> a, cw_complex<R> b) {
    // Smith's algorithm, as NumPy
    R abs_br = cw_r_fabs(b.re), abs_bi = cw_r_fabs(b.im);
    if (abs_br >= abs_bi) {
        if (abs_br == (R)0 && abs_bi == (R)0) return cw_cplx(a.re / abs_br, a.im / abs_bi);
        R rat = b.im / b.re, scl = (R)1 / (b.re + b.im * rat);
        return cw_cplx((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    R rat = b.re / b.im, scl = (R)1 / (b.im + b.re * rat);
    return cw_cplx((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <class R> __device__ inline bool operator==(cw_complex<R> a, cw_complex<R> b) { return a.re == b.re && a.im == b.im; }
template <class R> __device__ inline bool operator!=(cw_complex<R> a, cw_complex<R> b) { return !(a == b); }
template <class R> __device__ inline cw_complex<R>& operator+=(cw_complex<R>& a, cw_complex<R> b) { a = a + b; return a; }
template <class R> __device__ inline cw_complex<R>& operator*=(cw_complex<R>& a, cw_complex<R> b) { a = a * b; return a; }

template <class R> __device__ inline R cw_cabs(cw_complex<R> z) { return cw_r_hypot(z.re, z.im); }

template <class R> __device__ inline cw_complex<R> cw_cexp(cw_complex<R> z) {
    if (z.im == (R)0) return cw_cplx(cw_r_exp(z.re), z.im);
    if (cw_r_isinf(z.re) && z.re < (R)0 && !cw_r_isnan(z.im) && !cw_r_isinf(z.im)) return cw_cplx((R)0 * cw_r_cos(z.im), (R)0 * cw_r_sin(z.im));
    R e = cw_r_exp(z.re);
    return cw_cplx(e * cw_r_cos(z.im), e * cw_r_sin(z.im));
}
// log|z| without overflow or underflow of |z|, and accurate for |z| near 1
template <class R> __device__ inline R cw_log_abs(cw_complex<R> z) {
    R a = cw_r_fabs(z.re), b = cw_r_fabs(z.im);
    if (a < b) { R t = a; a = b; b = t; }
    if (cw_r_isinf(a)) return a;
    if (cw_r_isnan(a) || cw_r_isnan(b)) return cw_nan<R>();
    if (a == (R)0) return -cw_inf<R>();
    if (a > (R)0.5 && a < (R)2) return (R)0.5 * cw_r_log1p((a - 1) * (a + 1) + b * b);
    R r = b / a;
    return cw_r_log(a) + (R)0.5 * cw_r_log1p(r * r);
}
template <class R> __device__ inline cw_complex<R> cw_clog(cw_complex<R> z) {
    return cw_cplx(cw_log_abs(z), cw_r_atan2(z.im, z.re));
}
template <class R> __device__ inline cw_complex<R> cw_csqrt(cw_complex<R> z) {
    if (z.re == (R)0 && z.im == (R)0) return cw_cplx((R)0, z.im);
    if (cw_r_isinf(z.im)) return cw_cplx(cw_inf<R>(), z.im);
    if (cw_r_isnan(z.re)) return cw_cplx(z.re, cw_nan<R>());
    if (cw_r_isinf(z.re)) {
        if (z.re > (R)0) return cw_cplx(z.re, cw_r_isnan(z.im) ? z.im : cw_r_copysign((R)0, z.im));
        return cw_cplx(cw_r_isnan(z.im) ? z.im : (R)0, cw_r_copysign(cw_inf<R>(), z.im));
    }
    // scale to avoid overflow in |z| + |re|
    R t = cw_r_sqrt((cw_r_fabs(z.re) + cw_cabs(z)) * (R)0.5);
    if (z.re >= (R)0) return cw_cplx(t, z.im / (2 * t));
    return cw_cplx(cw_r_fabs(z.im) / (2 * t), cw_r_copysign(t, z.im));
}
template <class R> __device__ inline cw_complex<R> cw_csin(cw_complex<R> z) {
    return cw_cplx(cw_r_sin(z.re) * cw_r_cosh(z.im), cw_r_cos(z.re) * cw_r_sinh(z.im));
}
template <class R> __device__ inline cw_complex<R> cw_ccos(cw_complex<R> z) {
    return cw_cplx(cw_r_cos(z.re) * cw_r_cosh(z.im), -(cw_r_sin(z.re) * cw_r_sinh(z.im)));
}
template <class R> __device__ inline cw_complex<R> cw_csinh(cw_complex<R> z) {
    return cw_cplx(cw_r_sinh(z.re) * cw_r_cos(z.im), cw_r_cosh(z.re) * cw_r_sin(z.im));
}
template <class R> __device__ inline cw_complex<R> cw_ccosh(cw_complex<R> z) {
    return cw_cplx(cw_r_cosh(z.re) * cw_r_cos(z.im), cw_r_sinh(z.re) * cw_r_sin(z.im));
}
template <class R> __device__ inline cw_complex<R> cw_ctanh(cw_complex<R> z) {
    // tanh(x+iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), with the large-|x| limit
    if (cw_r_fabs(z.re) > (R)20) {
        R e = cw_r_exp(-2 * cw_r_fabs(z.re));
        return cw_cplx(cw_r_copysign((R)1, z.re), 4 * cw_r_sin(z.im) * cw_r_cos(z.im) * e);
    }
    R d = cw_r_cosh(2 * z.re) + cw_r_cos(2 * z.im);
    return cw_cplx(cw_r_sinh(2 * z.re) / d, cw_r_sin(2 * z.im) / d);
}
template <class R> __device__ inline cw_complex<R> cw_ctan(cw_complex<R> z) {
    // tan z = -i tanh(iz)
    cw_complex<R> t = cw_ctanh(cw_cplx(-z.im, z.re));
    return cw_cplx(t.im, -t.re);
}
template <class R> __device__ inline cw_complex<R> cw_casinh(cw_complex<R> z) {
    cw_complex<R> one = cw_cplx((R)1, (R)0);
    if (cw_cabs(z) > (R)1e8) {  // log(2z) avoids overflow of z*z
        cw_complex<R> l = cw_clog(z);
        return cw_cplx(l.re + (R)0.69314718055994530942, l.im);
    }
    return cw_clog(z + cw_csqrt(z * z + one));
}
template <class R> __device__ inline cw_complex<R> cw_casin(cw_complex<R> z) {
    // asin z = -i asinh(iz)
    cw_complex<R> t = cw_casinh(cw_cplx(-z.im, z.re));
    return cw_cplx(t.im, -t.re);
}
template <class R> __device__ inline cw_complex<R> cw_cacos(cw_complex<R> z) {
    cw_complex<R> a = cw_casin(z);
    return cw_cplx((R)1.57079632679489661923 - a.re, -a.im);
}
template <class R> __device__ inline cw_complex<R> cw_cacosh(cw_complex<R> z) {
    cw_complex<R> one = cw_cplx((R)1, (R)0);
    if (cw_cabs(z) > (R)1e8) {
        cw_complex<R> l = cw_clog(z);
        return cw_cplx(l.re + (R)0.69314718055994530942, l.im);
    }
    return cw_clog(z + cw_csqrt(z + one) * cw_csqrt(z - one));
}
template <class R> __device__ inline cw_complex<R> cw_catanh(cw_complex<R> z) {
    cw_complex<R> one = cw_cplx((R)1, (R)0);
    cw_complex<R> l = cw_clog((one + z) / (one - z));
    return cw_cplx(l.re * (R)0.5, l.im * (R)0.5);
}
template <class R> __device__ inline cw_complex<R> cw_catan(cw_complex<R> z) {
    // atan z = -i atanh(iz)
    cw_complex<R> t = cw_catanh(cw_cplx(-z.im, z.re));
    return cw_cplx(t.im, -t.re);
}
template <class R> __device__ inline cw_complex<R> cw_cexpm1(cw_complex<R> z) {
    R s = cw_r_sin(z.im * (R)0.5);
    return cw_cplx(cw_r_expm1(z.re) * cw_r_cos(z.im) - 2 * s * s, cw_r_exp(z.re) * cw_r_sin(z.im));
}
template <class R> __device__ inline cw_complex<R> cw_clog1p(cw_complex<R> z) {
    R x = z.re, y = z.im;
    return cw_cplx((R)0.5 * cw_r_log1p(x * (2 + x) + y * y), cw_r_atan2(y, (R)1 + x));
}
template <class R> __device__ inline cw_complex<R> cw_cpow(cw_complex<R> a, cw_complex<R> b) {
    if (b.re == (R)0 && b.im == (R)0) return cw_cplx((R)1, (R)0);
    if (a.re == (R)0 && a.im == (R)0) {
        if (b.re > (R)0 && b.im == (R)0) return cw_cplx((R)0, (R)0);
        return cw_cplx(cw_nan<R>(), cw_nan<R>());
    }
    if (b.im == (R)0 && b.re == cw_r_rint(b.re) && cw_r_fabs(b.re) <= (R)100) {
        // small integer powers by repeated squaring, as NumPy, for exact results
        long long n = (long long)b.re, m = n < 0 ? -n : n;
        cw_complex<R> r = cw_cplx((R)1, (R)0), p = a;
        while (m) { if (m & 1) r = r * p; p = p * p; m >>= 1; }
        return n < 0 ? cw_cplx((R)1, (R)0) / r : r;
    }
    return cw_cexp(b * cw_clog(a));
}
