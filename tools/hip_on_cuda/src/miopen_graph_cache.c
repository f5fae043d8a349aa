/*
 * hip_on_cuda: the cuDNN backend path's plumbing -- loading the backend
 * functions, problem keys, the plan cache and miopenConvolutionForward's fast
 * path.  A cached plan runs with a variant pack of the call's pointers; the
 * last variant pack of each plan is kept, so repeated calls on the same buffers
 * build no descriptor at all.  The cache is a mutex-protected hash table of at
 * most MAX_ENTRIES plans (least recently used evicted); a handle's plans are
 * destroyed by miopenDestroy.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "miopen_graph.h"

struct hoc_cudnn_backend hoc_be;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_ready;
static long long g_graph_runs, g_legacy_runs, g_graph_finds;

int hoc_g_debug(void)
{
    const char *e = getenv("HIP_ON_CUDA_DEBUG");
    return e && *e && strcmp(e, "0") != 0;
}

void hoc_g_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("hip_on_cuda: MIOpen graph: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void load(void)
{
    if (hoc_dnn_ready() || !hoc_dnn_lib)
        return;
    void *l = hoc_dnn_lib;
    *(void **)&hoc_be.create = hoc_symbol(l, "cudnnBackendCreateDescriptor");
    *(void **)&hoc_be.destroy = hoc_symbol(l, "cudnnBackendDestroyDescriptor");
    *(void **)&hoc_be.set = hoc_symbol(l, "cudnnBackendSetAttribute");
    *(void **)&hoc_be.get = hoc_symbol(l, "cudnnBackendGetAttribute");
    *(void **)&hoc_be.finalize = hoc_symbol(l, "cudnnBackendFinalize");
    *(void **)&hoc_be.execute = hoc_symbol(l, "cudnnBackendExecute");
    *(void **)&hoc_be.error_string = hoc_symbol(l, "cudnnGetErrorString");
    *(void **)&hoc_be.last_error = hoc_symbol(l, "cudnnGetLastErrorString");
    *(void **)&hoc_be.version = hoc_symbol(l, "cudnnGetVersion");
    size_t v = hoc_be.version ? hoc_be.version() : 0;
    /* the enum values used are cuDNN 9's; cuDNN 9 reports major*10000 + minor*100 + patch */
    g_ready = hoc_be.create && hoc_be.destroy && hoc_be.set && hoc_be.get && hoc_be.finalize &&
              hoc_be.execute && v >= 90000;
    if (hoc_g_debug())
        hoc_g_say("cuDNN version %zu: backend API %s", v,
                  g_ready ? "used" : "not used (needs cuDNN 9 and its cudnnBackend* functions)");
}

int hoc_g_ready(void)
{
    pthread_once(&g_once, load);
    return g_ready;
}

/* ---- problem keys ----------------------------------------------------- */

_Static_assert(sizeof(struct hoc_gkey) % 8 == 0, "keys hash in 8-byte words");

int hoc_g_make_key(struct hoc_gkey *k, const struct hoc_miopen_handle *h,
                   const struct hoc_tensor *x, const struct hoc_tensor *w,
                   const struct hoc_tensor *y, const struct hoc_conv *c, int align)
{
    if (!h || !x || !w || !y || !c)
        return -1;
    if (c->mode != miopenConvolution && c->mode != miopenGroupConv && c->mode != miopenDepthwise)
        return -1;
    int nd = x->nd;
    if (nd != c->spatial + 2 || nd < 3 || nd > 5 || w->nd != nd || y->nd != nd)
        return -1;
    if (x->dtype != w->dtype || x->dtype != y->dtype || hoc_cudnn_dtype(x->dtype) < 0)
        return -1;
    memset(k, 0, sizeof *k);
    k->cudnn = h->cudnn;
    k->nd = nd;
    k->spatial = c->spatial;
    k->groups = c->groups;
    k->mode = c->mode;
    k->align = align;
    const struct hoc_tensor *t[3] = {x, w, y};
    for (int i = 0; i < 3; ++i) {
        k->dtype[i] = t[i]->dtype;
        memcpy(k->dims[i], t[i]->dims, sizeof(int) * (size_t)nd);
        memcpy(k->strides[i], t[i]->strides, sizeof(int) * (size_t)nd);
    }
    memcpy(k->pad, c->pad, sizeof(int) * (size_t)c->spatial);
    memcpy(k->stride, c->stride, sizeof(int) * (size_t)c->spatial);
    memcpy(k->dilation, c->dilation, sizeof(int) * (size_t)c->spatial);
    return 0;
}

static uint64_t hash_key(const struct hoc_gkey *k)
{
    const unsigned char *p = (const unsigned char *)k;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < sizeof *k; i += 8) {
        uint64_t v;
        memcpy(&v, p + i, 8);
        h = (h ^ v) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    return h;
}

int hoc_g_align(const void *a, const void *b, const void *c)
{
    uintptr_t v = (uintptr_t)a | (uintptr_t)b | (uintptr_t)c;
    int al = 16;
    while (al > 1 && (v & (uintptr_t)(al - 1)))
        al >>= 1;
    return al;
}

