// Steps 2 and 3 of hip/eig.hip's general eigenproblem (its header says what the kernel
// does as a whole and what each buffer holds): the complex helpers, the Householder
// reduction to upper Hessenberg form and the shifted QR iterations to the Schur form,
// device functions of one thread block. A header of eig.hip, before it in the prelude
// (rocm_backend/codegen/sources.py).

template <class R> __device__ inline cw_complex<R> cw_eig_conj(cw_complex<R> z) { return cw_cplx(z.re, -z.im); }
template <class R> __device__ inline R cw_eig_abs1(cw_complex<R> z) { return cw_r_fabs(z.re) + cw_r_fabs(z.im); }
template <class R> __device__ inline cw_complex<R> cw_eig_scale(cw_complex<R> z, R s) { return cw_cplx(z.re * s, z.im * s); }
// z / d for a real d: divided, not scaled by 1 / d, which overflows for a subnormal d
template <class R> __device__ inline cw_complex<R> cw_eig_div(cw_complex<R> z, R d) { return cw_cplx(z.re / d, z.im / d); }
template <class R> __device__ inline cw_complex<R> cw_eig_ldexp(cw_complex<R> z, int e) {
    return cw_cplx(cw_r_ldexp(z.re, e), cw_r_ldexp(z.im, e));
}

// what thread 0 decides for the block (read by every thread after a barrier)
template <class R> struct cw_eig_state {
    cw_complex<R> base, delta;   // QR shift = base + delta (base a diagonal entry of H)
    cw_complex<R> alpha;         // the Householder step's new subdiagonal entry
    R beta, amax;                // reflector coefficient; the input's largest |re| + |im|
    int action, l, ihi, exponent;
};
#define CW_EIG_SWEEP 0
#define CW_EIG_DEFLATED 1
#define CW_EIG_DONE 2
#define CW_EIG_FAILED 3

// sqrt(sum |x_i|^2) of x[0], x[step], ... (count entries), scaled by the largest part
// so that neither overflow nor underflow loses it
template <class R> __device__ inline R cw_eig_norm(const cw_complex<R>* x, cw_i64 count, cw_i64 step) {
    R big = 0;
    for (cw_i64 i = 0; i < count; ++i) {
        const R re = cw_r_fabs(x[i * step].re), im = cw_r_fabs(x[i * step].im);
        if (re > big) big = re;
        if (im > big) big = im;
    }
    if (big == (R)0) return 0;
    R sum = 0;
    for (cw_i64 i = 0; i < count; ++i) {
        R re = x[i * step].re / big, im = x[i * step].im / big;
        sum += re * re + im * im;
    }
    return big * cw_r_sqrt(sum);
}

// The Givens rotation G = [c s; -conj(s) c] (c real) with G [x; y] = [r; 0]
template <class R> __device__ inline void cw_eig_givens(cw_complex<R> x, cw_complex<R> y, R* c, cw_complex<R>* s,
                                                        cw_complex<R>* r) {
    R ax = cw_cabs(x), ay = cw_cabs(y);
    if (ay == (R)0) { *c = 1; *s = cw_cplx((R)0, (R)0); *r = x; return; }
    if (ax == (R)0) { *c = 0; *s = cw_eig_div(cw_eig_conj(y), ay); *r = cw_cplx(ay, (R)0); return; }
    R norm = cw_r_hypot(ax, ay);
    cw_complex<R> phase = cw_eig_div(x, ax);
    *c = ax / norm;
    *s = phase * cw_eig_div(cw_eig_conj(y), norm);
    *r = cw_eig_scale(phase, norm);
}

// Whether H[k][k-1] is negligible (zlahqr's test, |re| + |im| where it takes |re| of its real subdiagonal)
template <class R> __device__ inline bool cw_eig_small_sub(const cw_complex<R>* h, cw_i64 n, cw_i64 k, cw_i64 ihi,
                                                           R ulp, R smlnum) {
    const R sub = cw_eig_abs1(h[k * n + k - 1]);
    if (sub <= smlnum) return true;
    R tst = cw_eig_abs1(h[(k - 1) * n + k - 1]) + cw_eig_abs1(h[k * n + k]);
    if (tst == (R)0) {
        if (k >= 2) tst += cw_eig_abs1(h[(k - 1) * n + k - 2]);
        if (k + 1 <= ihi) tst += cw_eig_abs1(h[(k + 1) * n + k]);
    }
    if (!(sub <= ulp * tst)) return false;
    const R up = cw_eig_abs1(h[(k - 1) * n + k]);
    const R ab = sub > up ? sub : up, ba = sub > up ? up : sub;
    const R d1 = cw_eig_abs1(h[k * n + k]), d2 = cw_eig_abs1(h[(k - 1) * n + k - 1] - h[k * n + k]);
    const R aa = d1 > d2 ? d1 : d2, bb = d1 > d2 ? d2 : d1;
    const R s = aa + ab, rhs = ulp * (bb * (aa / s));
    return ba * (ab / s) <= (smlnum > rhs ? smlnum : rhs);
}

