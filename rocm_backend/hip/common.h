// candlewick ROCm backend: types, conversions and the kernel ABIs shared by every module.
//
// Compiled by hipRTC (AMD) and, through tools/hip_on_cuda, by NVRTC: no headers are
// included (ROCm 5.2's hipRTC pre-includes its fp16 header, NVRTC has none), so every
// name here carries a cw_ prefix and half types are our own bit-level structs.
// Index arithmetic is 64-bit: arrays may hold more than 2^31 elements.

typedef long long cw_i64;
typedef unsigned long long cw_u64;
typedef unsigned int cw_u32;

// CW_MAX_DIMS, CW_MAX_OPERANDS, CW_BLOCK and the argument structs: abi.h (generated from rocm_backend/abi/structs.py)
// per-warp slots of block reductions: enough for 1024 threads at the narrowest width
#define CW_MAX_WARPS 32

// ---------------------------------------------------------------------------------
// storage types that differ from their compute type
struct cw_bool { unsigned char v; };
struct cw_f16 { unsigned short bits; };
struct cw_bf16 { unsigned short bits; };
template <class R> struct cw_complex { R re, im; };
typedef cw_complex<float> cw_c64;
typedef cw_complex<double> cw_c128;

__device__ inline float cw_bits_f32(cw_u32 u) { union { cw_u32 u; float f; } c; c.u = u; return c.f; }
__device__ inline cw_u32 cw_f32_bits(float f) { union { cw_u32 u; float f; } c; c.f = f; return c.u; }
__device__ inline double cw_bits_f64(cw_u64 u) { union { cw_u64 u; double f; } c; c.u = u; return c.f; }
__device__ inline cw_u64 cw_f64_bits(double f) { union { cw_u64 u; double f; } c; c.f = f; return c.u; }

__device__ inline float cw_inf_f() { return cw_bits_f32(0x7f800000u); }
__device__ inline float cw_nan_f() { return cw_bits_f32(0x7fc00000u); }
__device__ inline double cw_inf_d() { return cw_bits_f64(0x7ff0000000000000ull); }
__device__ inline double cw_nan_d() { return cw_bits_f64(0x7ff8000000000000ull); }
template <class T> __device__ inline T cw_nan();
template <> __device__ inline float cw_nan<float>() { return cw_nan_f(); }
template <> __device__ inline double cw_nan<double>() { return cw_nan_d(); }
template <class T> __device__ inline T cw_inf();
template <> __device__ inline float cw_inf<float>() { return cw_inf_f(); }
template <> __device__ inline double cw_inf<double>() { return cw_inf_d(); }

// IEEE half <-> float with round-to-nearest-even, by bit operations.
__device__ inline float cw_half_to_float(unsigned short h) {
    cw_u32 sign = ((cw_u32)h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0) {  // zero or subnormal: mant * 2^-24 is exact in float
        float f = (float)mant * 5.9604644775390625e-8f;
        return sign ? -f : f;
    }
    if (exp == 31) return cw_bits_f32(sign | 0x7f800000u | (mant << 13));
    return cw_bits_f32(sign | ((exp + 112u) << 23) | (mant << 13));
}

__device__ inline unsigned short cw_float_to_half(float f) {
    cw_u32 x = cw_f32_bits(f), sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u)  // inf or NaN (NaN stays quiet, keeps the top payload bits)
        return (unsigned short)(sign | 0x7c00u | (ax > 0x7f800000u ? (0x200u | ((ax >> 13) & 0x3ffu)) : 0u));
    if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds to inf
    if (ax < 0x38800000u) {  // below the smallest normal half: scale exactly, round once
        cw_u32 m = (cw_u32)rintf(cw_bits_f32(ax) * 16777216.0f);
        return (unsigned short)(sign | m);
    }
    cw_u32 h = (ax >> 13) - (112u << 10), rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
    return (unsigned short)(sign | h);
}

__device__ inline float cw_bf16_to_float(unsigned short b) { return cw_bits_f32((cw_u32)b << 16); }
__device__ inline unsigned short cw_float_to_bf16(float f) {
    cw_u32 x = cw_f32_bits(f);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
    x += 0x7fffu + ((x >> 16) & 1u);
    return (unsigned short)(x >> 16);
}

// ---------------------------------------------------------------------------------
// storage <-> compute: half types compute in float, bool in bool, the rest as stored
template <class S> struct cw_traits {
    typedef S compute;
    static __device__ inline S load(S v) { return v; }
    static __device__ inline S store(S v) { return v; }
};
template <> struct cw_traits<cw_bool> {
    typedef bool compute;
    static __device__ inline bool load(cw_bool v) { return v.v != 0; }
    static __device__ inline cw_bool store(bool v) { cw_bool r; r.v = v ? 1 : 0; return r; }
};
template <> struct cw_traits<cw_f16> {
    typedef float compute;
    static __device__ inline float load(cw_f16 v) { return cw_half_to_float(v.bits); }
    static __device__ inline cw_f16 store(float v) { cw_f16 r; r.bits = cw_float_to_half(v); return r; }
};
template <> struct cw_traits<cw_bf16> {
    typedef float compute;
    static __device__ inline float load(cw_bf16 v) { return cw_bf16_to_float(v.bits); }
    static __device__ inline cw_bf16 store(float v) { cw_bf16 r; r.bits = cw_float_to_bf16(v); return r; }
};

