// Searching through order-preserving unsigned keys (cw_sort_key: NaN above +inf, -0.0
// equal to +0.0), and the radix sort's keys and element-wise kernels (cw_radix; its tile
// and pass kernels, which only the sort module needs, are in radix.hip and radix_sweep.hip).
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

// ---------------------------------------------------------------------------------
// LSD radix sort of rows (families/sort.py drives it). cw_radix<S>: the key type K
// (cw_u32, or cw_u64 for 8-byte types), the key's significant bits, and key(v): an
// unsigned key in the order of the values (NaN above +inf, every NaN equal; -0.0 equal to
// +0.0; bool 0/1 in one bit). Each pass is stable, so equal keys keep their order in the
// row: ascending and descending (bits inverted) sorts are both stable.
template <class S> struct cw_radix;
#define CW_RADIX_INT(S, KT, NB, SIGNBIT)                                            \
    template <> struct cw_radix<S> {                                                \
        typedef KT K;                                                               \
        static const int bits = NB;                                                 \
        static __device__ inline K key(S v) {                                       \
            return (K)(cw_unsigned<S>::type)v ^ (K)(SIGNBIT);                       \
        }                                                                           \
        static __device__ inline S value(K k) {                                     \
            return (S)(cw_unsigned<S>::type)(k ^ (K)(SIGNBIT));                     \
        }                                                                           \
    };
CW_RADIX_INT(unsigned char, cw_u32, 8, 0u)
CW_RADIX_INT(unsigned short, cw_u32, 16, 0u)
CW_RADIX_INT(unsigned int, cw_u32, 32, 0u)
CW_RADIX_INT(unsigned long long, cw_u64, 64, 0ull)
CW_RADIX_INT(signed char, cw_u32, 8, 0x80u)
CW_RADIX_INT(short, cw_u32, 16, 0x8000u)
CW_RADIX_INT(int, cw_u32, 32, 0x80000000u)
CW_RADIX_INT(long long, cw_u64, 64, 0x8000000000000000ull)
#undef CW_RADIX_INT

// IEEE bits <-> key, one to one (the values decode exactly, zeros' signs and NaN payloads
// included): sign is the sign bit, all the key's mask. The order of the keys is the values'
// but for the classes the sort takes as equal (zeros of both signs, every NaN above +inf):
// the passes take each key's digits from its class's key (cw_radix_class, radix.hip).
template <class U> __device__ inline U cw_radix_float(U b, U sign, U all) {
    return (b & sign) ? (U)(~b & all) : (U)(b | sign);
}
template <class U> __device__ inline U cw_radix_unfloat(U k, U sign, U all) {
    return (k & sign) ? (U)(k ^ sign) : (U)(~k & all);
}
template <> struct cw_radix<cw_bool> {
    typedef cw_u32 K;
    static const int bits = 1;
    static __device__ inline K key(cw_bool v) { return v.v != 0 ? 1u : 0u; }
};
template <> struct cw_radix<cw_f16> {
    typedef cw_u32 K;
    static const int bits = 16;
    static __device__ inline K key(cw_f16 v) { return cw_radix_float<cw_u32>(v.bits, 0x8000u, 0xffffu); }
    static __device__ inline cw_f16 value(K k) {
        cw_f16 v;
        v.bits = (unsigned short)cw_radix_unfloat<cw_u32>(k, 0x8000u, 0xffffu);
        return v;
    }
};
template <> struct cw_radix<cw_bf16> {
    typedef cw_u32 K;
    static const int bits = 16;
    static __device__ inline K key(cw_bf16 v) { return cw_radix_float<cw_u32>(v.bits, 0x8000u, 0xffffu); }
    static __device__ inline cw_bf16 value(K k) {
        cw_bf16 v;
        v.bits = (unsigned short)cw_radix_unfloat<cw_u32>(k, 0x8000u, 0xffffu);
        return v;
    }
};
template <> struct cw_radix<float> {
    typedef cw_u32 K;
    static const int bits = 32;
    static __device__ inline K key(float v) { return cw_radix_float<cw_u32>(cw_f32_bits(v), 0x80000000u, 0xffffffffu); }
    static __device__ inline float value(K k) { return cw_bits_f32(cw_radix_unfloat<cw_u32>(k, 0x80000000u, 0xffffffffu)); }
};
template <> struct cw_radix<double> {
    typedef cw_u64 K;
    static const int bits = 64;
    static __device__ inline K key(double v) {
        return cw_radix_float<cw_u64>(cw_f64_bits(v), 0x8000000000000000ull, 0xffffffffffffffffull);
    }
    static __device__ inline double value(K k) {
        return cw_bits_f64(cw_radix_unfloat<cw_u64>(k, 0x8000000000000000ull, 0xffffffffffffffffull));
    }
};

// the keys of every row: cw_ew_args over (rows..., L); op0 keys (K, contiguous), op1 the
// source; CW_FLAG_A: descending (the key's bits inverted)
template <class S> __device__ inline void cw_radix_keys(const cw_ew_args& a) {
    typedef cw_radix<S> R;
    typedef typename R::K K;
    const K flip = (a.flags & CW_FLAG_A) ? (K)(~(K)0 >> (8 * sizeof(K) - R::bits)) : (K)0;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, i);
        ((K*)a.op[0].ptr)[o.o[0]] = R::key(((const S*)a.op[1].ptr)[o.o[1]]) ^ flip;
    }
}

// a sort's values from its sorted keys (the keys are the values, one to one: no
// positions needed): cw_ew_args over (rows..., L) in the output's order; op0 values,
// op1 keys (K, contiguous); CW_FLAG_A: descending
template <class S> __device__ inline void cw_radix_values(const cw_ew_args& a) {
    typedef cw_radix<S> R;
    typedef typename R::K K;
    const K flip = (a.flags & CW_FLAG_A) ? (K)(~(K)0 >> (8 * sizeof(K) - R::bits)) : (K)0;
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<2> o = cw_decode<2>(a, i);
        ((S*)a.op[0].ptr)[o.o[0]] = R::value(((const K*)a.op[1].ptr)[o.o[1]] ^ flip);
    }
}

// the sorted rows out: cw_ew_args over (rows..., L) in the output's order; op0 values (null:
// not wanted), op1 the source with stride 0 along the row (scalar[0]: its stride there), op2
// the sorted positions (u32, contiguous), op3 int64 positions (null: not wanted)
template <class B> __device__ inline void cw_radix_out(const cw_ew_args& a) {
    const cw_i64 stride = a.scalar[0];
    CW_GRID_STRIDE(i, a.n) {
        cw_offsets<4> o = cw_decode<4>(a, i);
        cw_i64 j = ((const cw_u32*)a.op[2].ptr)[o.o[2]];
        if (a.op[0].ptr) ((B*)a.op[0].ptr)[o.o[0]] = ((const B*)a.op[1].ptr)[o.o[1] + j * stride];
        if (a.op[3].ptr) ((cw_i64*)a.op[3].ptr)[o.o[3]] = j;
    }
}
