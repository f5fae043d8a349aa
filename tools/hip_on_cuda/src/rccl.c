/*
 * hip_on_cuda: librccl.so forwarded to NCCL (libnccl.so.2).  RCCL keeps
 * NCCL's API: the same functions and argument lists, the same numbering of
 * ncclResult_t, ncclDataType_t and ncclRedOp_t, the same 128-byte
 * ncclUniqueId passed by value, and a hipStream_t of this shim is a CUstream,
 * which is what NCCL's cudaStream_t is.  So every call is passed through as
 * it is, after the calling thread's current HIP device is made the current
 * CUDA context (NCCL reads the current device, e.g. in ncclCommInitRank).
 * NCCL is found as the CUDA libraries are (HIP_ON_CUDA_LIB_PATH first: the
 * nvidia-nccl wheel puts it in site-packages/nvidia/nccl/lib).
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "hoc_cuda.h"

typedef int ncclResult_t;
typedef struct { char internal[128]; } ncclUniqueId;
typedef void *ncclComm_t;
typedef void *hipStream_t;

enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2 };

/* field, symbol, return type, parameter list */
#define NCCL_FUNCS(X)                                                                            \
    X(GetVersion, "ncclGetVersion", ncclResult_t, (int *))                                       \
    X(GetUniqueId, "ncclGetUniqueId", ncclResult_t, (ncclUniqueId *))                            \
    X(CommInitRank, "ncclCommInitRank", ncclResult_t, (ncclComm_t *, int, ncclUniqueId, int))   \
    X(CommInitAll, "ncclCommInitAll", ncclResult_t, (ncclComm_t *, int, const int *))           \
    X(CommFinalize, "ncclCommFinalize", ncclResult_t, (ncclComm_t))                              \
    X(CommDestroy, "ncclCommDestroy", ncclResult_t, (ncclComm_t))                                \
    X(CommAbort, "ncclCommAbort", ncclResult_t, (ncclComm_t))                                    \
    X(CommSplit, "ncclCommSplit", ncclResult_t, (ncclComm_t, int, int, ncclComm_t *, void *))    \
    X(GetErrorString, "ncclGetErrorString", const char *, (ncclResult_t))                        \
    X(GetLastError, "ncclGetLastError", const char *, (ncclComm_t))                              \
    X(CommGetAsyncError, "ncclCommGetAsyncError", ncclResult_t, (ncclComm_t, ncclResult_t *))    \
    X(CommCount, "ncclCommCount", ncclResult_t, (ncclComm_t, int *))                             \
    X(CommCuDevice, "ncclCommCuDevice", ncclResult_t, (ncclComm_t, int *))                       \
    X(CommUserRank, "ncclCommUserRank", ncclResult_t, (ncclComm_t, int *))                       \
    X(CommRegister, "ncclCommRegister", ncclResult_t, (ncclComm_t, void *, size_t, void **))     \
    X(CommDeregister, "ncclCommDeregister", ncclResult_t, (ncclComm_t, void *))                  \
    X(MemAlloc, "ncclMemAlloc", ncclResult_t, (void **, size_t))                                 \
    X(MemFree, "ncclMemFree", ncclResult_t, (void *))                                            \
    X(RedOpCreatePreMulSum, "ncclRedOpCreatePreMulSum", ncclResult_t,                            \
      (int *, void *, int, int, ncclComm_t))                                                     \
    X(RedOpDestroy, "ncclRedOpDestroy", ncclResult_t, (int, ncclComm_t))                         \
    X(Reduce, "ncclReduce", ncclResult_t,                                                        \
      (const void *, void *, size_t, int, int, int, ncclComm_t, hipStream_t))                    \
    X(Bcast, "ncclBcast", ncclResult_t, (void *, size_t, int, int, ncclComm_t, hipStream_t))     \
    X(Broadcast, "ncclBroadcast", ncclResult_t,                                                  \
      (const void *, void *, size_t, int, int, ncclComm_t, hipStream_t))                         \
    X(AllReduce, "ncclAllReduce", ncclResult_t,                                                  \
      (const void *, void *, size_t, int, int, ncclComm_t, hipStream_t))                         \
    X(ReduceScatter, "ncclReduceScatter", ncclResult_t,                                          \
      (const void *, void *, size_t, int, int, ncclComm_t, hipStream_t))                         \
    X(AllGather, "ncclAllGather", ncclResult_t,                                                  \
      (const void *, void *, size_t, int, ncclComm_t, hipStream_t))                              \
    X(Send, "ncclSend", ncclResult_t, (const void *, size_t, int, int, ncclComm_t, hipStream_t)) \
    X(Recv, "ncclRecv", ncclResult_t, (void *, size_t, int, int, ncclComm_t, hipStream_t))       \
    X(GroupStart, "ncclGroupStart", ncclResult_t, (void))                                        \
    X(GroupEnd, "ncclGroupEnd", ncclResult_t, (void))

#define DECL(field, sym, ret, params) ret(*field) params;
static struct { NCCL_FUNCS(DECL) } nc;
#undef DECL
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];