template <class T> struct cw_real_of { typedef T type; };
template <class R> struct cw_real_of<cw_complex<R> > { typedef R type; };

template <class T> struct cw_is_signed { static const bool value = (T)(-1) < (T)0; };
template <> struct cw_is_signed<bool> { static const bool value = false; };
template <class R> struct cw_is_signed<cw_complex<R> > { static const bool value = true; };

template <class T> struct cw_unsigned { typedef T type; };
template <> struct cw_unsigned<signed char> { typedef unsigned char type; };
template <> struct cw_unsigned<short> { typedef unsigned short type; };
template <> struct cw_unsigned<int> { typedef unsigned int type; };
template <> struct cw_unsigned<long long> { typedef unsigned long long type; };

// ---------------------------------------------------------------------------------
// conversions between compute types (NumPy casting rules)
template <class To, class From> struct cw_cast_impl {
    static __device__ inline To run(From x) { return (To)x; }
};
template <class From> struct cw_cast_impl<bool, From> {
    static __device__ inline bool run(From x) { return x != (From)0; }
};
template <> struct cw_cast_impl<bool, bool> { static __device__ inline bool run(bool x) { return x; } };
template <class R, class From> struct cw_cast_impl<cw_complex<R>, From> {
    static __device__ inline cw_complex<R> run(From x) { cw_complex<R> r; r.re = (R)x; r.im = (R)0; return r; }
};
template <class R, class R2> struct cw_cast_impl<cw_complex<R>, cw_complex<R2> > {
    static __device__ inline cw_complex<R> run(cw_complex<R2> x) { cw_complex<R> r; r.re = (R)x.re; r.im = (R)x.im; return r; }
};
template <class R> struct cw_cast_impl<bool, cw_complex<R> > {
    static __device__ inline bool run(cw_complex<R> x) { return x.re != (R)0 || x.im != (R)0; }
};
template <class To, class R> struct cw_cast_impl<To, cw_complex<R> > {
    static __device__ inline To run(cw_complex<R> x) { return cw_cast_impl<To, R>::run(x.re); }
};
// floating -> integer: truncate toward zero; NaN/inf/out of range give some value, never a fault
template <class To, class F> __device__ inline To cw_float_to_int(F x) {
    if (!(x == x)) return (To)0;
    if (cw_is_signed<To>::value) {
        if (x <= (F)-9.2233720368547758e18) return (To)(long long)(-9223372036854775807ll - 1);
        if (x >= (F)9.2233720368547758e18) return (To)9223372036854775807ll;
        return (To)(long long)x;
    }
    if (x < (F)0) return (To)(long long)(x <= (F)-9.2233720368547758e18 ? (F)0 : x);
    if (x >= (F)1.8446744073709552e19) return (To)18446744073709551615ull;
    return (To)(unsigned long long)x;
}
#define CW_FLOAT_TO_INT(To) \
    template <> struct cw_cast_impl<To, float> { static __device__ inline To run(float x) { return cw_float_to_int<To, float>(x); } }; \
    template <> struct cw_cast_impl<To, double> { static __device__ inline To run(double x) { return cw_float_to_int<To, double>(x); } };
CW_FLOAT_TO_INT(signed char)
CW_FLOAT_TO_INT(short)
CW_FLOAT_TO_INT(int)
CW_FLOAT_TO_INT(long long)
CW_FLOAT_TO_INT(unsigned char)
CW_FLOAT_TO_INT(unsigned short)
CW_FLOAT_TO_INT(unsigned int)
CW_FLOAT_TO_INT(unsigned long long)

template <class To, class From> __device__ inline To cw_cast(From x) { return cw_cast_impl<To, From>::run(x); }

// load a stored element as compute type C / store a compute value as storage type S
template <class S> __device__ inline typename cw_traits<S>::compute cw_load(const char* p, cw_i64 off) {
    return cw_traits<S>::load(((const S*)p)[off]);
}
template <class S, class V> __device__ inline void cw_store(char* p, cw_i64 off, V v) {
    ((S*)p)[off] = cw_traits<S>::store(cw_cast<typename cw_traits<S>::compute>(v));
}

// ---------------------------------------------------------------------------------
// The one element-wise ABI, cw_ew_args and its flags: abi.h (generated from rocm_backend/abi/structs.py). Operand 0 is the
// destination; an operand with a null pointer reads scalar slot (k - 1) instead
// (binary_scalar, where with scalars); n is the number of elements (the product of shape).

template <int NOPS> struct cw_offsets { cw_i64 o[NOPS]; };

