/*
 * hip_on_cuda: hipRTC forwarded to NVRTC.  A program gets the HIP prelude
 * prepended, options are translated (hiprtc_options.c), and the code it
 * returns is a cubin for the current GPU (PTX when NVRTC cannot target that
 * GPU), which the shim's hipModuleLoadData accepts.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hoc_cuda.h"
#include "hiprtc_internal.h"
#include "hiprtc_prelude.h"

typedef int hiprtcResult;
enum {
    HIPRTC_SUCCESS = 0, HIPRTC_ERROR_OUT_OF_MEMORY = 1, HIPRTC_ERROR_PROGRAM_CREATION_FAILURE = 2,
    HIPRTC_ERROR_INVALID_INPUT = 3, HIPRTC_ERROR_INVALID_PROGRAM = 4, HIPRTC_ERROR_INVALID_OPTION = 5,
    HIPRTC_ERROR_COMPILATION = 6, HIPRTC_ERROR_INTERNAL_ERROR = 11,
};

typedef struct _nvrtcProgram *nvrtcProgram;
static struct {
    int (*Create)(nvrtcProgram *, const char *, const char *, int, const char *const *, const char *const *);
    int (*Compile)(nvrtcProgram, int, const char *const *);
    int (*Destroy)(nvrtcProgram *);
    int (*LogSize)(nvrtcProgram, size_t *);
    int (*Log)(nvrtcProgram, char *);
    int (*CubinSize)(nvrtcProgram, size_t *);
    int (*Cubin)(nvrtcProgram, char *);
    int (*PtxSize)(nvrtcProgram, size_t *);
    int (*Ptx)(nvrtcProgram, char *);
    int (*AddName)(nvrtcProgram, const char *);
    int (*Lowered)(nvrtcProgram, const char *, const char **);
    int (*Version)(int *, int *);
    int (*NumArchs)(int *);
    int (*Archs)(int *);
} nv;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_ok;

static void load_nvrtc(void)
{
    static const char *const versions[] = {"13", "12", "11.2", NULL};
    void *lib = hoc_open_library("libnvrtc.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
#define L(field, sym) *(void **)&nv.field = hoc_symbol(lib, sym)
    L(Create, "nvrtcCreateProgram"); L(Compile, "nvrtcCompileProgram");
    L(Destroy, "nvrtcDestroyProgram"); L(LogSize, "nvrtcGetProgramLogSize");
    L(Log, "nvrtcGetProgramLog"); L(CubinSize, "nvrtcGetCUBINSize"); L(Cubin, "nvrtcGetCUBIN");
    L(PtxSize, "nvrtcGetPTXSize"); L(Ptx, "nvrtcGetPTX"); L(AddName, "nvrtcAddNameExpression");
    L(Lowered, "nvrtcGetLoweredName"); L(Version, "nvrtcVersion");
    L(NumArchs, "nvrtcGetNumSupportedArchs"); L(Archs, "nvrtcGetSupportedArchs");
#undef L
    g_ok = nv.Create && nv.Compile && nv.Destroy && nv.LogSize && nv.Log && nv.CubinSize &&
           nv.Cubin && nv.PtxSize && nv.Ptx && nv.Version;
    if (!g_ok)
        snprintf(g_why, sizeof g_why, "libnvrtc lacks an expected symbol");
}

static int nvrtc_ready(void)
{
    pthread_once(&g_once, load_nvrtc);
    return g_ok;
}

/* NVRTC's result codes 0..11 have the same meaning and number as hipRTC's. */
static hiprtcResult from_nv(int r)
{
    return (r >= 0 && r <= 11) ? r : HIPRTC_ERROR_INTERNAL_ERROR;
}

struct hoc_program {
    nvrtcProgram prog;
    struct hoc_log log;
    int compiled;
    int is_ptx;
};

HOC_API const char *hiprtcGetErrorString(hiprtcResult r)
{
    static const char *const names[] = {
        "HIPRTC_SUCCESS", "HIPRTC_ERROR_OUT_OF_MEMORY", "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
        "HIPRTC_ERROR_INVALID_INPUT", "HIPRTC_ERROR_INVALID_PROGRAM", "HIPRTC_ERROR_INVALID_OPTION",
        "HIPRTC_ERROR_COMPILATION", "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
        "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
        "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID", "HIPRTC_ERROR_INTERNAL_ERROR",
    };
    if (r >= 0 && r <= 11)
        return names[r];
    return r == 100 ? "HIPRTC_ERROR_LINKING" : "Invalid HIPRTC error code";
}