static void load_nccl(void)
{
    static const char *const versions[] = {"2", NULL};
    void *lib = hoc_open_library("libnccl.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define LOAD(field, sym, ret, params) nc.field = (ret(*) params)hoc_symbol(lib, sym);
    NCCL_FUNCS(LOAD)
#undef LOAD
    if (!nc.GetVersion)
        snprintf(g_why, sizeof g_why, "the libnccl.so found lacks ncclGetVersion");
}

/* Why libnccl.so.2 could not be opened ("" when it was).  Not RCCL API. */
HOC_API const char *rcclOnCudaLoadError(void)
{
    pthread_once(&g_once, load_nccl);
    return g_why;
}

/* NCCL's function (NULL when it is missing), with the caller's HIP device current. */
#define READY(field, failure)                                                 \
    pthread_once(&g_once, load_nccl);                                         \
    if (!nc.field)                                                            \
        return failure;                                                       \
    if (hoc_ctx())                                                            \
        return ncclUnhandledCudaError;

#define FORWARD(name, field, params, args)                                    \
    HOC_API ncclResult_t name params                                          \
    {                                                                         \
        READY(field, ncclSystemError)                                         \
        return nc.field args;                                                 \
    }

FORWARD(ncclGetUniqueId, GetUniqueId, (ncclUniqueId *id), (id))
FORWARD(ncclCommInitRank, CommInitRank, (ncclComm_t *comm, int nranks, ncclUniqueId id, int rank),
        (comm, nranks, id, rank))
FORWARD(ncclCommInitAll, CommInitAll, (ncclComm_t *comm, int ndev, const int *devlist), (comm, ndev, devlist))
FORWARD(ncclCommFinalize, CommFinalize, (ncclComm_t comm), (comm))
FORWARD(ncclCommDestroy, CommDestroy, (ncclComm_t comm), (comm))
FORWARD(ncclCommAbort, CommAbort, (ncclComm_t comm), (comm))
FORWARD(ncclCommSplit, CommSplit, (ncclComm_t comm, int color, int key, ncclComm_t *out, void *config),
        (comm, color, key, out, config))
FORWARD(ncclCommGetAsyncError, CommGetAsyncError, (ncclComm_t comm, ncclResult_t *err), (comm, err))
FORWARD(ncclCommCount, CommCount, (ncclComm_t comm, int *count), (comm, count))
FORWARD(ncclCommCuDevice, CommCuDevice, (ncclComm_t comm, int *device), (comm, device))
FORWARD(ncclCommUserRank, CommUserRank, (ncclComm_t comm, int *rank), (comm, rank))
FORWARD(ncclCommRegister, CommRegister, (ncclComm_t comm, void *buf, size_t size, void **handle),
        (comm, buf, size, handle))
FORWARD(ncclCommDeregister, CommDeregister, (ncclComm_t comm, void *handle), (comm, handle))
FORWARD(ncclMemAlloc, MemAlloc, (void **ptr, size_t size), (ptr, size))
FORWARD(ncclMemFree, MemFree, (void *ptr), (ptr))
FORWARD(ncclRedOpCreatePreMulSum, RedOpCreatePreMulSum,
        (int *op, void *scalar, int datatype, int residence, ncclComm_t comm), (op, scalar, datatype, residence, comm))
FORWARD(ncclRedOpDestroy, RedOpDestroy, (int op, ncclComm_t comm), (op, comm))
FORWARD(ncclReduce, Reduce,
        (const void *s, void *r, size_t n, int dt, int op, int root, ncclComm_t c, hipStream_t st),
        (s, r, n, dt, op, root, c, st))
FORWARD(ncclBcast, Bcast, (void *b, size_t n, int dt, int root, ncclComm_t c, hipStream_t st),
        (b, n, dt, root, c, st))
FORWARD(ncclBroadcast, Broadcast,
        (const void *s, void *r, size_t n, int dt, int root, ncclComm_t c, hipStream_t st),
        (s, r, n, dt, root, c, st))
FORWARD(ncclAllReduce, AllReduce,
        (const void *s, void *r, size_t n, int dt, int op, ncclComm_t c, hipStream_t st),
        (s, r, n, dt, op, c, st))
FORWARD(ncclReduceScatter, ReduceScatter,
        (const void *s, void *r, size_t n, int dt, int op, ncclComm_t c, hipStream_t st),
        (s, r, n, dt, op, c, st))
FORWARD(ncclAllGather, AllGather, (const void *s, void *r, size_t n, int dt, ncclComm_t c, hipStream_t st),
        (s, r, n, dt, c, st))
FORWARD(ncclSend, Send, (const void *s, size_t n, int dt, int peer, ncclComm_t c, hipStream_t st),
        (s, n, dt, peer, c, st))
FORWARD(ncclRecv, Recv, (void *r, size_t n, int dt, int peer, ncclComm_t c, hipStream_t st),
        (r, n, dt, peer, c, st))
FORWARD(ncclGroupStart, GroupStart, (void), ())
FORWARD(ncclGroupEnd, GroupEnd, (void), ())

/* No device is needed to ask the version: no context is made current. */
HOC_API ncclResult_t ncclGetVersion(int *version)
{
    pthread_once(&g_once, load_nccl);
    return nc.GetVersion ? nc.GetVersion(version) : ncclSystemError;
}

HOC_API const char *ncclGetErrorString(ncclResult_t result)
{
    pthread_once(&g_once, load_nccl);
    if (!nc.GetErrorString)
        return g_why[0] ? g_why : "hip_on_cuda: libnccl.so.2 is not loaded";
    return nc.GetErrorString(result);
}

HOC_API const char *ncclGetLastError(ncclComm_t comm)
{
    pthread_once(&g_once, load_nccl);
    if (!nc.GetLastError)
        return g_why;
    return nc.GetLastError(comm);
}
