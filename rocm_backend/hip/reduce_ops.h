// The reduction ops and the combine of a thread group, apart from the kernels that walk
// memory (reduce.hip) because the fused kernels (codegen/fused_rows.py, fused_general.py)
// reduce with them too. hipRTC gets one source and no include path, so this file is not
// included: codegen/sources.py and codegen/fused_source.py concatenate it after math_ops.h and
// before reduce.hip.

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
template <class S> struct red_count_nonzero {
    typedef long long acc;
    typedef long long out;
    __device__ acc identity() const { return 0; }
    __device__ acc from(typename cw_traits<S>::compute x, cw_i64) const { return cw_cast<bool>(x) ? 1 : 0; }
    __device__ acc combine(acc a, acc b) const { return a + b; }
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

// The combined accumulator of a group of G consecutive threads of a 1-D block (G a power
// of two, a multiple of warpSize when it spans warps), valid in the group's first
// thread: a shuffle tree inside the warp, then the group's warps in order through
// ``smem`` (one entry per warp). Every thread of the block calls it (it may synchronize).
template <class Op> __device__ inline typename Op::acc cw_group_reduce(const Op& op, typename Op::acc acc,
                                                                       typename Op::acc* smem, int G) {
    const int width = G < warpSize ? G : warpSize;
    for (int d = width / 2; d > 0; d >>= 1) acc = op.combine(acc, cw_shfl_down(acc, d));
    if (G > warpSize) {
        const int warp = threadIdx.x / warpSize;
        if (threadIdx.x % warpSize == 0) smem[warp] = acc;
        __syncthreads();
        if (threadIdx.x % G == 0)
            for (int k = 1; k < G / warpSize; ++k) acc = op.combine(acc, smem[warp + k]);
        __syncthreads();  // smem is free again
    }
    return acc;
}

