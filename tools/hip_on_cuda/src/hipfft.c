/*
 * hip_on_cuda: hipFFT forwarded to cuFFT.  A hipfftHandle is a pointer, a
 * cufftHandle an int: each hipFFT plan is a small block holding the cuFFT
 * plan number (0 is a valid cuFFT plan, so the number itself cannot serve as
 * the pointer).  hipfftType_t (0x29.. ) and the directions (-1/+1) have the
 * cuFFT values; hipfftResult_t matches cufftResult except cuFFT's
 * LICENSE_ERROR (15), reported as HIPFFT_NOT_SUPPORTED.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "hoc_cuda.h"

typedef int hipfftResult;
enum {
    HIPFFT_SUCCESS = 0, HIPFFT_INVALID_PLAN = 1, HIPFFT_ALLOC_FAILED = 2, HIPFFT_INVALID_TYPE = 3,
    HIPFFT_INVALID_VALUE = 4, HIPFFT_INTERNAL_ERROR = 5, HIPFFT_NOT_IMPLEMENTED = 14,
    HIPFFT_NOT_SUPPORTED = 16,
};
typedef struct hoc_fft_plan {
    int cu;
} *hipfftHandle;

typedef int (*fn_any)();
#define CUFFT_FUNCS(X)                                                                           \
    X(Create, "cufftCreate") X(Destroy, "cufftDestroy") X(SetStream, "cufftSetStream")           \
    X(PlanMany, "cufftPlanMany") X(MakePlanMany, "cufftMakePlanMany")                            \
    X(MakePlanMany64, "cufftMakePlanMany64") X(GetSize, "cufftGetSize")                          \
    X(SetAutoAllocation, "cufftSetAutoAllocation") X(SetWorkArea, "cufftSetWorkArea")            \
    X(GetVersion, "cufftGetVersion") X(ExecC2C, "cufftExecC2C") X(ExecR2C, "cufftExecR2C")       \
    X(ExecC2R, "cufftExecC2R") X(ExecZ2Z, "cufftExecZ2Z") X(ExecD2Z, "cufftExecD2Z")             \
    X(ExecZ2D, "cufftExecZ2D")

#define DECL(field, sym) fn_any field;
static struct { CUFFT_FUNCS(DECL) } cf;
#undef DECL
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_loaded;

static void load_cufft(void)
{
    static const char *const versions[] = {"12", "11", "10", NULL};
    void *lib = hoc_open_library("libcufft.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define LOAD(field, sym) cf.field = (fn_any)hoc_symbol(lib, sym);
    CUFFT_FUNCS(LOAD)
#undef LOAD
    g_loaded = cf.Create != NULL && cf.Destroy != NULL;
}

static int ready(void)
{
    pthread_once(&g_once, load_cufft);
    return g_loaded;
}

static hipfftResult from_cufft(int r)
{
    if (r >= 0 && r <= 14)
        return r;
    return r == 16 ? HIPFFT_NOT_SUPPORTED : r == 15 ? HIPFFT_NOT_SUPPORTED : HIPFFT_INTERNAL_ERROR;
}

/* hipfftType_t values that cuFFT knows (the same numbers). */
static int fft_type(int t)
{
    return t == 0x29 || t == 0x2a || t == 0x2c || t == 0x69 || t == 0x6a || t == 0x6c;
}

#define CALL(field, ...) (cf.field ? from_cufft(cf.field(__VA_ARGS__)) : HIPFFT_NOT_IMPLEMENTED)
#define CHECK_PLAN(p)                          \
    do {                                       \
        if (!(p))                              \
            return HIPFFT_INVALID_PLAN;        \
        if (!ready())                          \
            return HIPFFT_INTERNAL_ERROR;      \
    } while (0)

/* A fresh block holding a cufftCreate'd plan, in *plan. */
static hipfftResult new_plan(hipfftHandle *plan)
{
    if (!plan)
        return HIPFFT_INVALID_VALUE;
    if (!ready() || hoc_ctx() != 0)
        return HIPFFT_INTERNAL_ERROR;
    hipfftHandle p = calloc(1, sizeof *p);
    if (!p)
        return HIPFFT_ALLOC_FAILED;
    hipfftResult r = CALL(Create, &p->cu);
    if (r) {
        free(p);
        return r;
    }
    *plan = p;
    return HIPFFT_SUCCESS;
}

HOC_API hipfftResult hipfftCreate(hipfftHandle *plan)
{
    return new_plan(plan);
}

