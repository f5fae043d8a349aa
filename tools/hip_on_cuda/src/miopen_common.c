/*
 * hip_on_cuda: MIOpen handles and tensor descriptors, cuDNN loading and
 * status translation.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "miopen_internal.h"

struct hoc_cudnn_api hoc_dnn;
void *hoc_dnn_lib;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static char g_why[2048];
static int g_loaded;

static void load_cudnn(void)
{
    static const char *const versions[] = {"9", "8", NULL};
    void *lib = hoc_open_library("libcudnn.so", versions, g_why, sizeof g_why);
    if (!lib)
        return;
    hoc_dnn_lib = lib;
#define LOAD(field, sym) hoc_dnn.field = (hoc_fn)hoc_symbol(lib, sym);
    HOC_CUDNN_FUNCS(LOAD)
#undef LOAD
    g_loaded = hoc_dnn.GetVersion && hoc_dnn.Create && hoc_dnn.SetTensorNd && hoc_dnn.ConvFwd;
}

miopenStatus_t hoc_dnn_ready(void)
{
    pthread_once(&g_once, load_cudnn);
    return g_loaded ? miopenStatusSuccess : miopenStatusNotInitialized;
}

/* cuDNN 9 groups its statuses by thousands (1xxx not initialised, 2xxx bad
 * parameter, 3xxx not supported, 4xxx internal, 5xxx execution); cuDNN 8
 * used small numbers.  Both fold onto MIOpen's statuses. */
miopenStatus_t hoc_from_cudnn(int s)
{
    if (s == 0)
        return miopenStatusSuccess;
    if (s >= 1000) {
        switch (s / 1000) {
        case 1: return miopenStatusNotInitialized;
        case 2: return miopenStatusBadParm;
        case 3: return miopenStatusNotImplemented;
        case 4: return (s == 4001 || s == 4002) ? miopenStatusAllocFailed : miopenStatusInternalError;
        default: return miopenStatusUnknownError;
        }
    }
    switch (s) {
    case 1: return miopenStatusNotInitialized;
    case 2: return miopenStatusAllocFailed;
    case 3: return miopenStatusBadParm;
    case 5: return miopenStatusInvalidValue;
    case 9: return miopenStatusNotImplemented;
    case 4: return miopenStatusInternalError;
    default: return miopenStatusUnknownError;
    }
}

int hoc_cudnn_dtype(int t)
{
    switch (t) {
    case miopenFloat: return 0;    /* CUDNN_DATA_FLOAT */
    case miopenDouble: return 1;   /* CUDNN_DATA_DOUBLE */
    case miopenHalf: return 2;     /* CUDNN_DATA_HALF */
    case miopenBFloat16: return 9; /* CUDNN_DATA_BFLOAT16 */
    default: return -1;            /* int8/int32 convolutions are not forwarded */
    }
}

/* Dimensions padded to min_nd by inserting 1s after the channel axis. */
void hoc_pad_dims(const struct hoc_tensor *t, int min_nd, int *nd, int *dims, int *strides)
{
    int extra = t->nd < min_nd ? min_nd - t->nd : 0;
    *nd = t->nd + extra;
    for (int i = 0, j = 0; i < *nd; ++i) {
        if (i >= 2 && i < 2 + extra) {
            dims[i] = 1;
            strides[i] = t->strides[2] * t->dims[2];
        } else {
            dims[i] = t->dims[j];
            strides[i] = t->strides[j];
            ++j;
        }
    }
}

miopenStatus_t hoc_make_tensor(const struct hoc_tensor *t, int min_nd, void **out)
{
    int nd, dims[HOC_MAX_DIMS], strides[HOC_MAX_DIMS], dt = hoc_cudnn_dtype(t->dtype);
    if (dt < 0)
        return miopenStatusNotImplemented;
    if (t->nd < 3)
        return miopenStatusBadParm;
    hoc_pad_dims(t, min_nd, &nd, dims, strides);
    miopenStatus_t s = hoc_from_cudnn(hoc_dnn.CreateTensor(out));
    if (!s)
        s = hoc_from_cudnn(hoc_dnn.SetTensorNd(*out, dt, nd, dims, strides));
    return s;
}

/* Is t packed in this axis order (outermost first)? Size-1 axes may have any stride. */
static int packed_in_order(const struct hoc_tensor *t, const int *order)
{
    long expect = 1;
    for (int k = t->nd - 1; k >= 0; --k) {
        int i = order[k];
        if (t->dims[i] != 1 && t->strides[i] != expect)
            return 0;
        expect *= t->dims[i];
    }
    return 1;
}

