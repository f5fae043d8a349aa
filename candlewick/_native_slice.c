/* candlewick._native's Item: x[a:b:c] and its store back (x[a:b:c] op= y), in C.

   Item(store, general) is a method (a descriptor) of the bound array class, general the
   Python method it stands for (Array.__getitem__ / __setitem__, candlewick/indexing.py).
   Its case: a key that is a slice whose bounds are None or ints, on an array of the bound
   class with at least one axis.
   - Item(False, ...)(x, key): the view of x that Layout.slice(0, *key.indices(n)) gives
     (the same shape, strides, offset, _contig and dense_size; _native_slice_layout.c),
     made as _native_rows.c makes its rows; for a tuple key of slices, ints, None and one
     `...`, the view basic_layout gives (cw_basic_layout).
   - Item(True, ...)(x, key, value): where value is an array of that class over x's
     storage whose layout equals that view's (Layout.__eq__), x has no stride 0 and its
     storage is not read-only, nothing (Python's x[key] op= y stores the updated view back
     into the place it views, which the in-place operator has already written).
   - Item(True, ...)(x, (i, j, ...), v): one int per axis, v a 0-d array of x's class,
     dtype and device: the storage's assign of v into that element; v a Python bool, int
     or float that x's dtype takes exactly: v written into the element of a cpu storage
     (_native_element_store.c).
   - Item(True, ...)(x, key, v) for another tuple key of slices, ints, None and `...`, v an
     array of x's class, dtype and device over another storage of x's storage class: the
     storage's assign of v (its layout broadcast) into x[key]'s layout (cw_store_basic).
   While lazy mode is on (cw_lazy_write), a store calls cw_lazy_write(x) first, unless
   nothing is pending and x holds no recorded storage (idle) (what is
   pending runs, x gets its run storage), as general's check_writable does. Anything
   else, and any call while the module is unbound, is general's. Why in C: `x[::2] += 1` is a get, an update and a store; after an update
   of 2^20 elements each Python call of the get and the store (about eight each) misses
   the caches, 1-2 us apiece on the 2-core Xeon VM (bench/inplace.py). */

#include "_native.h"
#include "_native_index.h"
#include "_native_lazy.h"

#include <stddef.h>

typedef struct {
    CW_METHOD_HEAD
    int store;
} Item;

static PyObject *read_only_attr;

/* x[key] (new reference), NOT_TAKEN-like NULL with no error where not the case. */
static PyObject *get(const Binding *b, PyObject *x, PyObject *key) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    Cut cut;
    if (storage == NULL || layout == NULL || dtype == NULL || device == NULL || Py_TYPE(layout) != b->layout_type) {
        return NULL;
    }
    PyObject *view_layout;
    if (PyTuple_CheckExact(key)) {
        view_layout = cw_basic_layout(b, layout, key);
        if (view_layout == NULL) {
            return NULL;
        }
    } else if (!cw_cut_of(b, layout, key, &cut)) {
        return NULL;
    } else {
        view_layout = cw_cut_layout(b, layout, &cut);
    }
    PyObject *view = view_layout == NULL ? NULL : b->array_type->tp_alloc(b->array_type, 0);
    if (view == NULL) {
        Py_XDECREF(view_layout);
        return NULL;
    }
    SLOT(view, b->storage) = Py_NewRef(storage);
    SLOT(view, b->layout) = view_layout;
    SLOT(view, b->dtype) = Py_NewRef(dtype);
    SLOT(view, b->device) = Py_NewRef(device);
    return view;
}

/* 1 where `got` (a tuple of ints) holds `want` at every axis (or, with `sizes`, at every
   axis longer than 1), 0 where not or not ints. */
static int same_ints(PyObject *got, const Py_ssize_t *want, Py_ssize_t ndim, const Py_ssize_t *sizes) {
    if (!PyTuple_CheckExact(got) || PyTuple_GET_SIZE(got) != ndim) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < ndim; i++) {
        if (sizes != NULL && sizes[i] <= 1) {
            continue;
        }
        PyObject *v = PyTuple_GET_ITEM(got, i);
        if (!PyLong_CheckExact(v) || PyLong_AsSsize_t(v) != want[i]) {
            PyErr_Clear();
            return 0;
        }
    }
    return 1;
}

/* x[key] = value where that stores value's own place back: 1 done (nothing to write),
   0 not the case, -1 error. */
