/*
 * hip_on_cuda: hipBLAS forwarded to cuBLAS.  Handles are cuBLAS handles;
 * hipblasOperation_t (N/T/C = 111/112/113), hipblasComputeType_t, the GEMM
 * algorithm, the math mode and trsm's side / fill / diagonal enums are
 * translated (the batched LU getrfBatched / getrsBatched take the same
 * arguments in both); hipDataType values are
 * checked and passed (CUDA's cudaDataType_t uses the same numbers); cuBLAS
 * statuses come back as hipblasStatus_t.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "hoc_cuda.h"

typedef int hipblasStatus_t;
enum {
    HIPBLAS_STATUS_SUCCESS = 0, HIPBLAS_STATUS_NOT_INITIALIZED = 1, HIPBLAS_STATUS_ALLOC_FAILED = 2,
    HIPBLAS_STATUS_INVALID_VALUE = 3, HIPBLAS_STATUS_MAPPING_ERROR = 4,
    HIPBLAS_STATUS_EXECUTION_FAILED = 5, HIPBLAS_STATUS_INTERNAL_ERROR = 6,
    HIPBLAS_STATUS_NOT_SUPPORTED = 7, HIPBLAS_STATUS_ARCH_MISMATCH = 8,
    HIPBLAS_STATUS_HANDLE_IS_NULLPTR = 9, HIPBLAS_STATUS_INVALID_ENUM = 10, HIPBLAS_STATUS_UNKNOWN = 11,
};
typedef void *hipblasHandle_t;

typedef int (*fn_any)();
#define CUBLAS_FUNCS(X)                                                                     \
    X(Create, "cublasCreate_v2") X(Destroy, "cublasDestroy_v2") X(SetStream, "cublasSetStream_v2") \
    X(GetStream, "cublasGetStream_v2") X(SetPointerMode, "cublasSetPointerMode_v2")         \
    X(GetPointerMode, "cublasGetPointerMode_v2") X(SetMathMode, "cublasSetMathMode")        \
    X(GetMathMode, "cublasGetMathMode") X(GetVersion, "cublasGetVersion_v2")                \
    X(SetWorkspace, "cublasSetWorkspace_v2") X(SetAtomicsMode, "cublasSetAtomicsMode")      \
    X(Hgemm, "cublasHgemm") X(Sgemm, "cublasSgemm_v2") X(Dgemm, "cublasDgemm_v2")           \
    X(Cgemm, "cublasCgemm_v2") X(Zgemm, "cublasZgemm_v2")                                   \
    X(HgemmSB, "cublasHgemmStridedBatched") X(SgemmSB, "cublasSgemmStridedBatched")         \
    X(DgemmSB, "cublasDgemmStridedBatched") X(CgemmSB, "cublasCgemmStridedBatched")         \
    X(ZgemmSB, "cublasZgemmStridedBatched") X(GemmEx, "cublasGemmEx")                       \
    X(GemmBatchedEx, "cublasGemmBatchedEx") X(GemmSBEx, "cublasGemmStridedBatchedEx")        \
    X(SgetrfB, "cublasSgetrfBatched") X(DgetrfB, "cublasDgetrfBatched")                     \
    X(CgetrfB, "cublasCgetrfBatched") X(ZgetrfB, "cublasZgetrfBatched")                     \
    X(SgetrsB, "cublasSgetrsBatched") X(DgetrsB, "cublasDgetrsBatched")                     \
    X(CgetrsB, "cublasCgetrsBatched") X(ZgetrsB, "cublasZgetrsBatched")                     \
    X(Strsm, "cublasStrsm_v2") X(Dtrsm, "cublasDtrsm_v2") X(Ctrsm, "cublasCtrsm_v2")        \
    X(Ztrsm, "cublasZtrsm_v2")

#define DECL(field, sym) fn_any field;
static struct { CUBLAS_FUNCS(DECL) } cb;
#undef DECL
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_loaded;

static void load_cublas(void)
{
    static const char *const versions[] = {"13", "12", "11", NULL};
    void *lib = hoc_open_library("libcublas.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define LOAD(field, sym) cb.field = (fn_any)hoc_symbol(lib, sym);
    CUBLAS_FUNCS(LOAD)
#undef LOAD
    g_loaded = cb.Create != NULL;
}

static int ready(void)
{
    pthread_once(&g_once, load_cublas);
    return g_loaded;
}

static hipblasStatus_t from_cublas(int s)
{
    switch (s) {
    case 0: return HIPBLAS_STATUS_SUCCESS;
    case 1: return HIPBLAS_STATUS_NOT_INITIALIZED;
    case 3: return HIPBLAS_STATUS_ALLOC_FAILED;
    case 7: return HIPBLAS_STATUS_INVALID_VALUE;
    case 8: return HIPBLAS_STATUS_ARCH_MISMATCH;
    case 11: return HIPBLAS_STATUS_MAPPING_ERROR;
    case 13: return HIPBLAS_STATUS_EXECUTION_FAILED;
    case 14: return HIPBLAS_STATUS_INTERNAL_ERROR;
    case 15: return HIPBLAS_STATUS_NOT_SUPPORTED;
    default: return HIPBLAS_STATUS_UNKNOWN;
    }
}

/* hipblasOperation_t -> cublasOperation_t, -1 when not an operation. */
static int op(int o)
{
    return (o >= 111 && o <= 113) ? o - 111 : -1;
}

