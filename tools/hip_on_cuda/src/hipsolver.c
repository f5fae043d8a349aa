/*
 * hip_on_cuda: hipSOLVER (its "regular" API) forwarded to cuSOLVER's dense
 * API.  Handles are cusolverDn handles, hipsolverSyevjInfo_t is cuSOLVER's
 * syevjInfo_t.  Translated: hipsolverFillMode_t (hipBLAS's 121/122 ->
 * cuBLAS's 1/0), hipsolverOperation_t (111..113 -> 0..2),
 * hipsolverEigMode_t (201/202 -> 0/1) and the statuses.  Where hipSOLVER
 * takes a workspace that cuSOLVER does not (getrs, potrfBatched) its size is
 * 0 and the pointer is ignored.
 *
 * cuSOLVER's syevjBatched and gesvdjBatched take n <= 32 only; hipSOLVER's
 * have no such bound (rocSOLVER batches any n).  For n > 32 syevjBatched goes
 * to cuSOLVER's 64-bit cusolverDnXsyevBatched (CUDA 12.6 on: one batched
 * call, eigenvalues ascending, one info per matrix, as syevjBatched) and,
 * where that is missing, to syevj per matrix; gesvdjBatched runs gesvdj per
 * matrix, in order on the handle's stream with one workspace: the same
 * results and info array as the batched call.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "hoc_cuda.h"

typedef int hipsolverStatus_t;
enum {
    HIPSOLVER_STATUS_SUCCESS = 0, HIPSOLVER_STATUS_NOT_INITIALIZED = 1,
    HIPSOLVER_STATUS_ALLOC_FAILED = 2, HIPSOLVER_STATUS_INVALID_VALUE = 3,
    HIPSOLVER_STATUS_MAPPING_ERROR = 4, HIPSOLVER_STATUS_EXECUTION_FAILED = 5,
    HIPSOLVER_STATUS_INTERNAL_ERROR = 6, HIPSOLVER_STATUS_NOT_SUPPORTED = 7,
    HIPSOLVER_STATUS_ARCH_MISMATCH = 8, HIPSOLVER_STATUS_HANDLE_IS_NULLPTR = 9,
    HIPSOLVER_STATUS_INVALID_ENUM = 10, HIPSOLVER_STATUS_UNKNOWN = 11,
    HIPSOLVER_STATUS_ZERO_PIVOT = 12, HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED = 13,
};
typedef void *hipsolverHandle_t;
typedef void *hipsolverSyevjInfo_t;
typedef void *hipsolverGesvdjInfo_t;

typedef int (*fn_any)();

/* The per-type entry points: X(field, cuSOLVER symbol). */
#define TYPED(X, name, s, d, c, z)                                                   \
    X(S##name, "cusolverDn" #s) X(D##name, "cusolverDn" #d) X(C##name, "cusolverDn" #c) \
    X(Z##name, "cusolverDn" #z)
#define CUSOLVER_FUNCS(X)                                                                       \
    X(Create, "cusolverDnCreate") X(Destroy, "cusolverDnDestroy")                               \
    X(SetStream, "cusolverDnSetStream") X(GetStream, "cusolverDnGetStream")                     \
    X(CreateSyevjInfo, "cusolverDnCreateSyevjInfo") X(DestroySyevjInfo, "cusolverDnDestroySyevjInfo") \
    X(SyevjSetTolerance, "cusolverDnXsyevjSetTolerance")                                        \
    X(SyevjSetMaxSweeps, "cusolverDnXsyevjSetMaxSweeps")                                        \
    TYPED(X, getrfBS, Sgetrf_bufferSize, Dgetrf_bufferSize, Cgetrf_bufferSize, Zgetrf_bufferSize) \
    TYPED(X, getrf, Sgetrf, Dgetrf, Cgetrf, Zgetrf)                                             \
    TYPED(X, getrs, Sgetrs, Dgetrs, Cgetrs, Zgetrs)                                             \
    TYPED(X, potrfBS, Spotrf_bufferSize, Dpotrf_bufferSize, Cpotrf_bufferSize, Zpotrf_bufferSize) \
    TYPED(X, potrf, Spotrf, Dpotrf, Cpotrf, Zpotrf)                                             \
    TYPED(X, potrfBatched, SpotrfBatched, DpotrfBatched, CpotrfBatched, ZpotrfBatched)          \
    TYPED(X, geqrfBS, Sgeqrf_bufferSize, Dgeqrf_bufferSize, Cgeqrf_bufferSize, Zgeqrf_bufferSize) \
    TYPED(X, geqrf, Sgeqrf, Dgeqrf, Cgeqrf, Zgeqrf)                                             \
    TYPED(X, orgqrBS, Sorgqr_bufferSize, Dorgqr_bufferSize, Cungqr_bufferSize, Zungqr_bufferSize) \
    TYPED(X, orgqr, Sorgqr, Dorgqr, Cungqr, Zungqr)                                             \
    TYPED(X, gesvdBS, Sgesvd_bufferSize, Dgesvd_bufferSize, Cgesvd_bufferSize, Zgesvd_bufferSize) \
    TYPED(X, gesvd, Sgesvd, Dgesvd, Cgesvd, Zgesvd)                                             \
    TYPED(X, syevdBS, Ssyevd_bufferSize, Dsyevd_bufferSize, Cheevd_bufferSize, Zheevd_bufferSize) \
    TYPED(X, syevd, Ssyevd, Dsyevd, Cheevd, Zheevd)                                             \
    TYPED(X, syevjBS, Ssyevj_bufferSize, Dsyevj_bufferSize, Cheevj_bufferSize, Zheevj_bufferSize) \
    TYPED(X, syevj, Ssyevj, Dsyevj, Cheevj, Zheevj)                                             \
    TYPED(X, syevjBatchedBS, SsyevjBatched_bufferSize, DsyevjBatched_bufferSize,                \
          CheevjBatched_bufferSize, ZheevjBatched_bufferSize)                                   \
    TYPED(X, syevjBatched, SsyevjBatched, DsyevjBatched, CheevjBatched, ZheevjBatched)          \
    TYPED(X, gesvdjBS, Sgesvdj_bufferSize, Dgesvdj_bufferSize, Cgesvdj_bufferSize, Zgesvdj_bufferSize) \
    TYPED(X, gesvdj, Sgesvdj, Dgesvdj, Cgesvdj, Zgesvdj)                                        \
    TYPED(X, gesvdjBatchedBS, SgesvdjBatched_bufferSize, DgesvdjBatched_bufferSize,             \
          CgesvdjBatched_bufferSize, ZgesvdjBatched_bufferSize)                                 \
    TYPED(X, gesvdjBatched, SgesvdjBatched, DgesvdjBatched, CgesvdjBatched, ZgesvdjBatched)     \
    X(CreateGesvdjInfo, "cusolverDnCreateGesvdjInfo") X(DestroyGesvdjInfo, "cusolverDnDestroyGesvdjInfo") \
    X(CreateParams, "cusolverDnCreateParams") X(XsyevBatchedBS, "cusolverDnXsyevBatched_bufferSize") \
    X(XsyevBatched, "cusolverDnXsyevBatched")

#define DECL(field, sym) fn_any field;
static struct { CUSOLVER_FUNCS(DECL) } cs;
#undef DECL
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_loaded;

static void load_cusolver(void)
{
    static const char *const versions[] = {"12", "11", NULL};
    void *lib = hoc_open_library("libcusolver.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define LOAD(field, sym) cs.field = (fn_any)hoc_symbol(lib, sym);
    CUSOLVER_FUNCS(LOAD)
#undef LOAD
    g_loaded = cs.Create != NULL;
}

static int ready(void)
{
    pthread_once(&g_once, load_cusolver);
    return g_loaded;
}

/* cusolverStatus_t -> hipsolverStatus_t */
static hipsolverStatus_t from_cusolver(int s)
{
    switch (s) {
    case 0: return HIPSOLVER_STATUS_SUCCESS;
    case 1: return HIPSOLVER_STATUS_NOT_INITIALIZED;
    case 2: return HIPSOLVER_STATUS_ALLOC_FAILED;
    case 3: return HIPSOLVER_STATUS_INVALID_VALUE;
    case 4: return HIPSOLVER_STATUS_ARCH_MISMATCH;
    case 5: return HIPSOLVER_STATUS_MAPPING_ERROR;
    case 6: return HIPSOLVER_STATUS_EXECUTION_FAILED;
    case 7: return HIPSOLVER_STATUS_INTERNAL_ERROR;
    case 8: return HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED;
    case 9: return HIPSOLVER_STATUS_NOT_SUPPORTED;
    case 10: return HIPSOLVER_STATUS_ZERO_PIVOT;
    default: return HIPSOLVER_STATUS_UNKNOWN;
    }
}

/* hipsolverFillMode_t (hipBLAS's) -> cublasFillMode_t, -1 when not lower/upper. */
static int fill(int f)
{
    return f == 122 ? 0 : f == 121 ? 1 : -1;
}

/* hipsolverOperation_t -> cublasOperation_t */
static int op(int o)
{
    return (o >= 111 && o <= 113) ? o - 111 : -1;
}

/* hipsolverEigMode_t -> cusolverEigMode_t */
static int eig_mode(int m)
{
    return m == 201 ? 0 : m == 202 ? 1 : -1;
}

#define CHECK_HANDLE(h)                                   \
    do {                                                  \
        if (!(h))                                         \
            return HIPSOLVER_STATUS_HANDLE_IS_NULLPTR;    \
        if (!ready())                                     \
            return HIPSOLVER_STATUS_NOT_INITIALIZED;      \
    } while (0)
#define CALL(field, ...) (cs.field ? from_cusolver(cs.field(__VA_ARGS__)) : HIPSOLVER_STATUS_NOT_SUPPORTED)

HOC_API hipsolverStatus_t hipsolverCreate(hipsolverHandle_t *handle)
{
    if (!handle)
        return HIPSOLVER_STATUS_HANDLE_IS_NULLPTR;
    if (!ready() || hoc_ctx() != 0)
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(Create, handle);
}

HOC_API hipsolverStatus_t hipsolverDestroy(hipsolverHandle_t h)
{
    CHECK_HANDLE(h);
    return CALL(Destroy, h);
}

HOC_API hipsolverStatus_t hipsolverSetStream(hipsolverHandle_t h, CUstream s)
{
    CHECK_HANDLE(h);
    return CALL(SetStream, h, s);
}

HOC_API hipsolverStatus_t hipsolverGetStream(hipsolverHandle_t h, CUstream *s)
{
    CHECK_HANDLE(h);
    if (!s)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    return CALL(GetStream, h, s);
}

HOC_API hipsolverStatus_t hipsolverCreateSyevjInfo(hipsolverSyevjInfo_t *info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(CreateSyevjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverDestroySyevjInfo(hipsolverSyevjInfo_t info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(DestroySyevjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverXsyevjSetTolerance(hipsolverSyevjInfo_t info, double tolerance)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(SyevjSetTolerance, info, tolerance);
}

HOC_API hipsolverStatus_t hipsolverXsyevjSetMaxSweeps(hipsolverSyevjInfo_t info, int sweeps)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(SyevjSetMaxSweeps, info, sweeps);
}

HOC_API const char *hipsolverStatusToString(hipsolverStatus_t s)
{
    static const char *const names[] = {
        "HIPSOLVER_STATUS_SUCCESS", "HIPSOLVER_STATUS_NOT_INITIALIZED",
        "HIPSOLVER_STATUS_ALLOC_FAILED", "HIPSOLVER_STATUS_INVALID_VALUE",
        "HIPSOLVER_STATUS_MAPPING_ERROR", "HIPSOLVER_STATUS_EXECUTION_FAILED",
        "HIPSOLVER_STATUS_INTERNAL_ERROR", "HIPSOLVER_STATUS_NOT_SUPPORTED",
        "HIPSOLVER_STATUS_ARCH_MISMATCH", "HIPSOLVER_STATUS_HANDLE_IS_NULLPTR",
        "HIPSOLVER_STATUS_INVALID_ENUM", "HIPSOLVER_STATUS_UNKNOWN",
        "HIPSOLVER_STATUS_ZERO_PIVOT", "HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED",
    };
    return (s >= 0 && s <= 13) ? names[s] : "<undefined hipsolverStatus_t value>";
}

/* ---- the typed entry points, one macro per routine, expanded for S/D/C/Z ---- */

#define GETRF(P)                                                                                  \
    HOC_API hipsolverStatus_t hipsolver##P##getrf_bufferSize(hipsolverHandle_t h, int m, int n,   \
                                                             void *A, int lda, int *lwork)        \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##getrfBS, h, m, n, A, lda, lwork);                                          \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##getrf(hipsolverHandle_t h, int m, int n, void *A,     \
                                                  int lda, void *work, int lwork, int *ipiv,      \
                                                  int *info)                                      \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##getrf, h, m, n, A, lda, work, ipiv, info);                                 \
    }

#define GETRS(P)                                                                                  \
    HOC_API hipsolverStatus_t hipsolver##P##getrs_bufferSize(hipsolverHandle_t h, int trans,      \
                                                             int n, int nrhs, void *A, int lda,   \
                                                             int *ipiv, void *B, int ldb,         \
                                                             int *lwork)                          \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (op(trans) < 0)                                                                        \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (!lwork)                                                                               \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        *lwork = 0;                                                                               \
        return HIPSOLVER_STATUS_SUCCESS;                                                          \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##getrs(hipsolverHandle_t h, int trans, int n,          \
                                                  int nrhs, void *A, int lda, int *ipiv, void *B, \
                                                  int ldb, void *work, int lwork, int *info)      \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (op(trans) < 0)                                                                        \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##getrs, h, op(trans), n, nrhs, A, lda, ipiv, B, ldb, info);                 \
    }

