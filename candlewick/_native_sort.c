/* candlewick._native's sort_rows(): the cpu backend's stable sort of values at the speed
   of NumPy's default (SIMD quick)sort (cpu_backend/ordering.py).

   A stable sort's values are any sort's but in two runs of an ascending row: its zeros
   (-0.0 == 0.0) and its NaNs (any sign and payload), where a stable sort holds the
   input's zeros and NaNs in input order; NumPy's quicksort rewrites NaNs as one quiet NaN
   and its min/max networks can duplicate one of two equal zeros, so the input is the
   only witness. Here the rows of x are copied into s (the copy np.sort makes anyway)
   while each row's zeros and NaNs are collected in the order read; s is sorted by NumPy
   (s.sort(-1, kind)); the collected runs are written over the sorted row's NaNs and its
   zeros (where two or more). No pass over the input of its own (_native_sort_runs.c):
   finding the runs after the sort cost a second read of x (1.15-1.3x np.sort on data with
   a tenth zeros). Nor are the runs left out of what NumPy sorts: on data with a tenth
   zeros and a hundredth NaNs its quicksort sorts the other 89 % only 3-4 % faster (it
   sorts repeated values cheaply), less than a compacting copy and the move that opens
   the zero run cost (1.10x np.sort at 2^16 float32, against 1.06x).

   x may be read backwards (a negative stride): a stable descending sort is the stable
   ascending sort of x reversed, read backwards, and the front end views the result so
   (as NumPy's `np.flip(np.sort(x))`: no pass to reverse it); `reverse` reverses the rows
   in place for the protocol's own descending sort. Such a row is read in memory order
   (x's rows mirrored) and its runs written back in reverse: the values sorted are the same
   multiset, so the same sorted row, but NumPy sorts them in the order np.sort(x) does
   (its quicksort's pivots, sampled at fixed places, differ for the reversed order: 2-8 %
   more time or less, from one array to the next) and they are copied without a lane
   permutation. The runs are written back by _native_sort_finish.c.

   One long float32 or float64 row rich in zeros and NaNs (PARTITION_MIN, SAMPLES) is copied
   partitioned at zero instead (cw_sort_partition_row): its elements below zero at s's front,
   the others but the zeros (above zero, NaNs) at its back, a gap as long as the zero run
   between them. NumPy then sorts each side alone: the copy did its quicksort's first
   partition, and the zeros never reach it (sorting the two sides of data with a tenth zeros
   and a hundredth NaNs took 0.83-0.93 of sorting the row at 2^16-2^20, NumPy alone). The
   zero run is written into the gap, whatever its length; the NaNs, sorted last on the back
   side, are overwritten by their run as in any row. */

#include "_native.h"
#include "_native_sort.h"

#include <string.h>

const char cw_sort_rows_doc[] =
"sort_rows(s, x, format, reverse[, kind])\n\n"
"s: a writable C-contiguous ndarray of x's shape and itemsize. With kind (None for NumPy's\n"
"default sort, or a kind's name), s is first filled with x's rows (its last axis; x any\n"
"strides, negative ones included, not overlapping s) and sorted by s.sort(-1, kind);\n"
"without it, s already holds x's rows sorted ascending with NaN last. With format 0-3\n"
"(float16, bfloat16, float32, float64), each row's NaN run and its zero run (where it\n"
"holds two zeros or more) are then x's NaNs and zeros of that row in x's order; with -1\n"
"x is read only to fill s (None allowed without kind). Each row is then reversed where\n"
"reverse. Itemsize 1, 2, 4 or 8 bytes.";

/* The elements (all rows) up to which sort_rows keeps its runs on the stack. */
#define SMALL_SORT 256

/* x's row after `row` (index: the current row's index over x's leading axes). */
static const char *next_row(const char *xrow, const Py_buffer *x, Py_ssize_t *index) {
    for (Py_ssize_t d = x->ndim - 2; d >= 0; d--) {
        xrow += x->strides[d];
        if (++index[d] < x->shape[d]) {
            break;
        }
        xrow -= x->strides[d] * x->shape[d];
        index[d] = 0;
    }
    return xrow;
}

/* s.sort(-1, kind), through a method call with no argument tuple (the name and -1 made
   once): a call whose arguments were built from a format string cost 0.3-0.5 us */
