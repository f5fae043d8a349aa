/*
 * hip_on_cuda: hipRTC (clang-style) compile options -> NVRTC options.
 * Every option is either translated, or mapped to nothing with a line in
 * the program log saying so, or refused: an option the shim does not know
 * is never dropped silently.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hiprtc_internal.h"

void hoc_log_append(struct hoc_log *log, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    char *p = realloc(log->text, log->len + (size_t)n + 2);
    if (!p)
        return;
    log->text = p;
    va_start(ap, fmt);
    vsnprintf(log->text + log->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    log->len += (size_t)n;
    log->text[log->len++] = '\n';
    log->text[log->len] = '\0';
}

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void push(struct hoc_opts *o, const char *fmt, const char *arg)
{
    char buf[4096];
    snprintf(buf, sizeof buf, fmt, arg ? arg : "");
    o->argv[o->argc++] = strdup(buf);
}

/* An architecture request: AMD targets (gfx*) mean "the GPU this runs on";
 * an sm_XY / compute_XY name is honoured as given. */
static void take_arch(struct hoc_opts *o, const char *value, struct hoc_log *log)
{
    if (starts(value, "sm_") || starts(value, "compute_")) {
        snprintf(o->arch, sizeof o->arch, "%s", value);
        o->arch_given = 1;
    } else {
        hoc_log_append(log, "hip_on_cuda: target '%s' compiled for this NVIDIA GPU instead", value);
    }
}

int hoc_translate_options(int n, const char *const *in, struct hoc_opts *o, struct hoc_log *log)
{
    o->argc = 0;
    o->arch_given = 0;
    o->argv = calloc((size_t)n * 2 + 64, sizeof(char *)) /* + arch and include dirs */;
    if (!o->argv)
        return -1;
    for (int i = 0; i < n; ++i) {
        const char *a = in[i];
        const char *next = (i + 1 < n) ? in[i + 1] : NULL;
        const char *eq = strchr(a, '=');
        if (!a[0])
            continue;
        if (starts(a, "--offload-arch=") || starts(a, "--gpu-architecture=") ||
            starts(a, "-arch=") || starts(a, "--amdgpu-target=") || starts(a, "-march=")) {
            take_arch(o, eq + 1, log);
        } else if ((!strcmp(a, "--gpu-architecture") || !strcmp(a, "-arch") ||
                    !strcmp(a, "--offload-arch")) && next) {
            take_arch(o, next, log);
            ++i;
        } else if (!strcmp(a, "-O0") || !strcmp(a, "-O1") || !strcmp(a, "-O2") ||
                   !strcmp(a, "-O3") || !strcmp(a, "-Os") || !strcmp(a, "-O")) {
            hoc_log_append(log, "hip_on_cuda: %s -> NVRTC's default (full) device optimisation", a);
        } else if (!strcmp(a, "-ffast-math") || !strcmp(a, "--use_fast_math")) {
            push(o, "--use_fast_math", NULL);
        } else if (!strcmp(a, "-fno-fast-math")) {
            hoc_log_append(log, "hip_on_cuda: %s -> NVRTC default (IEEE division and sqrt)", a);
        } else if (!strcmp(a, "-ffp-contract=fast") || !strcmp(a, "-ffp-contract=on")) {
            push(o, "--fmad=true", NULL);
        } else if (!strcmp(a, "-ffp-contract=off")) {
            push(o, "--fmad=false", NULL);
        } else if (starts(a, "-std=") || starts(a, "--std=")) {
            push(o, "--std=%s", eq + 1);
        } else if ((starts(a, "-D") || starts(a, "-U") || starts(a, "-I")) && a[2]) {
            push(o, "%s", a);
        } else if ((!strcmp(a, "-D") || !strcmp(a, "-U") || !strcmp(a, "-I")) && next) {
            char buf[4096];
            snprintf(buf, sizeof buf, "%s%s", a, next);
            push(o, "%s", buf);
            ++i;
        } else if (starts(a, "--define-macro=") || starts(a, "--undefine-macro=") ||
                   starts(a, "--include-path=") || starts(a, "--pre-include=")) {
            push(o, "%s", a);
        } else if (!strcmp(a, "-include") && next) {
            push(o, "--pre-include=%s", next);
            ++i;
        } else if (!strcmp(a, "-w")) {
            push(o, "-w", NULL);
        } else if (!strcmp(a, "-g") || !strcmp(a, "-ggdb") || !strcmp(a, "-gline-tables-only")) {
            push(o, "--generate-line-info", NULL);
        } else if (!strcmp(a, "-fgpu-rdc")) {
            push(o, "--relocatable-device-code=true", NULL);
        } else if (!strcmp(a, "-fno-gpu-rdc") || !strcmp(a, "-munsafe-fp-atomics") ||
                   !strcmp(a, "-mcumode") || !strcmp(a, "-mno-cumode") ||
                   !strcmp(a, "-Wall") || !strcmp(a, "-Wextra") || starts(a, "-Wno-") ||
                   !strcmp(a, "-save-temps") || !strcmp(a, "--save-temps") ||
                   !strcmp(a, "-fno-exceptions") || !strcmp(a, "-nogpulib")) {
            hoc_log_append(log, "hip_on_cuda: %s has no NVRTC meaning here; ignored", a);
        } else {
            hoc_log_append(log, "hip_on_cuda: unsupported hipRTC option '%s' (no NVRTC equivalent)", a);
            return 1;
        }
    }
    return 0;
}

void hoc_free_options(struct hoc_opts *o)
{
    for (int i = 0; i < o->argc; ++i)
        free(o->argv[i]);
    free(o->argv);
    o->argv = NULL;
    o->argc = 0;
}
