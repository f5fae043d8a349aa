/* candlewick._native's sort_rows (_native_sort.c), the reading pass's vector path
   (_native_sort_runs.c holds the rest): rows of 2-, 4- or 8-byte elements read forwards or
   backwards with AVX-512 (F, BW) and BMI2, chosen at run time (x86-64, GCC or Clang). */

#include "_native.h"

#include <string.h>

#define EXPONENT CW_SORT_EXPONENT

#ifdef CW_HAVE_AVX2_PATH
/* The masks of the 64 / LANES vectors of a step joined into one 64-bit mask (vector j's lane
   k its bit j * LANES + k) by mask-register unpacks: no move, shift and or of each through a
   general register (those, on one port, were most of a step's cost). */
#define JOIN_ATTR __attribute__((target("avx512f,avx512bw"))) static inline unsigned long long
JOIN_ATTR join16(const __mmask32 *m) {
    return _cvtmask64_u64(_mm512_kunpackd((__mmask64)m[1], (__mmask64)m[0]));
}
JOIN_ATTR join32(const __mmask16 *m) {
    return _cvtmask64_u64(_mm512_kunpackd((__mmask64)_mm512_kunpackw(m[3], m[2]), (__mmask64)_mm512_kunpackw(m[1], m[0])));
}
JOIN_ATTR join64(const __mmask8 *m) {
    const __mmask16 pairs[4] = {_mm512_kunpackb(m[1], m[0]), _mm512_kunpackb(m[3], m[2]), _mm512_kunpackb(m[5], m[4]),
                                _mm512_kunpackb(m[7], m[6])};
    return join32(pairs);
}

/* collect_blocks for 2-, 4- and 8-byte elements read forwards or backwards (step +-size) in
   AVX-512, 64 elements a step: copied (reversed by a lane permutation; dst NULL: x read
   forwards, not copied), one compare a vector telling normal data apart (magnitude - 1 at
   or above the exponent: a zero or a NaN), then from the copy in L1 the zero and sign masks,
   the zeros' signs taken by one pext, the NaNs compressed a vector at a time; no branch on
   the data but for NaNs, the runs' ends kept in registers (room reserved 4096 elements at a
   time: a count reloaded from memory after each store chained the steps). Returns how many
   leading elements it did (a multiple of 64), or -1 where memory ran out. */
