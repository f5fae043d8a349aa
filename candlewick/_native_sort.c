/* candlewick._native's sort_finish(): the cpu backend's sorted rows finished in one pass.

   The cpu backend sorts values with NumPy's default (SIMD quick)sort and makes them a
   stable sort's bit for bit afterwards (cpu_backend/ordering.py): only two runs of an
   ascending row can differ, its zeros (-0.0 == 0.0) and its NaNs (any sign and payload),
   and a stable sort holds there the input's zeros and NaNs in input order. NumPy takes
   four passes over the input for that (isnan, a compaction, == 0, a compaction); here
   one pass copies both runs, stopping once both are full. A descending row is the
   ascending one reversed in place first (contiguous, as a storage's buffer must be),
   its runs then filled in input order as well. Elements are read as bit patterns
   (float16, bfloat16, float32, float64): zero is every bit but the sign 0, NaN a
   magnitude above the exponent mask. */

#include "_native.h"

#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

const char cw_sort_finish_doc[] =
"sort_finish(s, x, format, descending)\n\n"
"Finish s, x's rows (its last axis) each sorted ascending by value with NaN last (a\n"
"writable C-contiguous buffer of x's shape and itemsize): each row reversed where\n"
"descending; with format 0-3 (float16, bfloat16, float32, float64), each row's zero run\n"
"(where it holds two zeros or more) and NaN run then rewritten with x's zeros and NaNs\n"
"of that row in x's order. x: any strides, not overlapping s; unread (None allowed)\n"
"where format is -1 (reverse only, any itemsize of 1, 2, 4 or 8 bytes).";

/* The sign bit and exponent mask of each format's bit pattern. */
static const unsigned long long SIGN[4] = {0x8000u, 0x8000u, 0x80000000u, 0x8000000000000000ull};
static const unsigned long long EXPONENT[4] = {0x7C00u, 0x7F80u, 0x7F800000u, 0x7FF0000000000000ull};

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

/* The bits of a block of m <= 64 elements (step bytes apart) that are zeros or NaNs (the
   magnitude less one at or above the exponent mask); where SSE2 is there, 4 float32 or 2
   float64 at a time by integer compares (no floating-point flag raised), float64's from
   its high words alone: a superset (denormals of high word 0, infinities), which the
   caller's visit tests bit for bit. */
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
        const char *at = block + k * step;
        unsigned long long u;
        if (format == 3) {
            unsigned long long w;
            memcpy(&w, at, 8), u = w;
        } else if (format == 2) {
            unsigned int w;
            memcpy(&w, at, 4), u = w;
        } else {
            unsigned short w;
            memcpy(&w, at, 2), u = w;
        }
        mask |= (unsigned long long)((u & ~sign) - 1 >= exponent) << k;
    }
    return mask;
}

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

