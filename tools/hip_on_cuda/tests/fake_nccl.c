/*
 * A stand-in libnccl.so.2 for testing the shim's librccl.so forwarder on a
 * CPU-only machine: each call appends "name arg,arg,..." and a newline to a
 * log (fakeNcclLog() returns it) and succeeds; communicators are small
 * integers, the unique id is "fake-nccl-id".  It runs nothing.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define API __attribute__((visibility("default")))

typedef struct { char internal[128]; } ncclUniqueId;

static char g_log[65536];
static size_t g_used;

static void logf_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void logf_(const char *fmt, ...)
{
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    int n = vsnprintf(g_log + g_used, sizeof g_log - g_used, fmt, ap);
    __builtin_va_end(ap);
    if (n > 0 && g_used + (size_t)n < sizeof g_log)
        g_used += (size_t)n;
}

API const char *fakeNcclLog(void) { return g_log; }

API int ncclGetVersion(int *v) { *v = 22105; logf_("ncclGetVersion\n"); return 0; }

API int ncclGetUniqueId(ncclUniqueId *id)
{
    memset(id, 0, sizeof *id);
    strcpy(id->internal, "fake-nccl-id");
    logf_("ncclGetUniqueId\n");
    return 0;
}

API int ncclCommInitRank(void **comm, int nranks, ncclUniqueId id, int rank)
{
    *comm = (void *)(size_t)(100 + rank);
    logf_("ncclCommInitRank %d,%s,%d\n", nranks, id.internal, rank);
    return 0;
}

API int ncclCommInitAll(void **comm, int ndev, const int *devlist)
{
    for (int i = 0; i < ndev; ++i)
        comm[i] = (void *)(size_t)(200 + devlist[i]);
    logf_("ncclCommInitAll %d\n", ndev);
    return 0;
}

API int ncclCommDestroy(void *comm) { logf_("ncclCommDestroy %zu\n", (size_t)comm); return 0; }
API int ncclCommCount(void *comm, int *n) { *n = 2; logf_("ncclCommCount %zu\n", (size_t)comm); return 0; }
API int ncclGroupStart(void) { logf_("ncclGroupStart\n"); return 0; }
API int ncclGroupEnd(void) { logf_("ncclGroupEnd\n"); return 0; }
API const char *ncclGetErrorString(int r) { return r == 5 ? "fake: invalid usage" : "fake: other"; }

API int ncclAllReduce(const void *s, void *r, size_t n, int dt, int op, void *comm, void *stream)
{
    logf_("ncclAllReduce %zx,%zx,%zu,%d,%d,%zu,%zx\n", (size_t)s, (size_t)r, n, dt, op, (size_t)comm,
          (size_t)stream);
    return 0;
}

API int ncclBroadcast(const void *s, void *r, size_t n, int dt, int root, void *comm, void *stream)
{
    logf_("ncclBroadcast %zx,%zx,%zu,%d,%d,%zu,%zx\n", (size_t)s, (size_t)r, n, dt, root, (size_t)comm,
          (size_t)stream);
    return 0;
}

API int ncclAllGather(const void *s, void *r, size_t n, int dt, void *comm, void *stream)
{
    logf_("ncclAllGather %zx,%zx,%zu,%d,%zu,%zx\n", (size_t)s, (size_t)r, n, dt, (size_t)comm, (size_t)stream);
    return 0;
}

API int ncclReduceScatter(const void *s, void *r, size_t n, int dt, int op, void *comm, void *stream)
{
    logf_("ncclReduceScatter %zx,%zx,%zu,%d,%d,%zu,%zx\n", (size_t)s, (size_t)r, n, dt, op, (size_t)comm,
          (size_t)stream);
    return 0;
}

API int ncclRecv(void *r, size_t n, int dt, int peer, void *comm, void *stream)
{
    logf_("ncclRecv %zx,%zu,%d,%d,%zu,%zx\n", (size_t)r, n, dt, peer, (size_t)comm, (size_t)stream);
    return 0;
}

API int ncclSend(const void *s, size_t n, int dt, int peer, void *comm, void *stream)
{
    logf_("ncclSend %zx,%zu,%d,%d,%zu,%zx\n", (size_t)s, n, dt, peer, (size_t)comm, (size_t)stream);
    return 5; /* ncclInvalidUsage: the shim must pass statuses back unchanged */
}
