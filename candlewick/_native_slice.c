/* candlewick._native's Item: x[a:b:c] and its store back (x[a:b:c] op= y), in C.

   Item(store, general) is a method (a descriptor) of the bound array class, general the
   Python method it stands for (Array.__getitem__ / __setitem__, candlewick/indexing.py).
   Its case: a key that is a slice whose bounds are None or ints, on an array of the bound
   class with at least one axis.
   - Item(False, ...)(x, key): the view of x that Layout.slice(0, *key.indices(n)) gives
     (the same shape, strides, offset, _contig and dense_size), made as _native_rows.c
     makes its rows.
   - Item(True, ...)(x, key, value): where value is an array of that class over x's
     storage whose layout equals that view's (Layout.__eq__), x has no stride 0 and its
     storage is not read-only, nothing (Python's x[key] op= y stores the updated view back
     into the place it views, which the in-place operator has already written).
   - Item(True, ...)(x, (i, j, ...), v): one int per axis, v a 0-d array of x's class,
     dtype and device: the storage's assign of v into that element (store_element).
   While lazy mode is on (cw_lazy_write), a store calls cw_lazy_write(x) first, unless
   nothing is pending and x holds no recorded storage (idle) (what is
   pending runs, x gets its run storage), as general's check_writable does. Anything
   else, and any call while the module is unbound, is general's. Why in C: `x[::2] += 1` is a get, an update and a store; after an update
   of 2^20 elements each Python call of the get and the store (about eight each) misses
   the caches, 1-2 us apiece on the 2-core Xeon VM (bench/inplace.py). */

#include "_native.h"

#include <stddef.h>

#define MAX_AXES 64

typedef struct {
    CW_METHOD_HEAD
    int store;
} Item;

static PyObject *read_only_attr, *assign_attr;

typedef struct {
    Py_ssize_t start, length, step; /* key.indices(n) and the view's length */
    Py_ssize_t stride, offset;      /* x's first stride and the view's offset */
} Cut;

/* 1 where `bound` is None or an int (not a bool), else 0. */
static int plain_bound(PyObject *bound) {
    return bound == Py_None || PyLong_CheckExact(bound);
}

/* The cut `key` makes on x's first axis: 1, or 0 where not this case (no error set). */
static int cut_of(const Binding *b, PyObject *layout, PyObject *key, Cut *cut) {
    PySliceObject *slice = (PySliceObject *)key;
    if (!PySlice_Check(key) || !plain_bound(slice->start) || !plain_bound(slice->stop) || !plain_bound(slice->step)) {
        return 0;
    }
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    if (shape == NULL || strides == NULL || offset == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides) || PyTuple_GET_SIZE(shape) == 0 ||
        PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape) || !PyLong_CheckExact(offset)) {
        return 0;
    }
    Py_ssize_t start, stop, step;
    if (PySlice_Unpack(key, &start, &stop, &step) < 0) {
        PyErr_Clear(); /* (a zero step: general's error) */
        return 0;
    }
    Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, 0));
    PyObject *first = PyTuple_GET_ITEM(strides, 0);
    Py_ssize_t stride = PyLong_CheckExact(first) ? PyLong_AsSsize_t(first) : -1;
    Py_ssize_t at = PyLong_AsSsize_t(offset);
    if (PyErr_Occurred() || n < 0 || !PyLong_CheckExact(first)) {
        PyErr_Clear();
        return 0;
    }
    cut->length = PySlice_AdjustIndices(n, &start, &stop, step);
    cut->start = start, cut->step = step, cut->stride = stride;
    /* an empty view keeps its offset: moving it could point past the buffer's end */
    int empty_axis = 0;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        if (!PyLong_CheckExact(d)) {
            return 0;
        }
        empty_axis |= PyLong_AsSsize_t(d) == 0;
    }
    cut->offset = cut->length && start && !empty_axis ? at + start * stride : at;
    return 1;
}

/* The view's Layout (new reference), NULL on error. */
static PyObject *cut_layout(const Binding *b, PyObject *layout, const Cut *cut) {
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides);
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    PyObject *new_shape = PyTuple_New(ndim), *new_strides = NULL;
    if (new_shape == NULL) {
        return NULL;
    }
    Py_ssize_t size = cut->length;
    for (Py_ssize_t i = 1; i < ndim; i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        PyTuple_SET_ITEM(new_shape, i, Py_NewRef(d));
        size *= PyLong_AsSsize_t(d);
    }
    PyObject *length = PyLong_FromSsize_t(cut->length);
    if (length == NULL) {
        Py_DECREF(new_shape);
        return NULL;
    }
    PyTuple_SET_ITEM(new_shape, 0, length);
    if (cut->step == 1) {
        new_strides = Py_NewRef(strides);
    } else {
        /* (a length-1 axis never steps: stride 0, whatever the step) */
        new_strides = PyTuple_New(ndim);
        PyObject *first = new_strides == NULL ? NULL : PyLong_FromSsize_t(cut->length > 1 ? cut->stride * cut->step : 0);
        if (first == NULL) {
            Py_XDECREF(new_strides);
            Py_DECREF(new_shape);
            return NULL;
        }
        PyTuple_SET_ITEM(new_strides, 0, first);
        for (Py_ssize_t i = 1; i < ndim; i++) {
            PyTuple_SET_ITEM(new_strides, i, Py_NewRef(PyTuple_GET_ITEM(strides, i)));
        }
    }
    /* a step-1 slice of a C-contiguous layout's leading axis is C-contiguous */
    PyObject *contig = cut->step == 1 && SLOT(layout, b->contig) == Py_True ? Py_True : Py_None;
    return cw_new_layout(b, new_shape, new_strides, PyLong_FromSsize_t(cut->offset), Py_NewRef(contig),
                         PyLong_FromSsize_t(contig == Py_True && cut->offset == 0 ? size : -1));
}

