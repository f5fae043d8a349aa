/*
 * hip_on_cuda: hipSOLVER's batched Jacobi routines (syevjBatched/heevjBatched,
 * gesvdjBatched) forwarded to cuSOLVER.
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
#include <stddef.h>
#include <stdint.h>

#include "hipsolver_internal.h"

static pthread_once_t g_params_once = PTHREAD_ONCE_INIT;
static void *g_params; /* cusolverDnParams_t of the 64-bit API, default settings */

static void make_params(void)
{
    if (hoc_cs.CreateParams && hoc_cs.CreateParams(&g_params) != 0)
        g_params = NULL;
}

void *hoc_solver_params(void)
{
    pthread_once(&g_params_once, make_params);
    return g_params;
}

/* cusolverDnXsyevBatched available (with its parameter object)? */
static int xsyev_batched(void)
{
    if (!hoc_cs.XsyevBatched || !hoc_cs.XsyevBatchedBS)
        return 0;
    return hoc_solver_params() != NULL;
}

static hipsolverStatus_t xsyev_size(hipsolverHandle_t h, int jobz, int uplo, int n, void *A,
                                    int lda, void *W, int type, int real, size_t item,
                                    int batch, int *lwork)
{
    size_t dev = 0, host = 0;
    hipsolverStatus_t s = hoc_from_cusolver(hoc_cs.XsyevBatchedBS(h, g_params, jobz, uplo, (int64_t)n,
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
            return hoc_from_cusolver(hoc_cs.XsyevBatched(h, g_params, eig_mode(jobz), fill(uplo),         \
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
/* gesvdj of one matrix (cuSOLVER's has no size bound). */
#define GESVDJ(P)                                                                                 \
    HOC_API hipsolverStatus_t hipsolver##P##gesvdj_bufferSize(                                    \
        hipsolverHandle_t h, int jobz, int econ, int m, int n, void *A, int lda, void *S, void *U, \
        int ldu, void *V, int ldv, int *lwork, hipsolverGesvdjInfo_t params)                      \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0)                                                                   \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##gesvdjBS, h, eig_mode(jobz), econ, m, n, A, lda, S, U, ldu, V, ldv, lwork, \
                    params);                                                                      \
    }                                                                                             \
    HOC_API hipsolverStatus_t hipsolver##P##gesvdj(                                               \
        hipsolverHandle_t h, int jobz, int econ, int m, int n, void *A, int lda, void *S, void *U, \
        int ldu, void *V, int ldv, void *work, int lwork, int *info, hipsolverGesvdjInfo_t params) \
    {                                                                                             \
        CHECK_HANDLE(h);                                                                          \
        if (eig_mode(jobz) < 0)                                                                   \
            return HIPSOLVER_STATUS_INVALID_ENUM;                                                 \
        return CALL(P##gesvdj, h, eig_mode(jobz), econ, m, n, A, lda, S, U, ldu, V, ldv, work,    \
                    lwork, info, params);                                                         \
    }
GESVDJ(S)
GESVDJ(D)
GESVDJ(C)
GESVDJ(Z)

GESVDJ_BATCHED(S, float, float)
GESVDJ_BATCHED(D, double, double)
GESVDJ_BATCHED(C, hoc_c32, float)
GESVDJ_BATCHED(Z, hoc_c64, double)

HOC_API hipsolverStatus_t hipsolverCreateGesvdjInfo(hipsolverGesvdjInfo_t *info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!hoc_solver_ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(CreateGesvdjInfo, info);
}

HOC_API hipsolverStatus_t hipsolverDestroyGesvdjInfo(hipsolverGesvdjInfo_t info)
{
    if (!info)
        return HIPSOLVER_STATUS_INVALID_VALUE;
    if (!hoc_solver_ready())
        return HIPSOLVER_STATUS_NOT_INITIALIZED;
    return CALL(DestroyGesvdjInfo, info);
}

