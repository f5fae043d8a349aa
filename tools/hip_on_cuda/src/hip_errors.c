/*
 * hip_on_cuda: HIP status codes.  CUDA driver results are translated to the
 * hipError_t numbers ROCm's runtime returns, the per-thread "last error" is
 * kept as HIP keeps it, and hipGetErrorName/String answer with HIP's names.
 */
#include <stddef.h>

#include "hoc_cuda.h"
#include "hip_types.h"

struct hoc_err {
    int code;
    const char *name;
    const char *text;
};

/* Numbers from the hipError_t enum of the HIP runtime API reference. */
static const struct hoc_err k_errors[] = {
    {0, "hipSuccess", "no error"},
    {1, "hipErrorInvalidValue", "invalid argument"},
    {2, "hipErrorOutOfMemory", "out of memory"},
    {3, "hipErrorNotInitialized", "initialization error"},
    {4, "hipErrorDeinitialized", "driver shutting down"},
    {5, "hipErrorProfilerDisabled", "profiler disabled while using external profiling tool"},
    {6, "hipErrorProfilerNotInitialized", "profiler is not initialized"},
    {7, "hipErrorProfilerAlreadyStarted", "profiler already started"},
    {8, "hipErrorProfilerAlreadyStopped", "profiler already stopped"},
    {9, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "hipErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "hipErrorInvalidSymbol", "invalid device symbol"},
    {17, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {21, "hipErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {35, "hipErrorInsufficientDriver", "driver version is insufficient for runtime version"},
    {52, "hipErrorMissingConfiguration", "__global__ function call is not configured"},
    {53, "hipErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {98, "hipErrorInvalidDeviceFunction", "invalid device function"},
    {100, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {101, "hipErrorInvalidDevice", "invalid device ordinal"},
    {200, "hipErrorInvalidImage", "device kernel image is invalid"},
    {201, "hipErrorInvalidContext", "invalid device context"},
    {202, "hipErrorContextAlreadyCurrent", "context already current"},
    {205, "hipErrorMapFailed", "mapping of buffer object failed"},
    {206, "hipErrorUnmapFailed", "unmapping of buffer object failed"},
    {207, "hipErrorArrayIsMapped", "array is mapped"},
    {208, "hipErrorAlreadyMapped", "resource already mapped"},
    {209, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {210, "hipErrorAlreadyAcquired", "resource already acquired"},
    {211, "hipErrorNotMapped", "resource not mapped"},
    {212, "hipErrorNotMappedAsArray", "resource not mapped as array"},
    {213, "hipErrorNotMappedAsPointer", "resource not mapped as pointer"},
    {214, "hipErrorECCNotCorrectable", "uncorrectable ECC error encountered"},
    {215, "hipErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {216, "hipErrorContextAlreadyInUse", "exclusive-thread device already in use by a different thread"},
    {217, "hipErrorPeerAccessUnsupported", "peer access is not supported between these two devices"},
    {218, "hipErrorInvalidKernelFile", "invalid kernel file"},
    {219, "hipErrorInvalidGraphicsContext", "invalid OpenGL or DirectX context"},
    {300, "hipErrorInvalidSource", "device kernel image is invalid"},
    {301, "hipErrorFileNotFound", "file not found"},
    {302, "hipErrorSharedObjectSymbolNotFound", "shared object symbol not found"},
    {303, "hipErrorSharedObjectInitFailed", "shared object initialization failed"},
    {304, "hipErrorOperatingSystem", "OS call failed or operation not supported on this OS"},
    {400, "hipErrorInvalidHandle", "invalid resource handle"},
    {401, "hipErrorIllegalState", "the operation cannot be performed in the present state"},
    {500, "hipErrorNotFound", "named symbol not found"},
    {600, "hipErrorNotReady", "device not ready"},
    {700, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "hipErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "hipErrorLaunchTimeOut", "the launch timed out and was terminated"},
    {704, "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled"},
    {705, "hipErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {708, "hipErrorSetOnActiveProcess", "cannot set while device is active in this process"},
    {709, "hipErrorContextIsDestroyed", "context is destroyed"},
    {710, "hipErrorAssert", "device-side assert triggered"},
    {712, "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {713, "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {719, "hipErrorLaunchFailure", "unspecified launch failure"},
    {720, "hipErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {801, "hipErrorNotSupported", "operation not supported"},
    {900, "hipErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing"},
    {901, "hipErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture"},
    {902, "hipErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences"},
    {903, "hipErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began"},
    {904, "hipErrorStreamCaptureUnjoined", "capturing stream has unjoined work"},
    {905, "hipErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream"},
    {906, "hipErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream"},
    {907, "hipErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream"},
    {908, "hipErrorStreamCaptureWrongThread", "attempt to terminate a thread-local capture sequence from another thread"},
    {910, "hipErrorGraphExecUpdateFailure", "the graph update was not performed because it included changes which violated constraints specific to instantiated graph update"},
    {999, "hipErrorUnknown", "unknown error"},
    {1052, "hipErrorRuntimeMemory", "runtime memory call returned error"},
    {1053, "hipErrorRuntimeOther", "runtime call other than memory returned error"},
};

static const struct hoc_err *find_err(int code)
{
    for (size_t i = 0; i < sizeof k_errors / sizeof k_errors[0]; ++i)
        if (k_errors[i].code == code)
            return &k_errors[i];
    return NULL;
}

/* CUDA driver results share most numbers with hipError_t (HIP's enum was
 * laid out after CUDA's); the rest are folded onto the HIP code ROCm uses
 * for the same condition. */
int hoc_hip_from_cu(CUresult r)
{
    switch (r) {
    case 218: /* CUDA_ERROR_INVALID_PTX */
        return hipErrorInvalidKernelFile;
    case 220: /* NVLINK_UNCORRECTABLE */
    case 402: /* LOSSY_QUERY */
    case 711: /* TOO_MANY_PEERS */
        return hipErrorUnknown;
    case 221: /* JIT_COMPILER_NOT_FOUND */
    case 222: /* UNSUPPORTED_PTX_VERSION */
    case 223: /* JIT_COMPILATION_DISABLED */
        return hipErrorInvalidImage;
    case 703: /* LAUNCH_INCOMPATIBLE_TEXTURING */
    case 714: /* HARDWARE_STACK_ERROR */
    case 715: /* ILLEGAL_INSTRUCTION */
    case 716: /* MISALIGNED_ADDRESS */
    case 717: /* INVALID_ADDRESS_SPACE */
    case 718: /* INVALID_PC */
        return hipErrorLaunchFailure;
    case 800: /* NOT_PERMITTED */
        return hipErrorNotSupported;
    case 802: /* SYSTEM_NOT_READY */
    case 803: /* SYSTEM_DRIVER_MISMATCH */
    case 804: /* COMPAT_NOT_SUPPORTED_ON_DEVICE */
        return hipErrorInsufficientDriver;
    default:
        return find_err(r) ? r : hipErrorUnknown;
    }
}

static __thread int tl_last_error;

int hoc_ret(int e)
{
    if (e != hipSuccess)
        tl_last_error = e;
    return e;
}

HOC_API hipError_t hipGetLastError(void)
{
    int e = tl_last_error;
    tl_last_error = hipSuccess;
    return e;
}

HOC_API hipError_t hipPeekAtLastError(void)
{
    return tl_last_error;
}

HOC_API const char *hipGetErrorName(hipError_t e)
{
    const struct hoc_err *p = find_err(e);
    return p ? p->name : "hipErrorUnknown";
}

HOC_API const char *hipGetErrorString(hipError_t e)
{
    const struct hoc_err *p = find_err(e);
    return p ? p->text : "unknown error";
}

HOC_API hipError_t hipDrvGetErrorName(hipError_t e, const char **out)
{
    if (!out)
        return hipErrorInvalidValue;
    const struct hoc_err *p = find_err(e);
    *out = p ? p->name : NULL;
    return p ? hipSuccess : hipErrorInvalidValue;
}

HOC_API hipError_t hipDrvGetErrorString(hipError_t e, const char **out)
{
    if (!out)
        return hipErrorInvalidValue;
    const struct hoc_err *p = find_err(e);
    *out = p ? p->text : NULL;
    return p ? hipSuccess : hipErrorInvalidValue;
}

/* Not part of HIP: why the CUDA driver could not be used, for diagnostics. */
HOC_API const char *hipOnCudaLoadError(void)
{
    return hoc_load_error();
}
