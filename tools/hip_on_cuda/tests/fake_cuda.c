/*
 * A stand-in libcuda.so.1 for checking the shim without a GPU: "device"
 * memory is host memory, copies are memcpy, streams and events are tokens,
 * kernels are accepted but not run.  It lets CPU-only machines exercise the
 * shim's loader, argument translation and error mapping (see
 * tests/rocm/shim/test_fake_driver.py); it proves nothing about a real GPU.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define API __attribute__((visibility("default")))

static const size_t k_total = 80ull << 30;
static size_t g_used;
struct alloc { uintptr_t base; size_t size; int host; };
static struct alloc g_allocs[4096];

static void track(void *p, size_t n, int host)
{
    for (int i = 0; i < 4096; ++i)
        if (!g_allocs[i].base) {
            g_allocs[i] = (struct alloc){(uintptr_t)p, n, host};
            return;
        }
}
static struct alloc *find(uintptr_t p)
{
    for (int i = 0; i < 4096; ++i)
        if (g_allocs[i].base && p >= g_allocs[i].base && p < g_allocs[i].base + g_allocs[i].size)
            return &g_allocs[i];
    return NULL;
}

API CUresult cuInit(unsigned f) { return f ? 1 : 0; }
API CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
API CUresult cuGetErrorName(CUresult r, const char **s) { (void)r; *s = "CUDA_ERROR_FAKE"; return 0; }
API CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
API CUresult cuDeviceGet(int *d, int o) { if (o != 0) return 101; *d = 0; return 0; }
API CUresult cuDeviceGetName(char *s, int n, int d) { (void)d; strncpy(s, "Fake GPU", (size_t)n); return 0; }
API CUresult cuDeviceTotalMem_v2(size_t *b, int d) { (void)d; *b = k_total; return 0; }
API CUresult cuDeviceGetAttribute(int *v, int a, int d)
{
    if (d != 0) return 101;
    switch (a) {
    case 1: case 2: *v = 1024; break;
    case 8: *v = 49152; break;
    case 10: *v = 32; break;
    case 16: *v = 132; break;
    case 38: *v = 50 << 20; break;
    case 75: *v = 9; break;
    case 76: *v = 0; break;
    case 5: *v = 2147483647; break;
    default: *v = 1;
    }
    return 0;
}
static int g_ctx_token;
API CUresult cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &g_ctx_token; return 0; }
static __thread void *tl_ctx;
API CUresult cuCtxGetCurrent(void **c) { *c = tl_ctx; return 0; }
API CUresult cuCtxSetCurrent(void *c) { tl_ctx = c; return 0; }

API CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = k_total - g_used; *t = k_total; return 0; }
API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
    if (!tl_ctx) return 201;
    if (n == 0) return 1;
    if (n > k_total - g_used) return 2;
    void *m = malloc(n);
    if (!m) return 2;
    g_used += n;
    track(m, n, 0);
    *p = (CUdeviceptr)(uintptr_t)m;
    return 0;
}
API CUresult cuMemFree_v2(CUdeviceptr p)
{
    struct alloc *a = find((uintptr_t)p);
    if (!a || a->base != (uintptr_t)p || a->host) return 1;
    g_used -= a->size;
    free((void *)a->base);
    memset(a, 0, sizeof *a);
    return 0;
}
API CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { (void)s; return cuMemAlloc_v2(p, n); }
API CUresult cuMemFreeAsync(CUdeviceptr p, void *s) { (void)s; return cuMemFree_v2(p); }
API CUresult cuMemHostAlloc(void **p, size_t n, unsigned f) { (void)f; *p = malloc(n); track(*p, n, 1); return 0; }
API CUresult cuMemFreeHost(void *p)
{
    struct alloc *a = find((uintptr_t)p);
    if (!a || !a->host) return 1;
    free(p);
    memset(a, 0, sizeof *a);
    return 0;
}
#define COPY(name, D, S) API CUresult name(D d, S s, size_t n) { memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n); return 0; }
#define COPYA(name, D, S) API CUresult name(D d, S s, size_t n, void *st) { (void)st; memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)s, n); return 0; }
COPY(cuMemcpy, CUdeviceptr, CUdeviceptr) COPY(cuMemcpyHtoD_v2, CUdeviceptr, const void *)
COPY(cuMemcpyDtoH_v2, void *, CUdeviceptr) COPY(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr)
COPYA(cuMemcpyAsync, CUdeviceptr, CUdeviceptr) COPYA(cuMemcpyHtoDAsync_v2, CUdeviceptr, const void *)
COPYA(cuMemcpyDtoHAsync_v2, void *, CUdeviceptr) COPYA(cuMemcpyDtoDAsync_v2, CUdeviceptr, CUdeviceptr)
#define SET(name, T) API CUresult name(CUdeviceptr d, T v, size_t n) { T *p = (T *)(uintptr_t)d; for (size_t i = 0; i < n; ++i) p[i] = v; return 0; } \
    API CUresult name##Async_(CUdeviceptr d, T v, size_t n, void *s) { (void)s; return name(d, v, n); }
SET(cuMemsetD8_v2, unsigned char) SET(cuMemsetD16_v2, unsigned short) SET(cuMemsetD32_v2, unsigned int)
API CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s) { return cuMemsetD8_v2Async_(d, v, n, s); }
API CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, void *s) { return cuMemsetD16_v2Async_(d, v, n, s); }
API CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, void *s) { return cuMemsetD32_v2Async_(d, v, n, s); }
API CUresult cuPointerGetAttributes(unsigned n, int *which, void **data, CUdeviceptr p)
{
    struct alloc *a = find((uintptr_t)p);
    for (unsigned i = 0; i < n; ++i) {
        switch (which[i]) {
        case 2: *(unsigned *)data[i] = a ? (a->host ? 1 : 2) : 0; break;
        case 3: *(CUdeviceptr *)data[i] = a ? p : 0; break;
        case 4: *(void **)data[i] = a && a->host ? (void *)(uintptr_t)p : NULL; break;
        case 8: *(int *)data[i] = 0; break;
        case 9: *(int *)data[i] = a ? 0 : -1; break;
        }
    }
    return 0;
}
API CUresult cuPointerGetAttribute(void *d, int w, CUdeviceptr p) { return cuPointerGetAttributes(1, &w, &d, p); }

static int g_stream_tokens[256], g_next_stream;
API CUresult cuStreamCreate(void **s, unsigned f) { (void)f; *s = &g_stream_tokens[g_next_stream++ % 256]; return 0; }
API CUresult cuStreamCreateWithPriority(void **s, unsigned f, int p) { (void)p; return cuStreamCreate(s, f); }
struct event { struct timespec t; };
API CUresult cuEventCreate(void **e, unsigned f) { (void)f; *e = calloc(1, sizeof(struct event)); return 0; }
API CUresult cuEventRecord(void *e, void *s) { (void)s; clock_gettime(CLOCK_MONOTONIC, &((struct event *)e)->t); return 0; }
API CUresult cuEventElapsedTime(float *ms, void *a, void *b)
{
    struct timespec x = ((struct event *)a)->t, y = ((struct event *)b)->t;
    *ms = (float)((y.tv_sec - x.tv_sec) * 1e3 + (y.tv_nsec - x.tv_nsec) / 1e6);
    return 0;
}
API CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }

/* Modules: remember the image, answer function look-ups by searching its bytes. */
struct module { const unsigned char *image; size_t size; };
API CUresult cuModuleLoadData(void **m, const void *image)
{
    const unsigned char *p = image;
    if (memcmp(p, "\177ELF", 4) != 0) return 200;
    uint64_t shoff; uint16_t shentsize, shnum;
    memcpy(&shoff, p + 0x28, 8); memcpy(&shentsize, p + 0x3a, 2); memcpy(&shnum, p + 0x3c, 2);
    struct module *mod = malloc(sizeof *mod);
    mod->image = p;
    mod->size = shoff + (size_t)shentsize * shnum;
    *m = mod;
    return 0;
}
API CUresult cuModuleUnload(void *m) { free(m); return 0; }
API CUresult cuModuleGetFunction(void **f, void *m, const char *name)
{
    struct module *mod = m;
    size_t n = strlen(name) + 1;
    if (!memmem(mod->image, mod->size, name, n)) return 500;
    *f = m;
    return 0;
}
/* Graphs: a capture counts the kernels launched on its stream; a graph is that
 * count; a launch of an executable graph adds it to g_replayed_kernels. */