#define POTRF(P)                                                                                  \
    HOC_API hipsolverStatus_t hipsolver##P##potrf_bufferSize(hipsolverHandle_t h, int uplo,       \
                                                             int n, void *A, int lda, int *lwork) \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##potrfBS, h, fill(uplo), n, A, lda, lwork);                                 \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##potrf(hipsolverHandle_t h, int uplo, int n, void *A,  \
                                                  int lda, void *work, int lwork, int *info)      \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##potrf, h, fill(uplo), n, A, lda, work, lwork, info);                       \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##potrfBatched_bufferSize(                              \
        hipsolverHandle_t h, int uplo, int n, void **A, int lda, int *lwork, int batch)           \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (!lwork)                                                                               \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        *lwork = 0;                                                                               \
        return HIPSOLVER_STATUS_SUCCESS;                                                          \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##potrfBatched(hipsolverHandle_t h, int uplo, int n,    \
                                                         void **A, int lda, void *work,           \
                                                         int lwork, int *info, int batch)         \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##potrfBatched, h, fill(uplo), n, A, lda, info, batch);                      \
    }

#define GEQRF(P)                                                                                  \
    HOC_API hipsolverStatus_t hipsolver##P##geqrf_bufferSize(hipsolverHandle_t h, int m, int n,   \
                                                             void *A, int lda, int *lwork)        \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##geqrfBS, h, m, n, A, lda, lwork);                                          \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##geqrf(hipsolverHandle_t h, int m, int n, void *A,     \
                                                  int lda, void *tau, void *work, int lwork,      \
                                                  int *info)                                      \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##geqrf, h, m, n, A, lda, tau, work, lwork, info);                           \
    }

