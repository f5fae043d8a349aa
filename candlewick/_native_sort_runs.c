/* candlewick._native's sort_rows (_native_sort.c), its reading pass: a row of the input
   copied into the buffer NumPy then sorts, its zeros' signs and its NaNs collected in the
   order read, in the same pass (no pass over the input of its own).

   Elements are bit patterns (float16, bfloat16, float32, float64): zero is every bit but
   the sign 0, NaN a magnitude above the exponent mask; tested by integer compares (no
   floating-point flag raised). With AVX-512 (F, BW) and BMI2 (x86-64, GCC or Clang, chosen at run
   time) 64 elements a step of 2-, 4- or 8-byte elements read forwards: copied, one compare
   a vector telling normal data apart, then the zero, sign and NaN masks and the zeros'
   signs by one pext (sort_rows reads a row that runs backwards in memory order). Every
   other case 64 elements a block, found by SSE2 masks where there. (A long float32/float64
   row rich in zeros and NaNs is copied partitioned at zero instead: _native_sort_partition.c.
   What both share is in _native_sort_put.h.) */

#include "_native_sort_put.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The bits of a block of m <= 64 elements (step bytes apart) that are zeros or NaNs (the
   magnitude less one at or above the exponent mask); where SSE2 is there, 4 float32 or 2
   float64 at a time by integer compares (no floating-point flag raised), float64's from
   its high words alone: a superset (denormals of high word 0, infinities), which the
   caller tests bit for bit. */
static inline unsigned long long special_mask(const char *block, int m, Py_ssize_t step, int format) {
    unsigned long long mask = 0;
    int k = 0;
#if defined(__SSE2__)
    const __m128i magnitude = _mm_set1_epi32(0x7FFFFFFF), zero = _mm_setzero_si128();
    if (format == 2 && step == 4) {
        const __m128i exponent = _mm_set1_epi32(0x7F800000);
        for (; k + 4 <= m; k += 4) {
            __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(block + 4 * k)), magnitude);
            __m128i s = _mm_or_si128(_mm_cmpeq_epi32(v, zero), _mm_cmpgt_epi32(v, exponent));
            mask |= (unsigned long long)_mm_movemask_ps(_mm_castsi128_ps(s)) << k;
        }
    } else if (format == 3 && step == 8) {
        const __m128i below_exponent = _mm_set1_epi32(0x7FEFFFFF);
        for (; k + 2 <= m; k += 2) {
            __m128i v = _mm_and_si128(_mm_loadu_si128((const __m128i *)(block + 8 * k)), magnitude);
            __m128i s = _mm_or_si128(_mm_cmpeq_epi32(v, zero), _mm_cmpgt_epi32(v, below_exponent));
            mask |= (unsigned long long)_mm_movemask_pd(_mm_castsi128_pd(s)) << k; /* high words' */
        }
    }
#endif
    const unsigned long long sign = SIGN[format], exponent = EXPONENT[format];
    for (; k < m; k++) {
        unsigned long long u = load_bits(block + k * step, format == 3 ? 8 : format == 2 ? 4 : 2);
        mask |= (unsigned long long)((u & ~sign) - 1 >= exponent) << k;
    }
    return mask;
}

/* m elements of `size` bytes, `step` bytes apart in x, into contiguous dst. */
#define COPY_AS(T)                                                                             \
    for (Py_ssize_t k = 0; k < m; k++) {                                                       \
        T v;                                                                                   \
        memcpy(&v, x + k * step, sizeof v);                                                    \
        memcpy(dst + k * (Py_ssize_t)sizeof v, &v, sizeof v);                                  \
    }
static void copy_block(char *dst, const char *x, Py_ssize_t m, Py_ssize_t step, Py_ssize_t size) {
    if (step == size) {
        memcpy(dst, x, (size_t)(m * size));
    } else if (size == 8) {
        COPY_AS(unsigned long long)
    } else if (size == 4) {
        COPY_AS(unsigned int)
    } else if (size == 2) {
        COPY_AS(unsigned short)
    } else {
        COPY_AS(unsigned char)
    }
}

static int append_marked(Run *nans, const char *block, Py_ssize_t step, Py_ssize_t size, unsigned long long mask) {
    if (reserve(nans, count_bits(mask) + 1, size) < 0) {
        return -1;
    }
    nans->count = put_marked(nans->data, nans->count, block, step, size, mask);
    return 0;
}

/* The row's n elements (step bytes apart from x) copied into dst (contiguous; NULL: only
   read), its zeros' signs and its NaNs appended (format >= 0), 64 elements a block: 0,
   or -1 where memory ran out. */
static int collect_blocks(const char *x, Py_ssize_t n, Py_ssize_t step, char *dst, Py_ssize_t size, int format,
                          Signs *signs, Run *nans) {
    if (format < 0) {
        copy_block(dst, x, n, step, size);
        return 0;
    }
    const unsigned long long sign = SIGN[format], exponent = EXPONENT[format];
    for (Py_ssize_t i = 0; i < n; i += 64) {
        int m = n - i < 64 ? (int)(n - i) : 64;
        const char *seen = x + i * step;
        Py_ssize_t seen_step = step;
        if (dst != NULL) { /* the block's copy, still in L1, is what is tested */
            copy_block(dst + i * size, seen, m, step, size);
            seen = dst + i * size, seen_step = size;
        }
        unsigned long long zeros = 0, negative = 0, nan = 0;
        for (unsigned long long mask = special_mask(seen, m, seen_step, format); mask != 0; mask &= mask - 1) {
            int k = lowest_bit(mask);
            unsigned long long u = load_bits(seen + k * seen_step, size), magnitude = u & ~sign;
            zeros |= (unsigned long long)(magnitude == 0) << k;
            negative |= (unsigned long long)((u & sign) != 0) << k;
            nan |= (unsigned long long)(magnitude > exponent) << k;
        }
        unsigned long long bits = 0; /* the zeros' signs in order (BMI2's pext) */
        int count = 0;
        for (unsigned long long z = zeros; z != 0; z &= z - 1) {
            bits |= ((negative >> lowest_bit(z)) & 1) << count++;
        }
        if (reserve_signs(signs, 64) < 0 || append_marked(nans, seen, seen_step, size, nan) < 0) {
            return -1;
        }
        append_signs(signs, bits, count);
    }
    return 0;
}