/* cuDNN filters carry a format, not strides: MIOpen weights must be packed, either
 * NCHW (K, C, R, S) or channels-last (K, R, S, C), which MIOpen describes with the
 * strides of a (K, C, R, S) tensor and cuDNN with CUDNN_TENSOR_NHWC. */
miopenStatus_t hoc_make_filter(const struct hoc_tensor *t, int min_nd, void **out)
{
    int nd, dims[HOC_MAX_DIMS], strides[HOC_MAX_DIMS], dt = hoc_cudnn_dtype(t->dtype);
    if (dt < 0)
        return miopenStatusNotImplemented;
    if (t->nd < 3 || t->nd > HOC_MAX_DIMS)
        return miopenStatusBadParm;
    int nchw[HOC_MAX_DIMS], nhwc[HOC_MAX_DIMS];
    for (int i = 0; i < t->nd; ++i)
        nchw[i] = i;
    nhwc[0] = 0;
    for (int i = 2; i < t->nd; ++i)
        nhwc[i - 1] = i;
    nhwc[t->nd - 1] = 1;
    int format;
    if (packed_in_order(t, nchw))
        format = 0; /* CUDNN_TENSOR_NCHW */
    else if (packed_in_order(t, nhwc))
        format = 1; /* CUDNN_TENSOR_NHWC */
    else
        return miopenStatusNotImplemented;
    hoc_pad_dims(t, min_nd, &nd, dims, strides);
    miopenStatus_t s = hoc_from_cudnn(hoc_dnn.CreateFilter(out));
    if (!s)
        s = hoc_from_cudnn(hoc_dnn.SetFilterNd(*out, dt, format, nd, dims));
    return s;
}

void hoc_scale(int dtype, const void *alpha, const void *beta, double buf[2], const void **a,
               const void **b)
{
    static const float one = 1.0f, zero = 0.0f;
    const float *fa = alpha ? alpha : &one, *fb = beta ? beta : &zero;
    if (dtype == miopenDouble) {
        buf[0] = *fa;
        buf[1] = *fb;
        *a = &buf[0];
        *b = &buf[1];
    } else {
        *a = fa;
        *b = fb;
    }
}

/* ---- handle ---------------------------------------------------------- */

