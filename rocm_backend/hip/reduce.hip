// Strided reductions. The host permutes the reduced axes last and picks:
//   rows: one block per (output, segment) when the reduced axes are the inner ones;
//   cols: one thread per output when a kept axis is innermost (coalesced reads).
// With splits > 1 a first launch (stage 1) writes accumulator partials [n_out, splits]
// and a second (stage 2, rows over the partials) combines them: a two-pass reduction.

struct cw_reduce_args {
    cw_i64 n_out, n_red;
    int out_ndim, red_ndim;
    cw_i64 out_shape[CW_MAX_DIMS], out_strides[CW_MAX_DIMS];
    cw_i64 red_shape[CW_MAX_DIMS], red_strides[CW_MAX_DIMS];
    const char* in;
    cw_i64 in_offset;
    char* out;
    cw_i64 chunk;  // reduced elements per segment
    int splits;    // segments per output
    int stage;     // 0: input -> result, 1: input -> partials, 2: partials -> result
};

__device__ inline cw_i64 cw_dims_offset(cw_i64 i, int ndim, const cw_i64* shape, const cw_i64* strides) {
    cw_i64 off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
        cw_i64 n = shape[d], q = i / n;
        off += (i - q * n) * strides[d];
        i = q;
    }
    return off;
}

template <class T> __device__ inline T cw_red_lowest() {
    return cw_is_signed<T>::value ? (T)(1ull << (sizeof(T) * 8 - 1)) : (T)0;
}
template <> __device__ inline bool cw_red_lowest<bool>() { return false; }
template <> __device__ inline float cw_red_lowest<float>() { return -cw_inf_f(); }
template <> __device__ inline double cw_red_lowest<double>() { return -cw_inf_d(); }
template <class T> __device__ inline T cw_red_highest() {
    return cw_is_signed<T>::value ? (T)~(1ull << (sizeof(T) * 8 - 1)) : (T)~0ull;
}
template <> __device__ inline bool cw_red_highest<bool>() { return true; }
template <> __device__ inline float cw_red_highest<float>() { return cw_inf_f(); }
template <> __device__ inline double cw_red_highest<double>() { return cw_inf_d(); }

// ---- reduction ops: acc type, identity, from(element, index), combine, finalize
template <class S> struct red_sum {
    typedef typename cw_traits<S>::compute acc;
    typedef S out;
    __device__ acc identity() const { return cw_cast<acc>(0); }
    __device__ acc from(acc x, cw_i64) const { return x; }
    __device__ acc combine(acc a, acc b) const { return cw_wrap_add(a, b); }
    __device__ acc finalize(acc a) const { return a; }
};
template <class S> struct red_prod {
    typedef typename cw_traits<S>::compute acc;
    typedef S out;
    __device__ acc identity() const { return cw_cast<acc>(1); }
    __device__ acc from(acc x, cw_i64) const { return x; }
    __device__ acc combine(acc a, acc b) const { return cw_wrap_mul(a, b); }
    __device__ acc finalize(acc a) const { return a; }
};
template <class S> struct red_max {
    typedef typename cw_traits<S>::compute acc;
    typedef S out;
    __device__ acc identity() const { return cw_red_lowest<acc>(); }
    __device__ acc from(acc x, cw_i64) const { return x; }
    __device__ acc combine(acc a, acc b) const { return op_maximum()(a, b); }
    __device__ acc finalize(acc a) const { return a; }
};
template <class S> struct red_min {
    typedef typename cw_traits<S>::compute acc;
    typedef S out;
    __device__ acc identity() const { return cw_red_highest<acc>(); }
    __device__ acc from(acc x, cw_i64) const { return x; }
    __device__ acc combine(acc a, acc b) const { return op_minimum()(a, b); }
    __device__ acc finalize(acc a) const { return a; }
};
template <class S> struct red_any {
    typedef bool acc;
    typedef cw_bool out;
    __device__ acc identity() const { return false; }
    __device__ acc from(typename cw_traits<S>::compute x, cw_i64) const { return cw_cast<bool>(x); }
    __device__ acc combine(acc a, acc b) const { return a || b; }
    __device__ acc finalize(acc a) const { return a; }
};
template <class S> struct red_all {
    typedef bool acc;
    typedef cw_bool out;
    __device__ acc identity() const { return true; }
    __device__ acc from(typename cw_traits<S>::compute x, cw_i64) const { return cw_cast<bool>(x); }
    __device__ acc combine(acc a, acc b) const { return a && b; }
    __device__ acc finalize(acc a) const { return a; }
};
template <class C> struct cw_arg_acc { C v; cw_i64 i; };
// first index of the extreme; a NaN is the extreme (its first occurrence)
template <class S, bool MAX> struct red_arg {
    typedef typename cw_traits<S>::compute C;
    typedef cw_arg_acc<C> acc;
    typedef long long out;
    __device__ acc identity() const { acc a; a.v = cw_cast<C>(0); a.i = -1; return a; }
    __device__ acc from(C x, cw_i64 i) const { acc a; a.v = x; a.i = i; return a; }
    __device__ acc combine(acc a, acc b) const {
        if (a.i < 0) return b;
        if (b.i < 0) return a;
        bool an = !(a.v == a.v), bn = !(b.v == b.v);
        if (an || bn) {
            if (an && bn) return a.i < b.i ? a : b;
            return an ? a : b;
        }
        if (MAX ? (a.v > b.v) : (a.v < b.v)) return a;
        if (MAX ? (b.v > a.v) : (b.v < a.v)) return b;
        return a.i < b.i ? a : b;
    }
    __device__ long long finalize(acc a) const { return a.i; }
};
template <class S> struct red_argmax : red_arg<S, true> {};
template <class S> struct red_argmin : red_arg<S, false> {};

