/* candlewick._native's part of lazy mode's policy that StartMethod (_native_lazy_start.c)
   reads: lazy_policy's globals, as they stand at each call (tests set them; a view read
   again where the module's dict changed, _native_lazy_globals.c; _DEFERS, a constant,
   once, by lazy_starts), a storage's size
   against RECORD_BYTES and a call's count, its key made as lazy_keys.pair_key makes
   it (binary and compare on (op, Layout, storage, Layout): built here in one step) or
   by lazy_keys.call_key_of (every other call), so that both count the same keys as
   lazy_policy.counted_replayed.

   A key is the largest part of the decision (a pair key ~4k instructions: its tuple
   built, hashed (its op's Enum.__hash__ in Python) and compared with the key counted;
   call_key_of's, in Python, ~8k), and code run again asks the same ones each time
   (scipy.fft's `spectrum * response`; StandardScaler's eleven reductions, casts and
   unary calls on X, which made a key in Python on every call): each StartMethod keeps
   its last four keys' answers with the parts of the arguments they were made of
   (cw_KeyMemo, _native_lazy_memo.c), which stand while lazy_policy's `_generation` (bumped at each change of
   the counts), `_counts`, `REPLAYS`, `Layout` and `call_key_of` are the ones they were
   made under. Parts equal to the kept ones make a key equal to the kept one, so the
   answer is the one `_counts` gives. */

#include "_native.h"
#include "_native_lazy.h"

PyObject *cw_s_dtype, *cw_s_lazy_type, *cw_s_tracer, *cw_s_real;
PyObject *cw_s_defer, *cw_s_probing;
static PyObject *s_defers;
/* lazy_policy._DEFERS, a constant: read once, when lazy_starts gives the policy */
static PyObject *defers_mark;
static PyObject *s_size, *s_itemsize, *s_name, *s_device;
static PyObject *s_shape, *s_strides, *s_offset;

static cw_Policy policy;
/* (in the order of CW_P_*) */
static const char *const policy_texts[CW_P_COUNT] = {"RECORD_BYTES", "REPLAYS", "_ripe", "_counts", "_generation",
                                                     "Layout", "_NOT_AS_IS", "call_key_of", "PROBE",
                                                     "PROBE_DOUBLINGS", "SITE_RUNS", "SITE_QUIET", "SITE_DOUBLINGS",
                                                     "SITE_CLOCK"};
static PyObject *policy_names[CW_P_COUNT];

/* RECORD_BYTES's, _generation's, PROBE's, PROBE_DOUBLINGS's and the SITE_ values, after each read of the globals */
static int derive(cw_GlobalsView *view) {
    (void)view;
    policy.record_bytes = PyLong_AsLongLong(policy.at[CW_P_RECORD_BYTES]);
    policy.generation = policy.record_bytes == -1 && PyErr_Occurred()
                            ? -1
                            : PyLong_AsLongLong(policy.at[CW_P_GENERATION]);
    policy.probe = policy.generation == -1 && PyErr_Occurred() ? -1 : PyLong_AsLongLong(policy.at[CW_P_PROBE]);
    policy.doublings = policy.probe == -1 && PyErr_Occurred() ? -1 : PyLong_AsLongLong(policy.at[CW_P_DOUBLINGS]);
    if (policy.doublings == -1 && PyErr_Occurred()) {
        return -1;
    }
    long long *sites[] = {&policy.site_runs, &policy.site_quiet, &policy.site_doublings};
    for (int i = 0; i < 3; i++) {
        *sites[i] = PyLong_AsLongLong(policy.at[CW_P_SITE_RUNS + i]);
        if (*sites[i] == -1 && PyErr_Occurred()) {
            return -1;
        }
    }
    if (policy.probe < 0 || policy.probe > (1LL << 32) || policy.doublings < 0 || policy.doublings > 16) {
        PyErr_SetString(PyExc_ValueError, "candlewick lazy_policy: PROBE must be an int from 0 to 2**32 and "
                        "PROBE_DOUBLINGS one from 0 to 16");
        return -1;
    }
    if (policy.site_runs < 0 || policy.site_runs > (1LL << 32) || policy.site_quiet < 1 ||
        policy.site_quiet > (1LL << 32) || policy.site_doublings < 0 || policy.site_doublings > 16) {
        PyErr_SetString(PyExc_ValueError, "candlewick lazy_policy: SITE_RUNS must be an int from 0 to 2**32, "
                        "SITE_QUIET one from 1 to 2**32 and SITE_DOUBLINGS one from 0 to 16");
        return -1;
    }
    if (policy.at[CW_P_SITE_CLOCK] != Py_None && !PyCallable_Check(policy.at[CW_P_SITE_CLOCK])) {
        PyErr_SetString(PyExc_TypeError, "candlewick lazy_policy: SITE_CLOCK must be None or a callable");
        return -1;
    }
    return 0;
}

