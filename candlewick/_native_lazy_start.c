/* candlewick._native's StartMethod: lazy mode's decision, for a primitive called on a
   computed array, to run it at once or record it (candlewick/fusion/lazy_policy.py, the
   policy; its Python `_start` is the same decision where this module is not built).

   A call made in a `with cw.lazy():` block on an array that is computed (scipy.fft's
   `spectrum * response` between two transforms) asks it once: in Python that was a
   frame, the bound method made through Start's __getattr__ and the call's key built
   in Python, about as much host time as the eager call itself. Here it is one call of C,
   and the element-wise path (_native_elementwise.c, cw_call_primitive) calls it without
   binding a method.

   lazy_starts(start_type, policy) says what the methods share: lazy_policy.Start (its
   object slots `pending`, the thread's pending graph, and `real`, the computed storage)
   and lazy_policy's globals, from which every call reads RECORD_BYTES, REPLAYS, _ripe,
   _counts, Layout, _NOT_AS_IS and call_key_of as they are then (tests set them).
   StartMethod(name, positions, pair) is Start's method for primitive `name`: `positions`
   its storage arguments (lazy_policy.STORAGE_ARGS), `pair` whether its key is built here
   in pair_key's one step (binary, compare) rather than by call_key_of. */

#include "_native.h"

#define MAX_ARGS 8      /* the most arguments a primitive takes here (the protocol's: 6) */
#define MAX_POSITIONS 4 /* the most storage arguments (where: 2) */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *name;
    int pair;
    Py_ssize_t npositions;
    Py_ssize_t positions[MAX_POSITIONS];
} StartMethod;

static PyTypeObject *start_type;
static PyObject *policy;
static Py_ssize_t pending_at, real_at;
static PyObject *s_record_bytes, *s_replays, *s_ripe, *s_counts, *s_layout, *s_not_as_is, *s_call_key_of;
static PyObject *s_size, *s_dtype, *s_itemsize, *s_name, *s_lazy_type, *s_tracer, *s_device, *s_real;
static PyObject *s_shape, *s_strides, *s_offset;

/* lazy_policy's global `name` (borrowed), or NULL with an error. */
static PyObject *global(PyObject *name) {
    PyObject *value = PyDict_GetItemWithError(policy, name);
    if (value == NULL && !PyErr_Occurred()) {
        PyErr_Format(PyExc_RuntimeError, "candlewick._native.StartMethod: lazy_policy has no %U", name);
    }
    return value;
}