/* hipDataType values that have a cudaDataType_t of the same number. */
static int dtype(int t)
{
    return ((t >= 0 && t <= 15) || t == 28 || t == 29) ? t : -1;
}

/* hipblasComputeType_t -> cublasComputeType_t */
static int compute(int c)
{
    static const int map[] = {64, 65, 68, 69, 74, 75, 77, 70, 71, 72, 73};
    return (c >= 0 && c <= 10) ? map[c] : -1;
}

#define CHECK_HANDLE(h)                                 \
    do {                                                \
        if (!(h))                                       \
            return HIPBLAS_STATUS_HANDLE_IS_NULLPTR;    \
        if (!ready())                                   \
            return HIPBLAS_STATUS_NOT_INITIALIZED;      \
    } while (0)
#define CALL(field, ...) (cb.field ? from_cublas(cb.field(__VA_ARGS__)) : HIPBLAS_STATUS_NOT_SUPPORTED)

HOC_API hipblasStatus_t hipblasCreate(hipblasHandle_t *handle)
{
    if (!handle)
        return HIPBLAS_STATUS_HANDLE_IS_NULLPTR;
    if (!ready() || hoc_ctx() != 0)
        return HIPBLAS_STATUS_NOT_INITIALIZED;
    return CALL(Create, handle);
}

HOC_API hipblasStatus_t hipblasDestroy(hipblasHandle_t h)
{
    CHECK_HANDLE(h);
    return CALL(Destroy, h);
}

HOC_API hipblasStatus_t hipblasSetStream(hipblasHandle_t h, CUstream s)
{
    CHECK_HANDLE(h);
    return CALL(SetStream, h, s);
}

HOC_API hipblasStatus_t hipblasGetStream(hipblasHandle_t h, CUstream *s)
{
    CHECK_HANDLE(h);
    if (!s)
        return HIPBLAS_STATUS_INVALID_VALUE;
    return CALL(GetStream, h, s);
}

/* HIPBLAS_POINTER_MODE_HOST/DEVICE (0/1) equal cuBLAS's. */
HOC_API hipblasStatus_t hipblasSetPointerMode(hipblasHandle_t h, int mode)
{
    CHECK_HANDLE(h);
    if (mode != 0 && mode != 1)
        return HIPBLAS_STATUS_INVALID_ENUM;
    return CALL(SetPointerMode, h, mode);
}