/* The layout of x[key] for a key that is a tuple of full slices (`:`), one per axis of x,
   and Nones (new axes of length 1): x[:, None], x[None, :] (new reference); NULL with no
   error where not that case. As basic_layout makes it: a new axis has stride 0, so has a
   kept axis of length 0 or 1, the offset is x's, contiguity not known yet (_contig None,
   dense_size -1). Why in C: `nearest[:, None]` is one of
   a KMeans-like loop's ~15 calls an iteration, 2 us through basic_layout. */
static PyObject *expand_layout(const Binding *b, PyObject *layout, PyObject *key) {
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    Py_ssize_t count = PyTuple_GET_SIZE(key), axes = 0;
    if (shape == NULL || strides == NULL || offset == NULL ||
        !PyTuple_CheckExact(shape) || !PyTuple_CheckExact(strides) ||
        PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape) || count > MAX_AXES) {
        return NULL;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = PyTuple_GET_ITEM(key, k);
        if (item == Py_None) {
            continue;
        }
        PySliceObject *slice = (PySliceObject *)item;
        if (!PySlice_Check(item) || slice->start != Py_None || slice->stop != Py_None || slice->step != Py_None) {
            return NULL;
        }
        axes++;
    }
    if (axes != PyTuple_GET_SIZE(shape) || axes == count) {
        return NULL; /* (no None: a plain view, general's) */
    }
    PyObject *new_shape = PyTuple_New(count), *new_strides = PyTuple_New(count);
    PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1);
    if (new_shape == NULL || new_strides == NULL || zero == NULL || one == NULL) {
        goto fail;
    }
    for (Py_ssize_t k = 0, axis = 0; k < count; k++) {
        if (PyTuple_GET_ITEM(key, k) == Py_None) {
            PyTuple_SET_ITEM(new_shape, k, Py_NewRef(one));
            PyTuple_SET_ITEM(new_strides, k, Py_NewRef(zero));
            continue;
        }
        PyObject *n = PyTuple_GET_ITEM(shape, axis), *s = PyTuple_GET_ITEM(strides, axis);
        axis++;
        if (!PyLong_CheckExact(n)) {
            goto fail;
        }
        Py_ssize_t length = PyLong_AsSsize_t(n);
        if (length == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto fail;
        }
        PyTuple_SET_ITEM(new_shape, k, Py_NewRef(n));
        PyTuple_SET_ITEM(new_strides, k, Py_NewRef(length > 1 ? s : zero));
    }
    Py_DECREF(zero), Py_DECREF(one);
    return cw_new_layout(b, new_shape, new_strides, Py_NewRef(offset), Py_NewRef(Py_None), PyLong_FromLong(-1));
fail:
    Py_XDECREF(new_shape), Py_XDECREF(new_strides), Py_XDECREF(zero), Py_XDECREF(one);
    return NULL;
}

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
        view_layout = expand_layout(b, layout, key);
        if (view_layout == NULL) {
            return NULL;
        }
    } else if (!cut_of(b, layout, key, &cut)) {
        return NULL;
    } else {
        view_layout = cut_layout(b, layout, &cut);
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
    if (theirs == NULL || Py_TYPE(theirs) != b->layout_type || !cut_of(b, layout, key, &cut)) {
        return 0;
    }
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides);
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    if (ndim > MAX_AXES) {
        return 0;
    }
    Py_ssize_t want_shape[MAX_AXES], want_strides[MAX_AXES];
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

/* 1 where `kind`'s read_only is the one defined beside its ElementAssign `assign` (the cpu
   storage's: its buffer not writable), so a writable buffer export answers it; 0 where a
   subclass (or anything else) defines its own. */