/* 1 where the storage `s` holds fewer than `limit` bytes, 0 where not, -1 on an error. */
static int smaller(PyObject *s, long long limit) {
    PyObject *size = PyObject_GetAttr(s, s_size);
    PyObject *dtype = size == NULL ? NULL : PyObject_GetAttr(s, s_dtype);
    PyObject *item = dtype == NULL ? NULL : PyObject_GetAttr(dtype, s_itemsize);
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
    PyObject *layout_type = global(s_layout), *not_as_is = layout_type == NULL ? NULL : global(s_not_as_is);
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
    PyObject *other_dtype = PyObject_GetAttr(args[2], s_dtype);
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
   not (an unhashable argument: never counted), -1 on an error. */
static int counted(StartMethod *m, PyObject *pending, PyObject *dtype, PyObject *const *args, Py_ssize_t n,
                   PyObject *replays) {
    PyObject *device = PyObject_GetAttr(pending, s_device);
    if (device == NULL) {
        return -1;
    }
    PyObject *key = m->pair ? pair_key(device, m->name, dtype, args, n) : NULL;
    if (key == NULL && !PyErr_Occurred()) {
        PyObject *key_of = global(s_call_key_of);
        PyObject *listed = key_of == NULL ? NULL : PyTuple_New(n);
        if (listed != NULL) {
            for (Py_ssize_t i = 0; i < n; i++) {
                PyTuple_SET_ITEM(listed, i, Py_NewRef(args[i]));
            }
            PyObject *call[] = {device, m->name, dtype, listed};
            key = PyObject_Vectorcall(key_of, call, 4, NULL);
            Py_DECREF(listed);
        }
    }
    Py_DECREF(device);
    PyObject *counts = key == NULL ? NULL : global(s_counts);
    PyObject *seen = counts == NULL ? NULL : PyDict_GetItemWithError(counts, key);
    Py_XDECREF(key);
    if (seen == NULL) {
        if (PyErr_Occurred() && !PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear(); /* not counted, or an unhashable argument: never counted */
        return 0;
    }
    return PyObject_RichCompareBool(seen, replays, Py_GE);
}

/* `name`'s primitive called on `receiver` with args (new reference, or NULL). */
static PyObject *call_on(PyObject *name, PyObject *receiver, PyObject *const *args, Py_ssize_t n) {
    PyObject *buffer[MAX_ARGS + 2];
    buffer[1] = receiver;
    for (Py_ssize_t i = 0; i < n; i++) {
        buffer[i + 2] = args[i];
    }
    return PyObject_VectorcallMethod(name, buffer + 1, (size_t)(n + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

/* Start.<name>(*args): lazy_policy._start's policy. */
static PyObject *start_call(PyObject *callable, PyObject *const *all, size_t nargsf, PyObject *kwnames) {
    StartMethod *m = (StartMethod *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf) - 1;
    if (start_type == NULL || policy == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.StartMethod: lazy_starts was not called");
        return NULL;
    }
    if (n < 0 || kwnames != NULL || n > MAX_ARGS || !PyObject_TypeCheck(all[0], start_type)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.StartMethod %U: takes a Start and at most %d positional "
                     "arguments", m->name, MAX_ARGS);
        return NULL;
    }
    PyObject *pending = SLOT(all[0], pending_at), *real = SLOT(all[0], real_at);
    if (pending == NULL || real == NULL) {
        PyErr_Format(PyExc_AttributeError, "candlewick._native.StartMethod %U: the Start has no pending or real",
                     m->name);
        return NULL;
    }
    PyObject *const *args = all + 1;
    PyObject *record_bytes = global(s_record_bytes), *replays = record_bytes == NULL ? NULL : global(s_replays);
    PyObject *ripe_set = replays == NULL ? NULL : global(s_ripe);
    long long limit = ripe_set == NULL ? -1 : PyLong_AsLongLong(record_bytes);
    if (limit == -1 && PyErr_Occurred()) {
        return NULL;
    }
    /* held for the calls below: a primitive runs Python code that could rebind the slots */
    Py_INCREF(pending);
    Py_INCREF(real);
    PyObject *call_args[MAX_ARGS], *out = NULL, *lazy_type = NULL;
    Py_ssize_t replaced[MAX_POSITIONS], nreplaced = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        call_args[i] = args[i];
    }
    int small = smaller(real, limit), ripe = small < 0 ? -1 : PySet_Contains(ripe_set, m->name);
    if (ripe < 0) {
        goto done;
    }
    if (small || ripe) { /* (a key is made only for a primitive that has a ripe one) */
        lazy_type = PyObject_GetAttr(pending, s_lazy_type);
        if (lazy_type == NULL) {
            goto done;
        }
        for (Py_ssize_t k = 0; k < m->npositions; k++) {
            Py_ssize_t i = m->positions[k];
            if (i >= n) {
                PyErr_Format(PyExc_TypeError, "candlewick._native.StartMethod %U: takes a storage as argument %zd, "
                             "got %zd arguments", m->name, i, n);
                goto done;
            }
            PyObject *a = args[i];
            if (Py_TYPE(a) == (PyTypeObject *)lazy_type) {
                a = PyObject_GetAttr(a, s_real);
                if (a == NULL) {
                    goto done;
                }
                if (a == Py_None) { /* a pending operand: the call joins its graph */
                    Py_DECREF(a);
                    small = ripe = 0;
                    break;
                }
                call_args[i] = a;
                replaced[nreplaced++] = i;
            }
            if (small) {
                small = smaller(a, limit);
                if (small < 0) {
                    goto done;
                }
            }
        }
        if (small) {
            out = call_on(m->name, real, call_args, n);
            goto done;
        }
        if (ripe) {
            PyObject *dtype = PyObject_GetAttr(real, s_dtype);
            int now = dtype == NULL ? -1 : counted(m, pending, dtype, call_args, n, replays);
            Py_XDECREF(dtype);
            if (now < 0) {
                goto done;
            }
            if (now) {
                out = call_on(m->name, real, call_args, n);
                goto done;
            }
        }
    }
    PyObject *tracer = PyObject_CallMethodOneArg(pending, s_tracer, real); /* recorded */
    if (tracer != NULL) {
        out = call_on(m->name, tracer, args, n);
        Py_DECREF(tracer);
    }
done:
    for (Py_ssize_t k = 0; k < nreplaced; k++) {
        Py_DECREF(call_args[replaced[k]]);
    }
    Py_XDECREF(lazy_type);
    Py_DECREF(pending);
    Py_DECREF(real);
    return out;
}

PyObject *cw_call_primitive(PyObject *name, PyObject *const *args, size_t nargsf) {
    PyTypeObject *type = Py_TYPE(args[0]);
    if (type == start_type) {
        PyObject *method = _PyType_Lookup(type, name); /* (borrowed; as the interpreter's own lookup) */
        if (method != NULL && Py_TYPE(method) == &cw_StartMethodType) {
            return start_call(method, args, PyVectorcall_NARGS(nargsf), NULL);
        }
    }
    return PyObject_VectorcallMethod(name, args, nargsf, NULL);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *name, *positions;
    int pair;
    static char *names[] = {"name", "positions", "pair", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!p:StartMethod", names, &name, &PyTuple_Type, &positions,
                                     &pair)) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(positions);
    if (count > MAX_POSITIONS) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.StartMethod: positions must hold at most %d, got %zd",
                     MAX_POSITIONS, count);
        return NULL;
    }
    Py_ssize_t at[MAX_POSITIONS];
    for (Py_ssize_t k = 0; k < count; k++) {
        at[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, k));
        if (at[k] < 0 || at[k] >= MAX_ARGS) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "candlewick._native.StartMethod: positions must be ints from 0 to "
                             "%d", MAX_ARGS - 1);
            }
            return NULL;
        }
    }
    StartMethod *self = (StartMethod *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = start_call;
    self->name = Py_NewRef(name);
    PyUnicode_InternInPlace(&self->name);
    self->pair = pair;
    self->npositions = count;
    for (Py_ssize_t k = 0; k < count; k++) {
        self->positions[k] = at[k];
    }
    return (PyObject *)self;
}

