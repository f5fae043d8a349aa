/*
 * hip_on_cuda: code objects and kernel launch.  The "code object" a module
 * is loaded from is what the shim's hipRTC produced (a cubin, or PTX when
 * NVRTC cannot target the GPU directly).  hipModuleLaunchKernel's `extra`
 * array is rewritten from HIP's tags (BUFFER_POINTER=1, BUFFER_SIZE=2,
 * END=3) to CUDA's (1, 2, END=0).
 */
#include <stdint.h>

#include "hoc_cuda.h"
#include "hip_types.h"

HOC_API hipError_t hipModuleLoadData(hipModule_t *module, const void *image)
{
    if (!module || !image)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuModuleLoadData(module, image));
}

/* HIP's JIT option numbering differs from CUDA's and none of the options
 * changes what a finished cubin does, so they are accepted and not passed. */
HOC_API hipError_t hipModuleLoadDataEx(hipModule_t *module, const void *image,
                                       unsigned int num_options, void *options, void **values)
{
    (void)num_options;
    (void)options;
    (void)values;
    return hipModuleLoadData(module, image);
}

HOC_API hipError_t hipModuleUnload(hipModule_t module)
{
    if (!module)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuModuleUnload(module));
}

HOC_API hipError_t hipModuleGetFunction(hipFunction_t *fn, hipModule_t module, const char *name)
{
    if (!fn || !name)
        return hoc_ret(hipErrorInvalidValue);
    if (!module)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuModuleGetFunction(fn, module, name));
}

HOC_API hipError_t hipModuleGetGlobal(void **dptr, size_t *bytes, hipModule_t module, const char *name)
{
    if (!name)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    CUdeviceptr d = 0;
    size_t n = 0;
    int e = HOC_CU(hoc_cu.cuModuleGetGlobal(&d, &n, module, name));
    if (dptr)
        *dptr = (void *)(uintptr_t)d;
    if (bytes)
        *bytes = n;
    return e;
}

#define HOC_MAX_EXTRA 32

/* Rewrite a HIP `extra` list into out[]; returns a hipError_t. */
static int translate_extra(void **extra, void **out)
{
    int j = 0;
    for (int i = 0; i < HOC_MAX_EXTRA; ) {
        void *tag = extra[i];
        if (tag == HIP_LAUNCH_PARAM_END) {
            out[j] = (void *)0; /* CU_LAUNCH_PARAM_END */
            return hipSuccess;
        }
        if (tag != HIP_LAUNCH_PARAM_BUFFER_POINTER && tag != HIP_LAUNCH_PARAM_BUFFER_SIZE)
            return hipErrorInvalidValue;
        if (j + 3 > HOC_MAX_EXTRA)
            break;
        out[j++] = tag; /* CU_LAUNCH_PARAM_BUFFER_POINTER / _SIZE are 1 / 2 */
        out[j++] = extra[i + 1];
        i += 2;
    }
    return hipErrorInvalidValue; /* no HIP_LAUNCH_PARAM_END */
}

HOC_API hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
                                         unsigned int gz, unsigned int bx, unsigned int by,
                                         unsigned int bz, unsigned int shmem, hipStream_t stream,
                                         void **params, void **extra)
{
    if (!f)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    void *cu_extra[HOC_MAX_EXTRA];
    void **pass = NULL;
    if (extra) {
        int e = translate_extra(extra, cu_extra);
        if (e)
            return hoc_ret(e);
        pass = cu_extra;
    }
    return HOC_CU(hoc_cu.cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shmem, stream, params, pass));
}

/* hipFunction_attribute values 0..9 equal CUfunction_attribute's. */
HOC_API hipError_t hipFuncGetAttribute(int *value, int attr, hipFunction_t f)
{
    if (!value || attr < 0 || attr > 9)
        return hoc_ret(hipErrorInvalidValue);
    if (!f)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuFuncGetAttribute(value, attr, f));
}

HOC_API hipError_t hipModuleOccupancyMaxPotentialBlockSize(int *grid, int *block, hipFunction_t f,
                                                           size_t dyn_shmem, int limit)
{
    if (!grid || !block)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuOccupancyMaxPotentialBlockSize(grid, block, f, NULL, dyn_shmem, limit));
}

HOC_API hipError_t hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, hipFunction_t f,
                                                                      int block, size_t dyn_shmem)
{
    if (!blocks)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuOccupancyMaxActiveBlocksPerMultiprocessor(blocks, f, block, dyn_shmem));
}