static int read_only_is_writability(PyTypeObject *kind, PyObject *assign) {
    PyObject *mro = kind->tp_mro, *mine = _PyType_Lookup(kind, read_only_attr);
    if (mro == NULL || mine == NULL || !PyTuple_Check(mro)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict;
        PyObject *found = dict == NULL ? NULL : PyDict_GetItemWithError(dict, assign_attr);
        if (found != NULL) {
            return found == assign && PyDict_GetItemWithError(dict, read_only_attr) == mine;
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    return 0;
}

/* cw_element_copy of v's element (at `their_offset`, an int) into element `at`: 1 done, 0 not. */
static int copy_into(PyObject *storage, Py_ssize_t at, PyObject *their_storage, PyObject *their_offset) {
    Py_ssize_t from = PyLong_AsSsize_t(their_offset);
    if (from == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return cw_element_copy(storage, at, their_storage, from);
}

/* x[i, j, ...] = v, one int per axis and v a 0-d array of x's class, dtype and device (a
   loop's store: scikit-learn's fill_diagonal, 2048 of them per pairwise_distances call):
   x's storage's assign of v's element into the element's 0-d Layout, as general's
   tuple-of-ints case calls it. 1 done, 0 not the case (an index out of range, a stride
   0, a read-only storage: general's errors), -1 error. */
static int store_element(const Binding *b, PyObject *x, PyObject *key, PyObject *value) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    if (Py_TYPE(value) != b->array_type || storage == NULL || layout == NULL || Py_TYPE(layout) != b->layout_type ||
        SLOT(value, b->dtype) != SLOT(x, b->dtype) || SLOT(value, b->device) != SLOT(x, b->device) ||
        SLOT(x, b->dtype) == NULL || SLOT(x, b->device) == NULL) {
        return 0;
    }
    PyObject *theirs = SLOT(value, b->layout), *their_storage = SLOT(value, b->storage);
    if (theirs == NULL || their_storage == NULL || Py_TYPE(theirs) != b->layout_type) {
        return 0;
    }
    PyObject *their_shape = SLOT(theirs, b->shape);
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    if (their_shape == NULL || !PyTuple_CheckExact(their_shape) || PyTuple_GET_SIZE(their_shape) != 0 ||
        shape == NULL || strides == NULL || offset == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset)) {
        return 0;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(key);
    if (PyTuple_GET_SIZE(shape) != ndim || PyTuple_GET_SIZE(strides) != ndim) {
        return 0;
    }
    Py_ssize_t at = PyLong_AsSsize_t(offset);
    for (Py_ssize_t k = 0; k < ndim; k++) {
        PyObject *i = PyTuple_GET_ITEM(key, k), *n = PyTuple_GET_ITEM(shape, k), *st = PyTuple_GET_ITEM(strides, k);
        if (!PyLong_CheckExact(i) || !PyLong_CheckExact(n) || !PyLong_CheckExact(st)) {
            return 0;
        }
        Py_ssize_t index = PyLong_AsSsize_t(i), length = PyLong_AsSsize_t(n), stride = PyLong_AsSsize_t(st);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (index < -length || index >= length || stride == 0) {
            return 0;
        }
        at += (index < 0 ? index + length : index) * stride;
    }
    /* where the storage's assign is ElementAssign (no instance dict to shadow it), its copy
       directly: no bound method, no 0-d Layout made (half of a store's ~0.45 us) */
    PyTypeObject *kind = Py_TYPE(storage);
    PyObject *assign = kind->tp_dictoffset == 0 ? _PyType_Lookup(kind, assign_attr) : NULL;
    PyObject *their_offset = SLOT(theirs, b->offset);
    int element_copy = assign != NULL && Py_TYPE(assign) == &cw_ElementAssignType && their_offset != NULL &&
                       PyLong_CheckExact(their_offset);
    if (element_copy && read_only_is_writability(kind, assign)) {
        /* the copy's writable export refuses a read-only buffer, which is all that read_only
           asks here: the property's Python call (about 1,200 instructions of a store's
           2,800; pairwise_distances' 2048 diagonal stores) skipped where the copy is done */
        if (copy_into(storage, at, their_storage, their_offset)) {
            return 1;
        }
        element_copy = 0; /* (refused: read_only's answer and general's error below) */
    }
    int read_only = cw_attr_true(storage, read_only_attr);
    if (read_only != 0) {
        return read_only < 0 ? -1 : 0;
    }
    if (element_copy && copy_into(storage, at, their_storage, their_offset)) {
        return 1;
    }
    PyObject *element = cw_new_layout(b, PyTuple_New(0), PyTuple_New(0), PyLong_FromSsize_t(at), Py_NewRef(Py_None),
                                      PyLong_FromSsize_t(-1));
    if (element == NULL) {
        return -1;
    }
    PyObject *done = PyObject_CallMethodObjArgs(storage, assign_attr, element, their_storage, theirs, NULL);
    Py_DECREF(element);
    if (done == NULL) {
        return -1;
    }
    Py_DECREF(done);
    return 1;
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
                done = store_element(&b, args[0], args[1], args[2]);
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
    assign_attr = PyUnicode_InternFromString("assign");
    if (read_only_attr == NULL || assign_attr == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_ItemType);
}
