/*
 * hip_on_cuda: initialisation, device selection and device queries.
 * Attributes are translated from HIP's hipDeviceAttribute_t numbering to
 * the CUDA driver's, and hipDeviceProp_tR0600 is filled field by field.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hoc_cuda.h"
#include "hip_types.h"

HOC_API hipError_t hipInit(unsigned int flags)
{
    if (flags != 0)
        return hoc_ret(hipErrorInvalidValue);
    return hoc_ret(hoc_init());
}

HOC_API hipError_t hipDriverGetVersion(int *v)
{
    if (!v)
        return hoc_ret(hipErrorInvalidValue);
    int e = hoc_init();
    if (e)
        return hoc_ret(e);
    return HOC_CU(hoc_cu.cuDriverGetVersion(v));
}

/* HIP on the NVIDIA platform reports the CUDA version here too; the shim
 * has no CUDA runtime of its own, so it reports the driver's. */
HOC_API hipError_t hipRuntimeGetVersion(int *v)
{
    return hipDriverGetVersion(v);
}

HOC_API hipError_t hipGetDeviceCount(int *count)
{
    if (!count)
        return hoc_ret(hipErrorInvalidValue);
    *count = 0;
    int e = hoc_init();
    if (e)
        return hoc_ret(e);
    e = HOC_CU(hoc_cu.cuDeviceGetCount(count));
    if (!e && *count == 0)
        return hoc_ret(hipErrorNoDevice);
    return e;
}

static int check_device(int dev)
{
    int n = 0;
    int e = hoc_init();
    if (e)
        return e;
    e = hoc_hip_from_cu(hoc_cu.cuDeviceGetCount(&n));
    if (e)
        return e;
    return (dev < 0 || dev >= n) ? hipErrorInvalidDevice : hipSuccess;
}

HOC_API hipError_t hipSetDevice(int dev)
{
    int e = check_device(dev);
    if (e)
        return hoc_ret(e);
    hoc_set_current_device(dev);
    return hoc_ret(hoc_ctx());
}

HOC_API hipError_t hipGetDevice(int *dev)
{
    if (!dev)
        return hoc_ret(hipErrorInvalidValue);
    int e = hoc_init();
    if (e)
        return hoc_ret(e);
    *dev = hoc_current_device();
    return hipSuccess;
}

HOC_API hipError_t hipDeviceGet(hipDevice_t *device, int ordinal)
{
    if (!device)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(ordinal);
    if (e)
        return hoc_ret(e);
    *device = ordinal;
    return hipSuccess;
}

HOC_API hipError_t hipDeviceGetName(char *name, int len, hipDevice_t dev)
{
    if (!name || len <= 0)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuDeviceGetName(name, len, dev));
}

HOC_API hipError_t hipDeviceTotalMem(size_t *bytes, hipDevice_t dev)
{
    if (!bytes)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuDeviceTotalMem(bytes, dev));
}

HOC_API hipError_t hipDeviceComputeCapability(int *major, int *minor, hipDevice_t dev)
{
    if (!major || !minor)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    if (!e)
        e = hoc_hip_from_cu(hoc_cu.cuDeviceGetAttribute(major, CU_ATTR_COMPUTE_CAPABILITY_MAJOR, dev));
    if (!e)
        e = hoc_hip_from_cu(hoc_cu.cuDeviceGetAttribute(minor, CU_ATTR_COMPUTE_CAPABILITY_MINOR, dev));
    return hoc_ret(e);
}

HOC_API hipError_t hipDeviceGetPCIBusId(char *bus, int len, int dev)
{
    if (!bus || len <= 0)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuDeviceGetPCIBusId(bus, len, dev));
}