#ifdef CW_HAVE_AVX2_PATH
/* collect_blocks for 2-, 4- and 8-byte elements read forwards (step size) into dst, format
   0-3, in AVX-512, 64 elements a step: copied, the zeros and NaNs marked by one integer
   compare a vector (no flag raised), and in a step that holds any, the zeros and signs
   (the NaNs: the marks less the zeros), the zeros' signs taken by one pext; no branch on
   the data but on a step's second NaN. The runs' counts and the signs' last word are
   kept in registers (the structs' fields, which dst's stores might alias, were read back
   from memory each step). Returns how many leading elements it did (a multiple of 64),
   or -1 where memory ran out. */
#define DEFINE_COLLECT_AVX512(NAME, BITS, LANES, MAGNITUDE, EXP)                                \
    __attribute__((target("avx512f,avx512bw,bmi2,popcnt"))) static Py_ssize_t NAME(            \
        const char *x, Py_ssize_t n, char *dst, Signs *signs, Run *nans) {                     \
        const __m512i magnitude = _mm512_set1_epi##BITS(MAGNITUDE), exponent = _mm512_set1_epi##BITS(EXP); \
        const __m512i one = _mm512_set1_epi##BITS(1), zero = _mm512_setzero_si512();           \
        const Py_ssize_t size = BITS / 8;                                                      \
        Py_ssize_t i = 0, signed_count = signs->count, nan_count = nans->count;                \
        unsigned long long word = signed_count & 63 ? signs->words[signed_count >> 6] : 0;    \
        for (; i + 64 <= n; i += 64) {                                                         \
            unsigned long long special = 0; /* the zeros and NaNs: magnitude - 1 >= exponent */ \
            for (int j = 0; j < 64; j += LANES) {                                              \
                __m512i v = _mm512_loadu_si512((const void *)(x + (i + j) * size));            \
                _mm512_storeu_si512((void *)(dst + (i + j) * size), v);                        \
                __m512i m = _mm512_sub_epi##BITS(_mm512_and_si512(v, magnitude), one);         \
                special |= (unsigned long long)_mm512_cmpge_epu##BITS##_mask(m, exponent) << j; \
            }                                                                                  \
            if (special == 0) { /* (normal data: only this, no branch missed) */               \
                continue;                                                                      \
            }                                                                                  \
            unsigned long long zeros = 0, negative = 0; /* from the copy, in L1 */             \
            for (int j = 0; j < 64; j += LANES) {                                              \
                __m512i v = _mm512_loadu_si512((const void *)(dst + (i + j) * size));          \
                zeros |= (unsigned long long)_mm512_testn_epi##BITS##_mask(v, magnitude) << j; \
                negative |= (unsigned long long)_mm512_cmplt_epi##BITS##_mask(v, zero) << j;   \
            }                                                                                  \
            if (put_block_runs(signs, nans, &signed_count, &nan_count, &word, dst + i * size, size, \
                               special, zeros, negative) < 0) {                                \
                return -1;                                                                     \
            }                                                                                  \
        }                                                                                      \
        signs->count = signed_count, nans->count = nan_count;                                  \
        return i;                                                                              \
    }

DEFINE_COLLECT_AVX512(collect32_avx512, 32, 16, 0x7FFFFFFF, 0x7F800000)
DEFINE_COLLECT_AVX512(collect64_avx512, 64, 8, 0x7FFFFFFFFFFFFFFFll, 0x7FF0000000000000ll)
DEFINE_COLLECT_AVX512(collect16_avx512, 16, 32, 0x7FFF, 0x7C00)
#endif

int cw_sort_collect_row(const char *x, Py_ssize_t n, Py_ssize_t step, char *dst, Py_ssize_t size, int format,
                       Signs *signs, Run *nans) {
    if (dst != NULL && step == size && format < 0) {
        memcpy(dst, x, (size_t)(n * size));
        return 0;
    }
#ifdef CW_HAVE_AVX2_PATH
    if (dst != NULL && size >= 2 && step == size && has_avx512_bw_bmi2()) {
        /* the first elements by blocks, up to dst's first 64-byte boundary: NumPy's buffers
           are 16-byte aligned, and each 64-byte store across two cache lines (a load too,
           where x lies as dst does) cost the loop 0.5-2 us of a 2^16 float32 row's 13 and
           2-4 us of a float64 row's 23 */
        Py_ssize_t head = (uintptr_t)dst % size ? 0 : (Py_ssize_t)(-(uintptr_t)dst & 63) / size;
        head = head < n ? head : n;
        if (head > 0 && collect_blocks(x, head, step, dst, size, format, signs, nans) < 0) {
            return -1;
        }
        x += head * step, dst += head * size, n -= head;
        Py_ssize_t done = (size == 2 ? collect16_avx512 : size == 4 ? collect32_avx512 : collect64_avx512)(
            x, n, dst, signs, nans);
        if (done < 0) {
            return -1;
        }
        x += done * step, dst += done * size, n -= done;
    }
#endif
    return collect_blocks(x, n, step, dst, size, format, signs, nans);
}
