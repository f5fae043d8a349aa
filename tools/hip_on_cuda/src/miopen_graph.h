/*
 * hip_on_cuda: shared declarations of the cuDNN backend ("graph") path for
 * MIOpen forward convolution (miopen_graph_desc.c: descriptors;
 * miopen_graph.c: Find; miopen_graph_cache.c: loading, problem keys, the plan
 * cache and Forward).
 *
 * The enum values are cuDNN 9's, as its header cudnn_graph.h numbers them
 * (checked against cuDNN 9.6's); only the ones used are declared.
 */
#ifndef HOC_MIOPEN_GRAPH_H
#define HOC_MIOPEN_GRAPH_H

#include <stdint.h>

#include "miopen_internal.h"

typedef int64_t i64;
typedef void *bdesc; /* cudnnBackendDescriptor_t */

/* cudnnBackendDescriptorType_t */
enum { D_CONVOLUTION = 1, D_ENGINE = 2, D_ENGINECFG = 3, D_ENGINEHEUR = 4, D_EXECUTION_PLAN = 5,
       D_OP_CONV_FORWARD = 10, D_OPERATIONGRAPH = 15, D_VARIANT_PACK = 16, D_TENSOR = 17 };
/* cudnnBackendAttributeType_t */
enum { T_HANDLE = 0, T_DATA_TYPE = 1, T_INT64 = 3, T_FLOAT = 4, T_DOUBLE = 5, T_VOID_PTR = 6,
       T_CONVOLUTION_MODE = 7, T_HEUR_MODE = 8, T_NUMERICAL_NOTE = 11, T_BACKEND_DESCRIPTOR = 15 };
/* cudnnBackendAttributeName_t */
enum {
    A_CONV_COMP_TYPE = 100, A_CONV_CONV_MODE = 101, A_CONV_DILATIONS = 102,
    A_CONV_FILTER_STRIDES = 103, A_CONV_POST_PADDINGS = 104, A_CONV_PRE_PADDINGS = 105,
    A_CONV_SPATIAL_DIMS = 106,
    A_HEUR_MODE = 200, A_HEUR_OPERATION_GRAPH = 201, A_HEUR_RESULTS = 202,
    A_CFG_ENGINE = 300, A_CFG_WORKSPACE_SIZE = 303,
    A_PLAN_HANDLE = 400, A_PLAN_ENGINE_CONFIG = 401, A_PLAN_WORKSPACE_SIZE = 402,
    A_FWD_ALPHA = 700, A_FWD_BETA = 701, A_FWD_CONV_DESC = 702, A_FWD_W = 703, A_FWD_X = 704,
    A_FWD_Y = 705,
    A_GRAPH_HANDLE = 800, A_GRAPH_OPS = 801,
    A_TENSOR_BYTE_ALIGNMENT = 900, A_TENSOR_DATA_TYPE = 901, A_TENSOR_DIMENSIONS = 902,
    A_TENSOR_STRIDES = 903, A_TENSOR_UNIQUE_ID = 906,
    A_VP_UNIQUE_IDS = 1000, A_VP_DATA_POINTERS = 1001, A_VP_WORKSPACE = 1003,
    A_ENGINE_GLOBAL_INDEX = 1301, A_ENGINE_NUMERICAL_NOTE = 1303,
};
/* cudnnBackendNumericalNote_t */
enum { N_TENSOR_CORE = 0, N_DOWN_CONVERT_INPUTS = 1, N_REDUCED_PRECISION_REDUCTION = 2, N_FFT = 3,
       N_WINOGRAD = 5 };
enum { HEUR_FALLBACK = 2, HEUR_A = 3 };  /* cudnnBackendHeurMode_t */
enum { CROSS_CORRELATION = 1 };           /* cudnnConvolutionMode_t */
enum { DATA_FLOAT = 0, DATA_DOUBLE = 1 }; /* cudnnDataType_t, as compute types */

enum { UID_X = 1, UID_W = 2, UID_Y = 3 };
enum { MAX_CFGS = 64, MAX_TIMED = 8, TIMED_RUNS = 3, MAX_ENTRIES = 256, BUCKETS = 512 };

/* The backend entry points, resolved in the loaded libcudnn (hoc_g_ready). */
struct hoc_cudnn_backend {
    int (*create)(int type, bdesc *out);
    int (*destroy)(bdesc d);
    int (*set)(bdesc d, int name, int type, i64 count, const void *values);
    int (*get)(bdesc d, int name, int type, i64 want, i64 *count, void *values);
    int (*finalize)(bdesc d);
    int (*execute)(void *handle, bdesc plan, bdesc pack);
    const char *(*error_string)(int status); /* optional */
    void (*last_error)(char *buf, size_t len); /* optional (cuDNN >= 9.0) */
    size_t (*version)(void);
};
extern struct hoc_cudnn_backend hoc_be;

/* A problem: its handle, tensors, convolution and pointer alignment.  Compared
 * and hashed as bytes, so always built by hoc_g_make_key (zeroed padding). */
struct hoc_gkey {
    void *cudnn;
    int dtype[3], nd, spatial, groups, mode, align;
    int dims[3][HOC_MAX_DIMS], strides[3][HOC_MAX_DIMS]; /* x, w, y */
    int pad[HOC_MAX_DIMS], stride[HOC_MAX_DIMS], dilation[HOC_MAX_DIMS];
};

/* The descriptors a plan is built from (kept alive as long as the plan). */
enum { G_X, G_W, G_Y, G_CONV, G_OP, G_GRAPH, G_CFG, G_COUNT };
struct hoc_graph {
    bdesc d[G_COUNT]; /* G_CFG: the chosen engine configuration */
};

/* miopen_graph_cache.c */
int hoc_g_ready(void);     /* backend API loaded (cuDNN >= 9) */
int hoc_g_debug(void);     /* HIP_ON_CUDA_DEBUG set */
void hoc_g_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void hoc_g_report(const struct hoc_gkey *k, const char *what, int status);
void hoc_g_describe(const struct hoc_gkey *k, char *buf, size_t len);
int hoc_g_make_key(struct hoc_gkey *k, const struct hoc_miopen_handle *h,
                   const struct hoc_tensor *x, const struct hoc_tensor *w,
                   const struct hoc_tensor *y, const struct hoc_conv *c, int align);
int hoc_g_align(const void *a, const void *b, const void *c);
void hoc_g_destroy_all(bdesc *d, int n);
/* Caches a plan (taking g, plan and pack); -1 when it could not (nothing taken). */
int hoc_g_cache(const struct hoc_gkey *k, struct hoc_graph *g, bdesc plan, i64 ws, bdesc pack,
                const void *const ptrs[4]);
void hoc_g_forget_problem(const struct hoc_gkey *k); /* at every alignment */

/* miopen_graph_desc.c: each returns the cuDNN status, with *what naming the failed call */
int hoc_g_build_graph(struct hoc_graph *g, const struct hoc_gkey *k, const struct hoc_tensor *x,
                      const struct hoc_tensor *w, const struct hoc_tensor *y, const char **what);
/* creates up to max configurations into cfgs, *count of them */
int hoc_g_heuristics(bdesc graph, int mode, bdesc *cfgs, int max, int *count, const char **what);
/* 1 when cfg keeps MIOpen's numerics (this one returns no status) */
int hoc_g_numerics_ok(bdesc cfg, int dtype, i64 *engine, int *algo, int *bad_note);
int hoc_g_make_plan(void *cudnn, bdesc cfg, bdesc *plan, i64 *ws, const char **what);
int hoc_g_make_pack(bdesc *pack, const void *x, const void *w, void *y, void *ws,
                    const char **what);

#endif
