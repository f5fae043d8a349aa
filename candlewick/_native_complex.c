/* candlewick._native's complex64_multiply(a, b, out): a host backend's complex64 product
   computed in double precision and rounded once to complex64 (cpu_backend/ops.py).

   Why: NumPy's complex64 loop forms a*c - b*d in single precision, where a product can
   overflow or the difference cancel while the result does not; the cpu backend gives the
   complex128 product rounded once instead. Through NumPy that is a complex128 multiply
   whose operands and result are cast a buffer at a time, 2.5x the time of NumPy's own
   complex64 loop (scipy.fft's rfft * response * irfft, issue 39 item 2). Here the same
   values come at about that loop's speed: each float widens exactly, the products of two
   widened floats are exact in double (24-bit significands), so every part is one rounding
   in double then one to float, bitwise NumPy's complex128 result cast to complex64 (the
   operands' order of NumPy's loop kept: re = ar*br - ai*bi, im = ar*bi + ai*br; only a NaN's
   sign may differ, which IEEE 754 and the standard leave open).

   a, b and out: objects with the buffer protocol of format "Zf" (complex64), of one ndim
   and shape (the caller broadcasts; a stride may be 0 in a and b), out writable; any
   other input is a TypeError/ValueError. The last axis, where all three are contiguous
   along it, runs 8 elements a step in AVX-512 or 4 in AVX2 where the CPU has them (x86-64,
   GCC or Clang: chosen at run time);
   every other case in a scalar loop with the same formula. The GIL is released while it
   computes; the IEEE flags it raised are cleared (the caller's quiet state stands). */

#include "_native.h"
#include "_native_host.h"

#include <fenv.h>
#include <string.h>


/* n elements at byte strides sa, sb, so (scalar loop). */
static void multiply_strided(const char *a, const char *b, char *o, Py_ssize_t n, Py_ssize_t sa, Py_ssize_t sb,
                             Py_ssize_t so) {
    for (Py_ssize_t i = 0; i < n; i++, a += sa, b += sb, o += so) {
        float x[2], y[2], z[2];
        memcpy(x, a, sizeof x);
        memcpy(y, b, sizeof y);
        double ar = x[0], ai = x[1], br = y[0], bi = y[1];
        z[0] = (float)(ar * br - ai * bi);
        z[1] = (float)(ar * bi + ai * br);
        memcpy(o, z, sizeof z);
    }
}

#ifdef CW_HAVE_AVX2_PATH
/* Two complex64 of `v` (4 floats) as doubles times two of `w`: [ar*br - ai*bi, ar*bi + ai*br]
   per element (addsub: even lanes subtract, odd lanes add). */
__attribute__((target("avx2"))) static inline __m128 product_pair(__m128 v, __m128 w) {
    __m256d a = _mm256_cvtps_pd(v), b = _mm256_cvtps_pd(w);
    __m256d a_re = _mm256_movedup_pd(a);             /* ar ar */
    __m256d a_im = _mm256_permute_pd(a, 0xF);        /* ai ai */
    __m256d b_swapped = _mm256_permute_pd(b, 0x5);   /* bi br */
    __m256d t1 = _mm256_mul_pd(a_re, b);             /* ar*br ar*bi */
    __m256d t2 = _mm256_mul_pd(a_im, b_swapped);     /* ai*bi ai*br */
    return _mm256_cvtpd_ps(_mm256_addsub_pd(t1, t2));
}

__attribute__((target("avx2"))) static void multiply_contiguous_avx2(const float *a, const float *b, float *o,
                                                                       Py_ssize_t n) {
    Py_ssize_t i = 0;
    for (; i + 4 <= n; i += 4) { /* (halves loaded and stored as they are: as the AVX-512 loop) */
        __m128 lo = product_pair(_mm_loadu_ps(a + 2 * i), _mm_loadu_ps(b + 2 * i));
        __m128 hi = product_pair(_mm_loadu_ps(a + 2 * i + 4), _mm_loadu_ps(b + 2 * i + 4));
        _mm_storeu_ps(o + 2 * i, lo);
        _mm_storeu_ps(o + 2 * i + 4, hi);
    }
    multiply_strided((const char *)(a + 2 * i), (const char *)(b + 2 * i), (char *)(o + 2 * i), n - i, 8, 8, 8);
}

/* 8 elements a step: AVX-512 has no addsub; fmaddsub's product is a_re*b, exact in
   double, so its one rounding of a_re*b -/+ t2 is addsub's. */
__attribute__((target("avx512f"))) static inline __m256 product_quad(__m256 v, __m256 w) {
    __m512d a = _mm512_cvtps_pd(v), b = _mm512_cvtps_pd(w);
    __m512d a_re = _mm512_movedup_pd(a);
    __m512d a_im = _mm512_permute_pd(a, 0xFF);
    __m512d b_swapped = _mm512_permute_pd(b, 0x55);
    __m512d t2 = _mm512_mul_pd(a_im, b_swapped);
    return _mm512_cvtpd_ps(_mm512_fmaddsub_pd(a_re, b, t2));
}

