/* candlewick._native's sort_rows (_native_sort.c), the reading pass of one long float32 or
   float64 row rich in zeros and NaNs: copied partitioned at zero, its elements below zero
   compressed onto the buffer's front and the others but the zeros (above zero, NaNs) onto
   its back, growing down, the zeros' signs and the NaNs collected in the order read as
   _native_sort_runs.c collects them (64 elements a block), so that NumPy sorts each side
   alone and the zero run is written into the gap between them. AVX-512 (F, BW, DQ) and BMI2;
   elsewhere the caller copies the row whole. */

#include "_native_sort_put.h"

#ifdef CW_HAVE_AVX2_PATH
/* One vector's elements below zero compressed onto dst's front (a whole store: while a
   whole vector is still to be read, the gap between the parts holds at least a vector) and
   its others but the zeros onto the back, growing down (a store masked to them, which
   reaches no element placed before). */
#define PLACE(BITS, MASKT, v, low, high, whole)                                                \
    do {                                                                                       \
        int kl_ = __builtin_popcount((unsigned)(low)), kh_ = __builtin_popcount((unsigned)(high)); \
        __m512i lows_ = _mm512_maskz_compress_epi##BITS(low, v);                               \
        if (whole) {                                                                           \
            _mm512_storeu_si512((void *)(dst + front * size), lows_);                          \
        } else {                                                                               \
            _mm512_mask_storeu_epi##BITS((void *)(dst + front * size), (MASKT)_bzhi_u32(~0u, (unsigned)kl_), lows_); \
        }                                                                                      \
        back -= kh_;                                                                           \
        _mm512_mask_storeu_epi##BITS((void *)(dst + back * size), (MASKT)_bzhi_u32(~0u, (unsigned)kh_), \
                                     _mm512_maskz_compress_epi##BITS(high, v));                \
        front += kl_;                                                                          \
    } while (0)

/* vfpclass's categories of the zeros and NaNs: QNaN, +0, -0, SNaN. One instruction where the
   integer test ((v & magnitude) - 1 >= exponent) took three: the copy 0.97x its time at float64
   2^16-2^18, 0.98-1.0x at float32 (probe s15cpu2, C harness, both checked bit for bit). (The
   back side's compress stored to memory instead of masked, tried beside it, is left out: it
   is microcoded on AMD's Zen 4.)
   vfpclass reads the bits as they are: denormals are not zeros under DAZ (s15cpu's daz.c). */
#define ZERO_OR_NAN 0x87

/* cw_sort_partition_row for 4- or 8-byte elements, 64 a block: each vector placed, the
   block's zero, sign and NaN masks gathered; in a block that holds zeros or NaNs, its
   zeros' signs (one pext) and its NaNs collected as collect_blocks does. The last block,
   short, reads its vectors masked. Returns the count at the back (*below: at the front),
   or -1 where memory ran out. */