/* hipDeviceAttribute_t value -> CUdevice_attribute value (0: none). */
static int cu_attribute(int hip_attr)
{
    static const int map[][2] = {
        {1, CU_ATTR_MAX_ACCESS_POLICY_WINDOW_SIZE}, {2, CU_ATTR_ASYNC_ENGINE_COUNT},
        {3, CU_ATTR_CAN_MAP_HOST_MEMORY}, {4, CU_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM},
        {5, CU_ATTR_CLOCK_RATE}, {6, CU_ATTR_COMPUTE_MODE},
        {7, CU_ATTR_COMPUTE_PREEMPTION_SUPPORTED}, {8, CU_ATTR_CONCURRENT_KERNELS},
        {9, CU_ATTR_CONCURRENT_MANAGED_ACCESS}, {10, CU_ATTR_COOPERATIVE_LAUNCH},
        {11, CU_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH}, {12, CU_ATTR_GPU_OVERLAP},
        {13, CU_ATTR_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST}, {14, CU_ATTR_GLOBAL_L1_CACHE_SUPPORTED},
        {15, CU_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED}, {16, CU_ATTR_INTEGRATED},
        {17, CU_ATTR_MULTI_GPU_BOARD}, {18, CU_ATTR_KERNEL_EXEC_TIMEOUT},
        {19, CU_ATTR_L2_CACHE_SIZE}, {20, CU_ATTR_LOCAL_L1_CACHE_SUPPORTED},
        {23, CU_ATTR_COMPUTE_CAPABILITY_MAJOR}, {24, CU_ATTR_MANAGED_MEMORY},
        {25, CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR}, {26, CU_ATTR_MAX_BLOCK_DIM_X},
        {27, CU_ATTR_MAX_BLOCK_DIM_Y}, {28, CU_ATTR_MAX_BLOCK_DIM_Z},
        {29, CU_ATTR_MAX_GRID_DIM_X}, {30, CU_ATTR_MAX_GRID_DIM_Y}, {31, CU_ATTR_MAX_GRID_DIM_Z},
        {39, CU_ATTR_MAX_TEXTURE1D_WIDTH}, {43, CU_ATTR_MAX_TEXTURE2D_WIDTH},
        {44, CU_ATTR_MAX_TEXTURE2D_HEIGHT}, {49, CU_ATTR_MAX_TEXTURE3D_WIDTH},
        {50, CU_ATTR_MAX_TEXTURE3D_HEIGHT}, {51, CU_ATTR_MAX_TEXTURE3D_DEPTH},
        {55, CU_ATTR_MAX_BLOCK_DIM_X}, {56, CU_ATTR_MAX_THREADS_PER_BLOCK},
        {57, CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR}, {58, CU_ATTR_MAX_PITCH},
        {59, CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH}, {60, CU_ATTR_MEMORY_CLOCK_RATE},
        {61, CU_ATTR_COMPUTE_CAPABILITY_MINOR}, {62, CU_ATTR_MULTI_GPU_BOARD_GROUP_ID},
        {63, CU_ATTR_MULTIPROCESSOR_COUNT}, {65, CU_ATTR_PAGEABLE_MEMORY_ACCESS},
        {66, CU_ATTR_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES}, {67, CU_ATTR_PCI_BUS_ID},
        {68, CU_ATTR_PCI_DEVICE_ID}, {69, CU_ATTR_PCI_DOMAIN_ID},
        {70, CU_ATTR_MAX_PERSISTING_L2_CACHE_SIZE}, {71, CU_ATTR_MAX_REGISTERS_PER_BLOCK},
        {72, CU_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR}, {73, CU_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK},
        {74, CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK}, {75, CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
        {76, CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {77, CU_ATTR_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO},
        {78, CU_ATTR_STREAM_PRIORITIES_SUPPORTED}, {79, CU_ATTR_SURFACE_ALIGNMENT},
        {80, CU_ATTR_TCC_DRIVER}, {81, CU_ATTR_TEXTURE_ALIGNMENT},
        {82, CU_ATTR_TEXTURE_PITCH_ALIGNMENT}, {83, CU_ATTR_TOTAL_CONSTANT_MEMORY},
        {85, CU_ATTR_UNIFIED_ADDRESSING}, {87, CU_ATTR_WARP_SIZE},
        {88, CU_ATTR_MEMORY_POOLS_SUPPORTED}, {89, CU_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED},
        {90, CU_ATTR_HOST_REGISTER_SUPPORTED}, {91, CU_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES},
        {10002, CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR},
        {10015, CU_ATTR_MULTIPROCESSOR_COUNT},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; ++i)
        if (map[i][0] == hip_attr)
            return map[i][1];
    return 0;
}

HOC_API hipError_t hipDeviceGetAttribute(int *value, int attr, int dev)
{
    if (!value)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    if (e)
        return hoc_ret(e);
    switch (attr) {
    case 84: { /* hipDeviceAttributeTotalGlobalMem: an int, clamped */
        size_t b = 0;
        e = hoc_hip_from_cu(hoc_cu.cuDeviceTotalMem(&b, dev));
        *value = b > (size_t)INT_MAX ? INT_MAX : (int)b;
        return hoc_ret(e);
    }
    case 10011: /* IsLargeBar */
    case 10012: /* AsicRevision */
        *value = 0;
        return hipSuccess;
    case 10018: /* NumberOfXccs */
        *value = 1;
        return hipSuccess;
    }
    int cu = cu_attribute(attr);
    if (!cu)
        return hoc_ret(hipErrorInvalidValue);
    return HOC_CU(hoc_cu.cuDeviceGetAttribute(value, cu, dev));
}

static int attr_or0(int cu, int dev)
{
    int v = 0;
    if (hoc_cu.cuDeviceGetAttribute(&v, cu, dev) != CUDA_SUCCESS)
        v = 0;
    return v;
}

HOC_API hipError_t hipGetDevicePropertiesR0600(hipDeviceProp_tR0600 *p, int dev)
{
    if (!p)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    if (e)
        return hoc_ret(e);
    memset(p, 0, sizeof *p);
    e = hoc_hip_from_cu(hoc_cu.cuDeviceGetName(p->name, sizeof p->name, dev));
    if (e)
        return hoc_ret(e);
    if (hoc_cu.cuDeviceGetUuid)
        hoc_cu.cuDeviceGetUuid(p->uuid, dev);
    hoc_cu.cuDeviceTotalMem(&p->totalGlobalMem, dev);
#define A(cu) attr_or0(cu, dev)
    p->sharedMemPerBlock = (size_t)A(CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK);
    p->regsPerBlock = A(CU_ATTR_MAX_REGISTERS_PER_BLOCK);
    p->warpSize = A(CU_ATTR_WARP_SIZE);
    p->memPitch = (size_t)A(CU_ATTR_MAX_PITCH);
    p->maxThreadsPerBlock = A(CU_ATTR_MAX_THREADS_PER_BLOCK);
    p->maxThreadsDim[0] = A(CU_ATTR_MAX_BLOCK_DIM_X);
    p->maxThreadsDim[1] = A(CU_ATTR_MAX_BLOCK_DIM_Y);
    p->maxThreadsDim[2] = A(CU_ATTR_MAX_BLOCK_DIM_Z);
    p->maxGridSize[0] = A(CU_ATTR_MAX_GRID_DIM_X);
    p->maxGridSize[1] = A(CU_ATTR_MAX_GRID_DIM_Y);
    p->maxGridSize[2] = A(CU_ATTR_MAX_GRID_DIM_Z);
    p->clockRate = A(CU_ATTR_CLOCK_RATE);
    p->totalConstMem = (size_t)A(CU_ATTR_TOTAL_CONSTANT_MEMORY);
    p->major = A(CU_ATTR_COMPUTE_CAPABILITY_MAJOR);
    p->minor = A(CU_ATTR_COMPUTE_CAPABILITY_MINOR);
    p->textureAlignment = (size_t)A(CU_ATTR_TEXTURE_ALIGNMENT);
    p->texturePitchAlignment = (size_t)A(CU_ATTR_TEXTURE_PITCH_ALIGNMENT);
    p->deviceOverlap = A(CU_ATTR_GPU_OVERLAP);
    p->multiProcessorCount = A(CU_ATTR_MULTIPROCESSOR_COUNT);
    p->kernelExecTimeoutEnabled = A(CU_ATTR_KERNEL_EXEC_TIMEOUT);
    p->integrated = A(CU_ATTR_INTEGRATED);
    p->canMapHostMemory = A(CU_ATTR_CAN_MAP_HOST_MEMORY);
    p->computeMode = A(CU_ATTR_COMPUTE_MODE);
    p->maxTexture1D = A(CU_ATTR_MAX_TEXTURE1D_WIDTH);
    p->maxTexture2D[0] = A(CU_ATTR_MAX_TEXTURE2D_WIDTH);
    p->maxTexture2D[1] = A(CU_ATTR_MAX_TEXTURE2D_HEIGHT);
    p->maxTexture3D[0] = A(CU_ATTR_MAX_TEXTURE3D_WIDTH);
    p->maxTexture3D[1] = A(CU_ATTR_MAX_TEXTURE3D_HEIGHT);
    p->maxTexture3D[2] = A(CU_ATTR_MAX_TEXTURE3D_DEPTH);
    p->surfaceAlignment = (size_t)A(CU_ATTR_SURFACE_ALIGNMENT);
    p->concurrentKernels = A(CU_ATTR_CONCURRENT_KERNELS);
    p->ECCEnabled = A(CU_ATTR_ECC_ENABLED);
    p->pciBusID = A(CU_ATTR_PCI_BUS_ID);
    p->pciDeviceID = A(CU_ATTR_PCI_DEVICE_ID);
    p->pciDomainID = A(CU_ATTR_PCI_DOMAIN_ID);
    p->tccDriver = A(CU_ATTR_TCC_DRIVER);
    p->asyncEngineCount = A(CU_ATTR_ASYNC_ENGINE_COUNT);
    p->unifiedAddressing = A(CU_ATTR_UNIFIED_ADDRESSING);
    p->memoryClockRate = A(CU_ATTR_MEMORY_CLOCK_RATE);
    p->memoryBusWidth = A(CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH);
    p->l2CacheSize = A(CU_ATTR_L2_CACHE_SIZE);
    p->persistingL2CacheMaxSize = A(CU_ATTR_MAX_PERSISTING_L2_CACHE_SIZE);
    p->maxThreadsPerMultiProcessor = A(CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR);
    p->streamPrioritiesSupported = A(CU_ATTR_STREAM_PRIORITIES_SUPPORTED);
    p->globalL1CacheSupported = A(CU_ATTR_GLOBAL_L1_CACHE_SUPPORTED);
    p->localL1CacheSupported = A(CU_ATTR_LOCAL_L1_CACHE_SUPPORTED);
    p->sharedMemPerMultiprocessor = (size_t)A(CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
    p->regsPerMultiprocessor = A(CU_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR);
    p->managedMemory = A(CU_ATTR_MANAGED_MEMORY);
    p->isMultiGpuBoard = A(CU_ATTR_MULTI_GPU_BOARD);
    p->multiGpuBoardGroupID = A(CU_ATTR_MULTI_GPU_BOARD_GROUP_ID);
    p->hostNativeAtomicSupported = A(CU_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED);
    p->singleToDoublePrecisionPerfRatio = A(CU_ATTR_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO);
    p->pageableMemoryAccess = A(CU_ATTR_PAGEABLE_MEMORY_ACCESS);
    p->concurrentManagedAccess = A(CU_ATTR_CONCURRENT_MANAGED_ACCESS);
    p->computePreemptionSupported = A(CU_ATTR_COMPUTE_PREEMPTION_SUPPORTED);
    p->canUseHostPointerForRegisteredMem = A(CU_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM);
    p->cooperativeLaunch = A(CU_ATTR_COOPERATIVE_LAUNCH);
    p->cooperativeMultiDeviceLaunch = A(CU_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH);
    p->sharedMemPerBlockOptin = (size_t)A(CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    p->pageableMemoryAccessUsesHostPageTables = A(CU_ATTR_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES);
    p->directManagedMemAccessFromHost = A(CU_ATTR_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST);
    p->maxBlocksPerMultiProcessor = A(CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR);
    p->accessPolicyMaxWindowSize = A(CU_ATTR_MAX_ACCESS_POLICY_WINDOW_SIZE);
    p->reservedSharedMemPerBlock = (size_t)A(CU_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK);
    p->hostRegisterSupported = A(CU_ATTR_HOST_REGISTER_SUPPORTED);
    p->memoryPoolsSupported = A(CU_ATTR_MEMORY_POOLS_SUPPORTED);
    p->memoryPoolSupportedHandleTypes = (unsigned int)A(CU_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES);
    p->maxSharedMemoryPerMultiProcessor = p->sharedMemPerMultiprocessor;
    p->clockInstructionRate = p->clockRate;
#undef A
    /* HIP on NVIDIA reports the sm_XY target here; it is how callers tell
     * the platform (an AMD device says e.g. "gfx90a:sramecc+:xnack-"). */
    snprintf(p->gcnArchName, sizeof p->gcnArchName, "sm_%d%d", p->major, p->minor);
    p->arch.hasGlobalInt32Atomics = p->arch.hasGlobalFloatAtomicExch = 1;
    p->arch.hasSharedInt32Atomics = p->arch.hasSharedFloatAtomicExch = 1;
    p->arch.hasFloatAtomicAdd = p->arch.hasGlobalInt64Atomics = 1;
    p->arch.hasSharedInt64Atomics = p->arch.hasDoubles = 1;
    p->arch.hasWarpVote = p->arch.hasWarpBallot = p->arch.hasWarpShuffle = 1;
    p->arch.hasFunnelShift = p->arch.hasThreadFenceSystem = 1;
    p->arch.hasSyncThreadsExt = p->arch.hasSurfaceFuncs = p->arch.has3dGrid = 1;
    p->arch.hasDynamicParallelism = 1;
    return hipSuccess;
}

HOC_API hipError_t hipDeviceSynchronize(void)
{
    int e = hoc_ctx();
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuCtxSynchronize());
}

HOC_API hipError_t hipDeviceReset(void)
{
    int e = hoc_init();
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuDevicePrimaryCtxReset(hoc_current_device()));
}

HOC_API hipError_t hipDeviceGetLimit(size_t *value, int limit)
{
    if (!value || limit < 0 || limit > 2)
        return hoc_ret(hipErrorInvalidValue);
    int e = hoc_ctx();
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuCtxGetLimit(value, limit));
}

HOC_API hipError_t hipDeviceSetLimit(int limit, size_t value)
{
    if (limit < 0 || limit > 2)
        return hoc_ret(hipErrorInvalidValue);
    int e = hoc_ctx();
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuCtxSetLimit(limit, value));
}

HOC_API hipError_t hipDeviceCanAccessPeer(int *can, int dev, int peer)
{
    if (!can)
        return hoc_ret(hipErrorInvalidValue);
    int e = check_device(dev);
    if (!e)
        e = check_device(peer);
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuDeviceCanAccessPeer(can, dev, peer));
}

HOC_API hipError_t hipDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    CUcontext pctx;
    int e = hoc_ctx();
    if (!e)
        e = hoc_primary_ctx(peer, &pctx);
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuCtxEnablePeerAccess(pctx, flags));
}

HOC_API hipError_t hipDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    int e = hoc_ctx();
    return e ? hoc_ret(e) : HOC_CU(hoc_cu.cuCtxGetStreamPriorityRange(least, greatest));
}

HOC_API hipError_t hipSetDeviceFlags(unsigned int flags)
{
    (void)flags; /* scheduling hints: accepted, no CUDA-driver equivalent needed */
    return hoc_ret(hoc_init());
}

HOC_API hipError_t hipGetDeviceFlags(unsigned int *flags)
{
    if (!flags)
        return hoc_ret(hipErrorInvalidValue);
    *flags = 0;
    return hoc_ret(hoc_init());
}