#define DEFINE_COLLECT_AVX512(NAME, BITS, LANES, MASK, MAGNITUDE, REVERSED)                     \
    __attribute__((target("avx512f,avx512bw,bmi2,popcnt"))) static Py_ssize_t NAME(            \
        const char *x, Py_ssize_t n, int backwards, char *dst, int format, Signs *signs, Run *nans) { \
        const __m512i magnitude = _mm512_set1_epi##BITS(MAGNITUDE);                            \
        const __m512i exponent = _mm512_set1_epi##BITS(format >= 0 ? EXPONENT[format] : 0);    \
        const __m512i one = _mm512_set1_epi##BITS(1), zero = _mm512_setzero_si512(), reversed = REVERSED; \
        const Py_ssize_t size = BITS / 8;                                                      \
        const char *seen = dst != NULL ? dst : x;                                              \
        Py_ssize_t i = 0;                                                                      \
        while (i + 64 <= n) {                                                                  \
            Py_ssize_t end = n - i < 4096 ? i + (n - i) / 64 * 64 : i + 4096;                  \
            if (format >= 0 && (reserve_signs(signs, end - i) < 0 || reserve(nans, end - i + LANES, size) < 0)) { \
                return -1;                                                                     \
            }                                                                                  \
            unsigned long long *word = signs->words + (signs->count >> 6);                     \
            unsigned long long acc = (signs->count & 63) ? *word : 0;                          \
            int fill = (int)(signs->count & 63);                                               \
            char *nan_at = nans->data + nans->count * size;                                    \
            for (; i < end; i += 64) {                                                         \
                MASK special[64 / LANES], zeros[64 / LANES], negative[64 / LANES];             \
                MASK any = 0;                                                                  \
                for (int j = 0; j < 64 / LANES; j++) {                                         \
                    __m512i v;                                                                 \
                    if (backwards) {                                                           \
                        v = _mm512_loadu_si512((const void *)(x - (i + (j + 1) * LANES - 1) * size)); \
                        v = _mm512_permutexvar_epi##BITS(reversed, v);                         \
                    } else {                                                                   \
                        v = _mm512_loadu_si512((const void *)(x + (i + j * LANES) * size));    \
                    }                                                                          \
                    if (dst != NULL) {                                                         \
                        _mm512_storeu_si512((void *)(dst + (i + j * LANES) * size), v);        \
                    }                                                                          \
                    __m512i m = _mm512_sub_epi##BITS(_mm512_and_si512(v, magnitude), one);     \
                    special[j] = _mm512_cmpge_epu##BITS##_mask(m, exponent);                   \
                    any |= special[j];                                                         \
                }                                                                              \
                if (format < 0 || any == 0) { /* (normal data: only this, no branch missed) */ \
                    continue;                                                                  \
                }                                                                              \
                for (int j = 0; j < 64 / LANES; j++) { /* from the copy, in L1 */              \
                    __m512i v = _mm512_loadu_si512((const void *)(seen + (i + j * LANES) * size)); \
                    zeros[j] = _mm512_testn_epi##BITS##_mask(v, magnitude);                    \
                    negative[j] = _mm512_cmplt_epi##BITS##_mask(v, zero);                      \
                }                                                                              \
                unsigned long long zero_bits = join##BITS(zeros);                              \
                if ((join##BITS(special) & ~zero_bits) != 0) {                                 \
                    for (int j = 0; j < 64 / LANES; j++) {                                     \
                        MASK q = (MASK)(special[j] & ~zeros[j]);                               \
                        __m512i v = _mm512_loadu_si512((const void *)(seen + (i + j * LANES) * size)); \
                        COMPRESS_##BITS(nan_at, q, v, size);                                   \
                    }                                                                          \
                }                                                                              \
                /* the signs appended in registers: the word in hand and the next, stored */   \
                unsigned long long bits = _pext_u64(join##BITS(negative), zero_bits);          \
                unsigned long long low = acc | bits << fill, high = fill ? bits >> (64 - fill) : 0; \
                word[0] = low, word[1] = high;                                                 \
                fill += __builtin_popcountll(zero_bits);                                       \
                int next = fill >= 64;                                                         \
                word += next, acc = next ? high : low, fill -= 64 * next;                      \
            }                                                                                  \
            if (format >= 0) {                                                                 \
                signs->count = (word - signs->words) * 64 + fill;                              \
                nans->count = (nan_at - nans->data) / size;                                    \
            }                                                                                  \
        }                                                                                      \
        return i;                                                                              \
    }

/* A vector's lanes marked in q stored at `at` (room for a vector there), `at` moved past
   them: 4- and 8-byte ones compressed in a register and stored whole; 2-byte ones (their
   compress is AVX512-VBMI2's) one by one. */
#define COMPRESS_32(at, q, v, size)                                                            \
    (_mm512_storeu_si512((void *)(at), _mm512_maskz_compress_epi32(q, v)), (at) += 4 * __builtin_popcount(q))
#define COMPRESS_64(at, q, v, size)                                                            \
    (_mm512_storeu_si512((void *)(at), _mm512_maskz_compress_epi64(q, v)), (at) += 8 * __builtin_popcount(q))
#define COMPRESS_16(at, q, v, size)                                                            \
    do {                                                                                       \
        short lanes[32];                                                                       \
        _mm512_storeu_si512((void *)lanes, v);                                                 \
        for (unsigned long long mark = q; mark != 0; mark &= mark - 1) {                       \
            memcpy(at, lanes + lowest_bit(mark), 2), (at) += 2;                                \
        }                                                                                      \
    } while (0)

DEFINE_COLLECT_AVX512(collect32_avx512, 32, 16, __mmask16, 0x7FFFFFFF,
                      _mm512_set_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15))
DEFINE_COLLECT_AVX512(collect64_avx512, 64, 8, __mmask8, 0x7FFFFFFFFFFFFFFFll,
                      _mm512_set_epi64(0, 1, 2, 3, 4, 5, 6, 7))
/* 16-bit lane k of a dword lane m is 2m + k: lane 2m gets index 31 - 2m, 2m + 1 gets 30 - 2m */
#define REVERSED16(m) (((30 - 2 * (m)) << 16) | (31 - 2 * (m)))
DEFINE_COLLECT_AVX512(collect16_avx512, 16, 32, __mmask32, 0x7FFF,
                      _mm512_set_epi32(REVERSED16(15), REVERSED16(14), REVERSED16(13), REVERSED16(12),
                                       REVERSED16(11), REVERSED16(10), REVERSED16(9), REVERSED16(8),
                                       REVERSED16(7), REVERSED16(6), REVERSED16(5), REVERSED16(4),
                                       REVERSED16(3), REVERSED16(2), REVERSED16(1), REVERSED16(0)))

/* AVX-512F, BW and BMI2 (every CPU with the first two has the third; asked once). */
static int has_avx512_bw_bmi2(void) {
    static int known = -1;
    if (known < 0) {
        known = cw_vector_level() == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
    }
    return known;
}
#endif

Py_ssize_t cw_sort_collect_avx512(const char *x, Py_ssize_t n, Py_ssize_t step, char *dst, Py_ssize_t size, int format,
                                  Signs *signs, Run *nans) {
    Py_ssize_t done = 0;
#ifdef CW_HAVE_AVX2_PATH
    if (size >= 2 && (step == size || step == -size) && has_avx512_bw_bmi2()) {
        Py_ssize_t (*collect)(const char *, Py_ssize_t, int, char *, int, Signs *, Run *) =
            size == 2 ? collect16_avx512 : size == 4 ? collect32_avx512 : collect64_avx512;
        if (step == size) { /* the C library's copy (its string moves write lines unread), 16
                               KiB at a time, each then read in L1 */
            const Py_ssize_t chunk = 16384 / size;
            for (Py_ssize_t m = 0; done + 64 <= n; done += m) {
                m = n - done < chunk ? (n - done) / 64 * 64 : chunk;
                if (dst != NULL) {
                    memcpy(dst + done * size, x + done * size, (size_t)(m * size));
                }
                if (collect(dst != NULL ? dst + done * size : x + done * size, m, 0, NULL, format, signs, nans) < 0) {
                    return -1;
                }
            }
        } else if (dst != NULL && (done = collect(x, n, 1, dst, format, signs, nans)) < 0) {
            return -1;
        }
    }
#else
    (void)x, (void)n, (void)step, (void)dst, (void)size, (void)format, (void)signs, (void)nans;
#endif
    return done;
}
