// General (non-Hermitian) eigenproblem, one thread block per matrix: hipSOLVER and
// rocSOLVER have no geev, so linalg.eig / eigvals run this (docs/rocm_linalg_fft.md).
//
// Per matrix, in complex arithmetic (real input arrives converted to complex):
//   1. scale by a power of two (exact) so that the largest |re| + |im| is in [0.5, 1);
//      a non-finite entry ends the matrix with info = CW_EIG_NONFINITE;
//   2. Householder reduction to upper Hessenberg form H = Q^H A Q, Q accumulated in Z;
//   3. complex single-shift QR iterations (LAPACK 3.10's zlahqr algorithm: Wilkinson
//      shifts, an exceptional shift every 10th sweep without deflation, Ahues-Tisseur
//      deflation test) with Givens rotations, to the Schur form T = Z^H A Z; more than
//      30 * max(10, n) sweeps for one eigenvalue end the matrix with info = (its index + 1);
//   4. eigenvectors of T by back substitution (one thread per vector, rescaled past
//      2^64 (float) / 2^498 (double) so that nearly defective matrices do not overflow),
//      times Z, each of unit 2-norm with its largest component real (as LAPACK's geev);
//   5. for a real input (real_input), the spectrum closed under conjugation as LAPACK's
//      real Schur form gives it: complex arithmetic leaves a pair only conjugate to
//      rounding and a real eigenvalue a tiny imaginary part (cw_eig_real_pairs).
// Threads of the block share the row and column updates; thread 0 makes the scalar
// decisions (reflector, deflation, shift) into shared memory, read after a barrier.
// H and Z sit in shared memory when they fit in CW_EIG_SHARED_BYTES, else in the
// matrix's own slices of global memory (the work copy and the vectors output).
//
// struct cw_eig_args: abi.h (generated from rocm_backend/abi/structs.py). Pointers:
// work (count x n x n, the input's contiguous complex copy, overwritten), values
// (count x n), vectors (count x n x n, row-major, eigenvectors as columns; untouched
// when want_vectors is 0), scratch (count x (n + n x n) with vectors, count x n
// without), info (count ints, 0 on success).

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

// 4. eigenvectors: X (upper triangular, column k for T[k][k]) by back substitution, one
// thread per vector; then Z X in place (row by row, columns from the last: column k of
// the product needs Z's columns up to k only); then each column normalized into out.
template <class R> __device__ inline void cw_eig_vectors(const cw_complex<R>* t, cw_complex<R>* z, cw_complex<R>* x,
                                                         cw_complex<R>* out, cw_i64 n, R amax) {
    typedef cw_complex<R> C;
    const int tid = threadIdx.x, nt = blockDim.x;
    const R ulp = cw_lim<R>::eps();
    R smin = ulp * amax;  // a perturbation of T's diagonal within the backward error
    if (smin < cw_lim<R>::min_normal()) smin = cw_lim<R>::min_normal();
    const R big = cw_r_ldexp((R)1, sizeof(R) == 4 ? 64 : 498);
    for (cw_i64 k = tid; k < n; k += nt) {
        const C lambda = t[k * n + k];
        for (cw_i64 i = k + 1; i < n; ++i) x[i * n + k] = cw_cplx((R)0, (R)0);
        x[k * n + k] = cw_cplx((R)1, (R)0);
        for (cw_i64 i = k - 1; i >= 0; --i) {
            C acc = cw_cplx((R)0, (R)0);
            for (cw_i64 j = i + 1; j <= k; ++j) acc += t[i * n + j] * x[j * n + k];
            C d = t[i * n + i] - lambda;
            if (cw_eig_abs1(d) < smin) d = cw_cplx(smin, (R)0);
            C xi = -(acc / d);
            x[i * n + k] = xi;
            const R m = cw_eig_abs1(xi);
            if (m > big) {
                const R down = (R)1 / m;
                for (cw_i64 j = i; j <= k; ++j) x[j * n + k] = cw_eig_scale(x[j * n + k], down);
            }
        }
    }
    __syncthreads();
    for (cw_i64 i = tid; i < n; i += nt) {
        for (cw_i64 k = n - 1; k >= 0; --k) {
            C acc = cw_cplx((R)0, (R)0);
            for (cw_i64 j = 0; j <= k; ++j) acc += z[i * n + j] * x[j * n + k];
            z[i * n + k] = acc;
        }
    }
    __syncthreads();
    for (cw_i64 k = tid; k < n; k += nt) {
        const R norm = cw_eig_norm(z + k, n, n);
        cw_i64 imax = 0;
        R best = -1;
        for (cw_i64 i = 0; i < n; ++i) {
            const R m = cw_cabs(z[i * n + k]);
            if (m > best) { best = m; imax = i; }
        }
        // unit norm, and the largest component real: times conj(v_max) / |v_max|
        C f = best > (R)0 ? cw_eig_div(cw_eig_div(cw_eig_conj(z[imax * n + k]), best), norm) : cw_cplx((R)1, (R)0);
        for (cw_i64 i = 0; i < n; ++i) out[i * n + k] = z[i * n + k] * f;
        if (best > (R)0) out[imax * n + k] = cw_cplx(best / norm, (R)0);
    }
}

