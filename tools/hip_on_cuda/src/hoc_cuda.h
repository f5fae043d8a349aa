/*
 * hip_on_cuda: the few CUDA driver-API types and the function table the shim
 * forwards to.  Declared here from NVIDIA's public documentation so the shim
 * builds with gcc alone (no CUDA headers); the libraries are opened with
 * dlopen at run time.
 */
#ifndef HOC_CUDA_H
#define HOC_CUDA_H

#include <stddef.h>
#include <stdint.h>

#define HOC_API __attribute__((visibility("default")))

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUmemPool_st *CUmemoryPool;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUgraphNode_st *CUgraphNode;
typedef unsigned long long CUdeviceptr;

/* CUresult values the shim looks at directly. */
enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
};

/* CUdevice_attribute values used by the attribute and property maps. */
enum {
    CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
    CU_ATTR_MAX_BLOCK_DIM_X = 2,
    CU_ATTR_MAX_BLOCK_DIM_Y = 3,
    CU_ATTR_MAX_BLOCK_DIM_Z = 4,
    CU_ATTR_MAX_GRID_DIM_X = 5,
    CU_ATTR_MAX_GRID_DIM_Y = 6,
    CU_ATTR_MAX_GRID_DIM_Z = 7,
    CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_ATTR_TOTAL_CONSTANT_MEMORY = 9,
    CU_ATTR_WARP_SIZE = 10,
    CU_ATTR_MAX_PITCH = 11,
    CU_ATTR_MAX_REGISTERS_PER_BLOCK = 12,
    CU_ATTR_CLOCK_RATE = 13,
    CU_ATTR_TEXTURE_ALIGNMENT = 14,
    CU_ATTR_GPU_OVERLAP = 15,
    CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    CU_ATTR_KERNEL_EXEC_TIMEOUT = 17,
    CU_ATTR_INTEGRATED = 18,
    CU_ATTR_CAN_MAP_HOST_MEMORY = 19,
    CU_ATTR_COMPUTE_MODE = 20,
    CU_ATTR_MAX_TEXTURE1D_WIDTH = 21,
    CU_ATTR_MAX_TEXTURE2D_WIDTH = 22,
    CU_ATTR_MAX_TEXTURE2D_HEIGHT = 23,
    CU_ATTR_MAX_TEXTURE3D_WIDTH = 24,
    CU_ATTR_MAX_TEXTURE3D_HEIGHT = 25,
    CU_ATTR_MAX_TEXTURE3D_DEPTH = 26,
    CU_ATTR_SURFACE_ALIGNMENT = 30,
    CU_ATTR_CONCURRENT_KERNELS = 31,
    CU_ATTR_ECC_ENABLED = 32,
    CU_ATTR_PCI_BUS_ID = 33,
    CU_ATTR_PCI_DEVICE_ID = 34,
    CU_ATTR_TCC_DRIVER = 35,
    CU_ATTR_MEMORY_CLOCK_RATE = 36,
    CU_ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_ATTR_L2_CACHE_SIZE = 38,
    CU_ATTR_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_ATTR_ASYNC_ENGINE_COUNT = 40,
    CU_ATTR_UNIFIED_ADDRESSING = 41,
    CU_ATTR_PCI_DOMAIN_ID = 50,
    CU_ATTR_TEXTURE_PITCH_ALIGNMENT = 51,
    CU_ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_ATTR_COMPUTE_CAPABILITY_MINOR = 76,
    CU_ATTR_STREAM_PRIORITIES_SUPPORTED = 78,
    CU_ATTR_GLOBAL_L1_CACHE_SUPPORTED = 79,
    CU_ATTR_LOCAL_L1_CACHE_SUPPORTED = 80,
    CU_ATTR_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81,
    CU_ATTR_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_ATTR_MANAGED_MEMORY = 83,
    CU_ATTR_MULTI_GPU_BOARD = 84,
    CU_ATTR_MULTI_GPU_BOARD_GROUP_ID = 85,
    CU_ATTR_HOST_NATIVE_ATOMIC_SUPPORTED = 86,
    CU_ATTR_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87,
    CU_ATTR_PAGEABLE_MEMORY_ACCESS = 88,
    CU_ATTR_CONCURRENT_MANAGED_ACCESS = 89,
    CU_ATTR_COMPUTE_PREEMPTION_SUPPORTED = 90,
    CU_ATTR_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
    CU_ATTR_COOPERATIVE_LAUNCH = 95,
    CU_ATTR_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96,
    CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_ATTR_HOST_REGISTER_SUPPORTED = 99,
    CU_ATTR_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
    CU_ATTR_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101,
    CU_ATTR_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
    CU_ATTR_MAX_BLOCKS_PER_MULTIPROCESSOR = 106,
    CU_ATTR_MAX_PERSISTING_L2_CACHE_SIZE = 108,
    CU_ATTR_MAX_ACCESS_POLICY_WINDOW_SIZE = 109,
    CU_ATTR_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
    CU_ATTR_MEMORY_POOLS_SUPPORTED = 115,
    CU_ATTR_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119,
};

