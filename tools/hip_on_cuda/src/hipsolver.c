/*
 * hip_on_cuda: hipSOLVER (its "regular" API) forwarded to cuSOLVER's dense
 * API.  Handles are cusolverDn handles, hipsolverSyevjInfo_t is cuSOLVER's
 * syevjInfo_t.  Translated: hipsolverFillMode_t (hipBLAS's 121/122 ->
 * cuBLAS's 1/0), hipsolverOperation_t (111..113 -> 0..2),
 * hipsolverEigMode_t (201/202 -> 0/1) and the statuses.  Where hipSOLVER
 * takes a workspace that cuSOLVER does not (getrs, potrfBatched) its size is
 * 0 and the pointer is ignored.  potrf goes to the 64-bit cusolverDnXpotrf where
 * the library has it (see use_xpotrf).
 *
 * The batched Jacobi routines are in hipsolver_jacobi.c.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "hipsolver_internal.h"

struct hoc_cusolver_api hoc_cs;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_loaded;

static void load_cusolver(void)
{
    static const char *const versions[] = {"12", "11", NULL};
    void *lib = hoc_open_library("libcusolver.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define LOAD(field, sym) hoc_cs.field = (fn_any)hoc_symbol(lib, sym);
    CUSOLVER_FUNCS(LOAD)
#undef LOAD
    g_loaded = hoc_cs.Create != NULL;
}

int hoc_solver_ready(void)
{
    pthread_once(&g_once, load_cusolver);
    return g_loaded;
}

/* cusolverStatus_t -> hipsolverStatus_t */
hipsolverStatus_t hoc_from_cusolver(int s)
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

HOC_API hipsolverStatus_t hipsolverCreate(hipsolverHandle_t *handle)
{
    if (!handle)
        return HIPSOLVER_STATUS_HANDLE_IS_NULLPTR;
    if (!hoc_solver_ready() || hoc_ctx() != 0)
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
    if (!hoc_solver_ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(CreateSyevjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverDestroySyevjInfo(hipsolverSyevjInfo_t info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!hoc_solver_ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(DestroySyevjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverXsyevjSetTolerance(hipsolverSyevjInfo_t info, double tolerance)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!hoc_solver_ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(SyevjSetTolerance, info, tolerance);
}

HOC_API hipsolverStatus_t hipsolverXsyevjSetMaxSweeps(hipsolverSyevjInfo_t info, int sweeps)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!hoc_solver_ready())
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

/* cuSOLVER's 64-bit potrf (cusolverDnXpotrf) where it is there and needs no host
 * workspace, else the legacy one: on an H100 at n = 4096 float32 the legacy Spotrf
 * took 4.8 ms where PyTorch (which calls Xpotrf) took 1.9
 * (bench/results/linalg_fft_nvidia-h100.md).  Both entry points decide the same way,
 * so the workspace the caller sized is the one the routine is given.  *bytes: the
 * 64-bit routine's device workspace. */
static int use_xpotrf(hipsolverHandle_t h, int uplo, int n, void *A, int lda, int type, size_t *bytes)
{
    size_t host = 0;
    void *params;
    if (!hoc_cs.Xpotrf || !hoc_cs.XpotrfBS || !(params = hoc_solver_params()))
        return 0;
    *bytes = 0;
    return hoc_cs.XpotrfBS(h, params, uplo, (int64_t)n, type, A, (int64_t)lda, type, bytes, &host) == 0
           && host == 0;
}

#define POTRF(P, T, CT)                                                                           \
    HOC_API hipsolverStatus_t hipsolver##P##potrf_bufferSize(hipsolverHandle_t h, int uplo,       \
                                                             int n, void *A, int lda, int *lwork) \
    {                                                                                             \
        size_t bytes;                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (!lwork)                                                                               \
            return HIPSOLVER_STATUS_INVALID_VALUE;                                                \
        if (use_xpotrf(h, fill(uplo), n, A, lda, CT, &bytes)) {                                   \
            *lwork = (int)((bytes + sizeof(T) - 1) / sizeof(T));                                  \
            return HIPSOLVER_STATUS_SUCCESS;                                                      \
        }                                                                                         \
        return CALL(P##potrfBS, h, fill(uplo), n, A, lda, lwork);                                 \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##potrf(hipsolverHandle_t h, int uplo, int n, void *A,  \
                                                  int lda, void *work, int lwork, int *info)      \
    {                                                                                             \
        size_t bytes;                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (fill(uplo) < 0)                                                                       \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        if (use_xpotrf(h, fill(uplo), n, A, lda, CT, &bytes)) {                                   \
            if (lwork < 0 || (size_t)lwork * sizeof(T) < bytes)                                   \
                return HIPSOLVER_STATUS_INVALID_VALUE;                                            \
            return hoc_from_cusolver(hoc_cs.Xpotrf(h, hoc_solver_params(), fill(uplo), (int64_t)n, \
                                                   CT, A, (int64_t)lda, CT, work,                 \
                                                   (size_t)lwork * sizeof(T), NULL, (size_t)0,    \
                                                   info));                                        \
        }                                                                                         \
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


#define ALL_TYPES(M) M(S) M(D) M(C) M(Z)
ALL_TYPES(GETRF)
ALL_TYPES(GETRS)
POTRF(S, float, CU_R_32F)
POTRF(D, double, CU_R_64F)
POTRF(C, hoc_c32, CU_C_32F)
POTRF(Z, hoc_c64, CU_C_64F)
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
/* Not part of hipSOLVER: why cuSOLVER could not be loaded, for diagnostics. */
HOC_API const char *hipsolverOnCudaLoadError(void)
{
    hoc_solver_ready();
    return g_why;
}
