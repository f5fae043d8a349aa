/* candlewick._native's copy_crossed(target, source): a 2-D copy whose two sides run
   contiguously along different axes (`d[i, j] = s.T`, a transposed view made C-contiguous),
   in cache-sized tiles (cpu_backend/copies.py's assign and copy).

   Why: NumPy's copy loops over the target's contiguous axis and reads the source one
   element a row apart, so each element read touches a new cache line, and a new page
   once rows are 4 KiB or more. scikit-learn's pairwise_distances fills the lower half of a
   2048 x 2048 float32 result as `distances[x, y] = distances[y, x].T`: 5.8 ms in NumPy for
   1082 x 966 elements, against 0.7 ms in 8 x 8 tiles here.

   target, source: objects with the buffer protocol, 2-D, of one shape and item size, the
   target writable (else False); the caller gives them the same dtype and copies an
   overlapping source out first. Where the target is contiguous along one axis and the
   source along the other (strides of one item there, neither side broadcast), for 4- and
   8-byte items, at least 8 items a side, and where NumPy's copy is slow (the source's step
   across the target's rows a multiple of 4 KiB, or the target's rows 4x longer than its
   columns: copy_crossed's comment), it copies and answers True; else it copies nothing and
   answers False (NumPy's copy is as good there, or better: a broadcast source's repeat,
   1- and 2-byte items, rows of a few items). The items move through AVX2 register
   transposes where the CPU has it, a tile's ragged edges and other CPUs through a scalar
   tiled loop. The GIL is released while it copies. */

#include "_native.h"
#include "_native_host.h"

#include <string.h>

/* the tile's side in items: a tile of each side in L1 beside the other (measured on
   1082 x 966 float32: 64-256 within 15 %, 128 best) */
#define TILE 128

/* d[i][j] = s[i][j] for i < n0, j < n1: d contiguous along j (row step dr bytes), s along i
   (column step sc bytes); items of `size` bytes (4 or 8), scalar. */
static void tile_scalar(char *d, const char *s, Py_ssize_t n0, Py_ssize_t n1, Py_ssize_t dr, Py_ssize_t sc,
                        Py_ssize_t size) {
    for (Py_ssize_t i = 0; i < n0; i++) {
        char *row = d + i * dr;
        const char *col = s + i * size;
        if (size == 4) {
            for (Py_ssize_t j = 0; j < n1; j++) {
                memcpy(row + 4 * j, col + j * sc, 4);
            }
        } else {
            for (Py_ssize_t j = 0; j < n1; j++) {
                memcpy(row + 8 * j, col + j * sc, 8);
            }
        }
    }
}

#ifdef CW_HAVE_AVX2_PATH
/* 8 x 8 floats (4-byte items): source rows k = 0..7 at s + k*sc, each 8 items along i,
   become target rows i at d + i*dr. */