void hoc_g_describe(const struct hoc_gkey *k, char *buf, size_t len)
{
    static const char *const names[] = {"f16", "f32", "i32", "i8", "?", "bf16", "f64"};
    static const char tn[3] = {'x', 'w', 'y'};
    size_t n = 0;
#define ADD(...)                                                                                 \
    (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__), n = n < len ? n : len)
    ADD("%s", k->dtype[0] >= 0 && k->dtype[0] <= 6 ? names[k->dtype[0]] : "?");
    for (int t = 0; t < 3; ++t) {
        ADD(" %c", tn[t]);
        for (int i = 0; i < k->nd; ++i)
            ADD("%c%d", i ? 'x' : '[', k->dims[t][i]);
        for (int i = 0; i < k->nd; ++i)
            ADD("%c%d", i ? ',' : '/', k->strides[t][i]);
        ADD("]");
    }
    for (int i = 0; i < k->spatial; ++i)
        ADD("%s%d/%d/%d", i ? "," : " pad/stride/dil ", k->pad[i], k->stride[i], k->dilation[i]);
    ADD(" groups %d align %d", k->groups, k->align);
#undef ADD
}

void hoc_g_report(const struct hoc_gkey *k, const char *what, int status)
{
    if (!hoc_g_debug())
        return;
    char msg[512] = "", prob[640];
    if (hoc_be.last_error)
        hoc_be.last_error(msg, sizeof msg);
    hoc_g_describe(k, prob, sizeof prob);
    hoc_g_say("%s failed: cuDNN status %d (%s)%s%s; problem %s", what, status,
              hoc_be.error_string ? hoc_be.error_string(status) : "?", msg[0] ? ": " : "", msg,
              prob);
}

void hoc_g_destroy_all(bdesc *d, int n)
{
    for (int i = n - 1; i >= 0; --i)
        if (d[i]) {
            hoc_be.destroy(d[i]);
            d[i] = NULL;
        }
}

/* ---- the plan cache --------------------------------------------------- */