__attribute__((target("avx512f"))) static void multiply_contiguous_avx512(const float *a, const float *b, float *o,
                                                                           Py_ssize_t n) {
    Py_ssize_t i = 0;
    /* halves loaded and stored as they are: a 512-bit load's extract and the store's
       insert were three more shuffle-port uops every 8 elements, on ports the conversions
       and the products already fill (1.08x NumPy's complex64 loop on operands an rfft had
       just written, this project's VM, 2026-12-01) */
    for (; i + 8 <= n; i += 8) {
        __m256 lo = product_quad(_mm256_loadu_ps(a + 2 * i), _mm256_loadu_ps(b + 2 * i));
        __m256 hi = product_quad(_mm256_loadu_ps(a + 2 * i + 8), _mm256_loadu_ps(b + 2 * i + 8));
        _mm256_storeu_ps(o + 2 * i, lo);
        _mm256_storeu_ps(o + 2 * i + 8, hi);
    }
    multiply_strided((const char *)(a + 2 * i), (const char *)(b + 2 * i), (char *)(o + 2 * i), n - i, 8, 8, 8);
}

int cw_vector_level(void) {
    static int known = -1;
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("avx512f") ? 2 : __builtin_cpu_supports("avx2") ? 1 : 0;
    }
    return known;
}
#endif

/* One run along the last axis. */
static void multiply_run(const char *a, const char *b, char *o, Py_ssize_t n, Py_ssize_t sa, Py_ssize_t sb,
                         Py_ssize_t so, int level) {
#ifdef CW_HAVE_AVX2_PATH
    if (level == 2 && sa == 8 && sb == 8 && so == 8) {
        multiply_contiguous_avx512((const float *)a, (const float *)b, (float *)o, n);
        return;
    }
    if (level && sa == 8 && sb == 8 && so == 8) {
        multiply_contiguous_avx2((const float *)a, (const float *)b, (float *)o, n);
        return;
    }
#else
    (void)level;
#endif
    multiply_strided(a, b, o, n, sa, sb, so);
}

static int is_complex64(const Py_buffer *view) {
    return view->itemsize == 8 && view->format != NULL && strcmp(view->format, "Zf") == 0;
}

const char cw_complex64_multiply_doc[] =
    "complex64_multiply(a, b, out, widest=2, /)\n\n"
    "out[...] = a * b for complex64 buffers of one shape (a and b may have stride 0),\n"
    "computed in double precision and rounded once: NumPy's complex128 product of the\n"
    "widened operands cast to complex64, bit for bit. widest: the widest loop it may take\n"
    "(2 AVX-512, 1 AVX2, 0 scalar; tests run each).";

PyObject *cw_complex64_multiply(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    long widest;
    if (cw_widest_arg(args, nargs, 3, 2, "complex64_multiply(a, b, out, widest=2)", &widest) < 0) {
        return NULL;
    }
    Py_buffer va, vb, vo;
    if (PyObject_GetBuffer(args[0], &va, PyBUF_RECORDS_RO) < 0) {
        return NULL;
    }
    if (PyObject_GetBuffer(args[1], &vb, PyBUF_RECORDS_RO) < 0) {
        PyBuffer_Release(&va);
        return NULL;
    }
    if (PyObject_GetBuffer(args[2], &vo, PyBUF_RECORDS) < 0) {
        PyBuffer_Release(&va), PyBuffer_Release(&vb);
        return NULL;
    }
    PyObject *result = NULL;
    int ndim = vo.ndim;
    if (!is_complex64(&va) || !is_complex64(&vb) || !is_complex64(&vo)) {
        PyErr_SetString(PyExc_TypeError, "complex64_multiply: a, b and out must be complex64 buffers");
        goto done;
    }
    if (va.ndim != ndim || vb.ndim != ndim || ndim > CW_MAX_AXES) {
        PyErr_SetString(PyExc_ValueError, "complex64_multiply: a, b and out must have one shape");
        goto done;
    }
    Py_ssize_t total = 1;
    for (int k = 0; k < ndim; k++) {
        if (va.shape[k] != vo.shape[k] || vb.shape[k] != vo.shape[k]) {
            PyErr_SetString(PyExc_ValueError, "complex64_multiply: a, b and out must have one shape");
            goto done;
        }
        total *= vo.shape[k];
    }
    if (total > 0) {
        int level = 0;
#ifdef CW_HAVE_AVX2_PATH
        level = cw_vector_level();
#endif
        level = level < widest ? level : (int)(widest < 0 ? 0 : widest);
        Py_ssize_t inner = ndim ? vo.shape[ndim - 1] : 1;
        Py_ssize_t sa = ndim ? va.strides[ndim - 1] : 8, sb = ndim ? vb.strides[ndim - 1] : 8;
        Py_ssize_t so = ndim ? vo.strides[ndim - 1] : 8;
        Py_ssize_t index[CW_MAX_AXES] = {0};
        const char *pa = va.buf, *pb = vb.buf;
        char *po = vo.buf;
        Py_BEGIN_ALLOW_THREADS
        fenv_t env;
        feholdexcept(&env); /* (the flags this raises are not the caller's: dropped below) */
        for (Py_ssize_t done_runs = 0, runs = total / inner; done_runs < runs; done_runs++) {
            multiply_run(pa, pb, po, inner, sa, sb, so, level);
            /* the next run: an odometer over the axes before the last */
            for (int k = ndim - 2; k >= 0; k--) {
                pa += va.strides[k], pb += vb.strides[k], po += vo.strides[k];
                if (++index[k] < vo.shape[k]) {
                    break;
                }
                pa -= va.strides[k] * vo.shape[k], pb -= vb.strides[k] * vo.shape[k];
                po -= vo.strides[k] * vo.shape[k];
                index[k] = 0;
            }
        }
        fesetenv(&env);
        Py_END_ALLOW_THREADS
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&va), PyBuffer_Release(&vb), PyBuffer_Release(&vo);
    return result;
}
