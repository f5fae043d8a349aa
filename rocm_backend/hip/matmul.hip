// Batched integer matrix product (hipBLAS has no wrapping integer GEMM): 16x16 tiles
// in shared memory, accumulation wraps modulo 2^bits like the stored type.

// struct cw_matmul_args: abi.h (generated from rocm_backend/abi/structs.py)

// CW_TILE: abi.h (generated from rocm_backend/abi/structs.py)
template <class S> __device__ inline void cw_matmul(const cw_matmul_args& g) {
    typedef typename cw_traits<S>::compute C;
    __shared__ C ta[CW_TILE][CW_TILE + 1];
    __shared__ C tb[CW_TILE][CW_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const cw_i64 row = (cw_i64)blockIdx.y * CW_TILE + ty, col = (cw_i64)blockIdx.x * CW_TILE + tx;
    for (cw_i64 bt = blockIdx.z; bt < g.batch; bt += gridDim.z) {
        cw_i64 ao = g.a_off, bo = g.b_off, rem = bt;
        for (int d = g.batch_ndim - 1; d >= 0; --d) {
            cw_i64 n = g.batch_shape[d], q = rem / n, k = rem - q * n;
            rem = q;
            ao += k * g.a_batch_strides[d];
            bo += k * g.b_batch_strides[d];
        }
        const S* A = (const S*)g.a + ao;
        const S* B = (const S*)g.b + bo;
        C acc = cw_cast<C>(0);
        for (cw_i64 k0 = 0; k0 < g.K; k0 += CW_TILE) {
            cw_i64 ka = k0 + tx, kb = k0 + ty;
            ta[ty][tx] = (row < g.M && ka < g.K) ? cw_traits<S>::load(A[row * g.a_rs + ka * g.a_cs]) : cw_cast<C>(0);
            tb[ty][tx] = (kb < g.K && col < g.N) ? cw_traits<S>::load(B[kb * g.b_rs + col * g.b_cs]) : cw_cast<C>(0);
            __syncthreads();
            for (int k = 0; k < CW_TILE; ++k) acc = cw_wrap_add(acc, cw_wrap_mul(ta[ty][k], tb[k][tx]));
            __syncthreads();
        }
        if (row < g.M && col < g.N) cw_store<S>(g.c, (bt * g.M + row) * g.N + col, acc);
    }
}

// float32 products with one small edge, which BLAS libraries tile for square work: cuBLAS
// reads X at about half the H200's bandwidth in KMeans' X @ centers.T (200000 x 256 x 8) and
// centers' onehot.T @ X (8 x 200000 x 256). families/skinny_matmul.py says when these run
// (the shapes probe s29_skinny2 measured faster); both read the large operand once, in
// 16-byte vectors, and sum each output in a fixed order (the same bits on every run).

// C (M x N) = A (M x K) B (K x N), N <= W, M large ("narrow"): B^T (W x K) in shared memory;
// G consecutive lanes per row of A, each reading U 16-byte vectors of it at a time (A's rows
// 16-byte aligned, K a multiple of 4), their W sums met by shuffles; rows of C in steps of
// a block's rows, every lane in every step (the shuffles need the whole warp).
template <int W, int G, int U> __device__ inline void cw_matmul_narrow(const cw_skinny_args& g) {
    __shared__ cw_pack<float, 4> sb4[CW_SKINNY_SHARED / 4];
    float* sb = (float*)sb4;
    const int K = (int)g.K, N = (int)g.N, K4 = K / 4;
    const float* B = (const float*)g.b + g.b_off;
    for (int e = threadIdx.x; e < W * K; e += blockDim.x) {
        const int j = e / K, k = e - j * K;
        sb[e] = j < N ? B[k * g.b_rs + j * g.b_cs] : 0.f;
    }
    __syncthreads();
    const int lane = threadIdx.x % G, rows = blockDim.x / G;
    const float* A = (const float*)g.a + g.a_off;
    float* C = (float*)g.c;
    for (cw_i64 r0 = (cw_i64)blockIdx.x * rows; r0 < g.M; r0 += (cw_i64)gridDim.x * rows) {
        const cw_i64 row = r0 + threadIdx.x / G;
        const bool on = row < g.M;
        const float* a = A + (on ? row : 0) * g.a_rs;
        float acc[W];
#pragma unroll
        for (int j = 0; j < W; ++j) acc[j] = 0.f;
        for (int q = lane; q < K4; q += G * U) {
            cw_pack<float, 4> x[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                if (on && q + u * G < K4) {
                    x[u] = cw_vload<float, 4>(a, q + u * G);
                } else {
#pragma unroll
                    for (int e = 0; e < 4; ++e) x[u].v[e] = 0.f;
                }
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int k4 = q + u * G;
                if (k4 < K4) {
#pragma unroll
                    for (int j = 0; j < W; ++j) {
                        const cw_pack<float, 4> b = sb4[(j * K) / 4 + k4];
                        acc[j] += x[u].v[0] * b.v[0] + x[u].v[1] * b.v[1] + x[u].v[2] * b.v[2] + x[u].v[3] * b.v[3];
                    }
                }
            }
        }
#pragma unroll
        for (int d = G / 2; d > 0; d >>= 1) {
#pragma unroll
            for (int j = 0; j < W; ++j) acc[j] += cw_shfl_down(acc[j], d);
        }
        if (on && lane == 0) {
#pragma unroll
            for (int j = 0; j < W; ++j)
                if (j < N) C[row * N + j] = acc[j];
        }
    }
}

// C (M x N) = A (M x K) B (K x N), M <= W, K long ("long"): a block of 64 x (CW_SKINNY_BLOCK /
// 64) threads takes 256 columns of B (a 16-byte vector a thread: B's rows 16-byte aligned, N a
// multiple of 4) and the rows k of its chunk (blockIdx.y) U at a time per thread row; the
// thread rows' sums meet in shared memory in order, and the block writes its partial of C at
// c + blockIdx.y * M * N (the caller sums the partials).
template <int W, int U> __device__ inline void cw_matmul_long(const cw_skinny_args& g) {
    constexpr int TX = 64, TY = CW_SKINNY_BLOCK / 64;
    __shared__ cw_pack<float, 4> red[CW_SKINNY_BLOCK];
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX, M = (int)g.M;
    const cw_i64 n4 = (cw_i64)blockIdx.x * TX + tx;
    const bool on = 4 * n4 < g.N;
    const cw_i64 k0 = (cw_i64)blockIdx.y * g.chunk;
    const cw_i64 k1 = g.K - k0 < g.chunk ? g.K : k0 + g.chunk;
    const float* A = (const float*)g.a + g.a_off;
    const float* B = (const float*)g.b + g.b_off;
    float acc[W][4];
#pragma unroll
    for (int i = 0; i < W; ++i) {
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[i][e] = 0.f;
    }
    for (cw_i64 k = k0 + ty; k < k1; k += TY * U) {
        cw_pack<float, 4> b[U];
        float a[U][W];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const cw_i64 kk = k + TY * u;
            if (on && kk < k1) {
                b[u] = cw_vload<float, 4>(B + kk * g.b_rs, n4);
            } else {
#pragma unroll
                for (int e = 0; e < 4; ++e) b[u].v[e] = 0.f;
            }
#pragma unroll
            for (int i = 0; i < W; ++i) a[u][i] = (kk < k1 && i < M) ? A[i * g.a_rs + kk * g.a_cs] : 0.f;
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
#pragma unroll
            for (int i = 0; i < W; ++i) {
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[i][e] += a[u][i] * b[u].v[e];
            }
        }
    }
    float* P = (float*)g.c + (cw_i64)blockIdx.y * g.M * g.N;
#pragma unroll
    for (int i = 0; i < W; ++i) {
        if (i >= M) break;
#pragma unroll
        for (int e = 0; e < 4; ++e) red[threadIdx.x].v[e] = acc[i][e];
        __syncthreads();
        if (ty == 0 && on) {
            cw_pack<float, 4> s = red[tx];
            for (int y = 1; y < TY; ++y) {
#pragma unroll
                for (int e = 0; e < 4; ++e) s.v[e] += red[y * TX + tx].v[e];
            }
            cw_vstore<float, 4>(P + i * g.N, n4, s);
        }
        __syncthreads();
    }
}
