/*
 * hip_on_cuda: stream capture and graphs.  hipGraph_t / hipGraphExec_t /
 * hipGraphNode_t are the driver's CUgraph / CUgraphExec / CUgraphNode; the
 * capture modes (global 0, thread-local 1, relaxed 2), capture statuses (none 0,
 * active 1, invalidated 2) and instantiation flags (auto-free on launch 1,
 * upload 2, device launch 4, node priority 8) have CUDA's numbers in HIP, and
 * the capture errors (900-910) too, so they pass through.  The driver entry
 * points are optional (older drivers lack some): a missing one makes the HIP
 * call return hipErrorNotSupported.
 */
#include "hoc_cuda.h"
#include "hip_types.h"

typedef struct CUgraph_st *hipGraph_t;
typedef struct CUgraphExec_st *hipGraphExec_t;
typedef struct CUgraphNode_st *hipGraphNode_t;

#define NEED(fn)                                  \
    do {                                          \
        if (!hoc_cu.fn)                           \
            return hoc_ret(hipErrorNotSupported); \
    } while (0)

HOC_API hipError_t hipStreamBeginCapture(hipStream_t stream, int mode)
{
    if (mode < 0 || mode > 2)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuStreamBeginCapture);
    return HOC_CU(hoc_cu.cuStreamBeginCapture(stream, mode));
}

HOC_API hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t *graph)
{
    if (!graph)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuStreamEndCapture);
    return HOC_CU(hoc_cu.cuStreamEndCapture(stream, graph));
}

HOC_API hipError_t hipStreamIsCapturing(hipStream_t stream, int *status)
{
    if (!status)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuStreamIsCapturing);
    return HOC_CU(hoc_cu.cuStreamIsCapturing(stream, status));
}

HOC_API hipError_t hipThreadExchangeStreamCaptureMode(int *mode)
{
    if (!mode || *mode < 0 || *mode > 2)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuThreadExchangeStreamCaptureMode);
    return HOC_CU(hoc_cu.cuThreadExchangeStreamCaptureMode(mode));
}

HOC_API hipError_t hipGraphInstantiateWithFlags(hipGraphExec_t *exec, hipGraph_t graph, unsigned long long flags)
{
    if (!exec || !graph || (flags & ~0xFull))
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphInstantiateWithFlags);
    return HOC_CU(hoc_cu.cuGraphInstantiateWithFlags(exec, graph, flags));
}

/* HIP's older form: an error node and a log buffer, which CUDA's WithFlags
 * form no longer fills (the status says what failed). */
HOC_API hipError_t hipGraphInstantiate(hipGraphExec_t *exec, hipGraph_t graph, hipGraphNode_t *error_node,
                                       char *log, size_t log_size)
{
    if (error_node)
        *error_node = NULL;
    if (log && log_size)
        log[0] = '\0';
    return hipGraphInstantiateWithFlags(exec, graph, 0);
}

HOC_API hipError_t hipGraphLaunch(hipGraphExec_t exec, hipStream_t stream)
{
    if (!exec)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphLaunch);
    return HOC_CU(hoc_cu.cuGraphLaunch(exec, stream));
}

HOC_API hipError_t hipGraphUpload(hipGraphExec_t exec, hipStream_t stream)
{
    if (!exec)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphUpload);
    return HOC_CU(hoc_cu.cuGraphUpload(exec, stream));
}

HOC_API hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t *nodes, size_t *count)
{
    if (!graph || !count)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphGetNodes);
    return HOC_CU(hoc_cu.cuGraphGetNodes(graph, nodes, count));
}

HOC_API hipError_t hipGraphExecDestroy(hipGraphExec_t exec)
{
    if (!exec)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphExecDestroy);
    return HOC_CU(hoc_cu.cuGraphExecDestroy(exec));
}

HOC_API hipError_t hipGraphDestroy(hipGraph_t graph)
{
    if (!graph)
        return hoc_ret(hipErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(cuGraphDestroy);
    return HOC_CU(hoc_cu.cuGraphDestroy(graph));
}
