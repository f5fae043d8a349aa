/* candlewick._native's sort_rows, what its reading passes share (_native_sort_runs.c's
   copy that collects a row's runs, _native_sort_partition.c's copy that partitions it at
   zero): the formats' bit patterns, the runs' room, the zeros' signs and the NaNs put in
   order, and the AVX-512 test. Included by those two files only. */

#ifndef CW_NATIVE_SORT_PUT_H
#define CW_NATIVE_SORT_PUT_H

#include "_native.h"
#include "_native_sort.h"

#include <string.h>

/* The sign bit and exponent mask of each format's bit pattern. */
static const unsigned long long SIGN[4] = {0x8000u, 0x8000u, 0x80000000u, 0x8000000000000000ull};
static const unsigned long long EXPONENT[4] = {0x7C00u, 0x7F80u, 0x7F800000u, 0x7FF0000000000000ull};

/* *data grown to hold `need` items of `size` bytes: 0, or -1 where memory ran out (run
   without the GIL: PyMem_Raw*). */
static inline int grow(void **data, Py_ssize_t *capacity, Py_ssize_t need, Py_ssize_t size) {
    if (need <= *capacity) {
        return 0;
    }
    Py_ssize_t more = *capacity ? 2 * *capacity : 1024;
    while (more < need) {
        more *= 2;
    }
    void *grown = PyMem_RawRealloc(*data, (size_t)(more * size));
    if (grown == NULL) {
        return -1;
    }
    *data = grown, *capacity = more;
    return 0;
}

static inline int reserve(Run *r, Py_ssize_t more, Py_ssize_t size) {
    return grow((void **)&r->data, &r->capacity, r->count + more, size);
}

static inline int reserve_signs(Signs *s, Py_ssize_t more) {
    return grow((void **)&s->words, &s->capacity, (s->count + more) / 64 + 2, 8);
}

/* The k low bits of `bits` put at bit `count` of `words` (room reserved), whose word there
   holds `word` (its bits below count); the word past them left zero. Returns the word
   that then holds bit count + k: a caller that keeps it reads no word back (a store and
   its load again each step were a chain the loop waited on). */
static inline unsigned long long put_signs(unsigned long long *words, Py_ssize_t count, unsigned long long word,
                                           unsigned long long bits, int k) {
    Py_ssize_t w = count >> 6;
    int off = (int)(count & 63);
    unsigned long long low = word | bits << off, high = off ? bits >> (64 - off) : 0;
    words[w] = low, words[w + 1] = high;
    return off + k >= 64 ? high : low;
}

static inline void append_signs(Signs *s, unsigned long long bits, int k) {
    put_signs(s->words, s->count, s->count & 63 ? s->words[s->count >> 6] : 0, bits, k);
    s->count += k;
}

static inline int count_bits(unsigned long long mask) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_popcountll(mask);
#else
    int k = 0;
    for (; mask != 0; mask &= mask - 1) {
        k++;
    }
    return k;
#endif
}

static inline unsigned long long load_bits(const char *at, Py_ssize_t size) {
    if (size == 8) {
        unsigned long long w;
        memcpy(&w, at, 8);
        return w;
    }
    if (size == 4) {
        unsigned int w;
        memcpy(&w, at, 4);
        return w;
    }
    unsigned short w;
    memcpy(&w, at, 2);
    return w;
}

/* The index of mask's lowest set bit (mask != 0). */
static inline int lowest_bit(unsigned long long mask) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_ctzll(mask);
#else
    int k = 0;
    for (; !(mask & 1); mask >>= 1) {
        k++;
    }
    return k;
#endif
}

/* The marked elements of `block` (step bytes apart) put at `into`, each copied as one T
   (a fixed-size memcpy is one move; one of a size known only at run time was a libc call
   per NaN: 0.16 ms of a 5.5 ms sort of 2^20 float32 with a hundredth NaNs). The first is
   written whether or not one is marked (element 0 where none is) and counted where one
   is: about half the 64-element blocks of data with a hundredth NaNs hold one, and a
   branch on it, missed every other block, cost 3-4 % of a sort of 2^18 float32
   (bench/sort_sweep.py's ties; the predictor learns a row sorted over and over at 2^16). */
#define PUT_AS(T)                                                                              \
    memcpy(into + count * (Py_ssize_t)sizeof(T), block + first * step, sizeof(T));             \
    count += mask != 0;                                                                        \
    for (mask &= mask - 1; mask != 0; mask &= mask - 1) {                                      \
        memcpy(into + count++ * (Py_ssize_t)sizeof(T), block + lowest_bit(mask) * step, sizeof(T)); \
    }

/* Returns the count after them (`count` before; room reserved for one more than marked). */
static inline Py_ssize_t put_marked(char *into, Py_ssize_t count, const char *block, Py_ssize_t step,
                                    Py_ssize_t size, unsigned long long mask) {
    Py_ssize_t first = (Py_ssize_t)lowest_bit(mask | 1ull << 63) * (mask != 0);
    if (size == 8) {
        PUT_AS(unsigned long long)
    } else if (size == 4) {
        PUT_AS(unsigned int)
    } else if (size == 2) {
        PUT_AS(unsigned short)
    } else {
        PUT_AS(unsigned char)
    }
    return count;
}

#ifdef CW_HAVE_AVX2_PATH
/* AVX-512F, BW and BMI2 (every CPU with the first two has the third; asked once). */
static inline int has_avx512_bw_bmi2(void) {
    static int known = -1;
    if (known < 0) {
        known = cw_vector_level() == 2 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("bmi2");
    }
    return known;
}

/* One 64-element block's runs as both AVX-512 copies take them (_native_sort_runs.c's
   collect, _native_sort_partition.c's partition): room made for 64 more signs and 65 NaNs,
   the NaNs (the marks less the zeros) put, the zeros' signs (one pext of the negatives)
   appended. The counts and the signs' last word are the caller's locals, kept in
   registers once this is inlined (the structs' fields, which the copy's stores might
   alias, were read back from memory each block). 0, or -1 where memory ran out. */
__attribute__((always_inline, target("bmi2,popcnt"))) static inline int put_block_runs(
    Signs *signs, Run *nans, Py_ssize_t *signed_count, Py_ssize_t *nan_count, unsigned long long *word,
    const char *block, Py_ssize_t size, unsigned long long special, unsigned long long zeros,
    unsigned long long negative) {
    if ((*signed_count + 64) / 64 + 2 > signs->capacity || *nan_count + 65 > nans->capacity) {
        signs->count = *signed_count, nans->count = *nan_count;
        if (reserve_signs(signs, 64) < 0 || reserve(nans, 65, size) < 0) {
            return -1;
        }
    }
    *nan_count = put_marked(nans->data, *nan_count, block, size, size, special & ~zeros);
    int k = __builtin_popcountll(zeros);
    *word = put_signs(signs->words, *signed_count, *word, _pext_u64(negative, zeros), k);
    *signed_count += k;
    return 0;
}
#endif

#endif
