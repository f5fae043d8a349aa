// Householder QR of one small real matrix by one thread block: the core of
// hip/qr_householder.hip, written so that g++ compiles it for the host too (given empty
// __device__ and __syncthreads macros and <math.h>; tests run it with one thread and
// through tests/rocm/host/hip_host_fibers.h with a whole block).
//
// Column c of the working copy W (m x n, column-major in shared memory) belongs to thread
// c % threads for the whole factorization. Step j: the owner of column j turns it into a
// reflector H_j = I - tau_j v v^T (LAPACK's xLARFG: v_0 = 1, beta = -sign(alpha) |x|,
// R's diagonal entry beta, tau = 0 when nothing below the diagonal is left), a barrier,
// then every owner applies H_j to its own later columns. The owner of column j + 1 is the
// one that just updated it, so one barrier per step suffices. R is W's upper triangle.
// Q = H_0 H_1 ... H_{k-1} applied to the first kq columns of I, accumulated backwards
// (H_j touches rows >= j of columns >= j only): each thread builds its own columns of Q
// straight in the output, with no barrier. Norms are scaled by the largest magnitude, so
// no finite input overflows or underflows in a sum of squares.

template <class T> struct cw_qr_real;
template <> struct cw_qr_real<float> {
    __device__ static float sqrt_(float x) { return sqrtf(x); }
    __device__ static float abs_(float x) { return fabsf(x); }
};
template <> struct cw_qr_real<double> {
    __device__ static double sqrt_(double x) { return sqrt(x); }
    __device__ static double abs_(double x) { return fabs(x); }
};

// Element (i, j) of one matrix at ptr[i * rs + j * cs].
template <class T> struct cw_qr_view {
    T* ptr;
    long long rs, cs;
};

// Factor src (m x n) into Q (m x kq: k = min(m, n) or m columns) and R (kr x n, zero
// below the diagonal). w: (m + 1) * n scratch, tau: min(m, n) scratch, both shared by the block.
template <class T>
__device__ void cw_qr_householder_core(int tid, int nth, int m, int n, int kq, int kr, cw_qr_view<const T> src,
                                       cw_qr_view<T> q, cw_qr_view<T> r, T* w, T* tau) {
    typedef cw_qr_real<T> M;
    const int k = m < n ? m : n;
    // column stride one past the height: threads own columns and walk them in step, which
    // a stride of 64 words would put in one shared-memory bank
    const int ld = m + 1;
    for (int idx = tid; idx < m * n; idx += nth) {
        int i = idx % m, j = idx / m;
        w[j * ld + i] = src.ptr[i * src.rs + j * src.cs];
    }
    __syncthreads();
    for (int j = 0; j < k; j++) {
        if (j % nth == tid) {  // the owner forms the reflector of its column j
            T* x = w + j * ld;
            T alpha = x[j], big = 0;
            for (int i = j + 1; i < m; i++) big = M::abs_(x[i]) > big ? M::abs_(x[i]) : big;
            T t = 0;
            if (big > 0) {
                T ss = 0;
                for (int i = j + 1; i < m; i++) ss += (x[i] / big) * (x[i] / big);
                T xnorm = big * M::sqrt_(ss);
                T s = M::abs_(alpha) > xnorm ? M::abs_(alpha) : xnorm;
                T beta = s * M::sqrt_((alpha / s) * (alpha / s) + (xnorm / s) * (xnorm / s));
                if (alpha >= 0) beta = -beta;
                t = (beta - alpha) / beta;
                T inv = (T)1 / (alpha - beta);
                for (int i = j + 1; i < m; i++) x[i] *= inv;
                x[j] = beta;
            }
            tau[j] = t;
        }
        __syncthreads();
        const T* v = w + j * ld;
        const T t = tau[j];
        if (t != 0) {
            for (int c = j + 1 + ((tid - (j + 1)) % nth + nth) % nth; c < n; c += nth) {
                T* y = w + c * ld;
                T d = y[j];
                for (int i = j + 1; i < m; i++) d += v[i] * y[i];
                d *= t;
                y[j] -= d;
                for (int i = j + 1; i < m; i++) y[i] -= d * v[i];
            }
        }
    }
    __syncthreads();
    for (int idx = tid; idx < kr * n; idx += nth) {
        int i = idx % kr, c = idx / kr;
        r.ptr[i * r.rs + c * r.cs] = i <= c && i < m ? w[c * ld + i] : (T)0;
    }
    for (int c = tid; c < kq; c += nth) {
        T* y = q.ptr + c * q.cs;
        for (int i = 0; i < m; i++) y[i * q.rs] = i == c ? (T)1 : (T)0;
        for (int j = (c < k - 1 ? c : k - 1); j >= 0; j--) {
            const T t = tau[j];
            if (t == 0) continue;
            const T* v = w + j * ld;
            T d = y[j * q.rs];
            for (int i = j + 1; i < m; i++) d += v[i] * y[i * q.rs];
            d *= t;
            y[j * q.rs] -= d;
            for (int i = j + 1; i < m; i++) y[i * q.rs] -= d * v[i];
        }
    }
}
