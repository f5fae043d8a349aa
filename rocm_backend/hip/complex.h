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
// hypot is our own: device libraries differ at the ends of the range (CUDA's double
// hypot returns inf for hypot(5.5, DBL_MAX)). Float squares are exact in double and
// cannot overflow there, so float is one rounding of the double result.
__device__ inline float cw_r_hypot(float x, float y) {
    double a = x, b = y;
    if (fabs(a) == cw_inf_d() || fabs(b) == cw_inf_d()) return cw_inf_f();  // even with a NaN
    return (float)sqrt(a * a + b * b);
}
// Double: scaled by a power of two so that neither square overflows nor loses digits
// to underflow, then one Newton step whose residual h^2 - a^2 - b^2 is formed exactly
// with fma (Borges, "An Improved Algorithm for hypot(a,b)", 2019): within an ulp.
__device__ inline double cw_r_hypot(double x, double y) {
    double a = fabs(x), b = fabs(y);
    if (a == cw_inf_d() || b == cw_inf_d()) return cw_inf_d();
    if (!(a == a) || !(b == b)) return a + b;
    if (a < b) { double t = a; a = b; b = t; }
    // b/a < 2^-27: b^2 / 2a^2 is under half an ulp of a (and a = 0 ends here too)
    if (b <= a * cw_bits_f64((cw_u64)(1023 - 27) << 52)) return a;
    double scale = 1.0;
    if (a > cw_bits_f64((cw_u64)(1023 + 500) << 52)) {
        const double down = cw_bits_f64((cw_u64)(1023 - 600) << 52);
        a *= down; b *= down; scale = cw_bits_f64((cw_u64)(1023 + 600) << 52);
    } else if (a < cw_bits_f64((cw_u64)(1023 - 450) << 52)) {
        const double up = cw_bits_f64((cw_u64)(1023 + 600) << 52);
        a *= up; b *= up; scale = cw_bits_f64((cw_u64)(1023 - 600) << 52);
    }
    double h = sqrt(fma(a, a, b * b));
    double h_sq = h * h, a_sq = a * a;
    double resid = fma(-b, b, h_sq - a_sq) + fma(h, h, -h_sq) - fma(a, a, -a_sq);
    h -= resid / (2.0 * h);
    return h * scale;
}
__device__ inline float cw_r_fabs(float x) { return fabsf(x); }
__device__ inline double cw_r_fabs(double x) { return fabs(x); }
__device__ inline float cw_r_rint(float x) { return rintf(x); }
__device__ inline double cw_r_rint(double x) { return rint(x); }
__device__ inline float cw_r_copysign(float x, float y) { return copysignf(x, y); }
__device__ inline double cw_r_copysign(double x, double y) { return copysign(x, y); }
__device__ inline float cw_r_tan(float x) { return tanf(x); }
__device__ inline double cw_r_tan(double x) { return tan(x); }
__device__ inline float cw_r_asin(float x) { return asinf(x); }
__device__ inline double cw_r_asin(double x) { return asin(x); }
__device__ inline float cw_r_acos(float x) { return acosf(x); }
__device__ inline double cw_r_acos(double x) { return acos(x); }
__device__ inline float cw_r_atan(float x) { return atanf(x); }
__device__ inline double cw_r_atan(double x) { return atan(x); }
__device__ inline float cw_r_atanh(float x) { return atanhf(x); }
__device__ inline double cw_r_atanh(double x) { return atanh(x); }
__device__ inline float cw_r_frexp(float x, int* e) { return frexpf(x, e); }
__device__ inline double cw_r_frexp(double x, int* e) { return frexp(x, e); }
__device__ inline float cw_r_ldexp(float x, int e) { return ldexpf(x, e); }
__device__ inline double cw_r_ldexp(double x, int e) { return ldexp(x, e); }
__device__ inline bool cw_r_signbit(float x) { return (cw_f32_bits(x) >> 31) != 0u; }
__device__ inline bool cw_r_signbit(double x) { return (cw_f64_bits(x) >> 63) != 0ull; }