static cw_GlobalsView policy_view = {
    .module = "lazy_policy", .count = CW_P_COUNT, .texts = policy_texts, .names = policy_names,
    .values = policy.at, .derive = derive};

/* (_native_lazy.h) */
const cw_Policy *cw_policy_now(void) {
    return cw_globals_fresh(&policy_view) < 0 ? NULL : &policy;
}

/* 1 where the storage `s` holds fewer than `limit` bytes, 0 where not, -1 on an error. */
int cw_storage_smaller(PyObject *s, long long limit) {
    /* (asked of every operand of an element-wise call in lazy mode: its reads kept) */
    static cw_MemberSite size_site, dtype_site, item_site;
    PyObject *size = cw_site_member(&size_site, s, s_size);
    PyObject *dtype = size == NULL ? NULL : cw_site_member(&dtype_site, s, cw_s_dtype);
    PyObject *item = dtype == NULL ? NULL : cw_site_member(&item_site, dtype, s_itemsize);
    Py_XDECREF(dtype);
    if (item == NULL) {
        Py_XDECREF(size);
        return -1;
    }
    long long n = PyLong_CheckExact(size) ? PyLong_AsLongLong(size) : -1;
    long long width = n >= 0 && PyLong_CheckExact(item) ? PyLong_AsLongLong(item) : -1;
    long long bytes;
    if (n >= 0 && width >= 0 && !__builtin_mul_overflow(n, width, &bytes)) {
        Py_DECREF(size);
        Py_DECREF(item);
        return bytes < limit;
    }
    PyErr_Clear(); /* not two ints of a long long's range: Python's arithmetic */
    PyObject *product = PyNumber_Multiply(size, item);
    Py_DECREF(size);
    Py_DECREF(item);
    if (product == NULL) {
        return -1;
    }
    PyObject *bound = PyLong_FromLongLong(limit);
    int below = bound == NULL ? -1 : PyObject_RichCompareBool(product, bound, Py_LT);
    Py_DECREF(product);
    Py_XDECREF(bound);
    return below;
}

/* (layout.shape, layout.strides, layout.offset), as call_key keeps a Layout. */
static PyObject *layout_key(PyObject *layout) {
    PyObject *parts[3];
    const Binding *b = &cw_bound;
    if (Py_TYPE(layout) == b->layout_type && SLOT(layout, b->shape) != NULL && SLOT(layout, b->strides) != NULL &&
        SLOT(layout, b->offset) != NULL) { /* the bound class's slots, read directly */
        parts[0] = Py_NewRef(SLOT(layout, b->shape));
        parts[1] = Py_NewRef(SLOT(layout, b->strides));
        parts[2] = Py_NewRef(SLOT(layout, b->offset));
    } else {
        parts[0] = PyObject_GetAttr(layout, s_shape);
        parts[1] = PyObject_GetAttr(layout, s_strides);
        parts[2] = PyObject_GetAttr(layout, s_offset);
    }
    if (parts[0] == NULL || parts[1] == NULL || parts[2] == NULL) {
        for (int i = 0; i < 3; i++) {
            Py_XDECREF(parts[i]);
        }
        return NULL;
    }
    PyObject *key = PyTuple_New(3);
    for (int i = 0; i < 3; i++) {
        if (key == NULL) {
            Py_DECREF(parts[i]);
        } else {
            PyTuple_SET_ITEM(key, i, parts[i]);
        }
    }
    return key;
}