static void *g_capturing;
static size_t g_captured_kernels;
static size_t g_replayed_kernels;
struct graph { size_t kernels; };
API CUresult cuStreamBeginCapture_v2(void *s, int mode)
{
    if (g_capturing || mode < 0 || mode > 2) return 1;
    g_capturing = s ? s : (void *)1;
    g_captured_kernels = 0;
    return 0;
}
API CUresult cuStreamEndCapture(void *s, struct graph **g)
{
    if (g_capturing != (s ? s : (void *)1)) return 903;  /* CUDA_ERROR_STREAM_CAPTURE_UNMATCHED */
    g_capturing = NULL;
    *g = calloc(1, sizeof **g);
    (*g)->kernels = g_captured_kernels;
    return 0;
}
API CUresult cuStreamIsCapturing(void *s, int *status) { *status = g_capturing == (s ? s : (void *)1); return 0; }
API CUresult cuGraphInstantiateWithFlags(struct graph **e, struct graph *g, unsigned long long f)
{
    (void)f;
    *e = calloc(1, sizeof **e);
    (*e)->kernels = g->kernels;
    return 0;
}
API CUresult cuGraphLaunch(struct graph *e, void *s) { (void)s; g_replayed_kernels += e->kernels; return 0; }
API CUresult cuGraphGetNodes(struct graph *g, void **nodes, size_t *n)
{
    if (!nodes) { *n = g->kernels; return 0; }
    for (size_t i = 0; i < *n; ++i) nodes[i] = i < g->kernels ? (void *)(uintptr_t)(i + 1) : NULL;
    if (*n > g->kernels) *n = g->kernels;
    return 0;
}
API CUresult cuGraphExecDestroy(struct graph *e) { free(e); return 0; }
API CUresult cuGraphDestroy(struct graph *g) { free(g); return 0; }
/* not CUDA: what the test reads back */
API size_t fakeReplayedKernels(void) { return g_replayed_kernels; }
API CUresult cuStreamSynchronize(void *s)
{
    return g_capturing == (s ? s : (void *)1) ? 900 : 0;  /* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
}

API CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                            unsigned bz, unsigned sh, void *s, void **params, void **extra)
{
    (void)f; (void)gx; (void)gy; (void)gz; (void)by; (void)bz; (void)sh;
    if (bx > 1024 || (params && extra)) return 1;
    if (extra) {
        for (int i = 0; i < 16; i += 2) {
            if (extra[i] == (void *)0) {
                g_captured_kernels += g_capturing && g_capturing == (s ? s : (void *)1);
                return 0;
            }
            if (extra[i] != (void *)1 && extra[i] != (void *)2) return 1;
        }
        return 1;
    }
    g_captured_kernels += g_capturing && g_capturing == (s ? s : (void *)1);
    return 0;
}
API CUresult cuFuncGetAttribute(int *v, int a, void *f) { (void)f; *v = a == 0 ? 1024 : 32; return 0; }
API CUresult cuOccupancyMaxPotentialBlockSize(int *g, int *b, void *f, void *c, size_t d, int l)
{ (void)f; (void)c; (void)d; (void)l; *g = 132; *b = 1024; return 0; }
API CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int b, size_t d)
{ (void)f; (void)b; (void)d; *n = 2; return 0; }

/* Everything else the shim loads: accepted, does nothing. */
#define NOOP(name) API CUresult name(void) { return 0; }
NOOP(cuDeviceGetPCIBusId) NOOP(cuDeviceCanAccessPeer) NOOP(cuDevicePrimaryCtxReset_v2)
NOOP(cuCtxSynchronize) NOOP(cuCtxGetLimit) NOOP(cuCtxSetLimit) NOOP(cuCtxGetStreamPriorityRange)
NOOP(cuCtxEnablePeerAccess) NOOP(cuMemHostRegister_v2) NOOP(cuMemHostUnregister)
NOOP(cuMemHostGetDevicePointer_v2) NOOP(cuMemcpyPeer) NOOP(cuMemcpyPeerAsync)
NOOP(cuStreamDestroy_v2) NOOP(cuStreamQuery) NOOP(cuStreamWaitEvent)
NOOP(cuStreamGetFlags) NOOP(cuStreamGetPriority) NOOP(cuLaunchHostFunc) NOOP(cuEventSynchronize)
NOOP(cuEventQuery) NOOP(cuModuleGetGlobal_v2)
