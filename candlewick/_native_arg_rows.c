/* candlewick._native's arg_rows(x, out, largest): the index of each row's first minimum (or
   maximum) of a 2-D float32/float64 buffer whose rows are contiguous, written into out's
   int64 elements (cpu_backend/reduce_ops.py's argmin/argmax along a short last axis).

   Why: NumPy's argmin along the last axis calls its per-dtype arg function once a row, about
   30 ns of dispatch a row; a KMeans step's nearest center (20000 rows of 8 distances) took
   0.65 ms, where one loop over the rows takes a fraction of that.

   NumPy's answer, index for index: the first NaN of a row where it has one (NumPy's
   argmin/argmax report the first NaN), else the first element equal to the row's extreme
   (-0.0 and 0.0 compare equal: the first of them). x: rows of k >= 1 elements, the row
   step any multiple of the item; out: a writable int64 buffer of one element a row
   (contiguous). Anything else: False, nothing written; done: True. The GIL is released
   while it runs. */

#include "_native.h"
#include "_native_host.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* Two passes a row, each without a data-dependent branch until its answer: the extreme
   (compare and select) and whether a NaN is there, then the first index equal to it (or the
   first NaN). A loop that kept the index as it compared mispredicted its branch on about
   every other element of random rows: slower than NumPy's. */
#define ARG_ROWS(name, type) \
    static void name(const char *x, Py_ssize_t rows, Py_ssize_t k, Py_ssize_t step, int64_t *out, int largest) { \
        for (Py_ssize_t i = 0; i < rows; i++, x += step) { \
            const type *r = (const type *)x; \
            type best = r[0]; \
            int nan = r[0] != r[0]; \
            if (largest) { \
                for (Py_ssize_t j = 1; j < k; j++) { \
                    type v = r[j]; \
                    best = v > best ? v : best; \
                    nan |= v != v; \
                } \
            } else { \
                for (Py_ssize_t j = 1; j < k; j++) { \
                    type v = r[j]; \
                    best = v < best ? v : best; \
                    nan |= v != v; \
                } \
            } \
            Py_ssize_t at = 0; \
            if (nan) { \
                while (r[at] == r[at]) { \
                    at++; \
                } \
            } else { \
                while (r[at] != best) { \
                    at++; \
                } \
            } \
            out[i] = at; \
        } \
    }

ARG_ROWS(arg_rows_f32, float)
ARG_ROWS(arg_rows_f64, double)

#ifdef CW_HAVE_AVX2_PATH
/* The same answer with a row's chunks of 8 floats (4 doubles) a vector: the extreme by
   min/max over the chunks (the tail's missing lanes the extreme's identity), whether a
   NaN is there by an unordered compare, then the first lane equal to the extreme (or the
   first NaN lane) from a compare's mask: no branch on the data but the one that ends the
   search, which a row of one chunk ends at once. (min/max answer their second operand
   where one is NaN: the extreme is then garbage, and unused. The lanes past a row's end
   load as zeros and come after its own, one of which holds the extreme or a NaN: they are
   never the first hit.) */
