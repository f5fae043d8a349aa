/*
 * hip_on_cuda: MIOpen forward convolution on cuDNN's backend ("graph") API,
 * with execution plans cached across calls as MIOpen caches its invokers.
 *
 * Find (hoc_graph_find) builds the problem's operation graph -- x, w, y
 * tensors, a convolution descriptor, one CONVOLUTION_FORWARD operation --,
 * asks cuDNN's heuristics (mode A, then the fallback list if A yields too few)
 * for engine configurations, finalizes plans for up to MAX_TIMED of them whose
 * numerics are MIOpen's (f32/f64: no tensor cores (TF32), no down-converted
 * inputs, no reduced-precision reduction; f16/bf16: tensor cores with f32
 * accumulation) and whose workspace fits, times each on the handle's stream
 * (a warm-up, then TIMED_RUNS runs between CUDA events) and caches the fastest
 * (miopen_graph_cache.c, which also runs it for miopenConvolutionForward).
 * Every failure makes the caller take the legacy cuDNN path (miopen_conv.c);
 * with HIP_ON_CUDA_DEBUG set, failures and Find's candidates go to stderr.
 * HIP_ON_CUDA_CONV_API=legacy (read by each Find) keeps a problem on the
 * legacy path.  The descriptors Find asks cuDNN for are made in
 * miopen_graph_desc.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "miopen_graph.h"

static int legacy_requested(void)
{
    const char *api = getenv("HIP_ON_CUDA_CONV_API");
    return api && !strcmp(api, "legacy");
}

struct best {
    bdesc plan, cfg;
    i64 ws, engine;
    float ms;
    int algo, timed;
};

/* Times one plan: a warm-up run, then TIMED_RUNS runs between events; <0 when it fails. */
static float time_plan(const struct hoc_gkey *k, CUstream stream, bdesc plan, bdesc pack,
                       CUevent *ev)
{
    int s = hoc_be.execute(k->cudnn, plan, pack);
    if (s) {
        hoc_g_report(k, "cudnnBackendExecute (Find)", s);
        return -1.0f;
    }
    if (!ev[0]) /* no events: the heuristics' order decides */
        return 0.0f;
    float ms = -1.0f;
    CUresult r = hoc_cu.cuEventRecord(ev[0], stream);
    for (int i = 0; i < TIMED_RUNS && !r && !s; ++i)
        s = hoc_be.execute(k->cudnn, plan, pack);
    if (!r && !s)
        r = hoc_cu.cuEventRecord(ev[1], stream);
    if (!r && !s)
        r = hoc_cu.cuEventSynchronize(ev[1]);
    if (!r && !s)
        r = hoc_cu.cuEventElapsedTime ? hoc_cu.cuEventElapsedTime(&ms, ev[0], ev[1])
                                      : hoc_cu.cuEventElapsedTime_v2(&ms, ev[0], ev[1]);
    if (s)
        hoc_g_report(k, "cudnnBackendExecute (Find, timed)", s);
    if (r && hoc_g_debug())
        hoc_g_say("timing a plan failed: CUDA driver error %d", r);
    return (r || s) ? -1.0f : ms / TIMED_RUNS;
}

/* Tries one engine configuration; 1 when best took it (then best owns cfg). */
static int try_cfg(const struct hoc_gkey *k, struct hoc_miopen_handle *h, bdesc cfg, bdesc pack,
                   i64 avail, CUevent *ev, struct best *best)
{
    i64 engine, ws = 0;
    int algo, bad, dbg = hoc_g_debug();
    if (!hoc_g_numerics_ok(cfg, k->dtype[0], &engine, &algo, &bad)) {
        if (dbg)
            hoc_g_say("  engine %lld skipped: numerical note %d", (long long)engine, bad);
        return 0;
    }
    bdesc plan = NULL;
    const char *what = "";
    int s = hoc_g_make_plan(k->cudnn, cfg, &plan, &ws, &what);
    if (s || ws > avail) {
        if (dbg)
            hoc_g_say("  engine %lld skipped: %s%s (status %d, workspace %lld of %lld)",
                      (long long)engine, s ? what : "workspace", s ? " failed" : " too large", s,
                      (long long)ws, (long long)avail);
        if (plan)
            hoc_be.destroy(plan);
        return 0;
    }
    float ms = time_plan(k, h->stream, plan, pack, ev);
    ++best->timed;
    if (dbg)
        hoc_g_say("  engine %lld: %.4f ms, workspace %lld", (long long)engine, ms, (long long)ws);
    if (ms < 0 || (best->plan && ms >= best->ms)) {
        hoc_be.destroy(plan);
        return 0;
    }
    if (best->plan) {
        hoc_be.destroy(best->plan);
        hoc_be.destroy(best->cfg);
    }
    *best = (struct best){plan, cfg, ws, engine, ms, algo, best->timed};
    if (!ev[0])
        best->timed = MAX_TIMED; /* untimed: take the heuristics' first usable one */
    return 1;
}

