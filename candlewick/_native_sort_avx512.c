/* candlewick._native's sort reading pass (_native_sort_runs.c), its AVX-512 loop: a row
   of 2-, 4- or 8-byte elements read forwards, 64 elements a step, chosen at run time
   where the CPU has AVX-512F, BW and BMI2 (x86-64, GCC or Clang). */

#include "_native_sort_runs.h"

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
            if ((signed_count + 64) / 64 + 2 > signs->capacity || nan_count + 65 > nans->capacity) { \
                signs->count = signed_count, nans->count = nan_count;                          \
                if (reserve_signs(signs, 64) < 0 || reserve(nans, 65, size) < 0) {             \
                    return -1;                                                                 \
                }                                                                              \
            }                                                                                  \
            nan_count = put_marked(nans->data, nan_count, dst + i * size, size, size, special & ~zeros); \
            int k = __builtin_popcountll(zeros);                                               \
            word = put_signs(signs->words, signed_count, word, _pext_u64(negative, zeros), k); \
            signed_count += k;                                                                 \
        }                                                                                      \
        signs->count = signed_count, nans->count = nan_count;                                  \
        return i;                                                                              \
    }

DEFINE_COLLECT_AVX512(collect32_avx512, 32, 16, 0x7FFFFFFF, 0x7F800000)
DEFINE_COLLECT_AVX512(collect64_avx512, 64, 8, 0x7FFFFFFFFFFFFFFFll, 0x7FF0000000000000ll)
DEFINE_COLLECT_AVX512(collect16_avx512, 16, 32, 0x7FFF, 0x7C00)

/* AVX-512F, BW and BMI2 (every CPU with the first two has the third; asked once). */
int cw_sort_has_avx512(void) {
    static int known = -1;
    if (known < 0) {
        known = cw_vector_level() == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
    }
    return known;
}

Py_ssize_t cw_sort_collect_avx512(const char *x, Py_ssize_t n, char *dst, Py_ssize_t size, Signs *signs, Run *nans) {
    return (size == 2 ? collect16_avx512 : size == 4 ? collect32_avx512 : collect64_avx512)(x, n, dst, signs, nans);
}
#endif

