/* hip_on_cuda: pieces shared by the hipRTC sources. */
#ifndef HOC_HIPRTC_INTERNAL_H
#define HOC_HIPRTC_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>

struct hoc_log {
    char *text;
    size_t len;
};

struct hoc_opts {
    char **argv;
    int argc;
    int arch_given;
    char arch[64]; /* sm_XY or compute_XY when the caller named one */
};

void hoc_log_append(struct hoc_log *log, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* 0: translated; 1: an unsupported option (explained in log); -1: no memory. */
int hoc_translate_options(int n, const char *const *in, struct hoc_opts *o, struct hoc_log *log);
void hoc_free_options(struct hoc_opts *o);

#endif
