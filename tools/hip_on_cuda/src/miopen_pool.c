/*
 * hip_on_cuda: MIOpen pooling (forward, inference: do_backward = 0) on
 * cuDNN.  miopenPoolingAverage excludes padding from the divisor,
 * miopenPoolingAverageInclusive includes it, matching cuDNN's two average
 * modes.  The index workspace MIOpen fills for a later backward pass is not
 * produced, so do_backward = 1 is refused as not implemented.
 */
#include <stdlib.h>
#include <string.h>

#include "miopen_internal.h"

HOC_API miopenStatus_t miopenCreatePoolingDescriptor(struct hoc_pool **out)
{
    if (!out)
        return miopenStatusBadParm;
    *out = calloc(1, sizeof **out);
    return *out ? miopenStatusSuccess : miopenStatusAllocFailed;
}

HOC_API miopenStatus_t miopenDestroyPoolingDescriptor(struct hoc_pool *p)
{
    free(p);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetNdPoolingDescriptor(struct hoc_pool *p, int mode, int nd,
                                                    int *window, int *pad, int *stride)
{
    if (!p || !window || !pad || !stride || nd < 1 || nd > 3 || mode < 0 || mode > 2)
        return miopenStatusBadParm;
    for (int i = 0; i < nd; ++i)
        if (window[i] < 1 || pad[i] < 0 || stride[i] < 1)
            return miopenStatusBadParm;
    p->mode = mode;
    p->nd = nd;
    memcpy(p->window, window, sizeof(int) * (size_t)nd);
    memcpy(p->pad, pad, sizeof(int) * (size_t)nd);
    memcpy(p->stride, stride, sizeof(int) * (size_t)nd);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSet2dPoolingDescriptor(struct hoc_pool *p, int mode, int wh, int ww,
                                                    int ph, int pw, int sh, int sw)
{
    int window[2] = {wh, ww}, pad[2] = {ph, pw}, stride[2] = {sh, sw};
    return miopenSetNdPoolingDescriptor(p, mode, 2, window, pad, stride);
}

HOC_API miopenStatus_t miopenSetPoolingIndexType(struct hoc_pool *p, int type)
{
    if (!p || type < 0 || type > 3)
        return miopenStatusBadParm;
    p->index_type = type;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetPoolingWorkSpaceIndexMode(struct hoc_pool *p, int mode)
{
    if (!p || mode < 0 || mode > 1)
        return miopenStatusBadParm;
    p->index_mode = mode;
    return miopenStatusSuccess;
}

static miopenStatus_t pool_out(const struct hoc_pool *p, const struct hoc_tensor *x, int *dims)
{
    if (!p || !x || x->nd != p->nd + 2)
        return miopenStatusBadParm;
    dims[0] = x->dims[0];
    dims[1] = x->dims[1];
    for (int i = 0; i < p->nd; ++i) {
        dims[i + 2] = (x->dims[i + 2] + 2 * p->pad[i] - p->window[i]) / p->stride[i] + 1;
        if (dims[i + 2] <= 0)
            return miopenStatusBadParm;
    }
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenGetPoolingNdForwardOutputDim(struct hoc_pool *p, struct hoc_tensor *x,
                                                          int nd, int *dims)
{
    int out[HOC_MAX_DIMS];
    if (!dims || !x || nd != x->nd)
        return miopenStatusBadParm;
    miopenStatus_t s = pool_out(p, x, out);
    if (!s)
        memcpy(dims, out, sizeof(int) * (size_t)nd);
    return s;
}

HOC_API miopenStatus_t miopenGetPoolingForwardOutputDim(struct hoc_pool *p, struct hoc_tensor *x,
                                                        int *n, int *c, int *h, int *w)
{
    int out[HOC_MAX_DIMS];
    if (!p || p->nd != 2)
        return miopenStatusBadParm;
    miopenStatus_t s = pool_out(p, x, out);
    if (s)
        return s;
    if (n) *n = out[0];
    if (c) *c = out[1];
    if (h) *h = out[2];
    if (w) *w = out[3];
    return miopenStatusSuccess;
}

static size_t elements(const struct hoc_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->nd; ++i)
        n *= (size_t)t->dims[i];
    return n;
}

/* Size of the max-pooling index workspace a backward pass would use. */
HOC_API miopenStatus_t miopenPoolingGetWorkSpaceSizeV2(struct hoc_pool *p, struct hoc_tensor *y,
                                                       size_t *size)
{
    static const size_t index_bytes[] = {1, 2, 4, 8};
    if (!p || !y || !size)
        return miopenStatusBadParm;
    *size = p->mode == miopenPoolingMax ? elements(y) * index_bytes[p->index_type] : 0;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenPoolingGetWorkSpaceSize(struct hoc_tensor *y, size_t *size)
{
    if (!y || !size)
        return miopenStatusBadParm;
    *size = elements(y); /* MIOpen assumes uint8 indices here */
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenPoolingForward(struct hoc_miopen_handle *h, struct hoc_pool *p,
                                            const void *alpha, struct hoc_tensor *xd, const void *x,
                                            const void *beta, struct hoc_tensor *yd, void *y,
                                            bool do_backward, void *ws, size_t ws_size)
{
    (void)ws;
    (void)ws_size;
    if (!h || !p || !xd || !yd || xd->nd != p->nd + 2 || xd->dtype != yd->dtype)
        return miopenStatusBadParm;
    if (do_backward)
        return miopenStatusNotImplemented;
    miopenStatus_t s = hoc_dnn_ready();
    if (s)
        return s;
    if (hoc_ctx() != 0)
        return miopenStatusNotInitialized;
    int nd = p->nd < 2 ? 2 : p->nd, off = nd - p->nd;
    int window[HOC_MAX_DIMS], pad[HOC_MAX_DIMS], stride[HOC_MAX_DIMS];
    for (int i = 0; i < nd; ++i) {
        int k = i - off;
        window[i] = k < 0 ? 1 : p->window[k];
        pad[i] = k < 0 ? 0 : p->pad[k];
        stride[i] = k < 0 ? 1 : p->stride[k];
    }
    /* MIOpen mode -> cudnnPoolingMode_t: MAX(0), AVG include pad(1), AVG exclude pad(2) */
    static const int mode_map[] = {0, 2, 1};
    void *xt = NULL, *yt = NULL, *pd = NULL;
    if (!(s = hoc_make_tensor(xd, nd + 2, &xt)) && !(s = hoc_make_tensor(yd, nd + 2, &yt)) &&
        !(s = hoc_from_cudnn(hoc_dnn.CreatePool(&pd))))
        s = hoc_from_cudnn(hoc_dnn.SetPoolNd(pd, mode_map[p->mode], 1 /* CUDNN_PROPAGATE_NAN */, nd,
                                             window, pad, stride));
    if (!s) {
        double buf[2];
        const void *a, *b;
        hoc_scale(xd->dtype, alpha, beta, buf, &a, &b);
        s = hoc_from_cudnn(hoc_dnn.PoolFwd(h->cudnn, pd, a, xt, x, b, yt, y));
    }
    if (xt) hoc_dnn.DestroyTensor(xt);
    if (yt) hoc_dnn.DestroyTensor(yt);
    if (pd) hoc_dnn.DestroyPool(pd);
    return s;
}
