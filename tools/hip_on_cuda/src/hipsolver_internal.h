/*
 * hip_on_cuda: what the hipSOLVER files share (hipsolver.c: loader, handles and
 * the one-matrix routines; hipsolver_jacobi.c: the batched Jacobi routines):
 * hipSOLVER's types, the cuSOLVER function table, enum and status mapping.
 */
#ifndef HOC_HIPSOLVER_INTERNAL_H
#define HOC_HIPSOLVER_INTERNAL_H

#include <stdint.h>

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
    X(XsyevBatched, "cusolverDnXsyevBatched")                                                   \
    X(XpotrfBS, "cusolverDnXpotrf_bufferSize") X(Xpotrf, "cusolverDnXpotrf")

#define DECL(field, sym) fn_any field;
struct hoc_cusolver_api { CUSOLVER_FUNCS(DECL) };
#undef DECL
/* The cuSOLVER entry points (filled once by hoc_solver_ready; NULL when absent). */
extern struct hoc_cusolver_api hoc_cs;
/* Load cuSOLVER once; 1 when usable. */
int hoc_solver_ready(void);
/* cusolverStatus_t -> hipsolverStatus_t */
hipsolverStatus_t hoc_from_cusolver(int s);
/* The 64-bit API's cusolverDnParams_t (default settings, made once); NULL without it. */
void *hoc_solver_params(void);

/* cudaDataType_t of each type letter (CUDA_R_32F, CUDA_R_64F, CUDA_C_32F, CUDA_C_64F). */
enum { CU_R_32F = 0, CU_R_64F = 1, CU_C_32F = 4, CU_C_64F = 5 };

/* hipsolverFillMode_t (hipBLAS's) -> cublasFillMode_t, -1 when not lower/upper. */
static inline int fill(int f)
{
    return f == 122 ? 0 : f == 121 ? 1 : -1;
}

/* hipsolverOperation_t -> cublasOperation_t */
static inline int op(int o)
{
    return (o >= 111 && o <= 113) ? o - 111 : -1;
}

/* hipsolverEigMode_t -> cusolverEigMode_t */
static inline int eig_mode(int m)
{
    return m == 201 ? 0 : m == 202 ? 1 : -1;
}

#define CHECK_HANDLE(h)                                   \
    do {                                                  \
        if (!(h))                                         \
            return HIPSOLVER_STATUS_HANDLE_IS_NULLPTR;    \
        if (!hoc_solver_ready())                                     \
            return HIPSOLVER_STATUS_NOT_INITIALIZED;      \
    } while (0)
#define CALL(field, ...) (hoc_cs.field ? hoc_from_cusolver(hoc_cs.field(__VA_ARGS__)) : HIPSOLVER_STATUS_NOT_SUPPORTED)

typedef struct { float x, y; } hoc_c32;
typedef struct { double x, y; } hoc_c64;

#endif