#define DEFINE_FINISH_ROW(NAME, T)                                                             \
    static void NAME(T *row, const char *x, Py_ssize_t n, Py_ssize_t step, int format,         \
                     int descending) {                                                         \
        Py_ssize_t nan_lo = n, lo = 0, hi = 0;                                                 \
        T sign = 0, exponent = 0;                                                              \
        if (format >= 0) {                                                                     \
            sign = (T)SIGN[format], exponent = (T)EXPONENT[format];                            \
            while (nan_lo > 0 && (T)(row[nan_lo - 1] & ~sign) > exponent) {                    \
                nan_lo--;                                                                      \
            }                                                                                  \
            Py_ssize_t below = nan_lo; /* the first element not below zero: a binary search */ \
            while (lo < below) {                                                               \
                Py_ssize_t mid = lo + (below - lo) / 2;                                        \
                if ((row[mid] & sign) && (T)(row[mid] & ~sign) != 0) {                         \
                    lo = mid + 1;                                                              \
                } else {                                                                       \
                    below = mid;                                                               \
                }                                                                              \
            }                                                                                  \
            for (hi = lo; hi < nan_lo && (T)(row[hi] & ~sign) == 0; hi++) {                    \
            }                                                                                  \
        }                                                                                      \
        Py_ssize_t nan_start = nan_lo, nan_end = n;                                            \
        if (descending) {                                                                      \
            Py_ssize_t i = reverse_ends((char *)row, n, sizeof(T));                            \
            for (Py_ssize_t j = n - 1 - i; i < j; i++, j--) {                                  \
                T t = row[i];                                                                  \
                row[i] = row[j];                                                               \
                row[j] = t;                                                                    \
            }                                                                                  \
            nan_start = 0, nan_end = n - nan_lo;                                               \
            Py_ssize_t zero_lo = n - hi;                                                       \
            hi = n - lo, lo = zero_lo;                                                         \
        }                                                                                      \
        if (hi - lo < 2) { /* one zero or none: nothing a sort could reorder */               \
            hi = lo;                                                                           \
        }                                                                                      \
        /* zeros and NaNs found as a bit mask per block of 64 (special_mask), without a     \
           branch per element (a tenth zeros mispredicts often); only their bits visited */ \
        T *zeros = row + lo, *nans = row + nan_start;                                          \
        Py_ssize_t zeros_left = hi - lo, nans_left = nan_end - nan_start;                      \
        for (Py_ssize_t i = 0; i < n && (zeros_left > 0 || nans_left > 0); i += 64) {          \
            int m = n - i < 64 ? (int)(n - i) : 64;                                            \
            const char *block = x + i * step;                                                  \
            unsigned long long mask = special_mask(block, m, step, format);                    \
            for (; mask != 0; mask &= mask - 1) {                                              \
                T u;                                                                           \
                memcpy(&u, block + lowest_bit(mask) * step, sizeof(T));                        \
                T magnitude = (T)(u & ~sign); /* (a candidate may be neither: below) */        \
                if (magnitude == 0) {                                                          \
                    if (zeros_left > 0) {                                                      \
                        *zeros++ = u, zeros_left--;                                            \
                    }                                                                          \
                } else if (magnitude > exponent && nans_left > 0) {                            \
                    *nans++ = u, nans_left--;                                                  \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

DEFINE_FINISH_ROW(finish_row8, unsigned char)
DEFINE_FINISH_ROW(finish_row16, unsigned short)
DEFINE_FINISH_ROW(finish_row32, unsigned int)
DEFINE_FINISH_ROW(finish_row64, unsigned long long)

PyObject *cw_sort_finish(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *s_obj, *x_obj;
    int format, descending;
    if (!PyArg_ParseTuple(args, "OOip:sort_finish", &s_obj, &x_obj, &format, &descending)) {
        return NULL;
    }
    if (format < -1 || format > 3) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.sort_finish: format must be -1 to 3, got %d", format);
        return NULL;
    }
    Py_buffer s, x;
    /* (no PyBUF_FORMAT: NumPy exports bfloat16, whose format it cannot spell, without it) */
    if (PyObject_GetBuffer(s_obj, &s, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        return NULL;
    }
    int reads_x = format >= 0;
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
    } else if (reads_x && s.itemsize != FORMAT_SIZE[format]) {
        wrong = "s's itemsize is not the format's";
    } else if (reads_x && (x.itemsize != s.itemsize || x.ndim != s.ndim ||
                           memcmp(x.shape, s.shape, (size_t)s.ndim * sizeof(Py_ssize_t)) != 0)) {
        wrong = "x must have s's shape and itemsize";
    }
    if (wrong != NULL) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.sort_finish: %s", wrong);
        goto done;
    }
    Py_ssize_t last = s.ndim - 1, n = s.shape[last], rows = 1;
    for (Py_ssize_t d = 0; d < last; d++) {
        rows *= s.shape[d];
    }
    if (n == 0 || rows == 0) {
        goto done;
    }
    Py_ssize_t index[64] = {0}; /* the current row's index over x's leading axes (PEP 3118: ndim <= 64) */
    const char *xrow = reads_x ? (const char *)x.buf : NULL;
    Py_ssize_t step = reads_x ? x.strides[last] : 0;
    char *srow = (char *)s.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < rows; r++, srow += n * s.itemsize) {
        switch (s.itemsize) {
        case 1: finish_row8((unsigned char *)srow, xrow, n, step, format, descending); break;
        case 2: finish_row16((unsigned short *)srow, xrow, n, step, format, descending); break;
        case 4: finish_row32((unsigned int *)srow, xrow, n, step, format, descending); break;
        default: finish_row64((unsigned long long *)srow, xrow, n, step, format, descending); break;
        }
        for (Py_ssize_t d = last - 1; reads_x && d >= 0; d--) { /* x's next row */
            xrow += x.strides[d];
            if (++index[d] < x.shape[d]) {
                break;
            }
            xrow -= x.strides[d] * x.shape[d];
            index[d] = 0;
        }
    }
    Py_END_ALLOW_THREADS
done:
    if (reads_x) {
        PyBuffer_Release(&x);
    }
    PyBuffer_Release(&s);
    if (wrong != NULL) {
        return NULL;
    }
    Py_RETURN_NONE;
}
