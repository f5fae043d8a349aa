// Sorting and searching through order-preserving unsigned keys: NaN above +inf,
// -0.0 equal to +0.0. Rows are padded to a power of two P with keys that sort last;
// (key, original index) pairs are sorted with a bitonic network, so equal keys keep
// their original order: the sort is stable in both directions (descending inverts the
// key, not the index).

__device__ inline cw_u64 cw_sort_key(bool x) { return x ? 1ull : 0ull; }
template <class T> __device__ inline cw_u64 cw_sort_key(T x) {
    if (cw_is_signed<T>::value) return (cw_u64)(long long)x ^ 0x8000000000000000ull;
    return (cw_u64)x;
}
__device__ inline cw_u64 cw_sort_key(float x) {
    if (!(x == x)) return 0xffffffffull;
    if (x == 0.f) x = 0.f;
    cw_u32 b = cw_f32_bits(x);
    return (cw_u64)((b & 0x80000000u) ? ~b : (b | 0x80000000u));
}
__device__ inline cw_u64 cw_sort_key(double x) {
    if (!(x == x)) return 0xffffffffffffffffull;
    if (x == 0.) x = 0.;
    cw_u64 b = cw_f64_bits(x);
    return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}

// keys/indices of every row: cw_ew_args over (kept..., L); op0 keys (u64, padded row
// layout), op1 source, op2 indices (same layout as op0); scalar[0] = L; CW_FLAG_A: descending
template <class S> __device__ inline void cw_sort_keys(const cw_ew_args& a) {
    const cw_i64 len = a.scalar[0];
    const bool desc = (a.flags & CW_FLAG_A) != 0;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<3> o = cw_decode<3>(a, i);
        cw_u64 k = cw_sort_key(cw_load<S>(a.op[1].ptr, o.o[1]));
        ((cw_u64*)a.op[0].ptr)[o.o[0]] = desc ? ~k : k;
        ((cw_i64*)a.op[2].ptr)[o.o[2]] = i % len;
    }
}

__device__ inline bool cw_pair_greater(cw_u64 ka, cw_i64 ia, cw_u64 kb, cw_i64 ib) {
    return ka > kb || (ka == kb && ia > ib);
}

// Bitonic stages with k <= segment size, in shared memory, one block per segment.
// op0.ptr keys, op1.ptr indices; n = rows * P; scalar[0] = P, scalar[3] = segment size
// (a power of two <= 2048). The direction of each pair comes from its index in the row.
// CW_SORT_SEG: abi.h (generated from rocm_backend/abi/structs.py)
__device__ inline void cw_sort_bitonic_shared(const cw_ew_args& a) {
    __shared__ cw_u64 keys[CW_SORT_SEG];
    __shared__ cw_i64 idx[CW_SORT_SEG];
    const cw_i64 P = a.scalar[0], seg = a.scalar[3], kmax = a.scalar[1];
    cw_u64* gk = (cw_u64*)a.op[0].ptr;
    cw_i64* gi = (cw_i64*)a.op[1].ptr;
    const int tid = threadIdx.x, bd = blockDim.x;
    for (cw_i64 s = blockIdx.x; s * seg < a.n; s += gridDim.x) {
        cw_i64 base = s * seg, in_row = base % P;
        for (cw_i64 t = tid; t < seg; t += bd) { keys[t] = gk[base + t]; idx[t] = gi[base + t]; }
        __syncthreads();
        for (cw_i64 k = 2; k <= kmax; k <<= 1) {
            for (cw_i64 j = k >> 1; j > 0; j >>= 1) {
                for (cw_i64 t = tid; t < seg; t += bd) {
                    cw_i64 l = t ^ j;
                    if (l > t) {
                        bool up = ((in_row + t) & k) == 0;
                        bool gt = cw_pair_greater(keys[t], idx[t], keys[l], idx[l]);
                        if (gt == up) {
                            cw_u64 tk = keys[t]; keys[t] = keys[l]; keys[l] = tk;
                            cw_i64 ti = idx[t]; idx[t] = idx[l]; idx[l] = ti;
                        }
                    }
                }
                __syncthreads();
            }
        }
        for (cw_i64 t = tid; t < seg; t += bd) { gk[base + t] = keys[t]; gi[base + t] = idx[t]; }
        __syncthreads();
    }
}

