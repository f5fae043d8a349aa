/*
 * A stand-in libcusolver.so / libcufft.so / libcublas.so for checking the
 * shim's hipSOLVER, hipFFT and hipBLAS batched-LU forwarding without a GPU (tests/rocm/shim/test_fake_solver_fft.py).
 * Each entry point records its name and integer arguments in fake_last_*
 * (read back through ctypes) and returns a status chosen by the test
 * (fake_status), so the test sees what the shim passed on (enum mapping,
 * handles, plan numbers) and what it made of the status.  Nothing is computed.
 */
#include <stdint.h>
#include <string.h>

#define API __attribute__((visibility("default")))

API char fake_last_name[64];
API long long fake_last_args[8];
API int fake_status;
API int fake_calls;

static int rec(const char *name, int n, long long a0, long long a1, long long a2, long long a3,
               long long a4, long long a5)
{
    long long v[6] = {a0, a1, a2, a3, a4, a5};
    strncpy(fake_last_name, name, sizeof fake_last_name - 1);
    memset(fake_last_args, 0, sizeof fake_last_args);
    for (int i = 0; i < n && i < 6; ++i)
        fake_last_args[i] = v[i];
    fake_calls++;
    return fake_status;
}

/* ---- cuSOLVER (dense) ---- */
static int g_handle_token = 7;
API int cusolverDnCreate(void **h) { *h = &g_handle_token; return rec("cusolverDnCreate", 0, 0, 0, 0, 0, 0, 0); }
API int cusolverDnDestroy(void *h) { return rec("cusolverDnDestroy", 0, 0, 0, 0, 0, 0, 0); }
API int cusolverDnSetStream(void *h, void *s) { return rec("cusolverDnSetStream", 1, (long long)(intptr_t)s, 0, 0, 0, 0, 0); }
API int cusolverDnSpotrf_bufferSize(void *h, int uplo, int n, void *A, int lda, int *lwork)
{
    *lwork = 3 * n;
    return rec("cusolverDnSpotrf_bufferSize", 3, uplo, n, lda, 0, 0, 0);
}
API int cusolverDnSpotrf(void *h, int uplo, int n, void *A, int lda, void *w, int lwork, int *info)
{
    return rec("cusolverDnSpotrf", 4, uplo, n, lda, lwork, 0, 0);
}
/* the 64-bit potrf: device workspace 12 n bytes; fake_host_bytes of host workspace (a
 * nonzero value sends the shim back to the legacy routine) */
API int fake_host_bytes;
static int g_params_token = 9;
API int cusolverDnCreateParams(void **p) { *p = &g_params_token; return 0; }
API int cusolverDnXpotrf_bufferSize(void *h, void *params, int uplo, int64_t n, int type, void *A, int64_t lda,
                                    int ctype, size_t *dev, size_t *host)
{
    *dev = 12 * (size_t)n;
    *host = (size_t)fake_host_bytes;
    return rec("cusolverDnXpotrf_bufferSize", 4, uplo, n, type, lda, 0, 0);
}
API int cusolverDnXpotrf(void *h, void *params, int uplo, int64_t n, int type, void *A, int64_t lda, int ctype,
                         void *work, size_t dev, void *hwork, size_t host, int *info)
{
    return rec("cusolverDnXpotrf", 6, uplo, n, type, lda, (long long)dev, params == &g_params_token);
}
API int cusolverDnSgesvdj(void *h, int jobz, int econ, int m, int n, void *A, int lda, void *S, void *U, int ldu,
                          void *V, int ldv, void *w, int lwork, int *info, void *params)
{
    return rec("cusolverDnSgesvdj", 6, jobz, econ, m, n, lda, lwork);
}
API int cusolverDnZgetrs(void *h, int trans, int n, int nrhs, void *A, int lda, int *ipiv, void *B, int ldb, int *info)
{
    return rec("cusolverDnZgetrs", 5, trans, n, nrhs, lda, ldb, 0);
}
API int cusolverDnCheevd(void *h, int jobz, int uplo, int n, void *A, int lda, void *W, void *w, int lwork, int *info)
{
    return rec("cusolverDnCheevd", 5, jobz, uplo, n, lda, lwork, 0);
}
API int cusolverDnDgesvd(void *h, signed char ju, signed char jv, int m, int n, void *A, int lda, void *S,
                         void *U, int ldu, void *V, int ldv, void *w, int lwork, void *rw, int *info)
{
    return rec("cusolverDnDgesvd", 6, ju, jv, m, n, ldu, ldv);
}
API int cusolverDnSsyevjBatched(void *h, int jobz, int uplo, int n, void *A, int lda, void *W, void *w,
                                int lwork, int *info, void *params, int batch)
{
    return rec("cusolverDnSsyevjBatched", 5, jobz, uplo, n, lda, batch, 0);
}
API int cusolverDnSsyevj(void *h, int jobz, int uplo, int n, void *A, int lda, void *W, void *w,
                         int lwork, int *info, void *params)
{
    return rec("cusolverDnSsyevj", 6, jobz, uplo, n, lda, (long long)(intptr_t)A, (long long)(intptr_t)info);
}

/* ---- cuBLAS (handle, the batched LU, trsm) ---- */
API int cublasCreate_v2(void **h) { *h = &g_handle_token; return rec("cublasCreate_v2", 0, 0, 0, 0, 0, 0, 0); }
API int cublasSetStream_v2(void *h, void *s) { return rec("cublasSetStream_v2", 1, (long long)(intptr_t)s, 0, 0, 0, 0, 0); }
API int cublasDgetrfBatched(void *h, int n, void **A, int lda, int *ipiv, int *info, int batch)
{
    return rec("cublasDgetrfBatched", 3, n, lda, batch, 0, 0, 0);
}
API int cublasCgetrsBatched(void *h, int trans, int n, int nrhs, void **A, int lda, const int *ipiv, void **B,
                            int ldb, int *info, int batch)
{
    return rec("cublasCgetrsBatched", 6, trans, n, nrhs, lda, ldb, batch);
}
API int cublasStrsm_v2(void *h, int side, int uplo, int trans, int diag, int m, int n, const float *alpha,
                       const float *A, int lda, float *B, int ldb)
{
    return rec("cublasStrsm_v2", 6, side, uplo, trans, diag, m, n);
}

/* ---- cuFFT ---- */
static int g_next_plan;  /* cuFFT numbers plans from 0 */
API int fake_embeds_null;  /* the last cufftMakePlanMany: bit 0 inembed NULL, bit 1 onembed NULL */
API int cufftCreate(int *plan) { *plan = g_next_plan++; return rec("cufftCreate", 1, *plan, 0, 0, 0, 0, 0); }
API int cufftDestroy(int plan) { return rec("cufftDestroy", 1, plan, 0, 0, 0, 0, 0); }
API int cufftSetStream(int plan, void *s) { return rec("cufftSetStream", 2, plan, (long long)(intptr_t)s, 0, 0, 0, 0); }
API int cufftMakePlanMany(int plan, int rank, int *n, int *inembed, int istride, int idist, int *onembed,
                          int ostride, int odist, int type, int batch, size_t *work)
{
    *work = 0;
    fake_embeds_null = (inembed == NULL) | (onembed == NULL) << 1;
    return rec("cufftMakePlanMany", 6, plan, n[0], istride, idist, type, batch);
}
API int cufftExecC2C(int plan, void *in, void *out, int dir) { return rec("cufftExecC2C", 2, plan, dir, 0, 0, 0, 0); }
API int cufftExecD2Z(int plan, void *in, void *out) { return rec("cufftExecD2Z", 1, plan, 0, 0, 0, 0, 0); }