/* The key pair_key makes of (op, Layout, storage, Layout), or NULL without an error
   where the arguments are not that case (call_key_of's then), or with one. */
static PyObject *pair_key(const cw_Policy *p, PyObject *device, PyObject *name, PyObject *dtype, PyObject *const *args,
                          Py_ssize_t n) {
    PyObject *layout_type = p->at[CW_P_LAYOUT], *not_as_is = p->at[CW_P_NOT_AS_IS];
    if (n != 4 || Py_TYPE(args[1]) != (PyTypeObject *)layout_type || Py_TYPE(args[3]) != (PyTypeObject *)layout_type) {
        return NULL;
    }
    int special = PySet_Contains(not_as_is, (PyObject *)Py_TYPE(args[0]));
    if (special != 0) {
        return NULL;
    }
    PyObject *other_dtype = PyObject_GetAttr(args[2], cw_s_dtype);
    PyObject *items[7] = {PyLong_FromVoidPtr(device), Py_NewRef(name), PyObject_GetAttr(dtype, s_name),
                          Py_NewRef(args[0]), layout_key(args[1]),
                          other_dtype == NULL ? NULL : PyObject_GetAttr(other_dtype, s_name), layout_key(args[3])};
    Py_XDECREF(other_dtype);
    PyObject *key = NULL;
    for (int i = 0; i < 7; i++) {
        if (items[i] == NULL) {
            for (int j = 0; j < 7; j++) {
                Py_XDECREF(items[j]);
            }
            return NULL;
        }
    }
    key = PyTuple_New(7);
    for (int i = 0; i < 7; i++) {
        if (key == NULL) {
            Py_DECREF(items[i]);
        } else {
            PyTuple_SET_ITEM(key, i, items[i]);
        }
    }
    return key;
}


/* cw_counted's answer made from the call's key (a miss of its memo): see there. */
static int counted(const cw_Policy *p, PyObject *name, int pair, PyObject *pending, PyObject *dtype,
                   PyObject *const *args, Py_ssize_t n, PyObject *counts, PyObject *replays, PyObject *key_of) {
    PyObject *device = PyObject_GetAttr(pending, s_device);
    if (device == NULL) {
        return -1;
    }
    PyObject *key = pair ? pair_key(p, device, name, dtype, args, n) : NULL;
    if (key == NULL && !PyErr_Occurred()) {
        PyObject *listed = PyTuple_New(n);
        if (listed != NULL) {
            for (Py_ssize_t i = 0; i < n; i++) {
                PyTuple_SET_ITEM(listed, i, Py_NewRef(args[i]));
            }
            PyObject *call[] = {device, name, dtype, listed};
            key = PyObject_Vectorcall(key_of, call, 4, NULL);
            Py_DECREF(listed);
        }
    }
    Py_DECREF(device);
    PyObject *seen = key == NULL ? NULL : PyDict_GetItemWithError(counts, key);
    Py_XDECREF(key);
    if (seen == NULL) {
        if (!PyErr_Occurred()) {
            return 0; /* not counted */
        }
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear(); /* an unhashable argument: never counted (not kept: asked again) */
        return -2;
    }
    int answer = PyObject_RichCompareBool(seen, defers_mark, Py_EQ);
    if (answer == 1) {
        return 2; /* marked _DEFERS: deferred (lazy_defer) */
    }
    return answer == 0 ? PyObject_RichCompareBool(seen, replays, Py_GE) : answer;
}

