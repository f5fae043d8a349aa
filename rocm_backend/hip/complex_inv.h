// Inverse complex trigonometric and hyperbolic functions: asinh, asin, acos, atanh,
// atan. A port of FreeBSD's catrig.c (Bruce D. Evans and Steven G. Kargl), itself after
// Hull, Fairgrieve and Tang, "Implementing the complex arcsine and arccosine functions
// using exception handling" (ACM TOMS 23, 1997): the real and imaginary parts come from
// A = (|z+1| + |z-1|)/2 and B = y/A with the cancellations rewritten away, so both
// parts keep a few ulps of accuracy everywhere, and C99 Annex G special values.
// One template serves float and double (constants from cw_lim).

template <class R> struct cw_catrig {
    static __device__ R eps() { return cw_lim<R>::eps(); }
    static __device__ R recip_eps() { return (R)1 / cw_lim<R>::eps(); }
    // 4 sqrt(min normal), sqrt(min normal), sqrt(max) / 4
    static __device__ R four_sqrt_min() { return sizeof(R) == 4 ? (R)4.3368086899420177e-19 : (R)5.9666725849601654e-154; }
    static __device__ R sqrt_min() { return sizeof(R) == 4 ? (R)1.0842021724855044e-19 : (R)1.4916681462400413e-154; }
    static __device__ R quarter_sqrt_max() { return sizeof(R) == 4 ? (R)4.6116860184273879e+18 : (R)3.3519519824856493e+153; }
    static __device__ R sqrt_3_eps() { return sizeof(R) == 4 ? (R)5.9801995e-4 : (R)2.5809568279517849e-8; }
    static __device__ R sqrt_6_eps() { return sizeof(R) == 4 ? (R)8.4572793e-4 : (R)3.6500241499888571e-8; }
    static __device__ R ln2() { return (R)0.69314718055994530942; }
    static __device__ R e() { return (R)2.7182818284590452354; }
    static __device__ R pio2() { return cw_lim<R>::pio2_hi() + cw_lim<R>::pio2_lo(); }
};

template <class R> __device__ inline R cw_catrig_f(R a, R b, R hypot_a_b) {
    if (b < (R)0) return (hypot_a_b - b) / 2;
    if (b == (R)0) return a / 2;
    return a * a / (hypot_a_b + b) / 2;
}

// the shared core of asinh and acos (x, y >= 0): rx = Re asinh, and either B = y/A
// (B_usable) or the pair (new_y, sqrt(A^2 - y^2)) for atan2
template <class R> __device__ inline void cw_catrig_hard(R x, R y, R* rx, bool* B_usable, R* B, R* sqrt_A2my2, R* new_y) {
    typedef cw_catrig<R> K;
    const R eps = K::eps();
    R Rr = cw_r_hypot(x, y + 1), S = cw_r_hypot(x, y - 1);
    R A = (Rr + S) / 2;
    if (A < (R)1) A = (R)1;
    if (A < (R)10) {
        if (y == (R)1 && x < eps * eps / 128) {
            *rx = cw_r_sqrt(x);
        } else if (x >= eps * cw_r_fabs(y - 1)) {
            R Am1 = cw_catrig_f(x, 1 + y, Rr) + cw_catrig_f(x, 1 - y, S);
            *rx = cw_r_log1p(Am1 + cw_r_sqrt(Am1 * (A + 1)));
        } else if (y < (R)1) {
            *rx = x / cw_r_sqrt((1 - y) * (1 + y));
        } else {
            *rx = cw_r_log1p((y - 1) + cw_r_sqrt((y - 1) * (y + 1)));
        }
    } else {
        *rx = cw_r_log(A + cw_r_sqrt(A * A - 1));
    }
    *new_y = y;
    if (y < K::four_sqrt_min()) {
        *B_usable = false;
        *sqrt_A2my2 = A * (2 / eps);
        *new_y = y * (2 / eps);
        return;
    }
    *B = y / A;
    *B_usable = true;
    if (*B > (R)0.6417) {
        *B_usable = false;
        if (y == (R)1 && x < eps / 128) {
            *sqrt_A2my2 = cw_r_sqrt(x) * cw_r_sqrt((A + y) / 2);
        } else if (x >= eps * cw_r_fabs(y - 1)) {
            R Amy = cw_catrig_f(x, y + 1, Rr) + cw_catrig_f(x, y - 1, S);
            *sqrt_A2my2 = cw_r_sqrt(Amy * (A + y));
        } else if (y > (R)1) {
            *sqrt_A2my2 = x * (4 / eps / eps) * y / cw_r_sqrt((y + 1) * (y - 1));
            *new_y = y * (4 / eps / eps);
        } else {
            *sqrt_A2my2 = cw_r_sqrt((1 - y) * (1 + y));
        }
    }
}

