/*
 * hip_on_cuda: MIOpen's C ABI on top of cuDNN -- shared declarations.
 * MIOpen descriptors are the shim's own structs (MIOpen describes tensors,
 * cuDNN wants tensor / filter descriptors built at call time).
 */
#ifndef HOC_MIOPEN_INTERNAL_H
#define HOC_MIOPEN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "hoc_cuda.h"

typedef int miopenStatus_t;
enum {
    miopenStatusSuccess = 0, miopenStatusNotInitialized = 1, miopenStatusInvalidValue = 2,
    miopenStatusBadParm = 3, miopenStatusAllocFailed = 4, miopenStatusInternalError = 5,
    miopenStatusNotImplemented = 6, miopenStatusUnknownError = 7, miopenStatusUnsupportedOp = 8,
    miopenStatusGpuOperationsSkipped = 9, miopenStatusVersionMismatch = 10,
};
/* miopenDataType_t */
enum { miopenHalf = 0, miopenFloat = 1, miopenInt32 = 2, miopenInt8 = 3, miopenBFloat16 = 5,
       miopenDouble = 6 };
/* miopenConvolutionMode_t */
enum { miopenConvolution = 0, miopenTranspose = 1, miopenGroupConv = 2, miopenDepthwise = 3 };
/* miopenPoolingMode_t */
enum { miopenPoolingMax = 0, miopenPoolingAverage = 1, miopenPoolingAverageInclusive = 2 };

#define HOC_MAX_DIMS 8

struct hoc_miopen_handle {
    void *cudnn;
    CUstream stream;
};

struct hoc_tensor {
    int dtype, nd;
    int dims[HOC_MAX_DIMS];
    int strides[HOC_MAX_DIMS];
};

struct hoc_conv {
    int mode, spatial, groups;
    int pad[HOC_MAX_DIMS], stride[HOC_MAX_DIMS], dilation[HOC_MAX_DIMS], adj[HOC_MAX_DIMS];
    int chosen_fwd[8]; /* MIOpen forward algo -> cuDNN algo picked by the last Find (-1: none) */
};

struct hoc_pool {
    int mode, nd, index_type, index_mode;
    int window[HOC_MAX_DIMS], pad[HOC_MAX_DIMS], stride[HOC_MAX_DIMS];
};

/* The cuDNN entry points used (legacy cuDNN API, present in cuDNN 8 and 9). */
typedef int (*hoc_fn)();
#define HOC_CUDNN_FUNCS(X)                                                                      \
    X(GetVersion, "cudnnGetVersion") X(Create, "cudnnCreate") X(Destroy, "cudnnDestroy")        \
    X(SetStream, "cudnnSetStream") X(CreateTensor, "cudnnCreateTensorDescriptor")               \
    X(SetTensorNd, "cudnnSetTensorNdDescriptor") X(DestroyTensor, "cudnnDestroyTensorDescriptor") \
    X(CreateFilter, "cudnnCreateFilterDescriptor") X(SetFilterNd, "cudnnSetFilterNdDescriptor") \
    X(DestroyFilter, "cudnnDestroyFilterDescriptor")                                            \
    X(CreateConv, "cudnnCreateConvolutionDescriptor")                                           \
    X(SetConvNd, "cudnnSetConvolutionNdDescriptor")                                             \
    X(SetConvGroups, "cudnnSetConvolutionGroupCount")                                           \
    X(SetConvMath, "cudnnSetConvolutionMathType")                                               \
    X(DestroyConv, "cudnnDestroyConvolutionDescriptor")                                         \
    X(FwdWorkspace, "cudnnGetConvolutionForwardWorkspaceSize")                                  \
    X(FindFwdEx, "cudnnFindConvolutionForwardAlgorithmEx")                                      \
    X(ConvFwd, "cudnnConvolutionForward")                                                       \
    X(BwdDataWorkspace, "cudnnGetConvolutionBackwardDataWorkspaceSize")                         \
    X(FindBwdDataEx, "cudnnFindConvolutionBackwardDataAlgorithmEx")                             \
    X(ConvBwdData, "cudnnConvolutionBackwardData")                                              \
    X(CreatePool, "cudnnCreatePoolingDescriptor") X(SetPoolNd, "cudnnSetPoolingNdDescriptor")   \
    X(DestroyPool, "cudnnDestroyPoolingDescriptor") X(PoolFwd, "cudnnPoolingForward")

#define HOC_DECL_FN(field, sym) hoc_fn field;
struct hoc_cudnn_api {
    HOC_CUDNN_FUNCS(HOC_DECL_FN)
};
#undef HOC_DECL_FN
extern struct hoc_cudnn_api hoc_dnn;
/* The loaded libcudnn (dlopen handle), for optional symbols; NULL until loaded. */
extern void *hoc_dnn_lib;

/* Loads cuDNN once; miopenStatusSuccess or miopenStatusNotInitialized. */
miopenStatus_t hoc_dnn_ready(void);
miopenStatus_t hoc_from_cudnn(int status);
/* cudnnDataType_t for a MIOpen type, -1 when cuDNN has none for it. */
int hoc_cudnn_dtype(int miopen_dtype);
/* Tensor/filter descriptors for cuDNN, padded to >= 4 dims by inserting
 * unit dimensions after the channel dimension (1-D problems become 2-D). */
miopenStatus_t hoc_make_tensor(const struct hoc_tensor *t, int min_nd, void **out);
miopenStatus_t hoc_make_filter(const struct hoc_tensor *t, int min_nd, void **out);
/* The dims and strides those descriptors get (unit axes inserted after the channel). */
void hoc_pad_dims(const struct hoc_tensor *t, int min_nd, int *nd, int *dims, int *strides);
/* Scaling factors: MIOpen passes host floats; cuDNN wants doubles for f64. */
void hoc_scale(int dtype, const void *alpha, const void *beta, double buf[2], const void **a,
               const void **b);


/* Forward convolution through cuDNN's backend (graph) API with cached execution
 * plans (miopen_graph.c).  Each returns 0 when it did the work and -1 when the
 * caller should take the legacy path instead. */
int hoc_graph_find(struct hoc_miopen_handle *h, const struct hoc_tensor *xd, const void *x,
                   const struct hoc_tensor *wd, const void *w, const struct hoc_conv *c,
                   const struct hoc_tensor *yd, void *y, void *ws, size_t ws_size, int *algo,
                   float *ms, size_t *memory);
int hoc_graph_forward(struct hoc_miopen_handle *h, const void *alpha, const struct hoc_tensor *xd,
                      const void *x, const struct hoc_tensor *wd, const void *w,
                      const struct hoc_conv *c, const void *beta, const struct hoc_tensor *yd,
                      void *y, void *ws, size_t ws_size);
/* The largest workspace of the plans Find would consider (0 when unknown). */
size_t hoc_graph_workspace(struct hoc_miopen_handle *h, const struct hoc_tensor *xd,
                           const struct hoc_tensor *wd, const struct hoc_conv *c,
                           const struct hoc_tensor *yd);
/* Destroys the cached plans of a cuDNN handle (before it is destroyed). */
void hoc_graph_forget_handle(void *cudnn);
/* Counts a forward convolution that took the legacy path. */
void hoc_graph_note_legacy(void);

#endif