struct entry {
    struct hoc_gkey key;
    uint64_t hash;
    struct entry *next;
    struct hoc_graph g;      /* what the plan was built from */
    bdesc plan, pack;        /* pack: the last variant pack, made for pack_ptrs */
    const void *pack_ptrs[4];
    i64 ws;
    unsigned long long used; /* LRU tick */
    int users, dead;         /* dead: unlinked while in use; its last user destroys it */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *g_bucket[BUCKETS];
static int g_count;
static unsigned long long g_tick;

static void bury(struct entry *list)
{
    while (list) {
        struct entry *e = list;
        list = e->next;
        if (e->pack)
            hoc_be.destroy(e->pack);
        if (e->plan)
            hoc_be.destroy(e->plan);
        hoc_g_destroy_all(e->g.d, G_COUNT);
        free(e);
    }
}

/* The link that points at k's entry, or NULL (lock held). */
static struct entry **find_link(const struct hoc_gkey *k, uint64_t hash)
{
    for (struct entry **l = &g_bucket[hash % BUCKETS]; *l; l = &(*l)->next)
        if ((*l)->hash == hash && !memcmp(&(*l)->key, k, sizeof *k))
            return l;
    return NULL;
}

/* Unlinks *link (lock held); an unused entry goes onto *dead, destroyed after unlocking. */
static void retire(struct entry **link, struct entry **dead)
{
    struct entry *e = *link;
    *link = e->next;
    --g_count;
    if (e->users) {
        e->dead = 1;
        e->next = NULL;
    } else {
        e->next = *dead;
        *dead = e;
    }
}

int hoc_g_cache(const struct hoc_gkey *k, struct hoc_graph *g, bdesc plan, i64 ws, bdesc pack,
                const void *const ptrs[4])
{
    struct entry *e = calloc(1, sizeof *e), *dead = NULL, **l;
    if (!e)
        return -1;
    e->key = *k;
    e->hash = hash_key(k);
    e->g = *g;
    e->plan = plan;
    e->ws = ws;
    e->pack = pack;
    memcpy(e->pack_ptrs, ptrs, sizeof e->pack_ptrs);
    pthread_mutex_lock(&g_lock);
    if ((l = find_link(k, e->hash)))
        retire(l, &dead);
    if (g_count >= MAX_ENTRIES) { /* evict the least recently used */
        struct entry **lru = NULL;
        for (int b = 0; b < BUCKETS; ++b)
            for (l = &g_bucket[b]; *l; l = &(*l)->next)
                if (!lru || (*l)->used < (*lru)->used)
                    lru = l;
        if (lru)
            retire(lru, &dead);
    }
    e->used = ++g_tick;
    e->next = g_bucket[e->hash % BUCKETS];
    g_bucket[e->hash % BUCKETS] = e;
    ++g_count;
    pthread_mutex_unlock(&g_lock);
    bury(dead);
    __atomic_fetch_add(&g_graph_finds, 1, __ATOMIC_RELAXED);
    return 0;
}

void hoc_g_forget_problem(const struct hoc_gkey *key)
{
    struct hoc_gkey k = *key;
    struct entry *dead = NULL, **l;
    pthread_mutex_lock(&g_lock);
    for (k.align = 1; k.align <= 16; k.align *= 2)
        if ((l = find_link(&k, hash_key(&k))))
            retire(l, &dead);
    pthread_mutex_unlock(&g_lock);
    bury(dead);
}

void hoc_graph_forget_handle(void *cudnn)
{
    struct entry *dead = NULL;
    pthread_mutex_lock(&g_lock);
    for (int b = 0; b < BUCKETS && g_count; ++b)
        for (struct entry **l = &g_bucket[b]; *l;)
            if ((*l)->key.cudnn == cudnn)
                retire(l, &dead);
            else
                l = &(*l)->next;
    pthread_mutex_unlock(&g_lock);
    bury(dead);
}

/* ---- Forward ---------------------------------------------------------- */

int hoc_graph_forward(struct hoc_miopen_handle *h, const void *alpha, const struct hoc_tensor *xd,
                      const void *x, const struct hoc_tensor *wd, const void *w,
                      const struct hoc_conv *c, const void *beta, const struct hoc_tensor *yd,
                      void *y, void *ws, size_t ws_size)
{
    if (!__atomic_load_n(&g_count, __ATOMIC_RELAXED) || !x || !w || !y)
        return -1;
    /* plans compute y = conv(x, w): other scalings take the legacy path */
    if ((alpha && *(const float *)alpha != 1.0f) || (beta && *(const float *)beta != 0.0f))
        return -1;
    struct hoc_gkey k;
    if (hoc_g_make_key(&k, h, xd, wd, yd, c, hoc_g_align(x, w, y)) || hoc_ctx() != 0)
        return -1;
    const void *ptrs[4] = {x, w, y, ws};
    struct entry *e = NULL, *dead = NULL, **l;
    bdesc pack = NULL;
    pthread_mutex_lock(&g_lock);
    for (; k.align >= 1 && !e; k.align >>= 1) /* a plan made for a smaller alignment fits too */
        if ((l = find_link(&k, hash_key(&k))))
            e = *l;
    if (e) {
        ++e->users;
        e->used = ++g_tick;
        if (e->pack && !memcmp(e->pack_ptrs, ptrs, sizeof ptrs)) {
            pack = e->pack;
            e->pack = NULL;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!e)
        return -1;
    const char *what = "cudnnBackendExecute";
    int s = 0, usable = (size_t)e->ws <= ws_size && (e->ws == 0 || ws);
    if (usable && !pack)
        s = hoc_g_make_pack(&pack, x, w, y, ws, &what);
    if (usable && !s)
        s = hoc_be.execute(h->cudnn, e->plan, pack);
    if (s)
        hoc_g_report(&e->key, what, s);
    else if (!usable && hoc_g_debug())
        hoc_g_say("plan needs workspace %lld, given %zu at %p: legacy path", (long long)e->ws,
                  ws_size, ws);
    pthread_mutex_lock(&g_lock);
    if (pack && !s && !e->pack && !e->dead) {
        e->pack = pack;
        memcpy(e->pack_ptrs, ptrs, sizeof ptrs);
        pack = NULL;
    }
    if (s && !e->dead && (l = find_link(&e->key, e->hash))) /* a failing plan is dropped */
        retire(l, &dead);
    if (--e->users == 0 && e->dead) {
        e->next = dead;
        dead = e;
    }
    pthread_mutex_unlock(&g_lock);
    if (pack)
        hoc_be.destroy(pack);
    bury(dead);
    if (!usable || s)
        return -1;
    __atomic_fetch_add(&g_graph_runs, 1, __ATOMIC_RELAXED);
    return 0;
}

void hoc_graph_note_legacy(void)
{
    __atomic_fetch_add(&g_legacy_runs, 1, __ATOMIC_RELAXED);
}

/* Not part of MIOpen: how many forward convolutions ran as cached graph plans and
 * as legacy cuDNN calls, and how many Finds cached a plan.  Returns
 * miopenStatusSuccess when cuDNN's backend API is usable, else NotInitialized. */
HOC_API miopenStatus_t miopenOnCudaConvStats(long long *graph_runs, long long *legacy_runs,
                                             long long *graph_finds)
{
    if (graph_runs)
        *graph_runs = __atomic_load_n(&g_graph_runs, __ATOMIC_RELAXED);
    if (legacy_runs)
        *legacy_runs = __atomic_load_n(&g_legacy_runs, __ATOMIC_RELAXED);
    if (graph_finds)
        *graph_finds = __atomic_load_n(&g_graph_finds, __ATOMIC_RELAXED);
    return hoc_g_ready() ? miopenStatusSuccess : miopenStatusNotInitialized;
}