// log z for |z| near overflow or underflow of |z|^2 (the large-argument branches)
template <class R> __device__ inline cw_complex<R> cw_clog_large(cw_complex<R> z) {
    typedef cw_catrig<R> K;
    R x = z.re, y = z.im, ax = cw_r_fabs(x), ay = cw_r_fabs(y);
    if (ax < ay) { R t = ax; ax = ay; ay = t; }
    if (ax > cw_lim<R>::max() / 2)
        return cw_cplx(cw_r_log(cw_r_hypot(x / K::e(), y / K::e())) + 1, cw_r_atan2(y, x));
    if (ax > K::quarter_sqrt_max() || ay < K::sqrt_min())
        return cw_cplx(cw_r_log(cw_r_hypot(x, y)), cw_r_atan2(y, x));
    return cw_cplx(cw_r_log(ax * ax + ay * ay) / 2, cw_r_atan2(y, x));
}

template <class R> __device__ inline cw_complex<R> cw_casinh(cw_complex<R> z) {
    typedef cw_catrig<R> K;
    R x = z.re, y = z.im, ax = cw_r_fabs(x), ay = cw_r_fabs(y);
    if (cw_r_isnan(x) || cw_r_isnan(y)) {
        if (cw_r_isinf(x)) return cw_cplx(x, y + y);
        if (cw_r_isinf(y)) return cw_cplx(cw_r_fabs(y), x + x);  // sign unspecified; glibc's +
        if (y == (R)0) return cw_cplx(x + x, y);
        return cw_cplx(x + y, x + y);
    }
    if (ax > K::recip_eps() || ay > K::recip_eps()) {
        cw_complex<R> w = cw_clog_large(cw_r_signbit(x) ? cw_cplx(-x, -y) : z);
        return cw_cplx(cw_r_copysign(w.re + K::ln2(), x), cw_r_copysign(w.im, y));
    }
    if (x == (R)0 && y == (R)0) return z;
    if (ax < K::sqrt_6_eps() / 4 && ay < K::sqrt_6_eps() / 4) return z;
    R rx, ry, B = 0, sqrt_A2my2 = 0, new_y = 0;
    bool B_usable = false;
    cw_catrig_hard(ax, ay, &rx, &B_usable, &B, &sqrt_A2my2, &new_y);
    ry = B_usable ? cw_r_asin(B) : cw_r_atan2(new_y, sqrt_A2my2);
    return cw_cplx(cw_r_copysign(rx, x), cw_r_copysign(ry, y));
}

template <class R> __device__ inline cw_complex<R> cw_casin(cw_complex<R> z) {
    // asin z = conj-swap of asinh of the swapped parts (exact, signs of zeros included)
    cw_complex<R> w = cw_casinh(cw_cplx(z.im, z.re));
    return cw_cplx(w.im, w.re);
}

template <class R> __device__ inline cw_complex<R> cw_cacos(cw_complex<R> z) {
    typedef cw_catrig<R> K;
    R x = z.re, y = z.im, ax = cw_r_fabs(x), ay = cw_r_fabs(y);
    bool sx = cw_r_signbit(x), sy = cw_r_signbit(y);
    if (cw_r_isnan(x) || cw_r_isnan(y)) {
        if (cw_r_isinf(x)) return cw_cplx(y + y, -cw_inf<R>());
        if (cw_r_isinf(y)) return cw_cplx(x + x, -y);
        if (x == (R)0) return cw_cplx(K::pio2(), y + y);
        return cw_cplx(x + y, x + y);
    }
    if (ax > K::recip_eps() || ay > K::recip_eps()) {
        cw_complex<R> w = cw_clog_large(z);
        R rx = cw_r_fabs(w.im), ry = w.re + K::ln2();
        return cw_cplx(rx, sy ? ry : -ry);
    }
    if (x == (R)1 && y == (R)0) return cw_cplx((R)0, -y);
    if (ax < K::sqrt_6_eps() / 4 && ay < K::sqrt_6_eps() / 4)
        return cw_cplx(cw_lim<R>::pio2_hi() - (x - cw_lim<R>::pio2_lo()), -y);
    R rx, ry, B = 0, sqrt_A2mx2 = 0, new_x = 0;
    bool B_usable = false;
    cw_catrig_hard(ay, ax, &ry, &B_usable, &B, &sqrt_A2mx2, &new_x);
    if (B_usable) rx = sx ? cw_r_acos(-B) : cw_r_acos(B);
    else rx = sx ? cw_r_atan2(sqrt_A2mx2, -new_x) : cw_r_atan2(sqrt_A2mx2, new_x);
    return cw_cplx(rx, sy ? ry : -ry);
}