/*
 * The driver entry points the shim uses: X(member, exported symbol, return
 * type, parameter list, required).  Optional ones may be absent from older
 * drivers; the HIP call that needs one then reports hipErrorNotSupported.
 */
#define HOC_CU_FUNCS(X)                                                              \
    X(cuInit, "cuInit", CUresult, (unsigned int), 1)                                 \
    X(cuDriverGetVersion, "cuDriverGetVersion", CUresult, (int *), 1)                \
    X(cuGetErrorName, "cuGetErrorName", CUresult, (CUresult, const char **), 1)      \
    X(cuDeviceGetCount, "cuDeviceGetCount", CUresult, (int *), 1)                    \
    X(cuDeviceGet, "cuDeviceGet", CUresult, (CUdevice *, int), 1)                    \
    X(cuDeviceGetName, "cuDeviceGetName", CUresult, (char *, int, CUdevice), 1)      \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", CUresult, (int *, int, CUdevice), 1) \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", CUresult, (size_t *, CUdevice), 1)    \
    X(cuDeviceGetUuid, "cuDeviceGetUuid", CUresult, (char *, CUdevice), 0)           \
    X(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", CUresult, (char *, int, CUdevice), 1) \
    X(cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer", CUresult, (int *, CUdevice, CUdevice), 1) \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", CUresult, (CUcontext *, CUdevice), 1) \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", CUresult, (CUdevice), 1) \
    X(cuCtxGetCurrent, "cuCtxGetCurrent", CUresult, (CUcontext *), 1)                \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", CUresult, (CUcontext), 1)                  \
    X(cuCtxSynchronize, "cuCtxSynchronize", CUresult, (void), 1)                     \
    X(cuCtxGetLimit, "cuCtxGetLimit", CUresult, (size_t *, int), 1)                  \
    X(cuCtxSetLimit, "cuCtxSetLimit", CUresult, (int, size_t), 1)                    \
    X(cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", CUresult, (int *, int *), 1) \
    X(cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess", CUresult, (CUcontext, unsigned int), 1) \
    X(cuMemGetInfo, "cuMemGetInfo_v2", CUresult, (size_t *, size_t *), 1)            \
    X(cuMemAlloc, "cuMemAlloc_v2", CUresult, (CUdeviceptr *, size_t), 1)             \
    X(cuMemFree, "cuMemFree_v2", CUresult, (CUdeviceptr), 1)                         \
    X(cuMemAllocAsync, "cuMemAllocAsync", CUresult, (CUdeviceptr *, size_t, CUstream), 0) \
    X(cuMemFreeAsync, "cuMemFreeAsync", CUresult, (CUdeviceptr, CUstream), 0)        \
    X(cuMemHostAlloc, "cuMemHostAlloc", CUresult, (void **, size_t, unsigned int), 1) \
    X(cuMemFreeHost, "cuMemFreeHost", CUresult, (void *), 1)                         \
    X(cuMemHostRegister, "cuMemHostRegister_v2", CUresult, (void *, size_t, unsigned int), 1) \
    X(cuMemHostUnregister, "cuMemHostUnregister", CUresult, (void *), 1)             \
    X(cuMemHostGetDevicePointer, "cuMemHostGetDevicePointer_v2", CUresult, (CUdeviceptr *, void *, unsigned int), 1) \
    X(cuMemcpy, "cuMemcpy", CUresult, (CUdeviceptr, CUdeviceptr, size_t), 1)         \
    X(cuMemcpyAsync, "cuMemcpyAsync", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream), 1) \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", CUresult, (CUdeviceptr, const void *, size_t), 1) \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", CUresult, (void *, CUdeviceptr, size_t), 1)   \
    X(cuMemcpyDtoD, "cuMemcpyDtoD_v2", CUresult, (CUdeviceptr, CUdeviceptr, size_t), 1) \
    X(cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", CUresult, (CUdeviceptr, const void *, size_t, CUstream), 1) \
    X(cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", CUresult, (void *, CUdeviceptr, size_t, CUstream), 1) \
    X(cuMemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream), 1) \
    X(cuMemcpyPeer, "cuMemcpyPeer", CUresult, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t), 1) \
    X(cuMemcpyPeerAsync, "cuMemcpyPeerAsync", CUresult, (CUdeviceptr, CUcontext, CUdeviceptr, CUcontext, size_t, CUstream), 1) \
    X(cuMemsetD8, "cuMemsetD8_v2", CUresult, (CUdeviceptr, unsigned char, size_t), 1) \
    X(cuMemsetD16, "cuMemsetD16_v2", CUresult, (CUdeviceptr, unsigned short, size_t), 1) \
    X(cuMemsetD32, "cuMemsetD32_v2", CUresult, (CUdeviceptr, unsigned int, size_t), 1) \
    X(cuMemsetD8Async, "cuMemsetD8Async", CUresult, (CUdeviceptr, unsigned char, size_t, CUstream), 1) \
    X(cuMemsetD16Async, "cuMemsetD16Async", CUresult, (CUdeviceptr, unsigned short, size_t, CUstream), 1) \
    X(cuMemsetD32Async, "cuMemsetD32Async", CUresult, (CUdeviceptr, unsigned int, size_t, CUstream), 1) \
    X(cuPointerGetAttribute, "cuPointerGetAttribute", CUresult, (void *, int, CUdeviceptr), 1) \
    X(cuPointerGetAttributes, "cuPointerGetAttributes", CUresult, (unsigned int, int *, void **, CUdeviceptr), 1) \
    X(cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", CUresult, (CUmemoryPool *, CUdevice), 0) \
    X(cuMemPoolSetAttribute, "cuMemPoolSetAttribute", CUresult, (CUmemoryPool, int, void *), 0) \
    X(cuMemPoolGetAttribute, "cuMemPoolGetAttribute", CUresult, (CUmemoryPool, int, void *), 0) \
    X(cuMemPoolTrimTo, "cuMemPoolTrimTo", CUresult, (CUmemoryPool, size_t), 0)       \
    X(cuStreamCreate, "cuStreamCreate", CUresult, (CUstream *, unsigned int), 1)     \
    X(cuStreamCreateWithPriority, "cuStreamCreateWithPriority", CUresult, (CUstream *, unsigned int, int), 1) \
    X(cuStreamDestroy, "cuStreamDestroy_v2", CUresult, (CUstream), 1)                \
    X(cuStreamSynchronize, "cuStreamSynchronize", CUresult, (CUstream), 1)           \
    X(cuStreamQuery, "cuStreamQuery", CUresult, (CUstream), 1)                       \
    X(cuStreamWaitEvent, "cuStreamWaitEvent", CUresult, (CUstream, CUevent, unsigned int), 1) \
    X(cuStreamGetFlags, "cuStreamGetFlags", CUresult, (CUstream, unsigned int *), 1) \
    X(cuStreamGetPriority, "cuStreamGetPriority", CUresult, (CUstream, int *), 1)    \
    X(cuLaunchHostFunc, "cuLaunchHostFunc", CUresult, (CUstream, void (*)(void *), void *), 1) \
    X(cuEventCreate, "cuEventCreate", CUresult, (CUevent *, unsigned int), 1)        \
    X(cuEventRecord, "cuEventRecord", CUresult, (CUevent, CUstream), 1)              \
    X(cuEventSynchronize, "cuEventSynchronize", CUresult, (CUevent), 1)              \
    X(cuEventQuery, "cuEventQuery", CUresult, (CUevent), 1)                          \
    X(cuEventElapsedTime, "cuEventElapsedTime", CUresult, (float *, CUevent, CUevent), 0) \
    X(cuEventElapsedTime_v2, "cuEventElapsedTime_v2", CUresult, (float *, CUevent, CUevent), 0) \
    X(cuEventDestroy, "cuEventDestroy_v2", CUresult, (CUevent), 1)                   \
    X(cuModuleLoadData, "cuModuleLoadData", CUresult, (CUmodule *, const void *), 1) \
    X(cuModuleUnload, "cuModuleUnload", CUresult, (CUmodule), 1)                     \
    X(cuModuleGetFunction, "cuModuleGetFunction", CUresult, (CUfunction *, CUmodule, const char *), 1) \
    X(cuModuleGetGlobal, "cuModuleGetGlobal_v2", CUresult, (CUdeviceptr *, size_t *, CUmodule, const char *), 1) \
    X(cuLaunchKernel, "cuLaunchKernel", CUresult, (CUfunction, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **), 1) \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", CUresult, (int *, int, CUfunction), 1) \
    X(cuOccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", CUresult, (int *, int *, CUfunction, size_t (*)(int), size_t, int), 1) \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", CUresult, (int *, CUfunction, int, size_t), 1) \
    X(cuStreamBeginCapture, "cuStreamBeginCapture_v2", CUresult, (CUstream, int), 0) \
    X(cuStreamEndCapture, "cuStreamEndCapture", CUresult, (CUstream, CUgraph *), 0) \
    X(cuStreamIsCapturing, "cuStreamIsCapturing", CUresult, (CUstream, int *), 0) \
    X(cuThreadExchangeStreamCaptureMode, "cuThreadExchangeStreamCaptureMode", CUresult, (int *), 0) \
    X(cuGraphInstantiateWithFlags, "cuGraphInstantiateWithFlags", CUresult, (CUgraphExec *, CUgraph, unsigned long long), 0) \
    X(cuGraphLaunch, "cuGraphLaunch", CUresult, (CUgraphExec, CUstream), 0) \
    X(cuGraphUpload, "cuGraphUpload", CUresult, (CUgraphExec, CUstream), 0) \
    X(cuGraphGetNodes, "cuGraphGetNodes", CUresult, (CUgraph, CUgraphNode *, size_t *), 0) \
    X(cuGraphExecDestroy, "cuGraphExecDestroy", CUresult, (CUgraphExec), 0) \
    X(cuGraphDestroy, "cuGraphDestroy", CUresult, (CUgraph), 0)