// flat C-order index -> element offset of each of the first NOPS operands
template <int NOPS> __device__ inline cw_offsets<NOPS> cw_decode(const cw_ew_args& a, cw_i64 i) {
    cw_offsets<NOPS> r;
    if (a.flags & CW_CONTIGUOUS) {
        for (int k = 0; k < NOPS; ++k) r.o[k] = a.op[k].offset + i;
        return r;
    }
    if (a.ndim == 1) {  // one strided axis (x[::2] += 1 coalesces to it): no division per element
        for (int k = 0; k < NOPS; ++k) r.o[k] = a.op[k].offset + i * a.op[k].strides[0];
        return r;
    }
    for (int k = 0; k < NOPS; ++k) r.o[k] = a.op[k].offset;
    if (a.flags & CW_INDEX32) {
        cw_u32 rem = (cw_u32)i;
        for (int d = a.ndim - 1; d >= 0; --d) {
            cw_u32 n = (cw_u32)a.shape[d];
            cw_u32 q = rem / n, idx = rem - q * n;
            rem = q;
            for (int k = 0; k < NOPS; ++k) r.o[k] += (cw_i64)idx * a.op[k].strides[d];
        }
    } else {
        cw_i64 rem = i;
        for (int d = a.ndim - 1; d >= 0; --d) {
            cw_i64 n = a.shape[d];
            cw_i64 q = rem / n, idx = rem - q * n;
            rem = q;
            for (int k = 0; k < NOPS; ++k) r.o[k] += idx * a.op[k].strides[d];
        }
    }
    return r;
}

template <class S> __device__ inline S cw_scalar_raw(const cw_ew_args& a, int slot) {
    return *(const S*)(const void*)&a.scalar[2 * slot];
}
// operand k as compute type: from memory, or from scalar slot k-1 when its pointer is null
template <class S> __device__ inline typename cw_traits<S>::compute cw_operand_load(const cw_ew_args& a, int k, cw_i64 off) {
    if (a.op[k].ptr) return cw_load<S>(a.op[k].ptr, off);
    return cw_traits<S>::load(cw_scalar_raw<S>(a, k - 1));
}

#define CW_GRID_STRIDE(i, n) \
    for (cw_i64 i = (cw_i64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (cw_i64)blockDim.x * gridDim.x)

// ---------------------------------------------------------------------------------
// atomics for scatter_add / index_add on every numeric type
__device__ inline void cw_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ inline void cw_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ inline void cw_atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ inline void cw_atomic_add(unsigned int* p, unsigned int v) { atomicAdd(p, v); }
__device__ inline void cw_atomic_add(long long* p, long long v) { atomicAdd((unsigned long long*)p, (unsigned long long)v); }
__device__ inline void cw_atomic_add(unsigned long long* p, unsigned long long v) { atomicAdd(p, v); }
template <class R> __device__ inline void cw_atomic_add(cw_complex<R>* p, cw_complex<R> v) {
    cw_atomic_add(&p->re, v.re);
    cw_atomic_add(&p->im, v.im);
}
// 8- and 16-bit types: compare-and-swap on the aligned 32-bit word that holds them
template <class S> __device__ inline void cw_atomic_add_narrow(S* p, typename cw_traits<S>::compute v) {
    unsigned long long addr = (unsigned long long)p;
    cw_u32* word = (cw_u32*)(addr & ~3ull);
    cw_u32 shift = (cw_u32)(addr & 3ull) * 8u;
    cw_u32 mask = (sizeof(S) == 1 ? 0xffu : 0xffffu) << shift;
    cw_u32 old = *word, assumed;
    do {
        assumed = old;
        union { S s; unsigned short u16; unsigned char u8; } cur;
        if (sizeof(S) == 1) cur.u8 = (unsigned char)((assumed & mask) >> shift);
        else cur.u16 = (unsigned short)((assumed & mask) >> shift);
        typename cw_traits<S>::compute sum = cw_traits<S>::load(cur.s) + v;
        cur.s = cw_traits<S>::store(sum);
        cw_u32 bits = sizeof(S) == 1 ? (cw_u32)cur.u8 : (cw_u32)cur.u16;
        old = atomicCAS(word, assumed, (assumed & ~mask) | (bits << shift));
    } while (old != assumed);
}
__device__ inline void cw_atomic_add(signed char* p, signed char v) { cw_atomic_add_narrow<signed char>(p, v); }
__device__ inline void cw_atomic_add(unsigned char* p, unsigned char v) { cw_atomic_add_narrow<unsigned char>(p, v); }
__device__ inline void cw_atomic_add(short* p, short v) { cw_atomic_add_narrow<short>(p, v); }
__device__ inline void cw_atomic_add(unsigned short* p, unsigned short v) { cw_atomic_add_narrow<unsigned short>(p, v); }
__device__ inline void cw_atomic_add(cw_f16* p, float v) { cw_atomic_add_narrow<cw_f16>(p, v); }
__device__ inline void cw_atomic_add(cw_bf16* p, float v) { cw_atomic_add_narrow<cw_bf16>(p, v); }

// record an out-of-range index for the next synchronizing call to raise
__device__ inline void cw_flag_error(char* flag) { if (flag) atomicOr((unsigned int*)flag, 1u); }