#define ORGQR(P, name)                                                                            \
    HOC_API hipsolverStatus_t hipsolver##P##name##_bufferSize(hipsolverHandle_t h, int m, int n,  \
                                                              int k, void *A, int lda, void *tau, \
                                                              int *lwork)                         \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##orgqrBS, h, m, n, k, A, lda, tau, lwork);                                  \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##name(hipsolverHandle_t h, int m, int n, int k,        \
                                                 void *A, int lda, void *tau, void *work,         \
                                                 int lwork, int *info)                            \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##orgqr, h, m, n, k, A, lda, tau, work, lwork, info);                        \
    }

/* jobu/jobv are LAPACK's characters in both libraries; cuSOLVER's workspace
 * query does not take them. */
#define GESVD(P)                                                                                  \
    HOC_API hipsolverStatus_t hipsolver##P##gesvd_bufferSize(hipsolverHandle_t h, signed char ju, \
                                                             signed char jv, int m, int n,        \
                                                             int *lwork)                          \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##gesvdBS, h, m, n, lwork);                                                  \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##gesvd(                                                \
        hipsolverHandle_t h, signed char ju, signed char jv, int m, int n, void *A, int lda,      \
        void *S, void *U, int ldu, void *V, int ldv, void *work, int lwork, void *rwork,          \
        int *info)                                                                                \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        return CALL(P##gesvd, h, ju, jv, m, n, A, lda, S, U, ldu, V, ldv, work, lwork, rwork,     \
                    info);                                                                        \
    }

