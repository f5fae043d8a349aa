/*
 * hip_on_cuda: the cuDNN backend descriptors of MIOpen forward convolution's
 * graph path -- a problem's operation graph, the heuristics' engine
 * configurations and their numerical notes, execution plans and variant packs.
 * Apart from Find (miopen_graph.c), which decides among the configurations,
 * because these calls only translate a problem into cuDNN's attributes.
 */
#include <string.h>

#include "miopen_graph.h"

/* miopenConvFwdAlgorithm_t numbers reported by Find */
enum { ALGO_FFT = 2, ALGO_WINOGRAD = 3, ALGO_IMPLICIT_GEMM = 5 };

#define CK(label, expr)                                                                          \
    do {                                                                                         \
        if ((s = (expr)) != 0) {                                                                 \
            *what = label;                                                                       \
            return s;                                                                            \
        }                                                                                        \
    } while (0)

static int make_tensor(bdesc *out, const struct hoc_tensor *t, i64 uid, i64 align,
                       const char **what)
{
    int s, nd, dims[HOC_MAX_DIMS], strides[HOC_MAX_DIMS], dt = hoc_cudnn_dtype(t->dtype);
    i64 d[HOC_MAX_DIMS], st[HOC_MAX_DIMS];
    hoc_pad_dims(t, 4, &nd, dims, strides);
    for (int i = 0; i < nd; ++i) {
        d[i] = dims[i];
        st[i] = strides[i];
    }
    CK("create tensor", hoc_be.create(D_TENSOR, out));
    CK("tensor DATA_TYPE", hoc_be.set(*out, A_TENSOR_DATA_TYPE, T_DATA_TYPE, 1, &dt));
    CK("tensor DIMENSIONS", hoc_be.set(*out, A_TENSOR_DIMENSIONS, T_INT64, nd, d));
    CK("tensor STRIDES", hoc_be.set(*out, A_TENSOR_STRIDES, T_INT64, nd, st));
    CK("tensor UNIQUE_ID", hoc_be.set(*out, A_TENSOR_UNIQUE_ID, T_INT64, 1, &uid));
    CK("tensor BYTE_ALIGNMENT", hoc_be.set(*out, A_TENSOR_BYTE_ALIGNMENT, T_INT64, 1, &align));
    CK("tensor finalize", hoc_be.finalize(*out));
    return 0;
}