static PyObject *sort_in_place(PyObject *s, PyObject *kind) {
    static PyObject *sort_name, *last_axis;
    if (sort_name == NULL && (sort_name = PyUnicode_InternFromString("sort")) == NULL) {
        return NULL;
    }
    if (last_axis == NULL && (last_axis = PyLong_FromLong(-1)) == NULL) {
        return NULL;
    }
    PyObject *args[] = {NULL, s, last_axis, kind}; /* (args[0]: the room the offset flag offers) */
    return PyObject_VectorcallMethod(sort_name, args + 1, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* The elements from which one row is partitioned at zero as it is copied: NumPy's quicksort then
   sorts the two sides alone, its first partition done by the copy, the zeros and NaNs
   left out (they are written back from their runs) */
#define PARTITION_MIN 16384
/* ... and only where a sixteenth or more of SAMPLES elements spread over the row are zeros
   or NaNs: on data with none the partitioning copy cost more than the level of NumPy's
   quicksort it saves (float32 2^16: 1.05x the plain copy and sort), while on data with a
   tenth zeros and a hundredth NaNs, left out of NumPy's sort, it saved 2-4 % */
#define SAMPLES 256

/* s[0:below] and s[n - above:n] each sorted by s.sort(-1, kind): 0, or -1 with the error set. */
static int sort_sides(PyObject *s, Py_ssize_t n, Py_ssize_t below, Py_ssize_t above, PyObject *kind) {
    Py_ssize_t bounds[2][2] = {{0, below}, {n - above, n}};
    for (int k = 0; k < 2; k++) {
        if (bounds[k][1] - bounds[k][0] < 2) {
            continue;
        }
        PyObject *part = PySequence_GetSlice(s, bounds[k][0], bounds[k][1]);
        PyObject *sorted = part == NULL ? NULL : sort_in_place(part, kind);
        Py_XDECREF(part);
        if (sorted == NULL) {
            return -1;
        }
        Py_DECREF(sorted);
    }
    return 0;
}

PyObject *cw_sort_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 && nargs != 5) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.sort_rows: takes (s, x, format, reverse[, kind]), got %zd "
                     "arguments", nargs);
        return NULL;
    }
    PyObject *s_obj = args[0], *x_obj = args[1], *kind = nargs == 5 ? args[4] : NULL;
    long format = PyLong_AsLong(args[2]);
    if (format == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int reverse = PyObject_IsTrue(args[3]);
    if (reverse < 0) {
        return NULL;
    }
    if (format < -1 || format > 3) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.sort_rows: format must be -1 to 3, got %ld", format);
        return NULL;
    }
    Py_buffer s, x;
    /* (no PyBUF_FORMAT: NumPy exports bfloat16, whose format it cannot spell, without it) */
    if (PyObject_GetBuffer(s_obj, &s, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        return NULL;
    }
    int fills = kind != NULL, reads_x = fills || format >= 0;
    if (reads_x && PyObject_GetBuffer(x_obj, &x, PyBUF_STRIDES) < 0) {
        PyBuffer_Release(&s);
        return NULL;
    }
    static const Py_ssize_t FORMAT_SIZE[4] = {2, 2, 4, 8};
    const char *wrong = NULL;
    if (s.ndim < 1) {
        wrong = "s must have an axis";
    } else if (s.itemsize != 1 && s.itemsize != 2 && s.itemsize != 4 && s.itemsize != 8) {
        wrong = "s's itemsize must be 1, 2, 4 or 8";
    } else if (format >= 0 && s.itemsize != FORMAT_SIZE[format]) {
        wrong = "s's itemsize is not the format's";
    } else if (reads_x && (x.itemsize != s.itemsize || x.ndim != s.ndim ||
                           memcmp(x.shape, s.shape, (size_t)s.ndim * sizeof(Py_ssize_t)) != 0)) {
        wrong = "x must have s's shape and itemsize";
    }
    int failed = wrong != NULL;
    if (failed) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.sort_rows: %s", wrong);
    }
    Py_ssize_t last = s.ndim - 1, n = failed ? 0 : s.shape[last], rows = 1, size = s.itemsize;
    for (Py_ssize_t d = 0; d < last; d++) {
        rows *= s.shape[d];
    }
    Signs signs = {NULL, 0, 0};
    Run nans = {NULL, 0, 0};
    Py_ssize_t *ends = NULL, one_row[2]; /* where each row's zeros' signs and NaNs end in the runs */
    /* A small sort's runs and ends in room on the stack, as large as the runs can grow
       (the reading pass reserves a 64-element block's more: see reserve and
       reserve_signs), so that they never grow out of it: the 2-4 mallocs and frees
       were a tenth of a 16-element sort's time */
    Py_ssize_t small_ends[2 * SMALL_SORT];
    unsigned long long small_signs[(SMALL_SORT + 64) / 64 + 2], small_nans[SMALL_SORT + 65];
    if (n == 0 || rows == 0) {
        goto done;
    }
    if (format >= 0 && n * rows <= SMALL_SORT) {
        ends = small_ends;
        signs.words = small_signs, signs.capacity = (Py_ssize_t)(sizeof small_signs / sizeof small_signs[0]);
        nans.data = (char *)small_nans, nans.capacity = (Py_ssize_t)(sizeof small_nans / sizeof small_nans[0]);
    } else if (format >= 0 && rows == 1) {
        ends = one_row;
    } else if (format >= 0 && (ends = (Py_ssize_t *)PyMem_RawMalloc((size_t)rows * 2 * sizeof(Py_ssize_t))) == NULL) {
        PyErr_NoMemory(), failed = 1;
        goto done;
    }
    /* the GIL let go only around a pass worth it (NumPy's own threshold, 500 elements:
       letting it go and taking it again cost a tiny sort 0.1-0.2 us) */
    int lets_go = n * rows > 500;
    PyThreadState *saved = NULL;
    /* x's rows read backwards: read in memory order instead, the runs written back in reverse */
    int mirrored = reads_x && x.strides[last] < 0;
    /* one long row of float32 or float64 read in order (either way): partitioned at zero as
       it is copied, each side then sorted alone (sort_sides) */
    Py_ssize_t below = -1, above = -1;
    int partitioned = fills && format >= 2 && rows == 1 && n >= PARTITION_MIN &&
                      (mirrored ? -x.strides[last] : x.strides[last]) == size &&
                      cw_sort_sampled_ties(mirrored ? (const char *)x.buf + (n - 1) * x.strides[last] : x.buf, n, size,
                                           format, SAMPLES) * 16 >= SAMPLES;
    if (reads_x) {
        Py_ssize_t index[64] = {0}; /* the current row's index over x's leading axes (PEP 3118: ndim <= 64) */
        const char *xrow = (const char *)x.buf;
        char *srow = (char *)s.buf;
        Py_ssize_t step = mirrored ? -x.strides[last] : x.strides[last], far = mirrored ? (n - 1) * x.strides[last] : 0;
        saved = lets_go ? PyEval_SaveThread() : NULL;
        if (partitioned) {
            above = cw_sort_partition_row(xrow + far, n, srow, size, &signs, &nans, &below);
            failed = above == -1, partitioned = above >= 0;
            ends[0] = signs.count, ends[1] = nans.count;
        }
        for (Py_ssize_t r = 0; r < rows && !failed && !partitioned; r++, srow += n * size) {
            failed = cw_sort_collect_row(xrow + far, n, step, fills ? srow : NULL, size, format, &signs, &nans) < 0;
            if (ends != NULL) {
                ends[2 * r] = signs.count, ends[2 * r + 1] = nans.count;
            }
            xrow = next_row(xrow, &x, index);
        }
        if (saved != NULL) {
            PyEval_RestoreThread(saved);
        }
        if (failed) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (fills && partitioned) {
        if (sort_sides(s_obj, n, below, above, kind) < 0) {
            failed = 1;
            goto done;
        }
    } else if (fills) {
        PyObject *sorted = sort_in_place(s_obj, kind);
        if (sorted == NULL) {
            failed = 1;
            goto done;
        }
        Py_DECREF(sorted);
    }
    if (format < 0 && !reverse) {
        goto done;
    }
    saved = lets_go ? PyEval_SaveThread() : NULL;
    char *srow = (char *)s.buf;
    for (Py_ssize_t r = 0; r < rows; r++, srow += n * size) {
        Py_ssize_t z0 = r && ends ? ends[2 * r - 2] : 0, q0 = r && ends ? ends[2 * r - 1] : 0;
        Py_ssize_t zc = ends ? ends[2 * r] - z0 : 0, nc = ends ? ends[2 * r + 1] - q0 : 0;
        cw_sort_finish_row(srow, n, size, mirrored, &signs, z0, zc, partitioned ? below : -1,
                           nc ? nans.data + q0 * size : NULL, nc, reverse);
    }
    if (saved != NULL) {
        PyEval_RestoreThread(saved);
    }
done:
    if (ends != small_ends) {
        if (ends != one_row) {
            PyMem_RawFree(ends);
        }
        PyMem_RawFree(signs.words);
        PyMem_RawFree(nans.data);
    }
    if (reads_x) {
        PyBuffer_Release(&x);
    }
    PyBuffer_Release(&s);
    if (failed) {
        return NULL;
    }
    Py_RETURN_NONE;
}
