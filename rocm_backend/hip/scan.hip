// Inclusive scans along one axis: one block per row, the row walked in blocks of
// CW_BLOCK elements with a shared-memory (Hillis-Steele) scan and a running carry.
// ABI: cw_ew_args over the kept axes (n = rows, op0 = out, op1 = in; no CONTIGUOUS
// flag), scalar[0] = row length, scalar[1] = input axis stride, scalar[2] = output axis stride.

template <class S> struct scan_sum {
    typedef typename cw_traits<S>::compute C;
    __device__ C identity() const { return cw_cast<C>(0); }
    __device__ C operator()(C a, C b) const { return cw_wrap_add(a, b); }
};
template <class S> struct scan_prod {
    typedef typename cw_traits<S>::compute C;
    __device__ C identity() const { return cw_cast<C>(1); }
    __device__ C operator()(C a, C b) const { return cw_wrap_mul(a, b); }
};

template <class S, class Op> __device__ inline void cw_scan(const cw_ew_args& a) {
    typedef typename Op::C C;
    __shared__ C buf[CW_BLOCK];
    Op op;
    const int tid = threadIdx.x, bd = blockDim.x;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2];
    for (cw_i64 row = blockIdx.x; row < a.n; row += gridDim.x) {
        cw_offsets<2> o = cw_decode<2>(a, row);
        C carry = op.identity();
        for (cw_i64 start = 0; start < len; start += bd) {
            cw_i64 i = start + tid;
            buf[tid] = i < len ? cw_load<S>(a.op[1].ptr, o.o[1] + i * s_in) : op.identity();
            __syncthreads();
            for (int d = 1; d < bd; d <<= 1) {
                C t = tid >= d ? buf[tid - d] : op.identity();
                __syncthreads();
                if (tid >= d) buf[tid] = op(t, buf[tid]);
                __syncthreads();
            }
            if (i < len) cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, op(carry, buf[tid]));
            carry = op(carry, buf[bd - 1]);
            __syncthreads();
        }
    }
}

// One thread per row, strictly left to right: the same association as NumPy's
// cumprod. Used for complex products, whose infinities and NaNs depend on the order
// of the multiplications (a parallel scan regroups them).
template <class S, class Op> __device__ inline void cw_scan_seq(const cw_ew_args& a) {
    typedef typename Op::C C;
    Op op;
    const cw_i64 len = a.scalar[0], s_in = a.scalar[1], s_out = a.scalar[2];
    CW_GRID_STRIDE(row, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, row);
        C carry = op.identity();
        for (cw_i64 i = 0; i < len; ++i) {
            carry = i ? op(carry, cw_load<S>(a.op[1].ptr, o.o[1] + i * s_in)) : cw_load<S>(a.op[1].ptr, o.o[1]);
            cw_store<S>(a.op[0].ptr, o.o[0] + i * s_out, carry);
        }
    }
}