/* The operation graph of a problem; on failure *what names the call. */
int hoc_g_build_graph(struct hoc_graph *g, const struct hoc_gkey *k, const struct hoc_tensor *x,
                      const struct hoc_tensor *w, const struct hoc_tensor *y, const char **what)
{
    int s;
    memset(g, 0, sizeof *g);
    if ((s = make_tensor(&g->d[G_X], x, UID_X, k->align, what)) ||
        (s = make_tensor(&g->d[G_W], w, UID_W, k->align, what)) ||
        (s = make_tensor(&g->d[G_Y], y, UID_Y, k->align, what)))
        return s;
    /* 1-D problems are 2-D with a unit first spatial axis (as hoc_pad_dims shapes them) */
    int sp = k->nd < 4 ? 2 : k->nd - 2, off = sp - k->spatial;
    i64 nsp = sp, pad[3], stride[3], dil[3];
    for (int i = 0; i < sp; ++i) {
        int j = i - off;
        pad[i] = j < 0 ? 0 : k->pad[j];
        stride[i] = j < 0 ? 1 : k->stride[j];
        dil[i] = j < 0 ? 1 : k->dilation[j];
    }
    int comp = k->dtype[0] == miopenDouble ? DATA_DOUBLE : DATA_FLOAT, mode = CROSS_CORRELATION;
    bdesc cv;
    CK("create convolution", hoc_be.create(D_CONVOLUTION, &g->d[G_CONV]));
    cv = g->d[G_CONV];
    CK("convolution COMP_TYPE", hoc_be.set(cv, A_CONV_COMP_TYPE, T_DATA_TYPE, 1, &comp));
    CK("convolution CONV_MODE", hoc_be.set(cv, A_CONV_CONV_MODE, T_CONVOLUTION_MODE, 1, &mode));
    CK("convolution SPATIAL_DIMS", hoc_be.set(cv, A_CONV_SPATIAL_DIMS, T_INT64, 1, &nsp));
    CK("convolution DILATIONS", hoc_be.set(cv, A_CONV_DILATIONS, T_INT64, nsp, dil));
    CK("convolution FILTER_STRIDES", hoc_be.set(cv, A_CONV_FILTER_STRIDES, T_INT64, nsp, stride));
    CK("convolution PRE_PADDINGS", hoc_be.set(cv, A_CONV_PRE_PADDINGS, T_INT64, nsp, pad));
    CK("convolution POST_PADDINGS", hoc_be.set(cv, A_CONV_POST_PADDINGS, T_INT64, nsp, pad));
    CK("convolution finalize", hoc_be.finalize(cv));

    bdesc op;
    CK("create CONVOLUTION_FORWARD", hoc_be.create(D_OP_CONV_FORWARD, &g->d[G_OP]));
    op = g->d[G_OP];
    CK("CONVOLUTION_FORWARD X", hoc_be.set(op, A_FWD_X, T_BACKEND_DESCRIPTOR, 1, &g->d[G_X]));
    CK("CONVOLUTION_FORWARD W", hoc_be.set(op, A_FWD_W, T_BACKEND_DESCRIPTOR, 1, &g->d[G_W]));
    CK("CONVOLUTION_FORWARD Y", hoc_be.set(op, A_FWD_Y, T_BACKEND_DESCRIPTOR, 1, &g->d[G_Y]));
    CK("CONVOLUTION_FORWARD CONV_DESC",
       hoc_be.set(op, A_FWD_CONV_DESC, T_BACKEND_DESCRIPTOR, 1, &cv));
    if (comp == DATA_DOUBLE) {
        double one = 1.0, zero = 0.0;
        CK("CONVOLUTION_FORWARD ALPHA", hoc_be.set(op, A_FWD_ALPHA, T_DOUBLE, 1, &one));
        CK("CONVOLUTION_FORWARD BETA", hoc_be.set(op, A_FWD_BETA, T_DOUBLE, 1, &zero));
    } else {
        float one = 1.0f, zero = 0.0f;
        CK("CONVOLUTION_FORWARD ALPHA", hoc_be.set(op, A_FWD_ALPHA, T_FLOAT, 1, &one));
        CK("CONVOLUTION_FORWARD BETA", hoc_be.set(op, A_FWD_BETA, T_FLOAT, 1, &zero));
    }
    CK("CONVOLUTION_FORWARD finalize", hoc_be.finalize(op));

    void *handle = k->cudnn;
    CK("create OPERATIONGRAPH", hoc_be.create(D_OPERATIONGRAPH, &g->d[G_GRAPH]));
    CK("OPERATIONGRAPH HANDLE", hoc_be.set(g->d[G_GRAPH], A_GRAPH_HANDLE, T_HANDLE, 1, &handle));
    CK("OPERATIONGRAPH OPS", hoc_be.set(g->d[G_GRAPH], A_GRAPH_OPS, T_BACKEND_DESCRIPTOR, 1, &op));
    CK("OPERATIONGRAPH finalize", hoc_be.finalize(g->d[G_GRAPH]));
    return 0;
}

/* Engine configurations suggested by the heuristics of one mode, created into cfgs. */
int hoc_g_heuristics(bdesc graph, int mode, bdesc *cfgs, int max, int *count, const char **what)
{
    int s;
    bdesc heur = NULL;
    i64 n = 0, got = 0;
    *count = 0;
    if ((s = hoc_be.create(D_ENGINEHEUR, &heur))) {
        *what = "create ENGINEHEUR";
        return s;
    }
    if ((s = hoc_be.set(heur, A_HEUR_OPERATION_GRAPH, T_BACKEND_DESCRIPTOR, 1, &graph)))
        *what = "ENGINEHEUR OPERATION_GRAPH";
    else if ((s = hoc_be.set(heur, A_HEUR_MODE, T_HEUR_MODE, 1, &mode)))
        *what = "ENGINEHEUR MODE";
    else if ((s = hoc_be.finalize(heur)))
        *what = "ENGINEHEUR finalize";
    else if ((s = hoc_be.get(heur, A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, 0, &n, NULL)))
        *what = "ENGINEHEUR RESULTS (count)";
    if (n > max)
        n = max;
    for (i64 i = 0; !s && i < n; ++i)
        if ((s = hoc_be.create(D_ENGINECFG, &cfgs[i])))
            *what = "create ENGINECFG";
    if (!s && n > 0 && (s = hoc_be.get(heur, A_HEUR_RESULTS, T_BACKEND_DESCRIPTOR, n, &got, cfgs)))
        *what = "ENGINEHEUR RESULTS";
    if (s || got > n)
        got = 0;
    hoc_g_destroy_all(cfgs + got, (int)(n - got));
    if (s)
        hoc_g_destroy_all(cfgs, (int)got);
    hoc_be.destroy(heur);
    *count = (int)got;
    return s;
}

