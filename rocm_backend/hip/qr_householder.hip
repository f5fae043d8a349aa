// Batched QR of small real matrices (m, n <= CW_QR_MAX_N): one block of CW_QR_BLOCK
// threads per matrix, the working copy in shared memory, the algorithm in
// qr_householder.h. Q and R are written straight into their row-major results.
// struct cw_qr_args, CW_QR_MAX_N, CW_QR_BLOCK: abi.h (generated from rocm_backend/abi/structs.py)

template <class T> __device__ inline void cw_qr_householder(const cw_qr_args& a) {
    __shared__ T w[(CW_QR_MAX_N + 1) * CW_QR_MAX_N];  // columns padded by one (qr_householder.h)
    __shared__ T tau[CW_QR_MAX_N];
    const cw_i64 b = blockIdx.x;
    cw_qr_view<const T> src = {(const T*)a.src + b * a.src_bs, a.src_rs, a.src_cs};
    cw_qr_view<T> q = {(T*)a.q + b * a.q_bs, a.kq, 1};
    cw_qr_view<T> r = {(T*)a.r + b * a.r_bs, a.n, 1};
    cw_qr_householder_core<T>((int)threadIdx.x, (int)blockDim.x, (int)a.m, (int)a.n, (int)a.kq, (int)a.kr, src, q, r,
                              w, tau);
}
