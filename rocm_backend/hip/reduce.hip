// Strided reductions. The host permutes the reduced axes last and picks:
//   rows: one block per (output, segment) when the reduced axes are the inner ones;
//         a unit-stride segment is read with 16-byte vector loads (after a scalar head
//         up to the first aligned element), and the block combines with warp shuffles
//         (warpSize lanes, whatever the vendor's width) and one shared-memory step;
//   cols: one thread per output (``vec`` adjacent outputs per thread with one vector
//         load per reduced element when the host found them contiguous and aligned)
//         when a kept axis is innermost, so a warp's loads are coalesced.
// With splits > 1 a first launch (stage 1) writes accumulator partials and a second
// (stage 2) combines them: a two-pass reduction. rows partials are [n_out][splits]
// (stage 2 is rows over them); cols partials are [splits][n_out] (stage 2 is cols
// over them, one coalesced thread per output).

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
    int vec;       // cols: adjacent outputs per thread (1, 2 or 4)
    int pad_;
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

// ---- shuffles of any accumulator type, as 32-bit words ------------------------------------
template <class T> __device__ inline T cw_shfl_down(T v, int delta) {
    union U { T t; int w[(sizeof(T) + 3) / 4]; } u;
    u.t = v;
#pragma unroll
    for (int k = 0; k < (int)((sizeof(T) + 3) / 4); ++k) u.w[k] = __shfl_down(u.w[k], delta);
    return u.t;
}

// The block's combined accumulator (valid in thread 0). Every thread of the block must
// call it; ``smem`` holds one entry per warp. The block size is a multiple of warpSize.
template <class Op> __device__ inline typename Op::acc cw_block_reduce(const Op& op, typename Op::acc acc,
                                                                       typename Op::acc* smem) {
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
    for (int d = warpSize / 2; d > 0; d >>= 1) acc = op.combine(acc, cw_shfl_down(acc, d));
    if (lane == 0) smem[warp] = acc;
    __syncthreads();
    if (warp == 0) {
        acc = lane < nwarps ? smem[lane] : op.identity();
        for (int d = warpSize / 2; d > 0; d >>= 1) acc = op.combine(acc, cw_shfl_down(acc, d));
    }
    return acc;
}

// this thread's share of p[begin, end) (unit stride): a scalar head up to the first
// element aligned for 16-byte vectors, the vectors (two per step), a scalar tail
template <class S, class Op> __device__ inline typename Op::acc cw_reduce_span(const Op& op, typename Op::acc acc,
                                                                              const S* p, cw_i64 begin, cw_i64 end) {
    const int V = cw_vec_width<S, S>::value;
    const int tid = threadIdx.x, bd = blockDim.x;
    const S* q = p + begin;
    const cw_i64 n = end - begin;
    cw_i64 head = (cw_i64)(((cw_u64)q / sizeof(S)) % (cw_u64)V);
    head = head ? V - head : 0;
    if (head > n) head = n;
    for (cw_i64 i = tid; i < head; i += bd) acc = op.combine(acc, op.from(cw_traits<S>::load(q[i]), begin + i));
    const cw_i64 nv = (n - head) / V;
    const S* vq = q + head;
    const cw_i64 base = begin + head;
    cw_i64 j = tid;
    for (; j + bd < nv; j += 2 * bd) {
        cw_pack<S, V> x0 = cw_vload<S, V>(vq, j), x1 = cw_vload<S, V>(vq, j + bd);
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op.combine(acc, op.from(cw_traits<S>::load(x0.v[k]), base + j * V + k));
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op.combine(acc, op.from(cw_traits<S>::load(x1.v[k]), base + (j + bd) * V + k));
    }
    if (j < nv) {
        cw_pack<S, V> x0 = cw_vload<S, V>(vq, j);
#pragma unroll
        for (int k = 0; k < V; ++k) acc = op.combine(acc, op.from(cw_traits<S>::load(x0.v[k]), base + j * V + k));
    }
    for (cw_i64 i = head + nv * V + tid; i < n; i += bd) acc = op.combine(acc, op.from(cw_traits<S>::load(q[i]), begin + i));
    return acc;
}

template <class S, class Op> __device__ inline void cw_reduce_rows(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    __shared__ Acc smem[CW_MAX_WARPS];
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
            if (a.red_ndim == 1 && a.red_strides[0] == 1) {
                acc = cw_reduce_span<S, Op>(op, acc, p, begin, end);
            } else if (a.red_ndim == 1) {
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
        acc = cw_block_reduce(op, acc, smem);
        if (tid == 0) {
            if (a.stage == 1) ((Acc*)a.out)[blk] = acc;
            else cw_store<typename Op::out>(a.out, row, op.finalize(acc));
        }
        __syncthreads();  // smem is reused by the next row
    }
}