// The tail of stage k (j < segment size) in shared memory: scalar[1] = k.
__device__ inline void cw_sort_bitonic_tail(const cw_ew_args& a) {
    __shared__ cw_u64 keys[CW_SORT_SEG];
    __shared__ cw_i64 idx[CW_SORT_SEG];
    const cw_i64 P = a.scalar[0], k = a.scalar[1], seg = a.scalar[3];
    cw_u64* gk = (cw_u64*)a.op[0].ptr;
    cw_i64* gi = (cw_i64*)a.op[1].ptr;
    const int tid = threadIdx.x, bd = blockDim.x;
    for (cw_i64 s = blockIdx.x; s * seg < a.n; s += gridDim.x) {
        cw_i64 base = s * seg, in_row = base % P;
        for (cw_i64 t = tid; t < seg; t += bd) { keys[t] = gk[base + t]; idx[t] = gi[base + t]; }
        __syncthreads();
        for (cw_i64 j = seg >> 1; j > 0; j >>= 1) {
            for (cw_i64 t = tid; t < seg; t += bd) {
                cw_i64 l = t ^ j;
                if (l > t) {
                    bool up = ((in_row + t) & k) == 0;
                    bool gt = cw_pair_greater(keys[t], idx[t], keys[l], idx[l]);
                    if (gt == up) {
                        cw_u64 tk = keys[t]; keys[t] = keys[l]; keys[l] = tk;
                        cw_i64 ti = idx[t]; idx[t] = idx[l]; idx[l] = ti;
                    }
                }
            }
            __syncthreads();
        }
        for (cw_i64 t = tid; t < seg; t += bd) { gk[base + t] = keys[t]; gi[base + t] = idx[t]; }
        __syncthreads();
    }
}

// One compare-exchange step (k, j) over global memory: scalar[1] = k, scalar[2] = j.
__device__ inline void cw_sort_bitonic_step(const cw_ew_args& a) {
    const cw_i64 P = a.scalar[0], k = a.scalar[1], j = a.scalar[2];
    cw_u64* gk = (cw_u64*)a.op[0].ptr;
    cw_i64* gi = (cw_i64*)a.op[1].ptr;
    CW_GRID_STRIDE(g, a.n) {
        cw_i64 t = g % P, l = t ^ j;
        if (l > t) {
            cw_i64 gl = g - t + l;
            bool up = (t & k) == 0;
            bool gt = cw_pair_greater(gk[g], gi[g], gk[gl], gi[gl]);
            if (gt == up) {
                cw_u64 tk = gk[g]; gk[g] = gk[gl]; gk[gl] = tk;
                cw_i64 ti = gi[g]; gi[g] = gi[gl]; gi[gl] = ti;
            }
        }
    }
}

// searchsorted: op0 out int64, op1 values; sorted x at op2.ptr + op2.offset with
// stride scalar[0] and length scalar[1]; CW_FLAG_A: right side
template <class S> __device__ inline void cw_searchsorted(const cw_ew_args& a) {
    const cw_i64 stride = a.scalar[0], len = a.scalar[1];
    const bool right = (a.flags & CW_FLAG_A) != 0;
    const S* x = (const S*)a.op[2].ptr + a.op[2].offset;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, i);
        cw_u64 v = cw_sort_key(cw_load<S>(a.op[1].ptr, o.o[1]));
        cw_i64 lo = 0, hi = len;
        while (lo < hi) {
            cw_i64 mid = lo + (hi - lo) / 2;
            cw_u64 k = cw_sort_key(cw_traits<S>::load(x[mid * stride]));
            if (right ? (k <= v) : (k < v)) lo = mid + 1;
            else hi = mid;
        }
        ((cw_i64*)a.op[0].ptr)[o.o[0]] = lo;
    }
}