HOC_API miopenStatus_t miopenCreateWithStream(struct hoc_miopen_handle **out, CUstream stream)
{
    if (!out)
        return miopenStatusBadParm;
    if (hoc_dnn_ready() || hoc_ctx() != 0)
        return miopenStatusNotInitialized;
    struct hoc_miopen_handle *h = calloc(1, sizeof *h);
    if (!h)
        return miopenStatusAllocFailed;
    miopenStatus_t s = hoc_from_cudnn(hoc_dnn.Create(&h->cudnn));
    if (!s && stream)
        s = hoc_from_cudnn(hoc_dnn.SetStream(h->cudnn, stream));
    if (s) {
        free(h);
        return s;
    }
    h->stream = stream;
    *out = h;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenCreate(struct hoc_miopen_handle **out)
{
    return miopenCreateWithStream(out, NULL);
}

HOC_API miopenStatus_t miopenDestroy(struct hoc_miopen_handle *h)
{
    if (!h)
        return miopenStatusBadParm;
    hoc_graph_forget_handle(h->cudnn);
    hoc_dnn.Destroy(h->cudnn);
    free(h);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetStream(struct hoc_miopen_handle *h, CUstream stream)
{
    if (!h)
        return miopenStatusBadParm;
    miopenStatus_t s = hoc_from_cudnn(hoc_dnn.SetStream(h->cudnn, stream));
    if (!s)
        h->stream = stream;
    return s;
}

HOC_API miopenStatus_t miopenGetStream(struct hoc_miopen_handle *h, CUstream *stream)
{
    if (!h || !stream)
        return miopenStatusBadParm;
    *stream = h->stream;
    return miopenStatusSuccess;
}

/* The MIOpen API level the shim emulates, not cuDNN's version. */
HOC_API miopenStatus_t miopenGetVersion(size_t *major, size_t *minor, size_t *patch)
{
    if (major) *major = 3;
    if (minor) *minor = 0;
    if (patch) *patch = 0;
    return miopenStatusSuccess;
}

HOC_API const char *miopenGetErrorString(miopenStatus_t s)
{
    static const char *const names[] = {
        "miopenStatusSuccess", "miopenStatusNotInitialized", "miopenStatusInvalidValue",
        "miopenStatusBadParm", "miopenStatusAllocFailed", "miopenStatusInternalError",
        "miopenStatusNotImplemented", "miopenStatusUnknownError", "miopenStatusUnsupportedOp",
        "miopenStatusGpuOperationsSkipped", "miopenStatusVersionMismatch",
    };
    return (s >= 0 && s <= 10) ? names[s] : "Unknown miopen error number";
}

/* ---- tensor descriptors ----------------------------------------------- */

HOC_API miopenStatus_t miopenCreateTensorDescriptor(struct hoc_tensor **out)
{
    if (!out)
        return miopenStatusBadParm;
    *out = calloc(1, sizeof **out);
    return *out ? miopenStatusSuccess : miopenStatusAllocFailed;
}

HOC_API miopenStatus_t miopenDestroyTensorDescriptor(struct hoc_tensor *t)
{
    free(t);
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSetTensorDescriptor(struct hoc_tensor *t, int dtype, int nd,
                                                 const int *dims, const int *strides)
{
    if (!t || !dims || nd < 1 || nd > HOC_MAX_DIMS)
        return miopenStatusBadParm;
    t->dtype = dtype;
    t->nd = nd;
    long packed = 1;
    for (int i = nd - 1; i >= 0; --i) {
        if (dims[i] < 0 || (strides && strides[i] < 0))
            return miopenStatusBadParm;
        t->dims[i] = dims[i];
        t->strides[i] = strides ? strides[i] : (int)packed;
        packed *= dims[i];
    }
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenSet4dTensorDescriptorEx(struct hoc_tensor *t, int dtype, int n, int c,
                                                     int h, int w, int ns, int cs, int hs, int ws)
{
    int dims[4] = {n, c, h, w}, strides[4] = {ns, cs, hs, ws};
    return miopenSetTensorDescriptor(t, dtype, 4, dims, strides);
}

HOC_API miopenStatus_t miopenSet4dTensorDescriptor(struct hoc_tensor *t, int dtype, int n, int c,
                                                   int h, int w)
{
    int dims[4] = {n, c, h, w};
    return miopenSetTensorDescriptor(t, dtype, 4, dims, NULL);
}

HOC_API miopenStatus_t miopenGetTensorDescriptorSize(struct hoc_tensor *t, int *size)
{
    if (!t || !size)
        return miopenStatusBadParm;
    *size = t->nd;
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenGetTensorDescriptor(struct hoc_tensor *t, int *dtype, int *dims,
                                                 int *strides)
{
    if (!t)
        return miopenStatusBadParm;
    if (dtype)
        *dtype = t->dtype;
    for (int i = 0; i < t->nd; ++i) {
        if (dims)
            dims[i] = t->dims[i];
        if (strides)
            strides[i] = t->strides[i];
    }
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenGet4dTensorDescriptor(struct hoc_tensor *t, int *dtype, int *n, int *c,
                                                   int *h, int *w, int *ns, int *cs, int *hs, int *ws)
{
    if (!t || t->nd != 4)
        return miopenStatusBadParm;
    int *d[4] = {n, c, h, w}, *s[4] = {ns, cs, hs, ws};
    if (dtype)
        *dtype = t->dtype;
    for (int i = 0; i < 4; ++i) {
        if (d[i])
            *d[i] = t->dims[i];
        if (s[i])
            *s[i] = t->strides[i];
    }
    return miopenStatusSuccess;
}

HOC_API miopenStatus_t miopenGetTensorNumBytes(struct hoc_tensor *t, size_t *bytes)
{
    static const int size_of[] = {2, 4, 4, 1, 0, 2, 8};
    if (!t || !bytes || t->dtype < 0 || t->dtype > 6 || t->dtype == 4)
        return miopenStatusBadParm;
    size_t span = 1;
    for (int i = 0; i < t->nd; ++i) {
        if (t->dims[i] == 0) {
            *bytes = 0;
            return miopenStatusSuccess;
        }
        span += (size_t)(t->dims[i] - 1) * (size_t)t->strides[i];
    }
    *bytes = span * (size_t)size_of[t->dtype];
    return miopenStatusSuccess;
}

/* Not part of MIOpen: why cuDNN could not be loaded, for diagnostics. */
HOC_API const char *miopenOnCudaLoadError(void)
{
    hoc_dnn_ready();
    return g_why;
}