HOC_API hiprtcResult hiprtcVersion(int *major, int *minor)
{
    if (!major || !minor)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (!nvrtc_ready())
        return HIPRTC_ERROR_INTERNAL_ERROR;
    return from_nv(nv.Version(major, minor));
}

HOC_API hiprtcResult hiprtcCreateProgram(struct hoc_program **out, const char *src, const char *name,
                                         int num_headers, const char *const *headers,
                                         const char *const *include_names)
{
    if (!out || !src || num_headers < 0 || (num_headers && (!headers || !include_names)))
        return HIPRTC_ERROR_INVALID_INPUT;
    if (!nvrtc_ready())
        return HIPRTC_ERROR_PROGRAM_CREATION_FAILURE;
    const char *pname = name ? name : "default_program";
    size_t len = strlen(k_hoc_prelude) + strlen(src) + strlen(pname) + 64;
    char *full = malloc(len);
    int nb = (int)(sizeof k_hoc_builtin_headers / sizeof k_hoc_builtin_headers[0]);
    const char **hdr = calloc((size_t)(num_headers + nb), sizeof(char *));
    const char **inc = calloc((size_t)(num_headers + nb), sizeof(char *));
    struct hoc_program *p = calloc(1, sizeof *p);
    hiprtcResult r = HIPRTC_ERROR_OUT_OF_MEMORY;
    if (full && hdr && inc && p) {
        snprintf(full, len, "%s#line 1 \"%s\"\n%s", k_hoc_prelude, pname, src);
        for (int i = 0; i < num_headers; ++i) {
            hdr[i] = headers[i];
            inc[i] = include_names[i];
        }
        for (int i = 0; i < nb; ++i) {
            hdr[num_headers + i] = "";
            inc[num_headers + i] = k_hoc_builtin_headers[i];
        }
        r = from_nv(nv.Create(&p->prog, full, pname, num_headers + nb, hdr, inc));
    }
    free(full);
    free(hdr);
    free(inc);
    if (r != HIPRTC_SUCCESS) {
        free(p);
        return r;
    }
    *out = p;
    return HIPRTC_SUCCESS;
}

/* The architecture to build for: HIP_ON_CUDA_SM (e.g. "90") if set, else
 * the current GPU; a GPU this NVRTC cannot target gets PTX for the newest
 * architecture it can, for the driver to finish. */
static int pick_arch(char *arch, size_t n, int *is_ptx, struct hoc_log *log)
{
    int major = 0, minor = 0, sm;
    const char *env = getenv("HIP_ON_CUDA_SM");
    if (env && *env) {
        sm = atoi(env);
    } else if (hoc_device_cc(&major, &minor) == 0) {
        sm = major * 10 + minor;
    } else {
        hoc_log_append(log, "hip_on_cuda: no GPU to compile for (set HIP_ON_CUDA_SM)");
        return -1;
    }
    *is_ptx = 0;
    int count = 0, best = 0, exact = 0;
    if (nv.NumArchs && nv.Archs && nv.NumArchs(&count) == 0 && count > 0 && count < 256) {
        int archs[256];
        nv.Archs(archs);
        for (int i = 0; i < count; ++i) {
            if (archs[i] == sm)
                exact = 1;
            if (archs[i] <= sm && archs[i] > best)
                best = archs[i];
        }
        if (!exact && best) {
            *is_ptx = 1;
            hoc_log_append(log, "hip_on_cuda: NVRTC cannot target sm_%d; emitting PTX for compute_%d", sm, best);
            snprintf(arch, n, "compute_%d", best);
            return 0;
        }
    }
    snprintf(arch, n, "sm_%d", sm);
    return 0;
}

static void add_include_dirs(struct hoc_opts *o)
{
    static const char *const fixed[] = {"/usr/local/cuda/include", "/usr/local/cuda/include/cccl"};
    const char *env = getenv("HIP_ON_CUDA_INCLUDE_PATH");
    char buf[4096];
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        int added = 0; /* hoc_translate_options reserved room for 64 extra */
        for (char *d = strtok_r(copy, ":", &save); d && added < 48; d = strtok_r(NULL, ":", &save)) {
            snprintf(buf, sizeof buf, "--include-path=%s", d);
            o->argv[o->argc++] = strdup(buf);
            ++added;
        }
        free(copy);
    }
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; ++i) {
        if (access(fixed[i], R_OK) == 0) {
            snprintf(buf, sizeof buf, "--include-path=%s", fixed[i]);
            o->argv[o->argc++] = strdup(buf);
        }
    }
}