// limits by precision (functions: device code has no static data members)
template <class R> struct cw_lim;
template <> struct cw_lim<float> {
    static __device__ float eps() { return 1.1920928955078125e-07f; }
    static __device__ float max() { return 3.4028234663852886e+38f; }
    static __device__ float min_normal() { return 1.1754943508222875e-38f; }
    static __device__ float max_log() { return 88.0f; }        // exp(max_log) is finite
    static __device__ int mant_dig() { return 24; }
    static __device__ int max_exp() { return 128; }
    static __device__ float pio2_hi() { return 1.57079625129699707031f; }
    static __device__ float pio2_lo() { return 7.54978995489188216e-08f; }
};
template <> struct cw_lim<double> {
    static __device__ double eps() { return 2.220446049250313080847e-16; }
    static __device__ double max() { return 1.7976931348623157e+308; }
    static __device__ double min_normal() { return 2.2250738585072014e-308; }
    static __device__ double max_log() { return 709.0; }
    static __device__ int mant_dig() { return 53; }
    static __device__ int max_exp() { return 1024; }
    static __device__ double pio2_hi() { return 1.5707963267948966e0; }
    static __device__ double pio2_lo() { return 6.1232339957367659e-17; }
};

template <class R> __device__ inline bool cw_r_isnan(R x) { return !(x == x); }
template <class R> __device__ inline bool cw_r_isinf(R x) { return cw_r_fabs(x) == cw_inf<R>(); }

