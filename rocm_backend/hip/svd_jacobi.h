// One-sided (Hestenes) Jacobi SVD of one small real matrix by one thread block: the
// core of hip/svd_jacobi.hip, written so that g++ compiles it for the host too (given
// empty __device__ and __syncthreads macros and <math.h>), where tests run it with one
// thread and through tests/rocm/host/hip_host_fibers.h with a whole block.
//
// The working matrix W (R x C, R >= C, column-major in ``w``) is orthogonalized by plane
// rotations of column pairs, each rotation also applied to V (C x C, starting at I), so
// that W V = A V stays W: at convergence W's columns are U's columns times the singular
// values. Pairs follow the round-robin (circle) order: every pair once per sweep of C-1
// rounds (C rounded up to even, the extra index meaning "no partner"), the C/2 pairs of a
// round disjoint, so a round rotates them all at once. Each pair gets a group of G threads
// (G = threads / pairs): partial dot products, a barrier, then every thread of the group
// sums the same partials in the same order (so all compute the same rotation) and
// updates its own rows. A sweep with no rotation ends the iteration.
//
// Why these details: the matrix is first scaled by its largest magnitude (sums of
// squares neither overflow nor underflow for any finite input); a pair is rotated only
// when |a_p . a_q| > tol |a_p| |a_q| with tol = eps sqrt(R) (LAPACK's xGESVJ criterion) and
// neither column is negligible; the rotation's tangent is the smaller root (|t| <= 1),
// computed without squaring a huge cotangent. Columns that end (numerically) zero get a
// unit vector orthogonal to every other column (one thread, Gram-Schmidt twice on the
// first standard basis vector that keeps enough of its length), so U is orthonormal
// even for a rank-deficient A. Singular values come out descending: each column's rank
// among the norms is its output position.

template <class T> struct cw_svd_real;
template <> struct cw_svd_real<float> {
    __device__ static float sqrt_(float x) { return sqrtf(x); }
    __device__ static float abs_(float x) { return fabsf(x); }
    __device__ static float eps() { return 1.1920929e-07f; }
    __device__ static float tiny() { return 1.17549435e-38f; }  // smallest normal
    __device__ static bool finite(float x) { return x - x == 0.0f; }
};
template <> struct cw_svd_real<double> {
    __device__ static double sqrt_(double x) { return sqrt(x); }
    __device__ static double abs_(double x) { return fabs(x); }
    __device__ static double eps() { return 2.220446049250313e-16; }
    __device__ static double tiny() { return 2.2250738585072014e-308; }
    __device__ static bool finite(double x) { return x - x == 0.0; }
};

// Where one matrix's data lives: element (i, j) at ptr[i * rs + j * cs].
template <class T> struct cw_svd_view {
    T* ptr;
    long long rs, cs;
};

// Shared scratch of one block: w ((R+1)*C), v ((C+1)*C), part (3 * max(threads, pairs)),
// norm (C), mark (C), flag (1).
template <class T> struct cw_svd_scratch {
    T* w;
    T* v;
    T* part;
    T* norm;
    int* mark;
    int* flag;
};

// The pair (p, q) of round ``r`` at position k (either == C when C is odd: no partner).
__device__ inline void cw_svd_pair(int cp, int r, int k, int* p, int* q) {
    int m = cp - 1;
    *p = k == 0 ? 0 : ((k - 1 + r) % m) + 1;
    *q = ((cp - 1 - k - 1 + r) % m) + 1;
}

