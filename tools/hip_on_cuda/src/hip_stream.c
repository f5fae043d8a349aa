/*
 * hip_on_cuda: streams and events.  hipStream_t / hipEvent_t are the CUDA
 * driver's CUstream / CUevent handles; the flag bits HIP shares with CUDA
 * (non-blocking streams; blocking-sync, disable-timing, interprocess events)
 * have the same values, ROCm-only bits are dropped.
 */
#include "hoc_cuda.h"
#include "hip_types.h"

HOC_API hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    if (!stream || (flags & ~1u))
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamCreate(stream, flags));
}

HOC_API hipError_t hipStreamCreate(hipStream_t *stream)
{
    return hipStreamCreateWithFlags(stream, 0);
}

HOC_API hipError_t hipStreamCreateWithPriority(hipStream_t *stream, unsigned int flags, int priority)
{
    if (!stream || (flags & ~1u))
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamCreateWithPriority(stream, flags, priority));
}

HOC_API hipError_t hipStreamDestroy(hipStream_t stream)
{
    if (!stream)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamDestroy(stream));
}

HOC_API hipError_t hipStreamSynchronize(hipStream_t stream)
{
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamSynchronize(stream));
}

/* hipErrorNotReady (600) is how HIP says "still running"; it is a status,
 * not an error, so it does not become the thread's last error. */
HOC_API hipError_t hipStreamQuery(hipStream_t stream)
{
    CTX_OR_RETURN();
    int e = hoc_hip_from_cu(hoc_cu.cuStreamQuery(stream));
    return e == hipErrorNotReady ? e : hoc_ret(e);
}

HOC_API hipError_t hipStreamWaitEvent(hipStream_t stream, hipEvent_t event, unsigned int flags)
{
    if (!event)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamWaitEvent(stream, event, flags));
}

HOC_API hipError_t hipStreamGetFlags(hipStream_t stream, unsigned int *flags)
{
    if (!flags)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamGetFlags(stream, flags));
}

HOC_API hipError_t hipStreamGetPriority(hipStream_t stream, int *priority)
{
    if (!priority)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuStreamGetPriority(stream, priority));
}

HOC_API hipError_t hipLaunchHostFunc(hipStream_t stream, void (*fn)(void *), void *user)
{
    if (!fn)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuLaunchHostFunc(stream, fn, user));
}

/* ---- events ---------------------------------------------------------- */

HOC_API hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned int flags)
{
    if (!event)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    /* BlockingSync(1), DisableTiming(2), Interprocess(4) as in CUDA; the
     * release-scope / system-fence bits only matter on AMD. */
    return HOC_CU(hoc_cu.cuEventCreate(event, flags & 0x7u));
}

HOC_API hipError_t hipEventCreate(hipEvent_t *event)
{
    return hipEventCreateWithFlags(event, 0);
}

HOC_API hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream)
{
    if (!event)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuEventRecord(event, stream));
}

HOC_API hipError_t hipEventSynchronize(hipEvent_t event)
{
    if (!event)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuEventSynchronize(event));
}

HOC_API hipError_t hipEventQuery(hipEvent_t event)
{
    if (!event)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    int e = hoc_hip_from_cu(hoc_cu.cuEventQuery(event));
    return e == hipErrorNotReady ? e : hoc_ret(e);
}

HOC_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t start, hipEvent_t stop)
{
    if (!ms)
        return hoc_ret(hipErrorInvalidValue);
    if (!start || !stop)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    if (hoc_cu.cuEventElapsedTime)
        return HOC_CU(hoc_cu.cuEventElapsedTime(ms, start, stop));
    if (hoc_cu.cuEventElapsedTime_v2)
        return HOC_CU(hoc_cu.cuEventElapsedTime_v2(ms, start, stop));
    return hoc_ret(hipErrorNotSupported);
}

HOC_API hipError_t hipEventDestroy(hipEvent_t event)
{
    if (!event)
        return hoc_ret(hipErrorInvalidHandle);
    CTX_OR_RETURN();
    return HOC_CU(hoc_cu.cuEventDestroy(event));
}