#define SYEVD(P, name)                                                                            \
    HOC_API hipsolverStatus_t hipsolver##P##name##_bufferSize(hipsolverHandle_t h, int jobz,      \
                                                              int uplo, int n, void *A, int lda,  \
                                                              void *W, int *lwork)                \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0 || fill(uplo) < 0)                                                 \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##syevdBS, h, eig_mode(jobz), fill(uplo), n, A, lda, W, lwork);              \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##name(hipsolverHandle_t h, int jobz, int uplo, int n,  \
                                                 void *A, int lda, void *W, void *work,           \
                                                 int lwork, int *info)                            \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0 || fill(uplo) < 0)                                                 \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##syevd, h, eig_mode(jobz), fill(uplo), n, A, lda, W, work, lwork, info);    \
    }


/* cudaDataType_t of each type letter (CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F)
 * and of its real part. */
enum { CU_R_32F = 0, CU_R_64F = 1, CU_C_32F = 4, CU_C_64F = 5 };
static pthread_once_t g_params_once = PTHREAD_ONCE_INIT;
static void *g_params; /* cusolverDnParams_t of the 64-bit API, default settings */

static void make_params(void)
{
    if (cs.CreateParams && cs.CreateParams(&g_params) != 0)
        g_params = NULL;
}

/* cusolverDnXsyevBatched available (with its parameter object)? */
static int xsyev_batched(void)
{
    if (!cs.XsyevBatched || !cs.XsyevBatchedBS)
        return 0;
    pthread_once(&g_params_once, make_params);
    return g_params != NULL;
}