// Decompose src (R x C, R >= C) into the U columns (dst_u, R x C), V (dst_v, C x C) and
// descending singular values (s, C); returns through *info 0, or 1 when the sweeps did
// not converge or the input is not finite. Every thread of the block calls it.
template <class T>
__device__ void cw_svd_jacobi_core(int tid, int nth, int R, int C, cw_svd_view<const T> src, cw_svd_view<T> dst_u,
                                   cw_svd_view<T> dst_v, T* s, int* info, int max_sweeps,
                                   const cw_svd_scratch<T>& sc) {
    typedef cw_svd_real<T> M;
    T* w = sc.w;
    T* v = sc.v;
    T* part = sc.part;
    // column strides one past the heights: a warp's groups read different columns at
    // the same row, which a stride of 64 words would put in one shared-memory bank
    const int lw = R + 1, lv = C + 1;
    if (tid == 0) *sc.flag = 0;
    __syncthreads();
    // load W and each thread's largest magnitude
    T big = 0;
    bool finite = true;
    for (int idx = tid; idx < R * C; idx += nth) {
        int i = idx % R, j = idx / R;
        T x = src.ptr[i * src.rs + j * src.cs];
        w[j * lw + i] = x;
        finite = finite && M::finite(x);
        T ax = M::abs_(x);
        big = ax > big ? ax : big;
    }
    if (!finite) *sc.flag = 1;  // several threads may write the same 1
    part[tid] = big;
    __syncthreads();
    if (tid == 0) {
        T m = 0;
        for (int t = 0; t < nth; t++) m = part[t] > m ? part[t] : m;
        sc.norm[0] = m;
    }
    __syncthreads();
    const T scale = sc.norm[0] > 0 ? sc.norm[0] : (T)1;
    const bool bad_input = *sc.flag != 0;
    const T inv_scale = (T)1 / scale;
    for (int idx = tid; idx < R * C; idx += nth) w[(idx / R) * lw + idx % R] *= inv_scale;
    for (int idx = tid; idx < C * C; idx += nth) v[(idx / C) * lv + idx % C] = (idx % C) == (idx / C) ? (T)1 : (T)0;
    __syncthreads();

    const int cp = C + (C & 1), pairs = cp / 2;
    const int G = nth >= pairs ? nth / pairs : 1;
    const int groups = nth / G;
    const int lane = tid % G;
    const T tol = M::eps() * M::sqrt_((T)R);
    const T negligible = M::tiny() / M::eps();
    bool converged = bad_input;  // a non-finite input is not iterated on
    for (int sweep = 0; sweep < max_sweeps && !converged; sweep++) {
        if (tid == 0) *sc.flag = 0;
        __syncthreads();
        for (int r = 0; r < cp - 1; r++) {
            if (tid < groups * G) {
                for (int k = tid / G; k < pairs; k += groups) {
                    int p, q;
                    cw_svd_pair(cp, r, k, &p, &q);
                    T a = 0, b = 0, g = 0;
                    if (p < C && q < C) {
                        const T* wp = w + p * lw;
                        const T* wq = w + q * lw;
                        for (int i = lane; i < R; i += G) {
                            a += wp[i] * wp[i];
                            b += wq[i] * wq[i];
                            g += wp[i] * wq[i];
                        }
                    }
                    T* pk = part + 3 * G * k;
                    pk[lane] = a;
                    pk[G + lane] = b;
                    pk[2 * G + lane] = g;
                }
            }
            __syncthreads();
            if (tid < groups * G) {
                for (int k = tid / G; k < pairs; k += groups) {
                    int p, q;
                    cw_svd_pair(cp, r, k, &p, &q);
                    if (p >= C || q >= C) continue;
                    const T* pk = part + 3 * G * k;
                    T a = 0, b = 0, g = 0;
                    for (int l = 0; l < G; l++) {
                        a += pk[l];
                        b += pk[G + l];
                        g += pk[2 * G + l];
                    }
                    if (a <= negligible || b <= negligible) continue;
                    if (!(M::abs_(g) > tol * M::sqrt_(a) * M::sqrt_(b))) continue;
                    T zeta = (b - a) / (2 * g);
                    T az = M::abs_(zeta);
                    T t = az > (T)1e15 ? (T)0.5 / az : (T)1 / (az + M::sqrt_(1 + zeta * zeta));
                    if (zeta < 0) t = -t;
                    T c = (T)1 / M::sqrt_(1 + t * t), sn = c * t;
                    T* wp = w + p * lw;
                    T* wq = w + q * lw;
                    for (int i = lane; i < R; i += G) {
                        T x = wp[i], y = wq[i];
                        wp[i] = c * x - sn * y;
                        wq[i] = sn * x + c * y;
                    }
                    T* vp = v + p * lv;
                    T* vq = v + q * lv;
                    for (int i = lane; i < C; i += G) {
                        T x = vp[i], y = vq[i];
                        vp[i] = c * x - sn * y;
                        vq[i] = sn * x + c * y;
                    }
                    if (lane == 0) *sc.flag = 1;
                }
            }
            __syncthreads();
        }
        converged = *sc.flag == 0;
        __syncthreads();  // every thread has read the flag before thread 0 clears it
    }

    // column norms (the singular values of the scaled matrix), U's columns normalized
    for (int j = tid; j < C; j += nth) {
        T a = 0;
        for (int i = 0; i < R; i++) a += w[j * lw + i] * w[j * lw + i];
        bool zero = !(a > negligible * (T)R);
        sc.norm[j] = zero ? (T)0 : M::sqrt_(a);
        sc.mark[j] = zero ? 0 : 1;
    }
    __syncthreads();
    for (int idx = tid; idx < R * C; idx += nth) {
        int j = idx / R, at = j * lw + idx % R;
        w[at] = sc.mark[j] ? w[at] / sc.norm[j] : (T)0;
    }
    __syncthreads();
    if (tid == 0) {  // complete U for (numerically) zero columns
        for (int j = 0; j < C; j++) {
            if (sc.mark[j]) continue;
            T* u = w + j * lw;
            for (int e = 0; e < R; e++) {
                for (int i = 0; i < R; i++) u[i] = i == e ? (T)1 : (T)0;
                for (int pass = 0; pass < 2; pass++) {
                    for (int l = 0; l < C; l++) {
                        if (!sc.mark[l]) continue;
                        const T* ul = w + l * lw;
                        T d = 0;
                        for (int i = 0; i < R; i++) d += ul[i] * u[i];
                        for (int i = 0; i < R; i++) u[i] -= d * ul[i];
                    }
                }
                T n2 = 0;
                for (int i = 0; i < R; i++) n2 += u[i] * u[i];
                if (n2 > (T)0.5 / (T)R) {  // some e keeps at least 1/R of its length
                    T inv = (T)1 / M::sqrt_(n2);
                    for (int i = 0; i < R; i++) u[i] *= inv;
                    sc.mark[j] = 2;
                    break;
                }
            }
        }
    }
    __syncthreads();
    // output position of column j: how many columns come before it (larger, or equal
    // and earlier); ``part`` holds the positions as T (exact for C <= 64)
    for (int j = tid; j < C; j += nth) {
        int rank = 0;
        for (int l = 0; l < C; l++)
            rank += (sc.norm[l] > sc.norm[j] || (sc.norm[l] == sc.norm[j] && l < j)) ? 1 : 0;
        part[j] = (T)rank;
        s[rank] = sc.norm[j] * scale;
    }
    __syncthreads();
    for (int idx = tid; idx < R * C; idx += nth) {
        int i = idx % R, j = idx / R;
        dst_u.ptr[i * dst_u.rs + (int)part[j] * dst_u.cs] = w[j * lw + i];
    }
    for (int idx = tid; idx < C * C; idx += nth) {
        int i = idx % C, j = idx / C;
        dst_v.ptr[i * dst_v.rs + (int)part[j] * dst_v.cs] = v[j * lv + i];
    }
    if (tid == 0) *info = converged && !bad_input ? 0 : 1;
}