template <class R> __device__ inline cw_complex<R> operator+(cw_complex<R> a, cw_complex<R> b) { return cw_cplx(a.re + b.re, a.im + b.im); }
template <class R> __device__ inline cw_complex<R> operator-(cw_complex<R> a, cw_complex<R> b) { return cw_cplx(a.re - b.re, a.im - b.im); }
template <class R> __device__ inline cw_complex<R> operator-(cw_complex<R> a) { return cw_cplx(-a.re, -a.im); }
template <class R> __device__ inline cw_complex<R> operator*(cw_complex<R> a, cw_complex<R> b) {
    return cw_cplx(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
// C99 Annex G multiplication (what C compilers emit for complex *, e.g. glibc's cpow
// forming y * log(x)): when the plain product is NaN + iNaN because an operand or a
// partial product is infinite, recover the infinity instead of NaN
template <class R> __device__ inline cw_complex<R> cw_cmul_annexg(cw_complex<R> p, cw_complex<R> q) {
    R a = p.re, b = p.im, c = q.re, d = q.im;
    R ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    R x = ac - bd, y = ad + bc;
    if (cw_r_isnan(x) && cw_r_isnan(y)) {
        bool recalc = false;
        if (cw_r_isinf(a) || cw_r_isinf(b)) {
            a = cw_r_copysign(cw_r_isinf(a) ? (R)1 : (R)0, a);
            b = cw_r_copysign(cw_r_isinf(b) ? (R)1 : (R)0, b);
            if (cw_r_isnan(c)) c = cw_r_copysign((R)0, c);
            if (cw_r_isnan(d)) d = cw_r_copysign((R)0, d);
            recalc = true;
        }
        if (cw_r_isinf(c) || cw_r_isinf(d)) {
            c = cw_r_copysign(cw_r_isinf(c) ? (R)1 : (R)0, c);
            d = cw_r_copysign(cw_r_isinf(d) ? (R)1 : (R)0, d);
            if (cw_r_isnan(a)) a = cw_r_copysign((R)0, a);
            if (cw_r_isnan(b)) b = cw_r_copysign((R)0, b);
            recalc = true;
        }
        if (!recalc && (cw_r_isinf(ac) || cw_r_isinf(bd) || cw_r_isinf(ad) || cw_r_isinf(bc))) {
            if (cw_r_isnan(a)) a = cw_r_copysign((R)0, a);
            if (cw_r_isnan(b)) b = cw_r_copysign((R)0, b);
            if (cw_r_isnan(c)) c = cw_r_copysign((R)0, c);
            if (cw_r_isnan(d)) d = cw_r_copysign((R)0, d);
            recalc = true;
        }
        if (recalc) {
            x = cw_inf<R>() * (a * c - b * d);
            y = cw_inf<R>() * (a * d + b * c);
        }
    }
    return cw_cplx(x, y);
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

// exp with C99 Annex G special values, and exp(re) scaled so that exp(re) * cos(im)
// does not overflow early when the product is still finite (as glibc's cexp)
template <class R> __device__ inline cw_complex<R> cw_cexp(cw_complex<R> z) {
    R x = z.re, y = z.im;
    if (!cw_r_isnan(x) && !cw_r_isinf(x) && !cw_r_isnan(y) && !cw_r_isinf(y)) {
        if (y == (R)0) return cw_cplx(cw_r_exp(x), y);
        R c = cw_r_cos(y), s = cw_r_sin(y);
        const R t = cw_lim<R>::max_log();
        if (x > t) {
            R et = cw_r_exp(t);
            x -= t; c *= et; s *= et;
            if (x > t) { x -= t; c *= et; s *= et; }
        }
        if (x > t) return cw_cplx(cw_inf<R>() * c, cw_inf<R>() * s);
        R e = cw_r_exp(x);
        return cw_cplx(e * c, e * s);
    }
    if (cw_r_isinf(x)) {
        if (x > (R)0) {
            if (y == (R)0) return cw_cplx(x, y);
            if (cw_r_isinf(y) || cw_r_isnan(y)) return cw_cplx(x, y - y);  // +inf + i NaN
            return cw_cplx(x * cw_r_cos(y), x * cw_r_sin(y));
        }
        if (cw_r_isinf(y) || cw_r_isnan(y)) return cw_cplx((R)0, cw_r_copysign((R)0, y));
        return cw_cplx((R)0 * cw_r_cos(y), (R)0 * cw_r_sin(y));
    }
    if (cw_r_isnan(x)) {
        if (y == (R)0) return cw_cplx(x, y);
        return cw_cplx(x, x);
    }
    return cw_cplx(y - y, y - y);  // finite x, y inf or NaN: NaN + i NaN
}
// log|z| without overflow or underflow of |z|, and accurate for |z| near 1
template <class R> __device__ inline R cw_log_abs(cw_complex<R> z) {
    R a = cw_r_fabs(z.re), b = cw_r_fabs(z.im);
    if (cw_r_isinf(a) || cw_r_isinf(b)) return cw_inf<R>();  // |z| = inf even with a NaN part
    if (a < b) { R t = a; a = b; b = t; }
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
    R a = z.re, b = z.im;
    if (a == (R)0 && b == (R)0) return cw_cplx((R)0, b);
    if (cw_r_isinf(b)) return cw_cplx(cw_inf<R>(), b);
    if (cw_r_isnan(a)) return cw_cplx(a, cw_nan<R>());
    if (cw_r_isinf(a)) {
        if (a > (R)0) return cw_cplx(a, cw_r_isnan(b) ? b : cw_r_copysign((R)0, b));
        return cw_cplx(cw_r_isnan(b) ? b : (R)0, cw_r_copysign(cw_inf<R>(), b));
    }
    if (cw_r_isnan(b)) return cw_cplx(b, b);
    // scale: down near overflow of |a| + |z|, up where (|a| + |z|) / 2 would be
    // subnormal and lose digits; the result scales by the square root of the factor
    R scale = (R)1;
    const R big = cw_lim<R>::max() * (R)0.25, tiny = cw_lim<R>::min_normal() * (R)4;
    if (cw_r_fabs(a) >= big || cw_r_fabs(b) >= big) {
        a *= (R)0.25; b *= (R)0.25; scale = (R)2;
    } else if (cw_r_fabs(a) < tiny && cw_r_fabs(b) < tiny) {
        const int k = cw_lim<R>::mant_dig() + 1;
        a = cw_r_ldexp(a, 2 * k); b = cw_r_ldexp(b, 2 * k); scale = cw_r_ldexp((R)1, -k);
    }
    R t, re, im;
    if (a >= (R)0) {
        t = cw_r_sqrt((a + cw_r_hypot(a, b)) * (R)0.5);
        re = t; im = b / (2 * t);
    } else {
        t = cw_r_sqrt((-a + cw_r_hypot(a, b)) * (R)0.5);
        re = cw_r_fabs(b) / (2 * t); im = cw_r_copysign(t, b);
    }
    return cw_cplx(re * scale, im * scale);
}
// sin and cos of y, with sin y = y for |y| below the smallest normal (as glibc)
template <class R> __device__ inline void cw_sincos_small(R y, R* s, R* c) {
    if (cw_r_fabs(y) > cw_lim<R>::min_normal()) { *s = cw_r_sin(y); *c = cw_r_cos(y); }
    else { *s = y; *c = (R)1; }
}
// e^|x| / 2 * (c + i s) for |x| past exp's overflow threshold t: the exponential is
// applied in steps of e^t so that the product with a small c or s stays finite, and an
// exact zero part stays zero instead of inf * 0 = NaN (the device's cosh(711.0) is inf)
template <class R> __device__ inline cw_complex<R> cw_exp_half_scaled(R ax, R c, R s) {
    const R t = cw_lim<R>::max_log(), et = cw_r_exp(t);
    ax -= t; c *= et / 2; s *= et / 2;
    if (ax > t) { ax -= t; c *= et; s *= et; }
    if (ax > t) return cw_cplx(cw_lim<R>::max() * c, cw_lim<R>::max() * s);
    R ev = cw_r_exp(ax);
    return cw_cplx(ev * c, ev * s);
}
// sinh z and cosh z with C99 Annex G special values, following glibc's csinh/ccosh
// (the reference backend's results), zero signs included
template <class R> __device__ inline cw_complex<R> cw_csinh(cw_complex<R> z) {
    R x = z.re, y = z.im, ax = cw_r_fabs(x);
    bool neg = cw_r_signbit(x), xfin = !cw_r_isnan(x) && !cw_r_isinf(x), yfin = !cw_r_isnan(y) && !cw_r_isinf(y);
    R s, c;
    if (xfin && yfin) {
        cw_sincos_small(y, &s, &c);
        if (neg) c = -c;
        if (ax > cw_lim<R>::max_log()) return cw_exp_half_scaled(ax, c, s);
        return cw_cplx(cw_r_sinh(ax) * c, cw_r_cosh(ax) * s);
    }
    if (xfin) return x == (R)0 ? cw_cplx(x, y - y) : cw_cplx(cw_nan<R>(), cw_nan<R>());
    if (cw_r_isinf(x)) {
        if (yfin && y != (R)0) {
            cw_sincos_small(y, &s, &c);
            R re = cw_r_copysign(cw_inf<R>(), c);
            return cw_cplx(neg ? -re : re, cw_r_copysign(cw_inf<R>(), s));
        }
        if (y == (R)0) return cw_cplx(x, y);
        return cw_cplx(cw_inf<R>(), y - y);
    }
    return cw_cplx(cw_nan<R>(), y == (R)0 ? y : cw_nan<R>());
}
template <class R> __device__ inline cw_complex<R> cw_ccosh(cw_complex<R> z) {
    R x = z.re, y = z.im, ax = cw_r_fabs(x);
    bool xfin = !cw_r_isnan(x) && !cw_r_isinf(x), yfin = !cw_r_isnan(y) && !cw_r_isinf(y);
    R s, c;
    if (xfin && yfin) {
        cw_sincos_small(y, &s, &c);
        if (ax > cw_lim<R>::max_log()) return cw_exp_half_scaled(ax, c, cw_r_signbit(x) ? -s : s);
        return cw_cplx(cw_r_cosh(x) * c, cw_r_sinh(x) * s);
    }
    if (xfin) return cw_cplx(y - y, x == (R)0 ? (R)0 : cw_nan<R>());
    if (cw_r_isinf(x)) {
        if (yfin && y != (R)0) {
            cw_sincos_small(y, &s, &c);
            return cw_cplx(cw_r_copysign(cw_inf<R>(), c), cw_r_copysign(cw_inf<R>(), s) * cw_r_copysign((R)1, x));
        }
        if (y == (R)0) return cw_cplx(cw_inf<R>(), y * cw_r_copysign((R)1, x));
        return cw_cplx(cw_inf<R>(), y - y);
    }
    return cw_cplx(cw_nan<R>(), y == (R)0 ? y : cw_nan<R>());
}
// sin z = -i sinh(iz), cos z = cosh(iz): exact rewrites, signs of zeros included
template <class R> __device__ inline cw_complex<R> cw_csin(cw_complex<R> z) {
    // but glibc's csin gives +inf, not the rewrite's -inf, for a non-finite real part
    // and an infinite imaginary part (the sign is unspecified)
    if (cw_r_isinf(z.im) && (cw_r_isinf(z.re) || cw_r_isnan(z.re))) return cw_cplx(cw_nan<R>(), cw_inf<R>());
    cw_complex<R> w = cw_csinh(cw_cplx(-z.im, z.re));
    return cw_cplx(w.im, -w.re);
}
template <class R> __device__ inline cw_complex<R> cw_ccos(cw_complex<R> z) {
    return cw_ccosh(cw_cplx(-z.im, z.re));
}
// Kahan's formula (as FreeBSD's ctanh): no cancellation in cosh 2x + cos 2y near its
// zeros; C99 Annex G special values; large |x| by its limit with e^-2|x| kept finite
template <class R> __device__ inline cw_complex<R> cw_ctanh(cw_complex<R> z) {
    R x = z.re, y = z.im;
    bool yfin = !cw_r_isnan(y) && !cw_r_isinf(y);
    if (cw_r_isinf(x))  // the standard: tanh(+inf + yj) = 1 + 0j for y > 0, conj for y < 0
        return cw_cplx(cw_r_copysign((R)1, x), cw_r_copysign((R)0, y));
    if (cw_r_isnan(x) && y == (R)0) return z;
    if (cw_r_isnan(x) || !yfin) return cw_cplx(x == (R)0 ? x : cw_nan<R>(), cw_nan<R>());
    const R big = sizeof(R) == 4 ? (R)11 : (R)22;
    if (cw_r_fabs(x) >= big) {
        R e = cw_r_exp(-cw_r_fabs(x));
        return cw_cplx(cw_r_copysign((R)1, x), (R)4 * cw_r_sin(y) * cw_r_cos(y) * e * e);
    }
    R t = cw_r_tan(y);
    R beta = (R)1 + t * t;
    R s = cw_r_sinh(x);
    R rho = cw_r_sqrt((R)1 + s * s);
    R denom = (R)1 + beta * s * s;
    return cw_cplx((beta * rho * s) / denom, t / denom);
}
template <class R> __device__ inline cw_complex<R> cw_ctan(cw_complex<R> z) {
    // tan z = -i tanh(iz)
    cw_complex<R> t = cw_ctanh(cw_cplx(-z.im, z.re));
    return cw_cplx(t.im, -t.re);
}
// exp(z) - 1: without cancellation for small z, and exp's special values elsewhere
// (the finite formula would give NaN parts for infinite x or y)
template <class R> __device__ inline cw_complex<R> cw_cexpm1(cw_complex<R> z) {
    R x = z.re, y = z.im;
    if (cw_r_isnan(x) || cw_r_isinf(x) || cw_r_isnan(y) || cw_r_isinf(y)) {
        cw_complex<R> w = cw_cexp(z);
        return cw_cplx(w.re - (R)1, w.im);
    }
    if (x == (R)0 && y == (R)0) return cw_cplx((R)0, y);  // the standard: +0 for +-0 + 0j
    R s = cw_r_sin(y * (R)0.5);
    return cw_cplx(cw_r_expm1(x) * cw_r_cos(y) - 2 * s * s, y == (R)0 ? y : cw_r_exp(x) * cw_r_sin(y));
}
// log(1 + z): for small |z| without forming 1 + z (which drops the digits of z), as
// log1p of |1+z|^2 - 1 = x(2 + x) + y^2 and atan2; elsewhere log of 1 + z itself
template <class R> __device__ inline cw_complex<R> cw_clog1p(cw_complex<R> z) {
    R x = z.re, y = z.im;
    bool finite = !cw_r_isnan(x) && !cw_r_isinf(x) && !cw_r_isnan(y) && !cw_r_isinf(y);
    if (finite && x * x + y * y < (R)0.25)
        return cw_cplx((R)0.5 * cw_r_log1p(x * ((R)2 + x) + y * y), cw_r_atan2(y, (R)1 + x));
    return cw_clog(cw_cplx((R)1 + x, y));
}
template <class R> __device__ inline cw_complex<R> cw_cpow(cw_complex<R> a, cw_complex<R> b) {
    if (b.re == (R)0 && b.im == (R)0) return cw_cplx((R)1, (R)0);
    if (a.re == (R)0 && a.im == (R)0) {
        // NumPy's rule for a zero base: 0 when Re b > 0, whatever Im b (0 ** (1+1j) = 0);
        // NaN otherwise (a negative or NaN real part, b = 1j)
        if (b.re > (R)0) return cw_cplx((R)0, (R)0);
        return cw_cplx(cw_nan<R>(), cw_nan<R>());
    }
    if (b.im == (R)0 && b.re == cw_r_rint(b.re) && cw_r_fabs(b.re) <= (R)100) {
        // small integer powers by repeated squaring, as NumPy, for exact results
        long long n = (long long)b.re, m = n < 0 ? -n : n;
        cw_complex<R> r = cw_cplx((R)1, (R)0), p = a;
        while (m) { if (m & 1) r = r * p; p = p * p; m >>= 1; }
        return n < 0 ? cw_cplx((R)1, (R)0) / r : r;
    }
    return cw_cexp(cw_cmul_annexg(b, cw_clog(a)));
}