/* Whether a configuration's numerics are MIOpen's; its engine index and MIOpen algorithm. */
int hoc_g_numerics_ok(bdesc cfg, int dtype, i64 *engine, int *algo, int *bad_note)
{
    bdesc eng = NULL;
    i64 n = 0;
    int notes[64], ok = 0;
    *engine = -1;
    *algo = ALGO_IMPLICIT_GEMM;
    *bad_note = -1;
    if (hoc_be.create(D_ENGINE, &eng))
        return 0;
    if (!hoc_be.get(cfg, A_CFG_ENGINE, T_BACKEND_DESCRIPTOR, 1, &n, &eng) &&
        !hoc_be.get(eng, A_ENGINE_NUMERICAL_NOTE, T_NUMERICAL_NOTE, 64, &n, notes) && n >= 0 &&
        n <= 64) {
        ok = 1;
        int wide = dtype == miopenFloat || dtype == miopenDouble;
        for (i64 i = 0; i < n; ++i) {
            int v = notes[i];
            if (v == N_DOWN_CONVERT_INPUTS || v == N_REDUCED_PRECISION_REDUCTION ||
                (v == N_TENSOR_CORE && wide)) {
                ok = 0;
                *bad_note = v;
            }
            if (v == N_FFT)
                *algo = ALGO_FFT;
            if (v == N_WINOGRAD)
                *algo = ALGO_WINOGRAD;
        }
        if (hoc_be.get(eng, A_ENGINE_GLOBAL_INDEX, T_INT64, 1, &n, engine))
            *engine = -1;
    }
    hoc_be.destroy(eng);
    return ok;
}

int hoc_g_make_plan(void *cudnn, bdesc cfg, bdesc *plan, i64 *ws, const char **what)
{
    int s;
    i64 n = 0;
    CK("create EXECUTION_PLAN", hoc_be.create(D_EXECUTION_PLAN, plan));
    CK("EXECUTION_PLAN HANDLE", hoc_be.set(*plan, A_PLAN_HANDLE, T_HANDLE, 1, &cudnn));
    CK("EXECUTION_PLAN ENGINE_CONFIG",
       hoc_be.set(*plan, A_PLAN_ENGINE_CONFIG, T_BACKEND_DESCRIPTOR, 1, &cfg));
    CK("EXECUTION_PLAN finalize", hoc_be.finalize(*plan));
    CK("EXECUTION_PLAN WORKSPACE_SIZE",
       hoc_be.get(*plan, A_PLAN_WORKSPACE_SIZE, T_INT64, 1, &n, ws));
    return 0;
}

int hoc_g_make_pack(bdesc *pack, const void *x, const void *w, void *y, void *ws,
                    const char **what)
{
    int s;
    i64 uids[3] = {UID_X, UID_W, UID_Y};
    const void *ptrs[3] = {x, w, y};
    CK("create VARIANT_PACK", hoc_be.create(D_VARIANT_PACK, pack));
    CK("VARIANT_PACK UNIQUE_IDS", hoc_be.set(*pack, A_VP_UNIQUE_IDS, T_INT64, 3, uids));
    CK("VARIANT_PACK DATA_POINTERS", hoc_be.set(*pack, A_VP_DATA_POINTERS, T_VOID_PTR, 3, ptrs));
    CK("VARIANT_PACK WORKSPACE", hoc_be.set(*pack, A_VP_WORKSPACE, T_VOID_PTR, 1, &ws));
    CK("VARIANT_PACK finalize", hoc_be.finalize(*pack));
    return 0;
}
#undef CK