int hoc_graph_find(struct hoc_miopen_handle *h, const struct hoc_tensor *xd, const void *x,
                   const struct hoc_tensor *wd, const void *w, const struct hoc_conv *c,
                   const struct hoc_tensor *yd, void *y, void *ws, size_t ws_size, int *algo,
                   float *ms, size_t *memory)
{
    struct hoc_gkey k;
    if (hoc_g_make_key(&k, h, xd, wd, yd, c, hoc_g_align(x, w, y)))
        return -1;
    if (legacy_requested()) {
        hoc_g_forget_problem(&k);
        return -1;
    }
    if (!x || !w || !y || !hoc_g_ready() || hoc_ctx() != 0)
        return -1;
    struct hoc_graph g;
    const char *what = "";
    bdesc pack = NULL;
    int s = hoc_g_build_graph(&g, &k, xd, wd, yd, &what);
    if (!s)
        s = hoc_g_make_pack(&pack, x, w, y, ws, &what);
    if (s) {
        hoc_g_report(&k, what, s);
        if (pack)
            hoc_be.destroy(pack);
        hoc_g_destroy_all(g.d, G_COUNT);
        return -1;
    }
    CUevent ev[2] = {NULL, NULL};
    if (!(hoc_cu.cuEventElapsedTime || hoc_cu.cuEventElapsedTime_v2) ||
        hoc_cu.cuEventCreate(&ev[0], 0) || hoc_cu.cuEventCreate(&ev[1], 0)) {
        if (ev[0])
            hoc_cu.cuEventDestroy(ev[0]);
        ev[0] = NULL;
    }
    int dbg = hoc_g_debug();
    if (dbg) {
        char prob[640];
        hoc_g_describe(&k, prob, sizeof prob);
        hoc_g_say("Find %s, workspace %zu", prob, ws ? ws_size : 0);
    }
    struct best best = {0};
    static const int modes[2] = {HEUR_A, HEUR_FALLBACK};
    bdesc cfgs[MAX_CFGS];
    /* mode A's list, then the fallback list while fewer than MAX_TIMED plans were timed */
    for (int m = 0; m < 2 && best.timed < MAX_TIMED; ++m) {
        int n = 0;
        if ((s = hoc_g_heuristics(g.d[G_GRAPH], modes[m], cfgs, MAX_CFGS, &n, &what)))
            hoc_g_report(&k, what, s);
        if (dbg)
            hoc_g_say(" heuristics mode %s: %d configurations", m ? "FALLBACK" : "A", n);
        for (int i = 0; i < n; ++i)
            if (best.timed >= MAX_TIMED ||
                !try_cfg(&k, h, cfgs[i], pack, ws ? (i64)ws_size : 0, ev, &best))
                hoc_be.destroy(cfgs[i]);
    }
    for (int i = 0; i < 2; ++i)
        if (ev[i])
            hoc_cu.cuEventDestroy(ev[i]);
    const void *ptrs[4] = {x, w, y, ws};
    g.d[G_CFG] = best.cfg;
    if (!best.plan || hoc_g_cache(&k, &g, best.plan, best.ws, pack, ptrs)) {
        if (dbg)
            hoc_g_say(" no usable plan: legacy Find");
        if (best.plan)
            hoc_be.destroy(best.plan);
        hoc_be.destroy(pack);
        hoc_g_destroy_all(g.d, G_COUNT);
        return -1;
    }
    if (dbg)
        hoc_g_say(" chose engine %lld: %.4f ms, workspace %lld", (long long)best.engine,
                  best.ms, (long long)best.ws);
    *algo = best.algo;
    *ms = best.ms;
    *memory = (size_t)best.ws;
    return 0;
}

/* The largest workspace among the configurations Find would try first. */
size_t hoc_graph_workspace(struct hoc_miopen_handle *h, const struct hoc_tensor *xd,
                           const struct hoc_tensor *wd, const struct hoc_conv *c,
                           const struct hoc_tensor *yd)
{
    struct hoc_gkey k;
    if (hoc_g_make_key(&k, h, xd, wd, yd, c, 16) || legacy_requested() || !hoc_g_ready() ||
        hoc_ctx() != 0)
        return 0;
    struct hoc_graph g;
    bdesc cfgs[MAX_CFGS];
    const char *what = "";
    int n = 0, s = hoc_g_build_graph(&g, &k, xd, wd, yd, &what);
    if (!s)
        s = hoc_g_heuristics(g.d[G_GRAPH], HEUR_A, cfgs, MAX_CFGS, &n, &what);
    if (s)
        hoc_g_report(&k, what, s);
    i64 most = 0;
    for (int i = 0, taken = 0; i < n; ++i) {
        i64 engine, size = 0, got = 0;
        int algo, bad;
        if (taken < MAX_TIMED && hoc_g_numerics_ok(cfgs[i], k.dtype[0], &engine, &algo, &bad)) {
            ++taken;
            if ((s = hoc_be.get(cfgs[i], A_CFG_WORKSPACE_SIZE, T_INT64, 1, &got, &size)))
                hoc_g_report(&k, "ENGINECFG WORKSPACE_SIZE (GetWorkSpaceSize)", s);
            else if (size > most && size <= ((i64)1 << 30))
                most = size;
        }
        hoc_be.destroy(cfgs[i]);
    }
    hoc_g_destroy_all(g.d, G_COUNT);
    return (size_t)most;
}
