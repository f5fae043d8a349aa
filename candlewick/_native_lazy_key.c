/* candlewick._native's part of lazy mode's policy that StartMethod (_native_lazy_start.c)
   reads: lazy_policy's globals, read at each call (tests set them; _DEFERS, a constant,
   once, by lazy_starts), a storage's size
   against RECORD_BYTES and a call's count, its key made as lazy_policy's pair_key makes
   it (binary and compare on (op, Layout, storage, Layout): built here in one step) or
   by lazy_policy.call_key_of (every other call), so that both count the same keys as
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

PyObject *cw_lazy_policy;
PyObject *cw_s_record_bytes, *cw_s_replays, *cw_s_ripe, *cw_s_dtype, *cw_s_lazy_type, *cw_s_tracer, *cw_s_real;
PyObject *cw_s_defer;
static PyObject *s_counts, *s_generation, *s_layout, *s_not_as_is, *s_call_key_of, *s_defers;
/* lazy_policy._DEFERS, a constant: read once, when lazy_starts gives the policy */
static PyObject *defers_mark;
static PyObject *s_size, *s_itemsize, *s_name, *s_device;
static PyObject *s_shape, *s_strides, *s_offset;

/* lazy_policy's global `name` (borrowed), or NULL with an error. */
PyObject *cw_policy_global(PyObject *name) {
    PyObject *value = cw_kept_global(cw_lazy_policy, name);
    if (value == NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "candlewick._native.StartMethod: lazy_policy has no %U", name);
    }
    return value;
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
static PyObject *pair_key(PyObject *device, PyObject *name, PyObject *dtype, PyObject *const *args, Py_ssize_t n) {
    PyObject *layout_type = cw_policy_global(s_layout);
    PyObject *not_as_is = layout_type == NULL ? NULL : cw_policy_global(s_not_as_is);
    if (not_as_is == NULL) {
        return NULL;
    }
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


/* How often the call was counted replayed (lazy_policy._counts), >= `replays`: 1, 0 where
   not (an unhashable argument: never counted), 2 where it is marked `_DEFERS` (to be
   deferred, lazy_defer), -1 on an error. */
int cw_counted(PyObject *name, int pair, const Py_ssize_t *positions, Py_ssize_t npositions, PyObject *pending,
               PyObject *dtype, PyObject *const *args, Py_ssize_t n, PyObject *replays, cw_KeyMemo *memo) {
    PyObject *counts = cw_policy_global(s_counts);
    PyObject *layout_type = counts == NULL ? NULL : cw_policy_global(s_layout);
    PyObject *key_of = layout_type == NULL ? NULL : cw_policy_global(s_call_key_of);
    PyObject *stamp = key_of == NULL ? NULL : cw_policy_global(s_generation);
    long long generation = stamp == NULL ? -1 : PyLong_AsLongLong(stamp);
    if (generation == -1 && PyErr_Occurred()) {
        return -1;
    }
    PyObject *parts[CW_MEMO_PARTS];
    unsigned char kinds[CW_MEMO_PARTS];
    /* (pending, not its device: a Pending's device is set once) */
    PyObject *held[CW_MEMO_HELD] = {counts, replays, layout_type, key_of, pending, dtype};
    int count = cw_memo_parts(args, n, positions, npositions, layout_type, parts, kinds);
    int known = count > 0 ? cw_memo_answer(memo, held, parts, kinds, count, generation) : -1;
    if (known >= 0) {
        cw_memo_release(parts, count);
        return known;
    }
    PyObject *device = PyObject_GetAttr(pending, s_device);
    if (device == NULL) {
        cw_memo_release(parts, count);
        return -1;
    }
    PyObject *key = pair ? pair_key(device, name, dtype, args, n) : NULL;
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
    int answer;
    if (seen == NULL) {
        if (PyErr_Occurred()) {
            cw_memo_release(parts, count);
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
                return -1;
            }
            PyErr_Clear(); /* an unhashable argument: never counted */
            return 0;
        }
        answer = 0; /* not counted */
    } else {
        answer = PyObject_RichCompareBool(seen, defers_mark, Py_EQ);
        if (answer == 1) {
            answer = 2; /* marked _DEFERS: deferred (lazy_defer) */
        } else if (answer == 0) {
            answer = PyObject_RichCompareBool(seen, replays, Py_GE);
        }
        if (answer < 0) {
            cw_memo_release(parts, count);
            return -1;
        }
    }
    if (count > 0) {
        cw_memo_keep(memo, held, parts, kinds, count, generation, answer); /* (the parts taken over) */
    }
    return answer;
}

int cw_lazy_key_policy(PyObject *policy) {
    PyObject *mark = PyDict_GetItemWithError(policy, s_defers);
    if (mark == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_starts: the policy has no _DEFERS");
        }
        return -1;
    }
    Py_XSETREF(defers_mark, Py_NewRef(mark));
    return 0;
}

int cw_lazy_key_ready(void) {
    static const char *const texts[] = {"RECORD_BYTES", "REPLAYS", "_ripe", "_counts", "_generation", "Layout", "_NOT_AS_IS",
                                        "call_key_of", "size", "dtype", "itemsize", "name", "lazy_type",
                                        "tracer", "device", "real", "shape", "strides", "offset", "_DEFERS", "defer"};
    PyObject **names[] = {&cw_s_record_bytes, &cw_s_replays, &cw_s_ripe, &s_counts, &s_generation, &s_layout, &s_not_as_is,
                          &s_call_key_of, &s_size, &cw_s_dtype, &s_itemsize, &s_name, &cw_s_lazy_type,
                          &cw_s_tracer, &s_device, &cw_s_real, &s_shape, &s_strides, &s_offset, &s_defers,
                          &cw_s_defer};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) {
            return -1;
        }
    }
    return 0;
}