__attribute__((target("avx2"))) static void arg_rows_f32_avx2(const char *x, Py_ssize_t rows, Py_ssize_t k,
                                                              Py_ssize_t step, int64_t *out, int largest) {
    Py_ssize_t full = k / 8 * 8;
    int tail = (int)(k - full);
    __m256i tail_mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(tail), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    __m256 identity = _mm256_set1_ps(largest ? -INFINITY : INFINITY);
    for (Py_ssize_t i = 0; i < rows; i++, x += step) {
        const float *r = (const float *)x;
        __m256 best = identity, nan = _mm256_setzero_ps();
        Py_ssize_t j = 0;
        for (; j <= k - 8; j += 8) {
            __m256 v = _mm256_loadu_ps(r + j);
            best = largest ? _mm256_max_ps(best, v) : _mm256_min_ps(best, v);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        if (tail) {
            __m256 v = _mm256_blendv_ps(identity, _mm256_maskload_ps(r + j, tail_mask), _mm256_castsi256_ps(tail_mask));
            best = largest ? _mm256_max_ps(best, v) : _mm256_min_ps(best, v);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        __m128 m = _mm256_castps256_ps128(best), h = _mm256_extractf128_ps(best, 1);
        m = largest ? _mm_max_ps(m, h) : _mm_min_ps(m, h);
        h = _mm_movehl_ps(m, m);
        m = largest ? _mm_max_ps(m, h) : _mm_min_ps(m, h);
        h = _mm_shuffle_ps(m, m, 1);
        m = largest ? _mm_max_ss(m, h) : _mm_min_ss(m, h);
        __m256 extreme = _mm256_set1_ps(_mm_cvtss_f32(m));
        int any_nan = _mm256_movemask_ps(nan) != 0;
        for (j = 0;; j += 8) {
            int last = j + 8 > k;
            __m256 v = last ? _mm256_maskload_ps(r + j, tail_mask) : _mm256_loadu_ps(r + j);
            unsigned hits = (unsigned)_mm256_movemask_ps(any_nan ? _mm256_cmp_ps(v, v, _CMP_UNORD_Q)
                                                                 : _mm256_cmp_ps(v, extreme, _CMP_EQ_OQ));
            if (hits) {
                out[i] = j + __builtin_ctz(hits);
                break;
            }
        }
    }
}

__attribute__((target("avx2"))) static void arg_rows_f64_avx2(const char *x, Py_ssize_t rows, Py_ssize_t k,
                                                              Py_ssize_t step, int64_t *out, int largest) {
    Py_ssize_t full = k / 4 * 4;
    int tail = (int)(k - full);
    __m256i tail_mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(tail), _mm256_setr_epi64x(0, 1, 2, 3));
    __m256d identity = _mm256_set1_pd(largest ? -INFINITY : INFINITY);
    for (Py_ssize_t i = 0; i < rows; i++, x += step) {
        const double *r = (const double *)x;
        __m256d best = identity, nan = _mm256_setzero_pd();
        Py_ssize_t j = 0;
        for (; j <= k - 4; j += 4) {
            __m256d v = _mm256_loadu_pd(r + j);
            best = largest ? _mm256_max_pd(best, v) : _mm256_min_pd(best, v);
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
        }
        if (tail) {
            __m256d v =
                _mm256_blendv_pd(identity, _mm256_maskload_pd(r + j, tail_mask), _mm256_castsi256_pd(tail_mask));
            best = largest ? _mm256_max_pd(best, v) : _mm256_min_pd(best, v);
            nan = _mm256_or_pd(nan, _mm256_cmp_pd(v, v, _CMP_UNORD_Q));
        }
        __m128d m = _mm256_castpd256_pd128(best), h = _mm256_extractf128_pd(best, 1);
        m = largest ? _mm_max_pd(m, h) : _mm_min_pd(m, h);
        h = _mm_unpackhi_pd(m, m);
        m = largest ? _mm_max_sd(m, h) : _mm_min_sd(m, h);
        __m256d extreme = _mm256_set1_pd(_mm_cvtsd_f64(m));
        int any_nan = _mm256_movemask_pd(nan) != 0;
        for (j = 0;; j += 4) {
            int last = j + 4 > k;
            __m256d v = last ? _mm256_maskload_pd(r + j, tail_mask) : _mm256_loadu_pd(r + j);
            unsigned hits = (unsigned)_mm256_movemask_pd(any_nan ? _mm256_cmp_pd(v, v, _CMP_UNORD_Q)
                                                                 : _mm256_cmp_pd(v, extreme, _CMP_EQ_OQ));
            if (hits) {
                out[i] = j + __builtin_ctz(hits);
                break;
            }
        }
    }
}
#endif

const char cw_arg_rows_doc[] =
    "arg_rows(x, out, largest, widest=1, /) -> bool\n\n"
    "out[i] = the index of row i's first minimum of x (first maximum where largest), or its\n"
    "first NaN, as NumPy's argmin/argmax along the last axis: x a 2-D float32 or float64\n"
    "buffer with contiguous rows, out a contiguous int64 buffer of one element a row. Any\n"
    "other pair: nothing written, False. widest: 1 the AVX2 loop where the CPU has it, 0 the\n"
    "scalar loop (tests run both).";

PyObject *cw_arg_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    long widest;
    if (cw_widest_arg(args, nargs, 3, 1, "arg_rows(x, out, largest, widest=1)", &widest) < 0) {
        return NULL;
    }
    int largest = PyObject_IsTrue(args[2]);
    if (largest < 0) {
        return NULL;
    }
    Py_buffer vx, vo;
    /* (a buffer it cannot read: False, and the caller's NumPy call answers) */
    if (PyObject_GetBuffer(args[0], &vx, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (PyObject_GetBuffer(args[1], &vo, PyBUF_RECORDS) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&vx);
        Py_RETURN_FALSE;
    }
    Py_ssize_t size = vx.itemsize;
    int f32 = size == 4 && vx.format != NULL && strcmp(vx.format, "f") == 0;
    int f64 = size == 8 && vx.format != NULL && strcmp(vx.format, "d") == 0;
    int fits = (f32 || f64) && vx.ndim == 2 && vx.shape[1] >= 1 && vx.strides[1] == size &&
               vx.strides[0] % size == 0 && vo.itemsize == 8 && vo.format != NULL && vo.format[0] != '\0' &&
               strchr("lq", vo.format[0]) && vo.format[1] == '\0' && PyBuffer_IsContiguous(&vo, 'C') &&
               vo.len == vx.shape[0] * 8;
    if (fits && vx.shape[0] > 0) {
        const char *x = vx.buf;
        Py_ssize_t rows = vx.shape[0], k = vx.shape[1], step = vx.strides[0];
        int64_t *out = vo.buf;
        int vector = 0;
#ifdef CW_HAVE_AVX2_PATH
        vector = cw_vector_level() > 0 && widest > 0;
#endif
        Py_BEGIN_ALLOW_THREADS
#ifdef CW_HAVE_AVX2_PATH
        if (vector) {
            (f32 ? arg_rows_f32_avx2 : arg_rows_f64_avx2)(x, rows, k, step, out, largest);
        } else
#endif
        if (f32) {
            arg_rows_f32(x, rows, k, step, out, largest);
        } else {
            arg_rows_f64(x, rows, k, step, out, largest);
        }
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&vx);
    PyBuffer_Release(&vo);
    return PyBool_FromLong(fits);
}