// Step 5, thread 0: the eigenvalue of largest imaginary part still open is paired with the
// open one below the real axis nearest its conjugate, if that one is nearer than its own
// mirror image (else it is a real eigenvalue moved off the axis by rounding): the pair
// becomes a +- ib (the means of the two), its second vector the conjugate of the first;
// what stays open is real (imaginary part 0, real vector). partner[i]: the index whose
// vector i's becomes the conjugate of, or i for a real one (kept as R in a scratch slot).
template <class R> __device__ inline void cw_eig_real_pairs(cw_complex<R>* w, R* partner, cw_i64 n) {
    for (cw_i64 i = 0; i < n; ++i) partner[i] = (R)-1;
    for (;;) {
        cw_i64 top = -1;
        for (cw_i64 i = 0; i < n; ++i)
            if (partner[i] < 0 && w[i].im > 0 && (top < 0 || w[i].im > w[top].im)) top = i;
        if (top < 0) break;
        const cw_complex<R> mirror = cw_eig_conj(w[top]);
        cw_i64 best = -1;
        R dist = 0;
        for (cw_i64 j = 0; j < n; ++j) {
            if (j == top || partner[j] >= 0 || w[j].im > 0) continue;
            const R d = cw_cabs(w[j] - mirror);
            if (best < 0 || d < dist) { best = j; dist = d; }
        }
        if (best >= 0 && dist < 2 * w[top].im) {
            const R re = (w[top].re + w[best].re) / 2, im = (w[top].im - w[best].im) / 2;
            w[top] = cw_cplx(re, im);
            w[best] = cw_cplx(re, -im);
            partner[top] = (R)top;
            partner[best] = (R)top;
        } else {
            w[top] = cw_cplx(w[top].re, (R)0);
            partner[top] = (R)top;
        }
    }
    for (cw_i64 i = 0; i < n; ++i) {
        if (partner[i] < 0) {
            w[i] = cw_cplx(w[i].re, (R)0);
            partner[i] = (R)i;
        }
    }
}

template <class R> __device__ inline void cw_eig(const cw_eig_args& a) {
    typedef cw_complex<R> C;
    __shared__ C shared_work[CW_EIG_SHARED_BYTES / sizeof(C)];
    __shared__ R partial[CW_EIG_BLOCK];
    __shared__ cw_eig_state<R> st;
    const int tid = threadIdx.x, nt = blockDim.x;
    const cw_i64 n = a.n, nn = n * n;
    const bool vectors = a.want_vectors != 0;
    const cw_i64 capacity = CW_EIG_SHARED_BYTES / sizeof(C);
    const bool in_shared = (vectors ? 2 : 1) * nn <= capacity;
    const cw_i64 scratch_per = vectors ? n + nn : n;
    for (cw_i64 m = blockIdx.x; m < a.count; m += gridDim.x) {
        C* work = (C*)a.work + m * nn;
        C* out = (C*)a.vectors + m * nn;
        C* u = (C*)a.scratch + m * scratch_per;
        C* x = u + n;
        C* h = in_shared ? shared_work : work;
        C* z = in_shared ? shared_work + nn : out;
        // 1. the largest |re| + |im|; then H (scaled) and Z = I
        R big = 0;
        for (cw_i64 e = tid; e < nn; e += nt) {
            const R v = cw_eig_abs1(work[e]);
            if (v > big || v != v) big = v;  // a NaN stays
        }
        partial[tid] = big;
        __syncthreads();
        if (tid == 0) {
            for (int i = 1; i < nt; ++i) if (partial[i] > big || partial[i] != partial[i]) big = partial[i];
            int e = 0;
            if (big == big && big != cw_inf<R>() && big > (R)0) cw_r_frexp(big, &e);
            st.exponent = e;
            st.amax = big;
        }
        __syncthreads();
        const R amax = st.amax;
        const int e = st.exponent;
        if (!(amax == amax) || amax == cw_inf<R>()) {
            if (tid == 0) a.info[m] = CW_EIG_NONFINITE;
            __syncthreads();  // st is rewritten by the next matrix
            continue;
        }
        for (cw_i64 i = tid; i < nn; i += nt) {
            h[i] = cw_eig_ldexp(work[i], -e);
            if (vectors) z[i] = cw_cplx((R)((i / n) == (i % n) ? 1 : 0), (R)0);
        }
        __syncthreads();
        cw_eig_hessenberg(h, z, u, n, vectors, st);
        if (cw_eig_schur(h, z, n, vectors, a.info + m, st)) {
            C* w = (C*)a.values + m * n;
            for (cw_i64 i = tid; i < n; i += nt) w[i] = cw_eig_ldexp(h[i * n + i], e);
            if (vectors) cw_eig_vectors(h, z, x, out, n, amax == (R)0 ? (R)0 : cw_r_ldexp(amax, -e));
            if (a.real_input) {
                R* partner = (R*)u;  // the reflector's slots, free now: n complex hold n reals
                __syncthreads();
                if (tid == 0) cw_eig_real_pairs(w, partner, n);
                __syncthreads();
                if (vectors) {
                    // a pair's second vector the conjugate of its first (both of unit norm, the
                    // largest component real); a real eigenvalue's vector real, renormalized
                    for (cw_i64 k = tid; k < n; k += nt) {
                        const cw_i64 p = (cw_i64)partner[k];
                        if (p != k) {
                            for (cw_i64 i = 0; i < n; ++i) out[i * n + k] = cw_eig_conj(out[i * n + p]);
                        } else if (w[k].im == (R)0) {
                            R norm = 0;
                            for (cw_i64 i = 0; i < n; ++i) norm = cw_r_hypot(norm, out[i * n + k].re);
                            for (cw_i64 i = 0; i < n; ++i)
                                out[i * n + k] = cw_cplx(norm > (R)0 ? out[i * n + k].re / norm : out[i * n + k].re, (R)0);
                        }
                    }
                }
            }
            if (tid == 0) a.info[m] = 0;
        }
        __syncthreads();  // shared memory and st are reused by the next matrix
    }
}