HOC_API hipblasStatus_t hipblasGetPointerMode(hipblasHandle_t h, int *mode)
{
    CHECK_HANDLE(h);
    if (!mode)
        return HIPBLAS_STATUS_INVALID_VALUE;
    return CALL(GetPointerMode, h, mode);
}

/* hipblasMath_t -> cublasMath_t */
HOC_API hipblasStatus_t hipblasSetMathMode(hipblasHandle_t h, int mode)
{
    static const int map[] = {0, 3, 2, 3, 16, 1};
    CHECK_HANDLE(h);
    if (mode < 0 || mode > 5)
        return HIPBLAS_STATUS_INVALID_ENUM;
    return CALL(SetMathMode, h, map[mode]);
}

HOC_API hipblasStatus_t hipblasGetMathMode(hipblasHandle_t h, int *mode)
{
    CHECK_HANDLE(h);
    if (!mode)
        return HIPBLAS_STATUS_INVALID_VALUE;
    int m = 0;
    hipblasStatus_t s = CALL(GetMathMode, h, &m);
    *mode = (m & 16) ? 4 : (m & 0xf) == 3 ? 3 : (m & 0xf) == 2 ? 2 : (m & 0xf) == 1 ? 5 : 0;
    return s;
}

HOC_API hipblasStatus_t hipblasSetAtomicsMode(hipblasHandle_t h, int mode)
{
    CHECK_HANDLE(h);
    return CALL(SetAtomicsMode, h, mode);
}

HOC_API hipblasStatus_t hipblasSetWorkspace(hipblasHandle_t h, void *ws, size_t bytes)
{
    CHECK_HANDLE(h);
    return CALL(SetWorkspace, h, ws, bytes);
}

/* The version of the cuBLAS doing the work (hipBLAS's own has no meaning here). */
HOC_API hipblasStatus_t hipblasGetVersion(hipblasHandle_t h, int *version)
{
    CHECK_HANDLE(h);
    if (!version)
        return HIPBLAS_STATUS_INVALID_VALUE;
    return CALL(GetVersion, h, version);
}

HOC_API const char *hipblasStatusToString(hipblasStatus_t s)
{
    static const char *const names[] = {
        "HIPBLAS_STATUS_SUCCESS", "HIPBLAS_STATUS_NOT_INITIALIZED", "HIPBLAS_STATUS_ALLOC_FAILED",
        "HIPBLAS_STATUS_INVALID_VALUE", "HIPBLAS_STATUS_MAPPING_ERROR",
        "HIPBLAS_STATUS_EXECUTION_FAILED", "HIPBLAS_STATUS_INTERNAL_ERROR",
        "HIPBLAS_STATUS_NOT_SUPPORTED", "HIPBLAS_STATUS_ARCH_MISMATCH",
        "HIPBLAS_STATUS_HANDLE_IS_NULLPTR", "HIPBLAS_STATUS_INVALID_ENUM", "HIPBLAS_STATUS_UNKNOWN",
    };
    return (s >= 0 && s <= 11) ? names[s] : "<undefined hipblasStatus_t value>";
}

/* ---- GEMM ------------------------------------------------------------ */

#define GEMM(name, field, T)                                                                     \
    HOC_API hipblasStatus_t name(hipblasHandle_t h, int ta, int tb, int m, int n, int k,         \
                                 const T *alpha, const T *A, int lda, const T *B, int ldb,       \
                                 const T *beta, T *C, int ldc)                                   \
    {                                                                                            \
        CHECK_HANDLE(h);                                                                         \
        if (op(ta) < 0 || op(tb) < 0)                                                            \
            return HIPBLAS_STATUS_INVALID_ENUM;                                                  \
        return CALL(field, h, op(ta), op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);     \
    }
