/* candlewick._native's cpu sort (sort_rows): a row read with its zeros' signs and NaNs
   collected, or partitioned at zero, and the sorted row's runs written back. */

#ifndef CANDLEWICK_NATIVE_SORT_H
#define CANDLEWICK_NATIVE_SORT_H

#include "_native.h"

/* _native_sort_runs.c: a row of a sort's input read, its zeros' signs and NaNs collected */
/* A row's NaNs in the order read, appended; `ends` (in sort_rows) keeps where each row's
   end. */
typedef struct {
    char *data;
    Py_ssize_t count, capacity;
} Run;

/* The signs of a row's zeros in the order read, one bit each (1: -0.0), appended: all a
   zero run holds, cheaper to collect than the zeros themselves. */
typedef struct {
    unsigned long long *words;
    Py_ssize_t count, capacity; /* bits, words */
} Signs;

/* The row's n elements (step bytes apart from x, any sign) copied into dst (contiguous;
   NULL: only read), its zeros' signs and NaNs appended (format 0-3; -1: a copy): 0, or -1
   where memory ran out. */
int cw_sort_collect_row(const char *x, Py_ssize_t n, Py_ssize_t step, char *dst, Py_ssize_t size, int format,
                        Signs *signs, Run *nans);

/* _native_sort_partition.c: how many of `samples` elements spread evenly over x's n
   (contiguous; format 0-3) are zeros or NaNs. */
int cw_sort_sampled_ties(const char *x, Py_ssize_t n, Py_ssize_t size, int format, int samples);

/* x's n elements (contiguous, 4- or 8-byte floats, format 2-3) partitioned into dst: the
   ones below zero at its front (their count in *below), the others but the zeros (above
   zero, NaNs) at its back, each part in no order; the zeros' signs and the NaNs appended
   as cw_sort_collect_row appends them. Returns the count at the back, -1 where memory ran
   out, -2 where this CPU has no such loop (AVX-512 F, BW and BMI2). */
Py_ssize_t cw_sort_partition_row(const char *x, Py_ssize_t n, char *dst, Py_ssize_t size, Signs *signs, Run *nans,
                                 Py_ssize_t *below);

/* _native_sort_finish.c: a sorted row's NaN run and (where zc >= 2) zero run overwritten
   by the runs collected (nc NaNs at `nans`; zc zeros from their signs, bits z0.. of
   `signs`), each in reverse where `mirrored`; the row reversed where `reverse`. The zero
   run is found below the NaNs, or starts at `lo` where lo >= 0 (a partitioned row's gap,
   written whatever zc). */
void cw_sort_finish_row(char *row, Py_ssize_t n, Py_ssize_t size, int mirrored, const Signs *signs, Py_ssize_t z0,
                        Py_ssize_t zc, Py_ssize_t lo, const char *nans, Py_ssize_t nc, int reverse);

/* _native_sort.c */
extern const char cw_sort_rows_doc[];
PyObject *cw_sort_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
