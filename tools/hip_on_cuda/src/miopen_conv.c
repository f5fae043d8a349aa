/*
 * hip_on_cuda: MIOpen convolution descriptors, output shapes, Find and
 * Forward, on cuDNN.  Forward convolution (cross-correlation, grouped,
 * depthwise) runs as a cached cuDNN graph-API execution plan when Find made
 * one (miopen_graph.c), else as legacy cudnnConvolutionForward;
 * miopenTranspose runs as cuDNN's backward-data convolution, which is what a
 * transposed convolution is.  f32 and f64 are computed with plain FMA math
 * (no TF32), as MIOpen computes them.
 */
#include <stdlib.h>
#include <string.h>

#include "miopen_internal.h"

HOC_API miopenStatus_t miopenCreateConvolutionDescriptor(struct hoc_conv **out)
{
    if (!out)
        return miopenStatusBadParm;
    struct hoc_conv *c = calloc(1, sizeof *c);
    if (!c)
        return miopenStatusAllocFailed;
    c->groups = 1;
    for (int i = 0; i < 8; ++i)
        c->chosen_fwd[i] = -1;
    *out = c;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenDestroyConvolutionDescriptor(struct hoc_conv *c)
{
    free(c);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenInitConvolutionNdDescriptor(struct hoc_conv *c, int spatial, int *pad,
                                                         int *stride, int *dilation, int mode)
{
    if (!c || !pad || !stride || !dilation || spatial < 1 || spatial > 3 || mode < 0 || mode > 3)
        return miopenStatusBadParm;
    for (int i = 0; i < spatial; ++i)
        if (pad[i] < 0 || stride[i] < 1 || dilation[i] < 1)
            return miopenStatusBadParm;
    c->mode = mode;
    c->spatial = spatial;
    memcpy(c->pad, pad, sizeof(int) * (size_t)spatial);
    memcpy(c->stride, stride, sizeof(int) * (size_t)spatial);
    memcpy(c->dilation, dilation, sizeof(int) * (size_t)spatial);
    memset(c->adj, 0, sizeof c->adj);
    for (int i = 0; i < 8; ++i)
        c->chosen_fwd[i] = -1;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenInitConvolutionDescriptor(struct hoc_conv *c, int mode, int pad_h,
                                                       int pad_w, int stride_h, int stride_w,
                                                       int dil_h, int dil_w)
{
    int pad[2] = {pad_h, pad_w}, stride[2] = {stride_h, stride_w}, dil[2] = {dil_h, dil_w};
    return miopenInitConvolutionNdDescriptor(c, 2, pad, stride, dil, mode);
}

HOC_API miopenStatus_t miopenSetConvolutionGroupCount(struct hoc_conv *c, int groups)
{
    if (!c || groups < 1)
        return miopenStatusBadParm;
    c->groups = groups;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetTransposeConvNdOutputPadding(struct hoc_conv *c, int spatial, int *adj)
{
    if (!c || !adj || spatial != c->spatial)
        return miopenStatusBadParm;
    memcpy(c->adj, adj, sizeof(int) * (size_t)spatial);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetTransposeConvOutputPadding(struct hoc_conv *c, int adj_h, int adj_w)
{
    int adj[2] = {adj_h, adj_w};
    return miopenSetTransposeConvNdOutputPadding(c, 2, adj);
}

/* Output lengths of a forward convolution (either mode). */
static miopenStatus_t out_dims(const struct hoc_conv *c, const struct hoc_tensor *x,
                               const struct hoc_tensor *w, int *nd, int *dims)
{
    if (!c || !x || !w || x->nd != c->spatial + 2 || w->nd != x->nd)
        return miopenStatusBadParm;
    int g = c->groups;
    dims[0] = x->dims[0];
    if (c->mode == miopenTranspose) {
        if (x->dims[1] != w->dims[0])
            return miopenStatusBadParm;
        dims[1] = w->dims[1] * g;
    } else {
        if (x->dims[1] != w->dims[1] * g || w->dims[0] % g)
            return miopenStatusBadParm;
        dims[1] = w->dims[0];
    }
    for (int i = 0; i < c->spatial; ++i) {
        int in = x->dims[i + 2], k = w->dims[i + 2];
        int span = c->dilation[i] * (k - 1) + 1;
        if (c->mode == miopenTranspose)
            dims[i + 2] = c->stride[i] * (in - 1) + span - 2 * c->pad[i] + c->adj[i];
        else
            dims[i + 2] = (in + 2 * c->pad[i] - span) / c->stride[i] + 1;
        if (dims[i + 2] <= 0)
            return miopenStatusBadParm;
    }
    *nd = x->nd;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenGetConvolutionNdForwardOutputDim(struct hoc_conv *c, struct hoc_tensor *x,
                                                              struct hoc_tensor *w, int *nd, int *dims)
{
    if (!nd || !dims)
        return miopenStatusBadParm;
    return out_dims(c, x, w, nd, dims);
}

HOC_API miopenStatus_t miopenGetConvolutionForwardOutputDim(struct hoc_conv *c, struct hoc_tensor *x,
                                                            struct hoc_tensor *w, int *n, int *ch,
                                                            int *h, int *wd)
{
    int nd, dims[HOC_MAX_DIMS];
    if (!c || c->spatial != 2)
        return miopenStatusBadParm;
    miopenStatus_t s = out_dims(c, x, w, &nd, dims);
    if (s)
        return s;
    if (n) *n = dims[0];
    if (ch) *ch = dims[1];
    if (h) *h = dims[2];
    if (wd) *wd = dims[3];
    return miopenStatusSuccess;
}

/* The cuDNN objects for one call. */
struct job {
    void *x, *w, *y, *conv;
    int transpose;
};

static void release(struct job *j)
{
    if (j->x) hoc_dnn.DestroyTensor(j->x);
    if (j->y) hoc_dnn.DestroyTensor(j->y);
    if (j->w) hoc_dnn.DestroyFilter(j->w);
    if (j->conv) hoc_dnn.DestroyConv(j->conv);
}

static miopenStatus_t prepare(struct hoc_conv *c, struct hoc_tensor *x, struct hoc_tensor *w,
                              struct hoc_tensor *y, struct job *j)
{
    memset(j, 0, sizeof *j);
    miopenStatus_t s = hoc_dnn_ready();
    if (s)
        return s;
    if (hoc_ctx() != 0)
        return miopenStatusNotInitialized;
    if (!c || !x || !w || !y || x->nd != c->spatial + 2)
        return miopenStatusBadParm;
    if (x->dtype != w->dtype || x->dtype != y->dtype)
        return miopenStatusBadParm;
    if (c->mode != miopenConvolution && c->mode != miopenTranspose && c->mode != miopenGroupConv &&
        c->mode != miopenDepthwise)
        return miopenStatusNotImplemented;
    j->transpose = c->mode == miopenTranspose;
    int nd = c->spatial < 2 ? 4 : c->spatial + 2, off = nd - 2 - c->spatial;
    int pad[HOC_MAX_DIMS], stride[HOC_MAX_DIMS], dil[HOC_MAX_DIMS];
    for (int i = 0; i < nd - 2; ++i) {
        int k = i - off;
        pad[i] = k < 0 ? 0 : c->pad[k];
        stride[i] = k < 0 ? 1 : c->stride[k];
        dil[i] = k < 0 ? 1 : c->dilation[k];
    }
    int compute = x->dtype == miopenDouble ? 1 : 0; /* f16/bf16 accumulate in f32 */
    /* f32/f64: FMA math, no TF32 (as MIOpen computes them); f16/bf16: tensor cores with
     * f32 accumulation (MIOpen uses the matrix cores for them) */
    int math = (x->dtype == miopenFloat || x->dtype == miopenDouble) ? 3 /* FMA */
                                                                     : 1 /* TENSOR_OP */;
    if (!(s = hoc_make_tensor(x, 4, &j->x)) && !(s = hoc_make_tensor(y, 4, &j->y)) &&
        !(s = hoc_make_filter(w, 4, &j->w)) && !(s = hoc_from_cudnn(hoc_dnn.CreateConv(&j->conv))))
        s = hoc_from_cudnn(hoc_dnn.SetConvNd(j->conv, nd - 2, pad, stride, dil,
                                             1 /* CUDNN_CROSS_CORRELATION */, compute));
    if (!s)
        s = hoc_from_cudnn(hoc_dnn.SetConvGroups(j->conv, c->groups));
    if (!s && hoc_dnn.SetConvMath)
        s = hoc_from_cudnn(hoc_dnn.SetConvMath(j->conv, math));
    if (s)
        release(j);
    return s;
}

/* cuDNN forward algorithm -> miopenConvFwdAlgorithm_t */
static int to_miopen_algo(int cudnn_algo, int transpose)
{
    static const int fwd[] = {5, 5, 0, 1, 2, 2, 3, 3}; /* implicit gemm x2, gemm, direct, fft x2, winograd x2 */
    static const int bwd[] = {0, 0, 2, 2, 3, 3};       /* algo0/1, fft x2, winograd x2 */
    if (transpose)
        return (cudnn_algo >= 0 && cudnn_algo < 6) ? bwd[cudnn_algo] : 0;
    return (cudnn_algo >= 0 && cudnn_algo < 8) ? fwd[cudnn_algo] : 0;
}

HOC_API miopenStatus_t miopenConvolutionForwardGetWorkSpaceSize(struct hoc_miopen_handle *h,
                                                                struct hoc_tensor *w,
                                                                struct hoc_tensor *x,
                                                                struct hoc_conv *c,
                                                                struct hoc_tensor *y, size_t *size)
{
    struct job j;
    if (!h || !size)
        return miopenStatusBadParm;
    miopenStatus_t s = prepare(c, x, w, y, &j);
    if (s)
        return s;
    size_t most = 0;
    int n_algos = j.transpose ? 6 : 8;
    for (int a = 0; a < n_algos; ++a) {
        size_t need = 0;
        int r = j.transpose ? hoc_dnn.BwdDataWorkspace(h->cudnn, j.w, j.x, j.conv, j.y, a, &need)
                            : hoc_dnn.FwdWorkspace(h->cudnn, j.x, j.w, j.conv, j.y, a, &need);
        if (r == 0 && need > most && need <= ((size_t)1 << 30))
            most = need;
    }
    release(&j);
    if (!j.transpose) { /* the plans Find may pick on cuDNN's graph API (miopen_graph.c) */
        size_t graph = hoc_graph_workspace(h, x, w, c, y);
        most = graph > most ? graph : most;
    }
    *size = most;
    return miopenStatusSuccess;
}

/* miopenConvAlgoPerf_t: {union {algo enums}; float time; size_t memory;} */
struct miopen_perf {
    int algo;
    float time;
    size_t memory;
};
/* cudnnConvolutionFwdAlgoPerf_t / BwdDataAlgoPerf_t (same layout). */
struct cudnn_perf {
    int algo, status;
    float time;
    size_t memory;
    int determinism, math_type, reserved[3];
};

HOC_API miopenStatus_t miopenFindConvolutionForwardAlgorithm(
    struct hoc_miopen_handle *h, struct hoc_tensor *xd, const void *x, struct hoc_tensor *wd,
    const void *w, struct hoc_conv *c, struct hoc_tensor *yd, void *y, int request, int *returned,
    struct miopen_perf *perf, void *ws, size_t ws_size, bool exhaustive)
{
    (void)exhaustive;
    struct job j;
    if (!h || !returned || !perf || request < 1)
        return miopenStatusBadParm;
    miopenStatus_t s = prepare(c, xd, wd, yd, &j);
    if (s)
        return s;
    int m_algo;
    float m_ms;
    size_t m_mem;
    if (!j.transpose &&
        !hoc_graph_find(h, xd, x, wd, w, c, yd, y, ws, ws_size, &m_algo, &m_ms, &m_mem)) {
        /* a cached graph plan (miopen_graph.c); Forward runs it for this problem */
        release(&j);
        for (int i = 0; i < 8; ++i)
            c->chosen_fwd[i] = -1;
        perf[0].algo = m_algo;
        perf[0].time = m_ms;
        perf[0].memory = m_mem;
        *returned = 1;
        return miopenStatusSuccess;
    }
    struct cudnn_perf found[8];
    int count = 0;
    if (j.transpose)
        s = hoc_from_cudnn(hoc_dnn.FindBwdDataEx(h->cudnn, j.w, w, j.x, x, j.conv, j.y, y, 6, &count,
                                                 found, ws, ws_size));
    else
        s = hoc_from_cudnn(hoc_dnn.FindFwdEx(h->cudnn, j.x, x, j.w, w, j.conv, j.y, y, 8, &count,
                                             found, ws, ws_size));
    release(&j);
    if (s)
        return s;
    for (int i = 0; i < 8; ++i)
        c->chosen_fwd[i] = -1;
    int out = 0;
    for (int i = 0; i < count && out < request; ++i) { /* cuDNN sorts fastest first */
        if (found[i].status != 0)
            continue;
        int m = to_miopen_algo(found[i].algo, j.transpose);
        if (c->chosen_fwd[m] >= 0)
            continue; /* MIOpen lists each algorithm once */
        c->chosen_fwd[m] = found[i].algo;
        perf[out].algo = m;
        perf[out].time = found[i].time;
        perf[out].memory = found[i].memory;
        ++out;
    }
    *returned = out;
    return out ? miopenStatusSuccess : miopenStatusNotImplemented;
}

HOC_API miopenStatus_t miopenConvolutionForward(struct hoc_miopen_handle *h, const void *alpha,
                                                struct hoc_tensor *xd, const void *x,
                                                struct hoc_tensor *wd, const void *w,
                                                struct hoc_conv *c, int algo, const void *beta,
                                                struct hoc_tensor *yd, void *y, void *ws,
                                                size_t ws_size)
{
    struct job j;
    if (!h || algo < 0 || algo > 7)
        return miopenStatusBadParm;
    /* the plan a graph-API Find cached for this problem, if any (miopen_graph.c) */
    if (c && c->mode != miopenTranspose &&
        !hoc_graph_forward(h, alpha, xd, x, wd, w, c, beta, yd, y, ws, ws_size))
        return miopenStatusSuccess;
    hoc_graph_note_legacy();
    miopenStatus_t s = prepare(c, xd, wd, yd, &j);
    if (s)
        return s;
    /* The cuDNN algorithm Find chose for this MIOpen algorithm; without a
     * Find, implicit GEMM, which needs no workspace. */
    int cu = c->chosen_fwd[algo] >= 0 ? c->chosen_fwd[algo] : 0;
    double buf[2];
    const void *a, *b;
    hoc_scale(xd->dtype, alpha, beta, buf, &a, &b);
    if (j.transpose)
        s = hoc_from_cudnn(hoc_dnn.ConvBwdData(h->cudnn, a, j.w, w, j.x, x, j.conv, cu, ws, ws_size,
                                               b, j.y, y));
    else
        s = hoc_from_cudnn(hoc_dnn.ConvFwd(h->cudnn, a, j.x, x, j.w, w, j.conv, cu, ws, ws_size, b,
                                           j.y, y));
    release(&j);
    return s;
}
