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
