/*
 * hip_on_cuda: finding and opening the CUDA libraries with dlopen, loading
 * the driver table, and the per-thread device / primary-context state that
 * the HIP runtime keeps (HIP, like the CUDA runtime, has an implicit current
 * device per host thread).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <glob.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hoc_cuda.h"
#include "hip_types.h"

struct hoc_cuda_api hoc_cu;

static const char *const k_default_dirs[] = {
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
    "/usr/local/nvidia/lib64",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    NULL,
};

static void *try_open(const char *path, char *why, size_t why_len)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h && why && why_len) {
        size_t used = strlen(why);
        if (used + 2 < why_len) {
            const char *e = dlerror();
            snprintf(why + used, why_len - used, "%s%s", used ? "; " : "", e ? e : path);
        }
    }
    return h;
}

static int file_exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (!f)
        return 0;
    fclose(f);
    return 1;
}

/* Try dir/stem.<v> for each version, then the highest dir/stem.* match,
 * then dir/stem. */
static void *open_in_dir(const char *dir, const char *stem, const char *const *versions,
                         char *why, size_t why_len)
{
    char path[4096];
    for (const char *const *v = versions; v && *v; ++v) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, stem, *v);
        if (file_exists(path)) {
            void *h = try_open(path, why, why_len);
            if (h)
                return h;
        }
    }
    snprintf(path, sizeof path, "%s/%s.*", dir, stem);
    glob_t g;
    if (glob(path, 0, NULL, &g) == 0) {
        for (size_t i = g.gl_pathc; i-- > 0;) {
            void *h = try_open(g.gl_pathv[i], why, why_len);
            if (h) {
                globfree(&g);
                return h;
            }
        }
        globfree(&g);
    }
    snprintf(path, sizeof path, "%s/%s", dir, stem);
    if (file_exists(path))
        return try_open(path, why, why_len);
    return NULL;
}

void *hoc_open_library(const char *stem, const char *const *versions, char *why, size_t why_len)
{
    void *h = NULL;
    if (why && why_len)
        why[0] = '\0';
    const char *env = getenv("HIP_ON_CUDA_LIB_PATH");
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d && !h; d = strtok_r(NULL, ":", &save))
            h = open_in_dir(d, stem, versions, why, why_len);
        free(copy);
    }
    for (const char *const *d = k_default_dirs; *d && !h; ++d)
        h = open_in_dir(*d, stem, versions, why, why_len);
    char name[512];
    for (const char *const *v = versions; v && *v && !h; ++v) {
        snprintf(name, sizeof name, "%s.%s", stem, *v);
        h = try_open(name, why, why_len);
    }
    if (!h)
        h = try_open(stem, why, why_len);
    if (h && why && why_len)
        why[0] = '\0';
    return h;
}

void *hoc_symbol(void *lib, const char *name)
{
    return lib ? dlsym(lib, name) : NULL;
}

/* ---- driver table and cuInit ------------------------------------------ */

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_init_status = hipErrorNotInitialized;
static char g_load_error[2048];

static void load_driver(void)
{
    static const char *const versions[] = {"1", NULL};
    void *lib = hoc_open_library("libcuda.so", versions, g_load_error, sizeof g_load_error);
    if (!lib) {
        g_init_status = hipErrorNoDevice;
        return;
    }
#define HOC_LOAD(name, sym, ret, args, req)                                              \
    hoc_cu.name = (ret(*) args)dlsym(lib, sym);                                          \
    if (!hoc_cu.name && req) {                                                           \
        snprintf(g_load_error, sizeof g_load_error, "libcuda lacks %s", sym);            \
        g_init_status = hipErrorInsufficientDriver;                                      \
        return;                                                                          \
    }
    HOC_CU_FUNCS(HOC_LOAD)
#undef HOC_LOAD
    CUresult r = hoc_cu.cuInit(0);
    if (r != CUDA_SUCCESS) {
        const char *n = NULL;
        hoc_cu.cuGetErrorName(r, &n);
        snprintf(g_load_error, sizeof g_load_error, "cuInit failed: %s", n ? n : "?");
    }
    g_init_status = hoc_hip_from_cu(r);
}

int hoc_init(void)
{
    pthread_once(&g_once, load_driver);
    return g_init_status;
}

const char *hoc_load_error(void)
{
    hoc_init();
    return g_load_error;
}

/* ---- current device and primary contexts ------------------------------ */

#define HOC_MAX_DEVICES 64
static pthread_mutex_t g_ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static CUcontext g_primary[HOC_MAX_DEVICES];
static __thread int tl_device;

int hoc_current_device(void)
{
    return tl_device;
}

void hoc_set_current_device(int dev)
{
    tl_device = dev;
}

int hoc_primary_ctx(int dev, CUcontext *out)
{
    int e = hoc_init();
    if (e)
        return e;
    if (dev < 0 || dev >= HOC_MAX_DEVICES)
        return hipErrorInvalidDevice;
    pthread_mutex_lock(&g_ctx_lock);
    if (!g_primary[dev]) {
        int count = 0;
        CUresult r = hoc_cu.cuDeviceGetCount(&count);
        if (r == CUDA_SUCCESS && dev >= count)
            e = hipErrorInvalidDevice;
        else if (r != CUDA_SUCCESS)
            e = hoc_hip_from_cu(r);
        else {
            CUdevice d;
            r = hoc_cu.cuDeviceGet(&d, dev);
            if (r == CUDA_SUCCESS)
                r = hoc_cu.cuDevicePrimaryCtxRetain(&g_primary[dev], d);
            e = hoc_hip_from_cu(r);
        }
    }
    *out = g_primary[dev];
    pthread_mutex_unlock(&g_ctx_lock);
    return e;
}

int hoc_ctx(void)
{
    CUcontext want = NULL, cur = NULL;
    int e = hoc_primary_ctx(tl_device, &want);
    if (e)
        return e;
    if (hoc_cu.cuCtxGetCurrent(&cur) != CUDA_SUCCESS || cur != want)
        return hoc_hip_from_cu(hoc_cu.cuCtxSetCurrent(want));
    return hipSuccess;
}

int hoc_device_cc(int *major, int *minor)
{
    int e = hoc_init();
    if (e)
        return e;
    CUdevice d;
    CUresult r = hoc_cu.cuDeviceGet(&d, tl_device);
    if (r == CUDA_SUCCESS)
        r = hoc_cu.cuDeviceGetAttribute(major, CU_ATTR_COMPUTE_CAPABILITY_MAJOR, d);
    if (r == CUDA_SUCCESS)
        r = hoc_cu.cuDeviceGetAttribute(minor, CU_ATTR_COMPUTE_CAPABILITY_MINOR, d);
    return hoc_hip_from_cu(r);
}
