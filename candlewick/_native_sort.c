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
   permutation. The zeros are written back from their signs, 64 a step by AVX-512's
   masked moves where the CPU has it. */

#include "_native.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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
   (found by a binary search below the NaNs) overwritten by the runs (the zeros from their
   signs, bits z0.. of `signs`), each in reverse where `mirrored`; reversed where
   `reverse`. */
#define DEFINE_FINISH_ROW(NAME, T)                                                             \
    static void NAME(T *row, Py_ssize_t n, int mirrored, const Signs *signs, Py_ssize_t z0,    \
                     Py_ssize_t zc, const char *nans, Py_ssize_t nc, int reverse) {            \
        if (nc > 0 && !mirrored) {                                                             \
            memcpy(row + n - nc, nans, (size_t)nc * sizeof(T));                                \
        }                                                                                      \
        for (Py_ssize_t k = 0; k < nc && mirrored; k++) {                                      \
            memcpy(row + n - 1 - k, nans + k * (Py_ssize_t)sizeof(T), sizeof(T));              \
        }                                                                                      \
        if (zc >= 2) { /* one zero or none: nothing a sort could reorder */                   \
            const T sign = (T)((T)1 << (8 * sizeof(T) - 1));                                   \
            Py_ssize_t lo = 0, below = n - nc; /* the first element not below zero */          \
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
    if (reads_x) {
        Py_ssize_t index[64] = {0}; /* the current row's index over x's leading axes (PEP 3118: ndim <= 64) */
        const char *xrow = (const char *)x.buf;
        char *srow = (char *)s.buf;
        Py_ssize_t step = mirrored ? -x.strides[last] : x.strides[last], far = mirrored ? (n - 1) * x.strides[last] : 0;
        saved = lets_go ? PyEval_SaveThread() : NULL;
        for (Py_ssize_t r = 0; r < rows && !failed; r++, srow += n * size) {
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
    if (fills) {
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
        const char *qrun = nc ? nans.data + q0 * size : NULL;
        switch (size) {
        case 1: finish_row8((unsigned char *)srow, n, mirrored, &signs, z0, zc, qrun, nc, reverse); break;
        case 2: finish_row16((unsigned short *)srow, n, mirrored, &signs, z0, zc, qrun, nc, reverse); break;
        case 4: finish_row32((unsigned int *)srow, n, mirrored, &signs, z0, zc, qrun, nc, reverse); break;
        default: finish_row64((unsigned long long *)srow, n, mirrored, &signs, z0, zc, qrun, nc, reverse); break;
        }
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