template <class S, class Op> __device__ inline void cw_reduce_rows(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    __shared__ Acc smem[CW_BLOCK];
    Op op;
    const int tid = threadIdx.x, bd = blockDim.x;
    const cw_i64 total = a.n_out * a.splits;
    for (cw_i64 blk = blockIdx.x; blk < total; blk += gridDim.x) {
        cw_i64 row = blk / a.splits, seg = blk - row * a.splits;
        cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
        Acc acc = op.identity();
        if (a.stage == 2) {
            const Acc* p = (const Acc*)a.in + row * a.n_red;
            for (cw_i64 i = begin + tid; i < end; i += bd) acc = op.combine(acc, p[i]);
        } else {
            const S* p = (const S*)a.in + a.in_offset + cw_dims_offset(row, a.out_ndim, a.out_shape, a.out_strides);
            if (a.red_ndim == 1) {
                const cw_i64 s = a.red_strides[0];
                cw_i64 i = begin + tid;
                for (; i + 3 * bd < end; i += 4 * bd) {  // four loads in flight per thread
                    S v0 = p[i * s], v1 = p[(i + bd) * s], v2 = p[(i + 2 * bd) * s], v3 = p[(i + 3 * bd) * s];
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v0), i));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v1), i + bd));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v2), i + 2 * bd));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v3), i + 3 * bd));
                }
                for (; i < end; i += bd) acc = op.combine(acc, op.from(cw_traits<S>::load(p[i * s]), i));
            } else {
                for (cw_i64 i = begin + tid; i < end; i += bd) {
                    cw_i64 off = cw_dims_offset(i, a.red_ndim, a.red_shape, a.red_strides);
                    acc = op.combine(acc, op.from(cw_traits<S>::load(p[off]), i));
                }
            }
        }
        smem[tid] = acc;
        __syncthreads();
        for (int s = bd / 2; s > 0; s >>= 1) {  // tree over the block: any warp/wavefront width
            if (tid < s) smem[tid] = op.combine(smem[tid], smem[tid + s]);
            __syncthreads();
        }
        if (tid == 0) {
            if (a.stage == 1) ((Acc*)a.out)[blk] = smem[0];
            else cw_store<typename Op::out>(a.out, row, op.finalize(smem[0]));
        }
        __syncthreads();
    }
}

template <class S, class Op> __device__ inline void cw_reduce_cols(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    Op op;
    const cw_i64 seg = blockIdx.y;
    const cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
    for (cw_i64 o = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; o < a.n_out; o += (cw_i64)gridDim.x * blockDim.x) {
        const S* p = (const S*)a.in + a.in_offset + cw_dims_offset(o, a.out_ndim, a.out_shape, a.out_strides);
        Acc acc = op.identity();
        if (a.red_ndim == 1) {
            const cw_i64 s = a.red_strides[0];
            for (cw_i64 i = begin; i < end; ++i) acc = op.combine(acc, op.from(cw_traits<S>::load(p[i * s]), i));
        } else {
            for (cw_i64 i = begin; i < end; ++i)
                acc = op.combine(acc, op.from(cw_traits<S>::load(p[cw_dims_offset(i, a.red_ndim, a.red_shape, a.red_strides)]), i));
        }
        if (a.stage == 1) ((Acc*)a.out)[o * a.splits + seg] = acc;
        else cw_store<typename Op::out>(a.out, o, op.finalize(acc));
    }
}
