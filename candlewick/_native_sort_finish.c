/* candlewick._native's sort_rows (_native_sort.c), its last pass: a sorted row finished.
   Its NaN run and its zero run (where two zeros or more) are overwritten by the runs the
   reading pass collected (_native_sort_runs.c), in the order read, or in reverse for a row
   read backwards (`mirrored`: sort_rows reads such a row in memory order); the row is then
   reversed in place where the protocol's own descending sort asks it. The zeros are
   written back from their signs, 64 a step by AVX-512's masked moves where the CPU has
   it. */

#include "_native.h"
#include "_native_sort.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Reverses the row's two ends, 16 bytes from each at a time where SSE2 is there (the
   compiler does not vectorize an in-place swap); returns how many elements of each end
   it swapped: the caller swaps the middle. */
static inline Py_ssize_t reverse_ends(char *row, Py_ssize_t n, Py_ssize_t size) {
    Py_ssize_t lanes = 16 / size, i = 0;
#if defined(__SSE2__)
    if (size >= 2) {
        for (; (i + lanes) * 2 <= n; i += lanes) {
            __m128i *front = (__m128i *)(row + i * size), *back = (__m128i *)(row + (n - i - lanes) * size);
            __m128i a = _mm_loadu_si128(front), b = _mm_loadu_si128(back);
            if (size == 8) {
                a = _mm_shuffle_epi32(a, 0x4E), b = _mm_shuffle_epi32(b, 0x4E);
            } else {
                a = _mm_shuffle_epi32(a, 0x1B), b = _mm_shuffle_epi32(b, 0x1B);
                if (size == 2) { /* then the halves of each 32-bit word */
                    a = _mm_shufflehi_epi16(_mm_shufflelo_epi16(a, 0xB1), 0xB1);
                    b = _mm_shufflehi_epi16(_mm_shufflelo_epi16(b, 0xB1), 0xB1);
                }
            }
            _mm_storeu_si128(front, b), _mm_storeu_si128(back, a);
        }
    }
#else
    (void)row, (void)n, (void)lanes;
#endif
    return i;
}

/* v's bits in reverse order (bit 63 - k is bit k of v). */
static inline unsigned long long reverse_bits(unsigned long long v) {
    v = (v >> 1 & 0x5555555555555555ull) | (v & 0x5555555555555555ull) << 1;
    v = (v >> 2 & 0x3333333333333333ull) | (v & 0x3333333333333333ull) << 2;
    v = (v >> 4 & 0x0F0F0F0F0F0F0F0Full) | (v & 0x0F0F0F0F0F0F0F0Full) << 4;
    v = (v >> 8 & 0x00FF00FF00FF00FFull) | (v & 0x00FF00FF00FF00FFull) << 8;
    v = (v >> 16 & 0x0000FFFF0000FFFFull) | (v & 0x0000FFFF0000FFFFull) << 16;
    return v >> 32 | v << 32;
}

/* The 64 bits of `signs` from bit j on. */
static inline unsigned long long signs_at(const Signs *signs, Py_ssize_t j) {
    const unsigned long long *w = signs->words + (j >> 6);
    int off = (int)(j & 63);
    return off ? w[0] >> off | w[1] << (64 - off) : w[0];
}

#ifdef CW_HAVE_AVX2_PATH
/* zc zeros of 4 or 8 bytes from their signs (bits z0.. of `signs`, taken from the last
   where `mirrored`), 64 a step by masked moves of the sign bit; returns how many it wrote
   (the caller writes the rest). */
__attribute__((target("avx512f"))) static Py_ssize_t write_zeros_avx512(char *dst, Py_ssize_t zc, Py_ssize_t size,
                                                                       const Signs *signs, Py_ssize_t z0,
                                                                       int mirrored) {
    const __m512i sign32 = _mm512_set1_epi32((int)0x80000000u), sign64 = _mm512_set1_epi64((long long)(1ull << 63));
    Py_ssize_t k = 0;
    for (; k + 64 <= zc; k += 64, dst += 64 * size) {
        unsigned long long bits = mirrored ? reverse_bits(signs_at(signs, z0 + zc - 64 - k)) : signs_at(signs, z0 + k);
        for (int t = 0; t < 64; t += 64 / (int)size) {
            __m512i v = size == 4 ? _mm512_maskz_mov_epi32((__mmask16)(bits >> t), sign32)
                                  : _mm512_maskz_mov_epi64((__mmask8)(bits >> t), sign64);
            _mm512_storeu_si512((void *)(dst + t * size), v);
        }
    }
    return k;
}
#endif