#define GEMM_SB(name, field, T)                                                                  \
    HOC_API hipblasStatus_t name(hipblasHandle_t h, int ta, int tb, int m, int n, int k,         \
                                 const T *alpha, const T *A, int lda, long long sa, const T *B,  \
                                 int ldb, long long sb, const T *beta, T *C, int ldc,            \
                                 long long sc, int batch)                                        \
    {                                                                                            \
        CHECK_HANDLE(h);                                                                         \
        if (op(ta) < 0 || op(tb) < 0)                                                            \
            return HIPBLAS_STATUS_INVALID_ENUM;                                                  \
        return CALL(field, h, op(ta), op(tb), m, n, k, alpha, A, lda, sa, B, ldb, sb, beta, C,   \
                    ldc, sc, batch);                                                             \
    }
typedef struct { float x, y; } hoc_c32;
typedef struct { double x, y; } hoc_c64;
GEMM(hipblasHgemm, Hgemm, uint16_t)
GEMM(hipblasSgemm, Sgemm, float)
GEMM(hipblasDgemm, Dgemm, double)
GEMM(hipblasCgemm, Cgemm, hoc_c32)
GEMM(hipblasZgemm, Zgemm, hoc_c64)
GEMM_SB(hipblasHgemmStridedBatched, HgemmSB, uint16_t)
GEMM_SB(hipblasSgemmStridedBatched, SgemmSB, float)
GEMM_SB(hipblasDgemmStridedBatched, DgemmSB, double)
GEMM_SB(hipblasCgemmStridedBatched, CgemmSB, hoc_c32)
GEMM_SB(hipblasZgemmStridedBatched, ZgemmSB, hoc_c64)

/* Shared argument checks of the Ex entry points. */
static hipblasStatus_t ex_args(int ta, int tb, int at, int bt, int ct, int comp, int algo,
                               int *cta, int *ctb, int *ccomp)
{
    *cta = op(ta);
    *ctb = op(tb);
    *ccomp = compute(comp);
    if (*cta < 0 || *ctb < 0 || algo != 160 /* HIPBLAS_GEMM_DEFAULT */)
        return HIPBLAS_STATUS_INVALID_ENUM;
    if (dtype(at) < 0 || dtype(bt) < 0 || dtype(ct) < 0 || *ccomp < 0)
        return HIPBLAS_STATUS_NOT_SUPPORTED;
    return HIPBLAS_STATUS_SUCCESS;
}

#define CUBLAS_GEMM_DEFAULT (-1)

HOC_API hipblasStatus_t hipblasGemmEx(hipblasHandle_t h, int ta, int tb, int m, int n, int k,
                                      const void *alpha, const void *A, int at, int lda,
                                      const void *B, int bt, int ldb, const void *beta, void *C,
                                      int ct, int ldc, int comp, int algo)
{
    int a, b, c;
    CHECK_HANDLE(h);
    hipblasStatus_t s = ex_args(ta, tb, at, bt, ct, comp, algo, &a, &b, &c);
    if (s)
        return s;
    return CALL(GemmEx, h, a, b, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc, c,
                CUBLAS_GEMM_DEFAULT);
}

HOC_API hipblasStatus_t hipblasGemmBatchedEx(hipblasHandle_t h, int ta, int tb, int m, int n, int k,
                                             const void *alpha, const void **A, int at, int lda,
                                             const void **B, int bt, int ldb, const void *beta,
                                             void **C, int ct, int ldc, int batch, int comp, int algo)
{
    int a, b, c;
    CHECK_HANDLE(h);
    hipblasStatus_t s = ex_args(ta, tb, at, bt, ct, comp, algo, &a, &b, &c);
    if (s)
        return s;
    return CALL(GemmBatchedEx, h, a, b, m, n, k, alpha, A, at, lda, B, bt, ldb, beta, C, ct, ldc,
                batch, c, CUBLAS_GEMM_DEFAULT);
}