#define DEFINE_PARTITION_AVX512(NAME, BITS, LANES, MASKT, PS, MAGNITUDE, EXP)                    \
    __attribute__((target("avx512f,avx512bw,avx512dq,bmi2,popcnt"))) static Py_ssize_t NAME(            \
        const char *x, Py_ssize_t n, char *dst, Signs *signs, Run *nans, Py_ssize_t *below) {  \
        const __m512i magnitude = _mm512_set1_epi##BITS(MAGNITUDE), exponent = _mm512_set1_epi##BITS(EXP); \
        const __m512i one = _mm512_set1_epi##BITS(1), zero = _mm512_setzero_si512();           \
        const Py_ssize_t size = BITS / 8;                                                      \
        Py_ssize_t front = 0, back = n, signed_count = signs->count, nan_count = nans->count;   \
        unsigned long long word = signed_count & 63 ? signs->words[signed_count >> 6] : 0;    \
        for (Py_ssize_t i = 0; i < n; i += 64) {                                               \
            unsigned long long special = 0, zeros = 0, negative = 0;                          \
            if (i + 64 <= n) { /* a whole block: no lane left out */                           \
                _Pragma("GCC unroll 8")                                                        \
                for (int j = 0; j < 64; j += LANES) {                                          \
                    __m512i v = _mm512_loadu_si512((const void *)(x + (i + j) * size));        \
                    MASKT sp = _mm512_fpclass_##PS##_mask(_mm512_castsi512_##PS(v), ZERO_OR_NAN); \
                    MASKT ng = _mm512_cmplt_epi##BITS##_mask(v, zero);                         \
                    MASKT zr = _mm512_testn_epi##BITS##_mask(v, magnitude);                    \
                    MASKT low = ng & (MASKT)~sp;                                               \
                    PLACE(BITS, MASKT, v, low, (MASKT)~(low | zr), 1);                         \
                    special |= (unsigned long long)sp << j, zeros |= (unsigned long long)zr << j; \
                    negative |= (unsigned long long)ng << j;                                   \
                }                                                                              \
            } else {                                                                           \
                for (int j = 0; i + j < n; j += LANES) {                                       \
                    Py_ssize_t left = n - i - j;                                               \
                    MASKT valid = left >= LANES ? (MASKT)~0u : (MASKT)((1u << left) - 1);      \
                    __m512i v = _mm512_maskz_loadu_epi##BITS(valid, (const void *)(x + (i + j) * size)); \
                    __m512i m = _mm512_sub_epi##BITS(_mm512_and_si512(v, magnitude), one);     \
                    MASKT sp = _mm512_mask_cmpge_epu##BITS##_mask(valid, m, exponent);         \
                    MASKT ng = _mm512_mask_cmplt_epi##BITS##_mask(valid, v, zero);             \
                    MASKT zr = _mm512_mask_testn_epi##BITS##_mask(valid, v, magnitude);        \
                    MASKT low = ng & (MASKT)~sp;                                               \
                    PLACE(BITS, MASKT, v, low, valid & (MASKT)~(low | zr), 0);                 \
                    special |= (unsigned long long)sp << j, zeros |= (unsigned long long)zr << j; \
                    negative |= (unsigned long long)ng << j;                                   \
                }                                                                              \
            }                                                                                  \
            if (special == 0) {                                                                \
                continue;                                                                      \
            }                                                                                  \
            if (put_block_runs(signs, nans, &signed_count, &nan_count, &word, x + i * size, size, \
                               special, zeros, negative) < 0) {                                \
                return -1;                                                                     \
            }                                                                                  \
        }                                                                                      \
        signs->count = signed_count, nans->count = nan_count;                                  \
        *below = front;                                                                        \
        return n - back;                                                                       \
    }

DEFINE_PARTITION_AVX512(partition32_avx512, 32, 16, __mmask16, ps, 0x7FFFFFFF, 0x7F800000)
DEFINE_PARTITION_AVX512(partition64_avx512, 64, 8, __mmask8, pd, 0x7FFFFFFFFFFFFFFFll, 0x7FF0000000000000ll)
#endif

int cw_sort_sampled_ties(const char *x, Py_ssize_t n, Py_ssize_t size, int format, int samples) {
    Py_ssize_t stride = n / samples;
    int found = 0;
    for (Py_ssize_t k = 0; k < samples && stride > 0; k++) {
        unsigned long long magnitude = load_bits(x + k * stride * size, size) & ~SIGN[format];
        found += magnitude == 0 || magnitude > EXPONENT[format];
    }
    return found;
}

Py_ssize_t cw_sort_partition_row(const char *x, Py_ssize_t n, char *dst, Py_ssize_t size, Signs *signs, Run *nans,
                                 Py_ssize_t *below) {
#ifdef CW_HAVE_AVX2_PATH
    static int dq = -1; /* (vfpclass: every CPU with AVX-512 BW has DQ; asked once all the same) */
    if (dq < 0) {
        dq = __builtin_cpu_supports("avx512dq");
    }
    if ((size == 4 || size == 8) && has_avx512_bw_bmi2() && dq) {
        return (size == 4 ? partition32_avx512 : partition64_avx512)(x, n, dst, signs, nans, below);
    }
#else
    (void)x, (void)n, (void)dst, (void)size, (void)signs, (void)nans, (void)below;
#endif
    return -2;
}