static void append_nvrtc_log(struct hoc_program *p)
{
    size_t n = 0;
    if (nv.LogSize(p->prog, &n) != 0 || n <= 1)
        return;
    char *buf = malloc(n);
    if (buf && nv.Log(p->prog, buf) == 0)
        hoc_log_append(&p->log, "%s", buf);
    free(buf);
}

HOC_API hiprtcResult hiprtcCompileProgram(struct hoc_program *p, int n, const char *const *options)
{
    if (!p)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (n < 0 || (n && !options))
        return HIPRTC_ERROR_INVALID_INPUT;
    struct hoc_opts o = {0};
    int t = hoc_translate_options(n, options, &o, &p->log);
    if (t != 0) {
        hoc_free_options(&o);
        return t < 0 ? HIPRTC_ERROR_OUT_OF_MEMORY : HIPRTC_ERROR_INVALID_OPTION;
    }
    char arch[64];
    if (o.arch_given) {
        snprintf(arch, sizeof arch, "%s", o.arch);
        p->is_ptx = strncmp(arch, "compute_", 8) == 0;
    } else if (pick_arch(arch, sizeof arch, &p->is_ptx, &p->log) != 0) {
        hoc_free_options(&o);
        return HIPRTC_ERROR_COMPILATION;
    }
    char archopt[96];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=%s", arch);
    o.argv[o.argc++] = strdup(archopt);
    add_include_dirs(&o);
    hiprtcResult r = from_nv(nv.Compile(p->prog, o.argc, (const char *const *)o.argv));
    append_nvrtc_log(p);
    hoc_free_options(&o);
    p->compiled = (r == HIPRTC_SUCCESS);
    return r;
}

HOC_API hiprtcResult hiprtcGetProgramLogSize(struct hoc_program *p, size_t *size)
{
    if (!p)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!size)
        return HIPRTC_ERROR_INVALID_INPUT;
    *size = p->log.len + 1;
    return HIPRTC_SUCCESS;
}

HOC_API hiprtcResult hiprtcGetProgramLog(struct hoc_program *p, char *log)
{
    if (!p)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!log)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (p->log.len)
        memcpy(log, p->log.text, p->log.len);
    log[p->log.len] = '\0';
    return HIPRTC_SUCCESS;
}

HOC_API hiprtcResult hiprtcGetCodeSize(struct hoc_program *p, size_t *size)
{
    if (!p || !p->compiled)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!size)
        return HIPRTC_ERROR_INVALID_INPUT;
    return from_nv(p->is_ptx ? nv.PtxSize(p->prog, size) : nv.CubinSize(p->prog, size));
}

HOC_API hiprtcResult hiprtcGetCode(struct hoc_program *p, char *code)
{
    if (!p || !p->compiled)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!code)
        return HIPRTC_ERROR_INVALID_INPUT;
    return from_nv(p->is_ptx ? nv.Ptx(p->prog, code) : nv.Cubin(p->prog, code));
}

/* LLVM bitcode has no NVRTC counterpart the shim offers. */
HOC_API hiprtcResult hiprtcGetBitcodeSize(struct hoc_program *p, size_t *size)
{
    (void)p;
    (void)size;
    return HIPRTC_ERROR_INVALID_PROGRAM;
}

HOC_API hiprtcResult hiprtcGetBitcode(struct hoc_program *p, char *code)
{
    (void)p;
    (void)code;
    return HIPRTC_ERROR_INVALID_PROGRAM;
}

HOC_API hiprtcResult hiprtcAddNameExpression(struct hoc_program *p, const char *expr)
{
    if (!p)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!expr)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (!nv.AddName)
        return HIPRTC_ERROR_INTERNAL_ERROR;
    return from_nv(nv.AddName(p->prog, expr));
}

HOC_API hiprtcResult hiprtcGetLoweredName(struct hoc_program *p, const char *expr, const char **lowered)
{
    if (!p)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    if (!expr || !lowered)
        return HIPRTC_ERROR_INVALID_INPUT;
    if (!nv.Lowered)
        return HIPRTC_ERROR_INTERNAL_ERROR;
    return from_nv(nv.Lowered(p->prog, expr, lowered));
}

HOC_API hiprtcResult hiprtcDestroyProgram(struct hoc_program **pp)
{
    if (!pp || !*pp)
        return HIPRTC_ERROR_INVALID_PROGRAM;
    struct hoc_program *p = *pp;
    nv.Destroy(&p->prog);
    free(p->log.text);
    free(p);
    *pp = NULL;
    return HIPRTC_SUCCESS;
}

/* Not part of hipRTC: why NVRTC could not be loaded, for diagnostics. */
HOC_API const char *hiprtcOnCudaLoadError(void)
{
    nvrtc_ready();
    return g_why;
}