// zlahqr's shift (LAPACK 3.10 on) for the active block [l, ihi] in its ``kdefl``-th sweep
// since the last deflation: exceptional every 10th sweep, Wilkinson's otherwise. It is
// returned as base + delta, base a diagonal entry: the sweep's first rotation takes
// (H[l][l] - base) - delta, which keeps delta's digits where base + delta would round
// to base (nearly equal eigenvalues, whose 2 x 2 blocks then converge).
template <class R> __device__ inline void cw_eig_shift(const cw_complex<R>* h, cw_i64 n, cw_i64 l, cw_i64 ihi,
                                                       int kdefl, cw_complex<R>* base, cw_complex<R>* delta) {
    const R dat1 = (R)0.75;
    // (zlahqr keeps its subdiagonal real and takes |re|; ours is complex: |re| + |im|)
    if (kdefl % 20 == 0) {
        *base = h[ihi * n + ihi];
        *delta = cw_cplx(dat1 * cw_eig_abs1(h[ihi * n + ihi - 1]), (R)0);
        return;
    }
    if (kdefl % 10 == 0) {
        *base = h[l * n + l];
        *delta = cw_cplx(dat1 * cw_eig_abs1(h[(l + 1) * n + l]), (R)0);
        return;
    }
    // Wilkinson: the eigenvalue of the trailing 2 x 2 block nearer its last diagonal entry
    const cw_complex<R> t = h[ihi * n + ihi];
    *base = t;
    *delta = cw_cplx((R)0, (R)0);
    cw_complex<R> u = cw_csqrt(h[(ihi - 1) * n + ihi]) * cw_csqrt(h[ihi * n + ihi - 1]);
    R s = cw_eig_abs1(u);
    if (s == (R)0) return;
    cw_complex<R> x = cw_eig_scale(h[(ihi - 1) * n + ihi - 1] - t, (R)0.5);
    R sx = cw_eig_abs1(x);
    if (sx > s) s = sx;
    cw_complex<R> xs = cw_eig_div(x, s), us = cw_eig_div(u, s);
    cw_complex<R> y = cw_eig_scale(cw_csqrt(xs * xs + us * us), s);
    if (sx > (R)0) {
        cw_complex<R> xn = cw_eig_div(x, sx);
        if (xn.re * y.re + xn.im * y.im < (R)0) y = -y;
    }
    *delta = -(u * (u / (x + y)));
}

// 2. H = Q^H A Q with reflectors P = I - beta u u^H (Hermitian, unitary), Z = Q. P maps
// x = H[k+1:, k] to alpha e1, alpha = -phase(x0) |x|: u = (x - alpha e1) / (|x0| + |x|),
// so u[k+1] = phase(x0), |u_i| <= 1, and beta = 1 + |x0| / |x| in [1, 2] (no products of
// tiny numbers: the columns of a rank-deficient matrix shrink geometrically)
template <class R> __device__ inline void cw_eig_hessenberg(cw_complex<R>* h, cw_complex<R>* z, cw_complex<R>* u,
                                                            cw_i64 n, bool vectors, cw_eig_state<R>& st) {
    typedef cw_complex<R> C;
    const int tid = threadIdx.x, nt = blockDim.x;
    for (cw_i64 k = 0; k + 2 < n; ++k) {
        if (tid == 0) {
            // x = H[k+1:, k]; P x = alpha e1 with alpha = -phase(x0) |x|
            R xnorm = cw_eig_norm(h + (k + 1) * n + k, n - k - 1, n);
            C x0 = h[(k + 1) * n + k];
            R a0 = cw_cabs(x0);
            C phase = a0 > (R)0 ? cw_eig_div(x0, a0) : cw_cplx((R)1, (R)0);
            st.beta = xnorm > (R)0 ? (R)1 + a0 / xnorm : (R)0;
            st.alpha = cw_eig_scale(phase, -xnorm);
            u[k + 1] = phase;
            for (cw_i64 i = k + 2; i < n; ++i) u[i] = cw_eig_div(h[i * n + k], a0 + xnorm);
        }
        __syncthreads();
        const R beta = st.beta;
        if (beta != (R)0) {
            // column k becomes alpha e1 (no other column reads it); P H on columns k+1..
            if (tid == 0) {
                h[(k + 1) * n + k] = st.alpha;
                for (cw_i64 i = k + 2; i < n; ++i) h[i * n + k] = cw_cplx((R)0, (R)0);
            }
            for (cw_i64 j = k + 1 + tid; j < n; j += nt) {
                C s = cw_cplx((R)0, (R)0);
                for (cw_i64 i = k + 1; i < n; ++i) s += cw_eig_conj(u[i]) * h[i * n + j];
                s = cw_eig_scale(s, beta);
                for (cw_i64 i = k + 1; i < n; ++i) h[i * n + j] = h[i * n + j] - u[i] * s;
            }
            __syncthreads();
            // H P and Z P on columns k+1.. (every row)
            for (cw_i64 i = tid; i < n; i += nt) {
                C s = cw_cplx((R)0, (R)0);
                for (cw_i64 j = k + 1; j < n; ++j) s += h[i * n + j] * u[j];
                s = cw_eig_scale(s, beta);
                for (cw_i64 j = k + 1; j < n; ++j) h[i * n + j] = h[i * n + j] - s * cw_eig_conj(u[j]);
                if (vectors) {
                    C t = cw_cplx((R)0, (R)0);
                    for (cw_i64 j = k + 1; j < n; ++j) t += z[i * n + j] * u[j];
                    t = cw_eig_scale(t, beta);
                    for (cw_i64 j = k + 1; j < n; ++j) z[i * n + j] = z[i * n + j] - t * cw_eig_conj(u[j]);
                }
            }
        }
        __syncthreads();  // H is read, and st written, by the next step
    }
}