static PyObject *bind(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    return obj == NULL || obj == Py_None ? Py_NewRef(self) : PyMethod_New(self, obj);
}

static PyObject *get_name(StartMethod *self, void *unused) {
    (void)unused;
    return Py_NewRef(self->name);
}

static PyGetSetDef getset[] = {
    {"__name__", (getter)get_name, NULL, "the primitive's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static void dealloc(StartMethod *self) {
    Py_CLEAR(self->name);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_StartMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.StartMethod",
    .tp_basicsize = sizeof(StartMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "StartMethod(name, positions, pair): lazy_policy.Start's method for a primitive (see "
              "_native_lazy_start.c)",
    .tp_new = make,
    .tp_dealloc = (destructor)dealloc,
    .tp_vectorcall_offset = offsetof(StartMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = bind,
    .tp_getset = getset,
};

const char cw_lazy_starts_doc[] =
    "lazy_starts(start_type, policy)\n\n"
    "What every StartMethod shares (see _native_lazy_start.c): lazy_policy.Start, whose\n"
    "object slots pending and real it reads, and lazy_policy's globals.";

PyObject *cw_lazy_starts(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0]) || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.lazy_starts: takes a type and a dict");
        return NULL;
    }
    Py_ssize_t pending, real;
    if (cw_slot_offset((PyTypeObject *)args[0], "pending", &pending) < 0 ||
        cw_slot_offset((PyTypeObject *)args[0], "real", &real) < 0) {
        return NULL;
    }
    PyObject *old[] = {(PyObject *)start_type, policy};
    start_type = (PyTypeObject *)Py_NewRef(args[0]);
    policy = Py_NewRef(args[1]);
    pending_at = pending;
    real_at = real;
    Py_XDECREF(old[0]);
    Py_XDECREF(old[1]);
    Py_RETURN_NONE;
}

int cw_lazy_start_ready(void) {
    static const char *const texts[] = {"RECORD_BYTES", "REPLAYS", "_ripe", "_counts", "Layout", "_NOT_AS_IS",
                                        "call_key_of", "size", "dtype", "itemsize", "name", "lazy_type",
                                        "tracer", "device", "real", "shape", "strides", "offset"};
    PyObject **names[] = {&s_record_bytes, &s_replays, &s_ripe, &s_counts, &s_layout, &s_not_as_is,
                          &s_call_key_of, &s_size, &s_dtype, &s_itemsize, &s_name, &s_lazy_type,
                          &s_tracer, &s_device, &s_real, &s_shape, &s_strides, &s_offset};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) {
            return -1;
        }
    }
    return PyType_Ready(&cw_StartMethodType);
}