// cols: thread t owns outputs t*vec .. t*vec+vec-1 of this y-segment
template <class S, class Op, int VO> __device__ inline void cw_reduce_cols_vec(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    Op op;
    const cw_i64 seg = blockIdx.y;
    const cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
    const cw_i64 s = a.red_strides[0] / VO;  // in vectors
    const cw_i64 nthreads = a.n_out / VO;
    for (cw_i64 t = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; t < nthreads; t += (cw_i64)gridDim.x * blockDim.x) {
        const S* p = (const S*)a.in + a.in_offset + t * VO;  // output stride is 1
        Acc acc[VO];
#pragma unroll
        for (int k = 0; k < VO; ++k) acc[k] = op.identity();
        cw_i64 i = begin;
        for (; i + 1 < end; i += 2) {  // two rows' loads in flight (four measured slower)
            cw_pack<S, VO> x0 = cw_vload<S, VO>(p, i * s), x1 = cw_vload<S, VO>(p, (i + 1) * s);
#pragma unroll
            for (int k = 0; k < VO; ++k) {
                acc[k] = op.combine(acc[k], op.from(cw_traits<S>::load(x0.v[k]), i));
                acc[k] = op.combine(acc[k], op.from(cw_traits<S>::load(x1.v[k]), i + 1));
            }
        }
        if (i < end) {
            cw_pack<S, VO> x0 = cw_vload<S, VO>(p, i * s);
#pragma unroll
            for (int k = 0; k < VO; ++k) acc[k] = op.combine(acc[k], op.from(cw_traits<S>::load(x0.v[k]), i));
        }
#pragma unroll
        for (int k = 0; k < VO; ++k) {
            const cw_i64 o = t * VO + k;
            if (a.stage == 1) ((Acc*)a.out)[seg * a.n_out + o] = acc[k];
            else cw_store<typename Op::out>(a.out, o, op.finalize(acc[k]));
        }
    }
}

template <class S, class Op> __device__ inline void cw_reduce_cols(const cw_reduce_args& a) {
    typedef typename Op::acc Acc;
    const int VW = cw_vec_width<S, S>::value;
    if (a.stage != 2 && a.vec == 4 && VW >= 4) { cw_reduce_cols_vec<S, Op, (VW >= 4 ? 4 : 1)>(a); return; }
    if (a.stage != 2 && a.vec == 2 && VW >= 2) { cw_reduce_cols_vec<S, Op, (VW >= 2 ? 2 : 1)>(a); return; }
    Op op;
    const cw_i64 seg = blockIdx.y;
    const cw_i64 begin = seg * a.chunk, end = begin + a.chunk < a.n_red ? begin + a.chunk : a.n_red;
    for (cw_i64 o = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; o < a.n_out; o += (cw_i64)gridDim.x * blockDim.x) {
        Acc acc = op.identity();
        if (a.stage == 2) {  // partials [splits][n_out]: n_red = splits
            const Acc* p = (const Acc*)a.in;
            for (cw_i64 i = 0; i < a.n_red; ++i) acc = op.combine(acc, p[i * a.n_out + o]);
        } else {
            const S* p = (const S*)a.in + a.in_offset + cw_dims_offset(o, a.out_ndim, a.out_shape, a.out_strides);
            if (a.red_ndim == 1) {
                const cw_i64 s = a.red_strides[0];
                cw_i64 i = begin;
                for (; i + 3 < end; i += 4) {  // four loads in flight
                    S v0 = p[i * s], v1 = p[(i + 1) * s], v2 = p[(i + 2) * s], v3 = p[(i + 3) * s];
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v0), i));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v1), i + 1));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v2), i + 2));
                    acc = op.combine(acc, op.from(cw_traits<S>::load(v3), i + 3));
                }
                for (; i < end; ++i) acc = op.combine(acc, op.from(cw_traits<S>::load(p[i * s]), i));
            } else {
                for (cw_i64 i = begin; i < end; ++i)
                    acc = op.combine(acc, op.from(cw_traits<S>::load(p[cw_dims_offset(i, a.red_ndim, a.red_shape, a.red_strides)]), i));
            }
        }
        if (a.stage == 1) ((Acc*)a.out)[seg * a.n_out + o] = acc;
        else cw_store<typename Op::out>(a.out, o, op.finalize(acc));
    }
}