static Py_ssize_t write_zeros(char *dst, Py_ssize_t zc, Py_ssize_t size, const Signs *signs, Py_ssize_t z0,
                              int mirrored) {
#ifdef CW_HAVE_AVX2_PATH
    if ((size == 4 || size == 8) && cw_vector_level() == 2) {
        return write_zeros_avx512(dst, zc, size, signs, z0, mirrored);
    }
#else
    (void)dst, (void)size, (void)signs, (void)z0, (void)mirrored;
#endif
    return 0;
}

/* A sorted row finished: its last nc elements (the NaNs) and, where zc >= 2, its zeros
   (found by a binary search below the NaNs, or from `lo` where lo >= 0: a partitioned
   row's gap, written however few) overwritten by the runs (the zeros from their signs,
   bits z0.. of `signs`), each in reverse where `mirrored`; reversed where `reverse`. */
#define DEFINE_FINISH_ROW(NAME, T)                                                             \
    static void NAME(T *row, Py_ssize_t n, int mirrored, const Signs *signs, Py_ssize_t z0,    \
                     Py_ssize_t zc, Py_ssize_t lo, const char *nans, Py_ssize_t nc, int reverse) { \
        if (nc > 0 && !mirrored) {                                                             \
            memcpy(row + n - nc, nans, (size_t)nc * sizeof(T));                                \
        }                                                                                      \
        for (Py_ssize_t k = 0; k < nc && mirrored; k++) {                                      \
            memcpy(row + n - 1 - k, nans + k * (Py_ssize_t)sizeof(T), sizeof(T));              \
        }                                                                                      \
        if (zc >= 2 || (lo >= 0 && zc > 0)) { /* (a sorted row's one zero: nothing to do) */ \
            const T sign = (T)((T)1 << (8 * sizeof(T) - 1));                                   \
            Py_ssize_t below = lo < 0 ? n - nc : 0; /* the first element not below zero */    \
            lo = lo < 0 ? 0 : lo;                                                              \
            while (lo < below) {                                                               \
                Py_ssize_t mid = lo + (below - lo) / 2;                                        \
                if ((row[mid] & sign) && (T)(row[mid] & ~sign) != 0) {                         \
                    lo = mid + 1;                                                              \
                } else {                                                                       \
                    below = mid;                                                               \
                }                                                                              \
            }                                                                                  \
            Py_ssize_t k = write_zeros((char *)(row + lo), zc, sizeof(T), signs, z0, mirrored); \
            for (; k < zc; k++) {                                                              \
                Py_ssize_t j = mirrored ? z0 + zc - 1 - k : z0 + k;                            \
                row[lo + k] = (T)((signs->words[j >> 6] >> (j & 63)) & 1) << (8 * sizeof(T) - 1); \
            }                                                                                  \
        }                                                                                      \
        if (reverse) {                                                                         \
            Py_ssize_t i = reverse_ends((char *)row, n, sizeof(T));                            \
            for (Py_ssize_t j = n - 1 - i; i < j; i++, j--) {                                  \
                T t = row[i];                                                                  \
                row[i] = row[j];                                                               \
                row[j] = t;                                                                    \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_FINISH_ROW(finish_row8, unsigned char)
DEFINE_FINISH_ROW(finish_row16, unsigned short)
DEFINE_FINISH_ROW(finish_row32, unsigned int)
DEFINE_FINISH_ROW(finish_row64, unsigned long long)

void cw_sort_finish_row(char *row, Py_ssize_t n, Py_ssize_t size, int mirrored, const Signs *signs, Py_ssize_t z0,
                        Py_ssize_t zc, Py_ssize_t lo, const char *nans, Py_ssize_t nc, int reverse) {
    switch (size) {
    case 1: finish_row8((unsigned char *)row, n, mirrored, signs, z0, zc, lo, nans, nc, reverse); break;
    case 2: finish_row16((unsigned short *)row, n, mirrored, signs, z0, zc, lo, nans, nc, reverse); break;
    case 4: finish_row32((unsigned int *)row, n, mirrored, signs, z0, zc, lo, nans, nc, reverse); break;
    default: finish_row64((unsigned long long *)row, n, mirrored, signs, z0, zc, lo, nans, nc, reverse); break;
    }
}