HOC_API hipblasStatus_t hipblasGemmStridedBatchedEx(hipblasHandle_t h, int ta, int tb, int m, int n,
                                                    int k, const void *alpha, const void *A, int at,
                                                    int lda, int64_t sa, const void *B, int bt,
                                                    int ldb, int64_t sb, const void *beta, void *C,
                                                    int ct, int ldc, int64_t sc, int batch,
                                                    int comp, int algo)
{
    int a, b, c;
    CHECK_HANDLE(h);
    hipblasStatus_t s = ex_args(ta, tb, at, bt, ct, comp, algo, &a, &b, &c);
    if (s)
        return s;
    return CALL(GemmSBEx, h, a, b, m, n, k, alpha, A, at, lda, (long long)sa, B, bt, ldb,
                (long long)sb, beta, C, ct, ldc, (long long)sc, batch, c, CUBLAS_GEMM_DEFAULT);
}

/* ---- batched LU (pointer arrays; getrs's info is a host int) ---------- */

#define GETRF_BATCHED(P)                                                                         \
    HOC_API hipblasStatus_t hipblas##P##getrfBatched(hipblasHandle_t h, int n, void *const *A,   \
                                                     int lda, int *ipiv, int *info, int batch)   \
    {                                                                                            \
        CHECK_HANDLE(h);                                                                         \
        return CALL(P##getrfB, h, n, A, lda, ipiv, info, batch);                                 \
    }
#define GETRS_BATCHED(P)                                                                         \
    HOC_API hipblasStatus_t hipblas##P##getrsBatched(hipblasHandle_t h, int trans, int n,        \
                                                     int nrhs, void *const *A, int lda,          \
                                                     const int *ipiv, void *const *B, int ldb,   \
                                                     int *info, int batch)                       \
    {                                                                                            \
        CHECK_HANDLE(h);                                                                         \
        if (op(trans) < 0)                                                                       \
            return HIPBLAS_STATUS_INVALID_ENUM;                                                  \
        return CALL(P##getrsB, h, op(trans), n, nrhs, A, lda, ipiv, B, ldb, info, batch);        \
    }
GETRF_BATCHED(S)
GETRF_BATCHED(D)
GETRF_BATCHED(C)
GETRF_BATCHED(Z)
GETRS_BATCHED(S)
GETRS_BATCHED(D)
GETRS_BATCHED(C)
GETRS_BATCHED(Z)

/* ---- triangular solve (in place on B; alpha a host or device pointer) -- */

/* hipblasSideMode_t (LEFT/RIGHT = 141/142), hipblasFillMode_t (UPPER/LOWER =
 * 121/122) and hipblasDiagType_t (NON_UNIT/UNIT = 131/132) -> cuBLAS's
 * (LEFT/RIGHT = 0/1, LOWER/UPPER = 0/1, NON_UNIT/UNIT = 0/1); -1 otherwise. */
static int side(int s) { return (s == 141 || s == 142) ? s - 141 : -1; }
static int fill(int f) { return f == 121 ? 1 : f == 122 ? 0 : -1; }
static int diag(int d) { return (d == 131 || d == 132) ? d - 131 : -1; }

#define TRSM(P, T)                                                                               \
    HOC_API hipblasStatus_t hipblas##P##trsm(hipblasHandle_t h, int sd, int uplo, int ta,        \
                                             int dg, int m, int n, const T *alpha, const T *A,   \
                                             int lda, T *B, int ldb)                             \
    {                                                                                            \
        CHECK_HANDLE(h);                                                                         \
        if (side(sd) < 0 || fill(uplo) < 0 || op(ta) < 0 || diag(dg) < 0)                        \
            return HIPBLAS_STATUS_INVALID_ENUM;                                                  \
        return CALL(P##trsm, h, side(sd), fill(uplo), op(ta), diag(dg), m, n, alpha, A, lda, B,  \
                    ldb);                                                                        \
    }
TRSM(S, float)
TRSM(D, double)
TRSM(C, hoc_c32)
TRSM(Z, hoc_c64)

/* Not part of hipBLAS: why cuBLAS could not be loaded, for diagnostics. */
HOC_API const char *hipblasOnCudaLoadError(void)
{
    ready();
    return g_why;
}
