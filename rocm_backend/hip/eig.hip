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
// Steps 2 and 3 (and the complex helpers) are in eig_schur.h; 4, 5 and the kernel here.

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