#define HOC_DECLARE_MEMBER(name, sym, ret, args, req) ret(*name) args;
struct hoc_cuda_api {
    HOC_CU_FUNCS(HOC_DECLARE_MEMBER)
};
#undef HOC_DECLARE_MEMBER

/* The table, filled by hoc_init(); shared by all four libraries. */
extern struct hoc_cuda_api hoc_cu HOC_API;

/* Open a library: tries $HIP_ON_CUDA_LIB_PATH, the CUDA and system library
 * folders (versioned names, then any lib*.so.* match), then the plain loader
 * search.  On failure returns NULL and describes the attempts in why. */
HOC_API void *hoc_open_library(const char *stem, const char *const *versions,
                               char *why, size_t why_len);
/* Resolve a symbol, or NULL. */
HOC_API void *hoc_symbol(void *lib, const char *name);

/* Load libcuda and call cuInit once; returns a hipError_t (0 on success). */
HOC_API int hoc_init(void);
/* hoc_init() plus: make the calling thread's current device's primary
 * context current.  Returns a hipError_t. */
HOC_API int hoc_ctx(void);
/* The calling thread's current HIP device ordinal. */
HOC_API int hoc_current_device(void);
/* Compute capability of the current device (hipError_t). */
HOC_API int hoc_device_cc(int *major, int *minor);
/* The primary context of device dev (retained once, kept). */
HOC_API int hoc_primary_ctx(int dev, CUcontext *out);
/* Why the CUDA driver could not be used ("" when it could). */
HOC_API const char *hoc_load_error(void);

/* CUresult -> hipError_t, and the per-thread "last error" bookkeeping. */
HOC_API int hoc_hip_from_cu(CUresult r);
int hoc_ret(int hip_error);      /* records a failure, returns it */
#define HOC_CU(call) hoc_ret(hoc_hip_from_cu(call))

/* In a hip* entry point: make the thread's current device's context current, or
 * return (and record) the error. */
#define CTX_OR_RETURN()           \
    do {                          \
        int e_ = hoc_ctx();       \
        if (e_)                   \
            return hoc_ret(e_);   \
    } while (0)

#endif