static int store(const Binding *b, PyObject *x, PyObject *key, PyObject *value) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    if (Py_TYPE(value) != b->array_type || storage == NULL || SLOT(value, b->storage) != storage ||
        layout == NULL || Py_TYPE(layout) != b->layout_type) {
        return 0;
    }
    PyObject *theirs = SLOT(value, b->layout);
    Cut cut;
    if (theirs == NULL || Py_TYPE(theirs) != b->layout_type || !cw_cut_of(b, layout, key, &cut)) {
        return 0;
    }
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides);
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (ndim > CW_MAX_AXES) {
        return 0;
    }
    Py_ssize_t want_shape[CW_MAX_AXES], want_strides[CW_MAX_AXES];
    for (Py_ssize_t i = 0; i < ndim; i++) {
        want_shape[i] = i == 0 ? cut.length : PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        PyObject *s = PyTuple_GET_ITEM(strides, i);
        want_strides[i] = PyLong_CheckExact(s) ? PyLong_AsSsize_t(s) : 0;
        if (want_strides[i] == 0 || PyErr_Occurred()) {
            PyErr_Clear(); /* (a stride 0 may be a broadcast: general's check) */
            return 0;
        }
    }
    if (cut.step != 1) {
        want_strides[0] = cut.length > 1 ? cut.stride * cut.step : 0;
    }
    PyObject *offset = SLOT(theirs, b->offset);
    Py_ssize_t at = offset != NULL && PyLong_CheckExact(offset) ? PyLong_AsSsize_t(offset) : -1;
    if (at == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    if (at != cut.offset || !same_ints(SLOT(theirs, b->shape), want_shape, ndim, NULL) ||
        !same_ints(SLOT(theirs, b->strides), want_strides, ndim, want_shape)) {
        return 0;
    }
    /* the view is value's place: x must be writable, as general's check_writable asks */
    int read_only = cw_attr_true(storage, read_only_attr);
    return read_only < 0 ? -1 : !read_only;
}


/* Whether a store into x has nothing to ask of lazy mode: no graph pending anywhere and
   x's storage not a recorded one (scikit-learn's fill_diagonal stores 2048 times). */
static int idle(const Binding *b, PyObject *x) {
    PyObject *storage = SLOT(x, b->storage);
    return cw_lazy_live != NULL && PySet_GET_SIZE(cw_lazy_live) == 0 && storage != NULL &&
           (PyObject *)Py_TYPE(storage) != cw_lazy_type;
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Item *self = (Item *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Binding b;
    if (kwnames == NULL && nargs == 2 + self->store && cw_hold_binding(&b)) {
        PyObject *out = NULL;
        int done = 0;
        if (Py_TYPE(args[0]) == b.array_type && self->store && cw_lazy_write != NULL && !idle(&b, args[0])) {
            PyObject *hook = Py_NewRef(cw_lazy_write);
            PyObject *ran = PyObject_CallOneArg(hook, args[0]);
            Py_DECREF(hook);
            if (ran == NULL) {
                cw_release_binding(&b);
                return NULL;
            }
            Py_DECREF(ran);
        }
        if (Py_TYPE(args[0]) == b.array_type) {
            if (self->store && PyTuple_CheckExact(args[1])) {
                done = cw_store_element(&b, args[0], args[1], args[2]);
                if (done == 0) {
                    done = cw_store_basic(&b, args[0], args[1], args[2]);
                }
            } else if (self->store) {
                done = store(&b, args[0], args[1], args[2]);
            } else {
                out = get(&b, args[0], args[1]);
                done = out != NULL ? 1 : PyErr_Occurred() ? -1 : 0;
            }
        }
        cw_release_binding(&b);
        if (done != 0) {
            return done < 0 ? NULL : self->store ? Py_NewRef(Py_None) : out;
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int store_flag;
    PyObject *general;
    static char *names[] = {"store", "general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "pO:Item", names, &store_flag, &general)) {
        return NULL;
    }
    if (!PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Item: general must be callable");
        return NULL;
    }
    Item *self = (Item *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->store = store_flag;
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int traverse(Item *self, visitproc visit, void *arg) {
    Py_VISIT(self->general);
    return 0;
}

static int clear(Item *self) {
    Py_CLEAR(self->general);
    return 0;
}

static void dealloc(Item *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_ItemType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Item",
    .tp_basicsize = sizeof(Item),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Item, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = cw_method_getset,
};

int cw_item_ready(void) {
    read_only_attr = PyUnicode_InternFromString("read_only");
    if (read_only_attr == NULL || cw_element_store_ready() < 0) {
        return -1;
    }
    return PyType_Ready(&cw_ItemType);
}