// Re(1/z) without overflow or underflow of x^2 + y^2
template <class R> __device__ inline R cw_real_part_reciprocal(R x, R y) {
    const int cutoff = cw_lim<R>::mant_dig() / 2 + 1;
    int ex, ey;
    cw_r_frexp(x, &ex);
    cw_r_frexp(y, &ey);
    if (cw_r_isinf(y)) return cw_r_copysign((R)0, x);  // frexp has no usable exponent for inf
    if (ex - ey >= cutoff || cw_r_isinf(x)) return 1 / x;
    if (ey - ex >= cutoff) return x / y / y;
    if (ex <= cw_lim<R>::max_exp() / 2 - cutoff) return x / (x * x + y * y);
    R scale = cw_r_ldexp((R)1, 1 - ex);
    x *= scale;
    y *= scale;
    return x / (x * x + y * y) * scale;
}

template <class R> __device__ inline cw_complex<R> cw_catanh(cw_complex<R> z) {
    typedef cw_catrig<R> K;
    R x = z.re, y = z.im, ax = cw_r_fabs(x), ay = cw_r_fabs(y);
    if (y == (R)0 && ax <= (R)1) return cw_cplx(cw_r_atanh(x), y);
    if (x == (R)0) return cw_cplx(x, cw_r_atan(y));
    if (cw_r_isnan(x) || cw_r_isnan(y)) {
        if (cw_r_isinf(x)) return cw_cplx(cw_r_copysign((R)0, x), y + y);
        if (cw_r_isinf(y)) return cw_cplx(cw_r_copysign((R)0, x), cw_r_copysign(K::pio2(), y));
        return cw_cplx(x + y, x + y);
    }
    if (ax > K::recip_eps() || ay > K::recip_eps())
        return cw_cplx(cw_real_part_reciprocal(x, y), cw_r_copysign(K::pio2(), y));
    if (ax < K::sqrt_3_eps() / 2 && ay < K::sqrt_3_eps() / 2) return z;
    R rx, ry;
    const R eps = K::eps();
    if (ax == (R)1 && ay < eps) {
        rx = (K::ln2() - cw_r_log(ay)) / 2;
    } else {
        R am1 = ax - 1;
        R sq = ay < K::sqrt_min() ? am1 * am1 : am1 * am1 + ay * ay;  // sum_squares
        rx = cw_r_log1p(4 * ax / sq) / 4;
    }
    if (ax == (R)1) ry = cw_r_atan2((R)2, -ay) / 2;
    else if (ay < eps) ry = cw_r_atan2(2 * ay, (1 - ax) * (1 + ax)) / 2;
    else ry = cw_r_atan2(2 * ay, (1 - ax) * (1 + ax) - ay * ay) / 2;
    return cw_cplx(cw_r_copysign(rx, x), cw_r_copysign(ry, y));
}

template <class R> __device__ inline cw_complex<R> cw_catan(cw_complex<R> z) {
    cw_complex<R> w = cw_catanh(cw_cplx(z.im, z.re));
    return cw_cplx(w.im, w.re);
}

// acosh z = ±i acos z: C99 Annex G special values (glibc's, which the reference
// backend returns: acosh(±0 + i NaN) = NaN + i pi/2), and for finite z the accurate
// acos above with the sign chosen by Im z
template <class R> __device__ inline cw_complex<R> cw_cacosh(cw_complex<R> z) {
    typedef cw_catrig<R> K;
    R x = z.re, y = z.im;
    bool xnan = cw_r_isnan(x), ynan = cw_r_isnan(y), xinf = cw_r_isinf(x), yinf = cw_r_isinf(y);
    if (xnan || ynan || xinf || yinf) {
        if (yinf) {
            R im = xinf ? (x < (R)0 ? (R)2.35619449019234492885 : (R)0.78539816339744830962) : K::pio2();
            return cw_cplx(cw_inf<R>(), xnan ? x : cw_r_copysign(im, y));
        }
        if (xinf) return cw_cplx(cw_inf<R>(), ynan ? y : cw_r_copysign(cw_r_signbit(x) ? (R)3.14159265358979323846 : (R)0, y));
        return cw_cplx(cw_nan<R>(), x == (R)0 ? K::pio2() : cw_nan<R>());
    }
    if (x == (R)0 && y == (R)0) return cw_cplx((R)0, cw_r_copysign(K::pio2(), y));
    cw_complex<R> w = cw_cacos(z);
    return cw_cplx(cw_r_fabs(w.im), cw_r_copysign(w.re, y));
}