// 3. QR iterations to the Schur form; false when an eigenvalue did not converge
// (info written). With vectors, the whole of H and Z is transformed (T's upper part is
// the back substitution's input); without, only the active block.
template <class R> __device__ inline bool cw_eig_schur(cw_complex<R>* h, cw_complex<R>* z, cw_i64 n, bool vectors,
                                                       int* info, cw_eig_state<R>& st) {
    typedef cw_complex<R> C;
    const int tid = threadIdx.x, nt = blockDim.x;
    const R ulp = cw_lim<R>::eps(), smlnum = cw_lim<R>::min_normal() * ((R)n / ulp);
    const int itmax = 30 * (n > 10 ? (int)n : 10);
    int its = 0;  // thread 0's count of sweeps on the current trailing eigenvalue
    if (tid == 0) st.ihi = (int)n - 1;
    for (;;) {
        if (tid == 0) {
            const cw_i64 ihi = st.ihi;
            if (ihi < 0) {
                st.action = CW_EIG_DONE;
            } else {
                cw_i64 l = ihi;
                for (; l > 0; --l) {
                    if (cw_eig_small_sub(h, n, l, ihi, ulp, smlnum)) { h[l * n + l - 1] = cw_cplx((R)0, (R)0); break; }
                }
                if (l == ihi) {
                    st.action = CW_EIG_DEFLATED;
                    st.ihi = (int)ihi - 1;
                    its = 0;
                } else if (its >= itmax) {
                    st.action = CW_EIG_FAILED;
                    *info = (int)ihi + 1;
                } else {
                    st.action = CW_EIG_SWEEP;
                    st.l = (int)l;
                    ++its;
                    cw_eig_shift(h, n, l, ihi, its, &st.base, &st.delta);
                }
            }
        }
        __syncthreads();
        const int action = st.action;
        const cw_i64 l = st.l, ihi = st.ihi;
        const C base = st.base, delta = st.delta;
        __syncthreads();  // every thread has read st before thread 0 writes it again
        if (action == CW_EIG_DONE) return true;
        if (action == CW_EIG_FAILED) return false;
        if (action == CW_EIG_DEFLATED) continue;
        const cw_i64 jmax = vectors ? n - 1 : ihi, ilo = vectors ? 0 : l;
        for (cw_i64 k = l; k < ihi; ++k) {
            C x = k == l ? (h[l * n + l] - base) - delta : h[k * n + k - 1];
            C y = k == l ? h[(l + 1) * n + l] : h[(k + 1) * n + k - 1];
            R c;
            C s, r;
            cw_eig_givens(x, y, &c, &s, &r);
            __syncthreads();  // every thread has read x, y
            // G on rows k, k+1 (columns from k-1: the bulge entry becomes exactly 0)
            const cw_i64 jlo = k == l ? k : k - 1;
            for (cw_i64 j = jlo + tid; j <= jmax; j += nt) {
                if (j == k - 1 && k > l) {
                    h[k * n + j] = r;
                    h[(k + 1) * n + j] = cw_cplx((R)0, (R)0);
                    continue;
                }
                C a = h[k * n + j], b = h[(k + 1) * n + j];
                h[k * n + j] = cw_eig_scale(a, c) + s * b;
                h[(k + 1) * n + j] = cw_eig_scale(b, c) - cw_eig_conj(s) * a;
            }
            __syncthreads();
            // G^H on columns k, k+1 of H (rows to k + 2) and of Z
            const cw_i64 imax = k + 2 < ihi ? k + 2 : ihi;
            for (cw_i64 i = ilo + tid; i <= imax; i += nt) {
                C a = h[i * n + k], b = h[i * n + k + 1];
                h[i * n + k] = cw_eig_scale(a, c) + cw_eig_conj(s) * b;
                h[i * n + k + 1] = cw_eig_scale(b, c) - s * a;
            }
            if (vectors) {
                for (cw_i64 i = tid; i < n; i += nt) {
                    C a = z[i * n + k], b = z[i * n + k + 1];
                    z[i * n + k] = cw_eig_scale(a, c) + cw_eig_conj(s) * b;
                    z[i * n + k + 1] = cw_eig_scale(b, c) - s * a;
                }
            }
            __syncthreads();
        }
    }
}