static hipsolverStatus_t xsyev_size(hipsolverHandle_t h, int jobz, int uplo, int n, void *A,
                                    int lda, void *W, int type, int real, size_t item,
                                    int batch, int *lwork)
{
    size_t dev = 0, host = 0;
    hipsolverStatus_t s = from_cusolver(cs.XsyevBatchedBS(h, g_params, jobz, uplo, (int64_t)n,
                                                          type, A, (int64_t)lda, real, W, type,
                                                          &dev, &host, (int64_t)batch));
    if (s)
        return s;
    if (host)  /* a host workspace is not part of hipSOLVER's contract */
        return HIPSOLVER_STATUS_NOT_SUPPORTED;
    *lwork = (int)((dev + item - 1) / item);
    return HIPSOLVER_STATUS_SUCCESS;
}

/* cuSOLVER's batched Jacobi takes n <= 32 (see the top of the file). */
#define JACOBI_BATCHED_MAX_N 32
#define SYEVJ_BATCHED(P, name, T, R, CT, CR)                                                              \
    HOC_API hipsolverStatus_t hipsolver##P##name##_bufferSize(                                    \
        hipsolverHandle_t h, int jobz, int uplo, int n, void *A, int lda, void *W, int *lwork,    \
        hipsolverSyevjInfo_t params, int batch)                                                   \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0 || fill(uplo) < 0)                                                 \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (n <= JACOBI_BATCHED_MAX_N)                                                            \
            return CALL(P##syevjBatchedBS, h, eig_mode(jobz), fill(uplo), n, A, lda, W, lwork,    \
                        params, batch);                                                           \
        if (!lwork)                                                                               \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        if (xsyev_batched())                                                                      \
            return xsyev_size(h, eig_mode(jobz), fill(uplo), n, A, lda, W, CT, CR, sizeof(T),     \
                              batch, lwork);                                                      \
        return CALL(P##syevjBS, h, eig_mode(jobz), fill(uplo), n, A, lda, W, lwork, params);      \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##name(hipsolverHandle_t h, int jobz, int uplo, int n,  \
                                                 void *A, int lda, void *W, void *work,           \
                                                 int lwork, int *info,                            \
                                                 hipsolverSyevjInfo_t params, int batch)          \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0 || fill(uplo) < 0)                                                 \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (n <= JACOBI_BATCHED_MAX_N)                                                            \
            return CALL(P##syevjBatched, h, eig_mode(jobz), fill(uplo), n, A, lda, W, work,       \
                        lwork, info, params, batch);                                              \
        if (batch < 0 || lda < n)                                                                 \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        if (xsyev_batched())                                                                      \
            return from_cusolver(cs.XsyevBatched(h, g_params, eig_mode(jobz), fill(uplo),         \
                                                 (int64_t)n, CT, A, (int64_t)lda, CR, W, CT,      \
                                                 work, (size_t)lwork * sizeof(T), NULL, (size_t)0, \
                                                 info, (int64_t)batch));                          \
        for (int i = 0; i < batch; i++) {                                                         \
            hipsolverStatus_t s = CALL(P##syevj, h, eig_mode(jobz), fill(uplo), n,                \
                                       (T *)A + (size_t)i * lda * n, lda, (R *)W + (size_t)i * n, \
                                       work, lwork, info + i, params);                            \
            if (s)                                                                                \
                return s;                                                                         \
        }                                                                                         \
        return HIPSOLVER_STATUS_SUCCESS;                                                          \
    }

