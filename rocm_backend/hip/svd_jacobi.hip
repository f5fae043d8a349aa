// Batched SVD of small real matrices (R x C, R >= C, both <= CW_SVD_MAX_N): one block
// per matrix, the working matrix in shared memory, the algorithm in svd_jacobi.h.
// V shares the block's memory when both fit in CUDA's 48 KiB static limit (float32);
// for float64 it lives in v_scratch (global memory, (C+1)*C elements per matrix).
// struct cw_svd_args, CW_SVD_MAX_N, CW_SVD_BLOCK: abi.h (generated from rocm_backend/abi/structs.py)

template <class T, bool V_SHARED> __device__ inline void cw_svd_jacobi(const cw_svd_args& a) {
    __shared__ T w[(CW_SVD_MAX_N + 1) * CW_SVD_MAX_N];  // columns padded by one (svd_jacobi.h)
    __shared__ T v_shared[V_SHARED ? (CW_SVD_MAX_N + 1) * CW_SVD_MAX_N : 1];
    __shared__ T part[3 * (CW_SVD_BLOCK > CW_SVD_MAX_N ? CW_SVD_BLOCK : CW_SVD_MAX_N)];
    __shared__ T norm[CW_SVD_MAX_N];
    __shared__ int mark[CW_SVD_MAX_N];
    __shared__ int flag;
    const cw_i64 b = blockIdx.x;
    const int R = (int)a.R, C = (int)a.C;
    cw_svd_scratch<T> sc;
    sc.w = w;
    sc.v = V_SHARED ? v_shared : (T*)a.v_scratch + b * (C + 1) * C;
    sc.part = part;
    sc.norm = norm;
    sc.mark = mark;
    sc.flag = &flag;
    cw_svd_view<const T> src = {(const T*)a.src + b * a.src_bs, a.src_rs, a.src_cs};
    cw_svd_view<T> u = {(T*)a.u + b * a.u_bs, a.u_rs, a.u_cs};
    cw_svd_view<T> v = {(T*)a.v + b * a.v_bs, a.v_rs, a.v_cs};
    cw_svd_jacobi_core<T>((int)threadIdx.x, (int)blockDim.x, R, C, src, u, v, (T*)a.s + b * C,
                          (int*)a.info + b, a.max_sweeps, sc);
}