/* A call's answer of 1 (run at once) where its kept answer `e`'s tally reaches PROBE <<
   min(probes, PROBE_DOUBLINGS): 3 then, this run recorded as a probe (lazy_policy.PROBE:
   a chain it starts may fuse again), the tally started over and the next probe twice as
   far. A call not kept is never probed. */
static int probed(const cw_Policy *p, int answer, cw_KeyMemoEntry *e) {
    if (answer != 1 || p->probe <= 0 || e == NULL) {
        return answer;
    }
    int doublings = e->probes < p->doublings ? e->probes : (int)p->doublings;
    if (++e->tally < (p->probe << doublings)) {
        return answer;
    }
    e->tally = 0;
    e->probes++;
    return 3;
}

/* How often the call was counted replayed (lazy_policy._counts), >= `replays`: 1, or 3
   where `probes` and this run is its PROBE-th at once (`probed`: recorded), 0 where not (an
   unhashable argument: never counted), 2 where it is marked `_DEFERS` (to be deferred,
   lazy_defer), -1 on an error. */
int cw_counted(const cw_Policy *p, PyObject *name, int pair, const Py_ssize_t *positions, Py_ssize_t npositions,
               PyObject *pending, PyObject *dtype, PyObject *const *args, Py_ssize_t n, cw_KeyMemo *memo, int probes) {
    PyObject *counts = p->at[CW_P_COUNTS], *replays = p->at[CW_P_REPLAYS], *layout_type = p->at[CW_P_LAYOUT];
    PyObject *key_of = p->at[CW_P_CALL_KEY_OF];
    long long generation = p->generation;
    /* (pending, not its device: a Pending's device is set once) */
    PyObject *held[CW_MEMO_HELD] = {counts, replays, layout_type, key_of, pending, dtype};
    cw_MemoCall call;
    cw_memo_parts(args, n, positions, npositions, layout_type, &call);
    cw_KeyMemoEntry *known = cw_memo_find(memo, held, &call, generation);
    if (known != NULL) {
        cw_memo_release(&call);
        return probes ? probed(p, known->answer, known) : known->answer;
    }
    /* a miss: the key made, which may run Python code (call_key_of, an op's hash) that
       could rebind lazy_policy's globals: what is compared and kept is held until then */
    cw_memo_hold(&call);
    for (int i = 0; i < CW_MEMO_HELD; i++) {
        Py_INCREF(held[i]);
    }
    int answer = counted(p, name, pair, pending, dtype, args, n, counts, replays, key_of);
    cw_KeyMemoEntry *kept = NULL;
    if (answer >= 0) {
        kept = cw_memo_keep(memo, held, &call, generation, answer); /* (the parts taken over) */
    } else {
        cw_memo_release(&call);
    }
    for (int i = 0; i < CW_MEMO_HELD; i++) {
        Py_DECREF(held[i]);
    }
    return answer == -2 ? 0 : probes ? probed(p, answer, kept) : answer;
}

int cw_lazy_key_policy(PyObject *globals) {
    PyObject *mark = PyDict_GetItemWithError(globals, s_defers);
    if (mark == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_starts: the policy has no _DEFERS");
        }
        return -1;
    }
    Py_XSETREF(defers_mark, Py_NewRef(mark));
    return cw_globals_give(&policy_view, globals);
}

int cw_lazy_key_ready(void) {
    static const char *const texts[] = {"size", "dtype", "itemsize", "name", "lazy_type", "tracer", "device", "real",
                                        "shape", "strides", "offset", "_DEFERS", "defer", "probing"};
    PyObject **names[] = {&s_size, &cw_s_dtype, &s_itemsize, &s_name, &cw_s_lazy_type, &cw_s_tracer, &s_device,
                          &cw_s_real, &s_shape, &s_strides, &s_offset, &s_defers, &cw_s_defer,
                          &cw_s_probing};
    return cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names);
}
