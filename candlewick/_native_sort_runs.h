/* What candlewick._native's sort reading pass (_native_sort_runs.c) and its AVX-512 loop
   (_native_sort_avx512.c) share: a row's runs appended to (Run: the NaNs; Signs: the zeros'
   signs), inline, as the loops call them every 64 elements. */

#ifndef CANDLEWICK_NATIVE_SORT_RUNS_H
#define CANDLEWICK_NATIVE_SORT_RUNS_H

#include "_native.h"

#include <string.h>

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
/* _native_sort_avx512.c: whether the CPU has AVX-512F, BW and BMI2 (asked once); the row's
   leading elements (2-, 4- or 8-byte, read forwards) copied into dst and their runs
   collected 64 a step: how many it did (a multiple of 64), or -1 where memory ran out. */
int cw_sort_has_avx512(void);
Py_ssize_t cw_sort_collect_avx512(const char *x, Py_ssize_t n, char *dst, Py_ssize_t size, Signs *signs, Run *nans);
#endif

#endif