HOC_API hipfftResult hipfftDestroy(hipfftHandle plan)
{
    CHECK_PLAN(plan);
    hipfftResult r = CALL(Destroy, plan->cu);
    free(plan);
    return r;
}

HOC_API hipfftResult hipfftMakePlanMany(hipfftHandle plan, int rank, int *n, int *inembed,
                                        int istride, int idist, int *onembed, int ostride,
                                        int odist, int type, int batch, size_t *work)
{
    CHECK_PLAN(plan);
    if (!fft_type(type))
        return HIPFFT_INVALID_TYPE;
    return CALL(MakePlanMany, plan->cu, rank, n, inembed, istride, idist, onembed, ostride, odist,
                type, batch, work);
}

HOC_API hipfftResult hipfftMakePlanMany64(hipfftHandle plan, int rank, long long *n,
                                          long long *inembed, long long istride, long long idist,
                                          long long *onembed, long long ostride, long long odist,
                                          int type, long long batch, size_t *work)
{
    CHECK_PLAN(plan);
    if (!fft_type(type))
        return HIPFFT_INVALID_TYPE;
    return CALL(MakePlanMany64, plan->cu, rank, n, inembed, istride, idist, onembed, ostride,
                odist, type, batch, work);
}

HOC_API hipfftResult hipfftPlanMany(hipfftHandle *plan, int rank, int *n, int *inembed,
                                    int istride, int idist, int *onembed, int ostride, int odist,
                                    int type, int batch)
{
    if (!fft_type(type))
        return HIPFFT_INVALID_TYPE;
    hipfftHandle p;
    hipfftResult r = new_plan(&p);
    if (r)
        return r;
    size_t work = 0;
    r = CALL(MakePlanMany, p->cu, rank, n, inembed, istride, idist, onembed, ostride, odist, type,
             batch, &work);
    if (r) {
        hipfftDestroy(p);
        return r;
    }
    *plan = p;
    return HIPFFT_SUCCESS;
}

HOC_API hipfftResult hipfftPlan1d(hipfftHandle *plan, int nx, int type, int batch)
{
    return hipfftPlanMany(plan, 1, &nx, NULL, 1, nx, NULL, 1, nx, type, batch);
}

HOC_API hipfftResult hipfftSetStream(hipfftHandle plan, CUstream stream)
{
    CHECK_PLAN(plan);
    return CALL(SetStream, plan->cu, stream);
}

HOC_API hipfftResult hipfftGetSize(hipfftHandle plan, size_t *size)
{
    CHECK_PLAN(plan);
    return CALL(GetSize, plan->cu, size);
}

HOC_API hipfftResult hipfftSetAutoAllocation(hipfftHandle plan, int autoAllocate)
{
    CHECK_PLAN(plan);
    return CALL(SetAutoAllocation, plan->cu, autoAllocate);
}

HOC_API hipfftResult hipfftSetWorkArea(hipfftHandle plan, void *area)
{
    CHECK_PLAN(plan);
    return CALL(SetWorkArea, plan->cu, area);
}

HOC_API hipfftResult hipfftGetVersion(int *version)
{
    if (!version)
        return HIPFFT_INVALID_VALUE;
    if (!ready())
        return HIPFFT_INTERNAL_ERROR;
    return CALL(GetVersion, version);
}

#define EXEC_DIR(name, field)                                                               \
    HOC_API hipfftResult name(hipfftHandle plan, void *in, void *out, int direction)        \
    {                                                                                       \
        CHECK_PLAN(plan);                                                                   \
        if (direction != -1 && direction != 1)                                              \
            return HIPFFT_INVALID_VALUE;                                                    \
        return CALL(field, plan->cu, in, out, direction);                                   \
    }
#define EXEC(name, field)                                                                   \
    HOC_API hipfftResult name(hipfftHandle plan, void *in, void *out)                       \
    {                                                                                       \
        CHECK_PLAN(plan);                                                                   \
        return CALL(field, plan->cu, in, out);                                              \
    }
EXEC_DIR(hipfftExecC2C, ExecC2C)
EXEC_DIR(hipfftExecZ2Z, ExecZ2Z)
EXEC(hipfftExecR2C, ExecR2C)
EXEC(hipfftExecC2R, ExecC2R)
EXEC(hipfftExecD2Z, ExecD2Z)
EXEC(hipfftExecZ2D, ExecZ2D)

/* Not part of hipFFT: why cuFFT could not be loaded, for diagnostics. */
HOC_API const char *hipfftOnCudaLoadError(void)
{
    ready();
    return g_why;
}