typedef struct { float x, y; } hoc_c32;
typedef struct { double x, y; } hoc_c64;

#define ALL_TYPES(M) M(S) M(D) M(C) M(Z)
ALL_TYPES(GETRF)
ALL_TYPES(GETRS)
ALL_TYPES(POTRF)
ALL_TYPES(GEQRF)
ALL_TYPES(GESVD)
ORGQR(S, orgqr)
ORGQR(D, orgqr)
ORGQR(C, ungqr)
ORGQR(Z, ungqr)
SYEVD(S, syevd)
SYEVD(D, syevd)
SYEVD(C, heevd)
SYEVD(Z, heevd)
SYEVJ_BATCHED(S, syevjBatched, float, float, CU_R_32F, CU_R_32F)
SYEVJ_BATCHED(D, syevjBatched, double, double, CU_R_64F, CU_R_64F)
SYEVJ_BATCHED(C, heevjBatched, hoc_c32, float, CU_C_32F, CU_R_32F)
SYEVJ_BATCHED(Z, heevjBatched, hoc_c64, double, CU_C_64F, CU_R_64F)

/* gesvdjBatched: strided batch, full U (m x m) and V (n x n, not V^H). */
#define GESVDJ_BATCHED(P, T, R)                                                                   \
    HOC_API hipsolverStatus_t hipsolver##P##gesvdjBatched_bufferSize(                             \
        hipsolverHandle_t h, int jobz, int m, int n, void *A, int lda, void *S, void *U, int ldu, \
        void *V, int ldv, int *lwork, hipsolverGesvdjInfo_t params, int batch)                    \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0)                                                                   \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (m <= JACOBI_BATCHED_MAX_N && n <= JACOBI_BATCHED_MAX_N)                               \
            return CALL(P##gesvdjBatchedBS, h, eig_mode(jobz), m, n, A, lda, S, U, ldu, V, ldv,   \
                        lwork, params, batch);                                                    \
        return CALL(P##gesvdjBS, h, eig_mode(jobz), 0, m, n, A, lda, S, U, ldu, V, ldv, lwork,    \
                    params);                                                                      \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##gesvdjBatched(                                        \
        hipsolverHandle_t h, int jobz, int m, int n, void *A, int lda, void *S, void *U, int ldu, \
        void *V, int ldv, void *work, int lwork, int *info, hipsolverGesvdjInfo_t params,         \
        int batch)                                                                                \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0)                                                                   \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (m <= JACOBI_BATCHED_MAX_N && n <= JACOBI_BATCHED_MAX_N)                               \
            return CALL(P##gesvdjBatched, h, eig_mode(jobz), m, n, A, lda, S, U, ldu, V, ldv,     \
                        work, lwork, info, params, batch);                                        \
        if (batch < 0 || lda < m || ldu < m || ldv < n)                                           \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        int k = m < n ? m : n;                                                                    \
        for (int i = 0; i < batch; i++) {                                                         \
            hipsolverStatus_t s = CALL(P##gesvdj, h, eig_mode(jobz), 0, m, n,                     \
                                       (T *)A + (size_t)i * lda * n, lda, (R *)S + (size_t)i * k, \
                                       (T *)U + (size_t)i * ldu * m, ldu,                         \
                                       (T *)V + (size_t)i * ldv * n, ldv, work, lwork, info + i,  \
                                       params);                                                   \
            if (s)                                                                                \
                return s;                                                                         \
        }                                                                                         \
        return HIPSOLVER_STATUS_SUCCESS;                                                          \
    }
GESVDJ_BATCHED(S, float, float)
GESVDJ_BATCHED(D, double, double)
GESVDJ_BATCHED(C, hoc_c32, float)
GESVDJ_BATCHED(Z, hoc_c64, double)

HOC_API hipsolverStatus_t hipsolverCreateGesvdjInfo(hipsolverGesvdjInfo_t *info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(CreateGesvdjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverDestroyGesvdjInfo(hipsolverGesvdjInfo_t info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(DestroyGesvdjInfo, info);
}

/* Not part of hipSOLVER: why cuSOLVER could not be loaded, for diagnostics. */
HOC_API const char *hipsolverOnCudaLoadError(void)
{
    ready();
    return g_why;
}