__attribute__((target("avx2"))) static inline void block8x4(char *d, Py_ssize_t dr, const char *s, Py_ssize_t sc) {
    __m256 r0 = _mm256_loadu_ps((const float *)s), r1 = _mm256_loadu_ps((const float *)(s + sc));
    __m256 r2 = _mm256_loadu_ps((const float *)(s + 2 * sc)), r3 = _mm256_loadu_ps((const float *)(s + 3 * sc));
    __m256 r4 = _mm256_loadu_ps((const float *)(s + 4 * sc)), r5 = _mm256_loadu_ps((const float *)(s + 5 * sc));
    __m256 r6 = _mm256_loadu_ps((const float *)(s + 6 * sc)), r7 = _mm256_loadu_ps((const float *)(s + 7 * sc));
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps((float *)d, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps((float *)(d + dr), _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps((float *)(d + 2 * dr), _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps((float *)(d + 3 * dr), _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps((float *)(d + 4 * dr), _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps((float *)(d + 5 * dr), _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps((float *)(d + 6 * dr), _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps((float *)(d + 7 * dr), _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* 4 x 4 doubles (8-byte items), as block8x4. */
__attribute__((target("avx2"))) static inline void block4x8(char *d, Py_ssize_t dr, const char *s, Py_ssize_t sc) {
    __m256d r0 = _mm256_loadu_pd((const double *)s), r1 = _mm256_loadu_pd((const double *)(s + sc));
    __m256d r2 = _mm256_loadu_pd((const double *)(s + 2 * sc)), r3 = _mm256_loadu_pd((const double *)(s + 3 * sc));
    __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1);
    __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
    _mm256_storeu_pd((double *)d, _mm256_permute2f128_pd(t0, t2, 0x20));
    _mm256_storeu_pd((double *)(d + dr), _mm256_permute2f128_pd(t1, t3, 0x20));
    _mm256_storeu_pd((double *)(d + 2 * dr), _mm256_permute2f128_pd(t0, t2, 0x31));
    _mm256_storeu_pd((double *)(d + 3 * dr), _mm256_permute2f128_pd(t1, t3, 0x31));
}

/* One tile through the register transposes (b items a side: 8 for 4-byte items, 4 for
   8-byte), its ragged edges scalar. */
__attribute__((target("avx2"))) static void tile_avx2(char *d, const char *s, Py_ssize_t n0, Py_ssize_t n1,
                                                      Py_ssize_t dr, Py_ssize_t sc, Py_ssize_t size) {
    Py_ssize_t b = size == 4 ? 8 : 4, i = 0, j = 0;
    for (; i + b <= n0; i += b) {
        for (j = 0; j + b <= n1; j += b) {
            if (size == 4) {
                block8x4(d + i * dr + j * 4, dr, s + i * 4 + j * sc, sc);
            } else {
                block4x8(d + i * dr + j * 8, dr, s + i * 8 + j * sc, sc);
            }
        }
        tile_scalar(d + i * dr + j * size, s + i * size + j * sc, b, n1 - j, dr, sc, size);
    }
    tile_scalar(d + i * dr, s + i * size, n0 - i, n1, dr, sc, size);
}
#endif

static void copy_tiles(char *d, const char *s, Py_ssize_t n0, Py_ssize_t n1, Py_ssize_t dr, Py_ssize_t sc,
                       Py_ssize_t size) {
#ifdef CW_HAVE_AVX2_PATH
    int vector = cw_vector_level() > 0;
#endif
    for (Py_ssize_t i = 0; i < n0; i += TILE) {
        Py_ssize_t m0 = n0 - i < TILE ? n0 - i : TILE;
        for (Py_ssize_t j = 0; j < n1; j += TILE) {
            Py_ssize_t m1 = n1 - j < TILE ? n1 - j : TILE;
            char *dt = d + i * dr + j * size;
            const char *st = s + i * size + j * sc;
#ifdef CW_HAVE_AVX2_PATH
            if (vector) {
                tile_avx2(dt, st, m0, m1, dr, sc, size);
                continue;
            }
#endif
            tile_scalar(dt, st, m0, m1, dr, sc, size);
        }
    }
}

const char cw_copy_crossed_doc[] =
    "copy_crossed(target, source, /) -> bool\n\n"
    "target[...] = source for 2-D buffers of one shape and item size (4 or 8 bytes, at least\n"
    "8 x 8), where the target is contiguous along one axis and the source along the other and\n"
    "NumPy's copy is slow (the source's step across the target's rows a multiple of 4 KiB, or\n"
    "the rows 4x the columns or longer): copied in cache-sized tiles, True. Any other pair:\n"
    "nothing copied, False. The caller gives both one dtype and copies an overlapping source\n"
    "out first.";

PyObject *cw_copy_crossed(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "copy_crossed takes 2 arguments (target, source)");
        return NULL;
    }
    Py_buffer vt, vs;
    /* (a pair it cannot read as buffers, a read-only target or a dtype NumPy does not
       export: False, and the caller's NumPy copy raises or copies) */
    if (PyObject_GetBuffer(args[0], &vt, PyBUF_STRIDES | PyBUF_WRITABLE) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (PyObject_GetBuffer(args[1], &vs, PyBUF_STRIDES) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&vt);
        Py_RETURN_FALSE;
    }
    int fits = 0;
    Py_ssize_t size = vt.itemsize;
    /* (4- and 8-byte items, at least a register block a side: 1- and 2-byte items and rows
       of a few items were as fast or faster through NumPy's copy, measured) */
    if (vt.ndim == 2 && vs.ndim == 2 && (size == 4 || size == 8) && vs.itemsize == size &&
        vt.shape[0] == vs.shape[0] && vt.shape[1] == vs.shape[1] && vt.shape[0] >= 8 && vt.shape[1] >= 8) {
        /* the problem turned so that the target runs along axis 1 and the source along 0 */
        int a = vt.strides[1] == size ? 1 : 0;
        /* (a stride 0 is a broadcast: NumPy's copy repeats the element along its inner loop,
           12x faster than tiles at 2048 x 2048) */
        fits = vt.strides[a] == size && vs.strides[1 - a] == size && vt.strides[1 - a] != size &&
               vs.strides[a] != size && vt.strides[1 - a] != 0 && vs.strides[a] != 0;
        Py_ssize_t n0 = vt.shape[1 - a], n1 = vt.shape[a], dr = vt.strides[1 - a], sc = vs.strides[a];
        /* where NumPy's copy is slow: its inner loop along the target's row reads the source
           `sc` bytes apart, and those reads fall into the same few cache sets where sc is a
           multiple of 4 KiB (scikit-learn's 2048-column fill: 0.15x NumPy's time here), or
           cross more source lines than stay cached before the next row reuses them where the
           row is long beside the column (64 x 20000: 0.1-0.2x). Elsewhere NumPy's copy was
           as fast (1000 x 1000: 0.9-1.2x; 20000 x 64: 0.7-1.1x) and is left to run. */
        fits = fits && (sc % 4096 == 0 || n1 >= 4 * n0);
        if (fits) {
            char *d = vt.buf;
            const char *s = vs.buf;
            Py_BEGIN_ALLOW_THREADS
            copy_tiles(d, s, n0, n1, dr, sc, size);
            Py_END_ALLOW_THREADS
        }
    }
    PyBuffer_Release(&vt);
    PyBuffer_Release(&vs);
    return PyBool_FromLong(fits);
}
