/* candlewick._native's stores for _native_slice.c's Item: one element, x[i, j, ...] = v
   (one int per axis, v a 0-d array of x's class, dtype and device: a loop's store,
   scikit-learn's fill_diagonal, 2048 of them per pairwise_distances call), through the
   storage's assign, or ElementAssign's copy directly where the storage's assign is that,
   or v a Python bool, int or float stored by cw_element_put where the conversion is
   exact (everything else the Python method's: its conversion rules and errors);
   and x[basic tuple key] = array (cw_store_basic), through the storage's assign. */

#include "_native.h"
#include "_native_index.h"
#include "_native_lazy.h"

static PyObject *read_only_attr, *assign_attr, *fill_attr;

/* which of `kind`'s read_only and fill are the ones defined beside its ElementAssign
   `assign` (the cpu storage's: read_only its buffer not writable, fill of one element a
   store into the buffer): where read_only is, a writable buffer export answers it; where
   fill is, cw_element_put stands for it. A subclass (or anything else) that defines its
   own is asked (read_only) or called (fill). */
#define READ_ONLY_BESIDE 1
#define FILL_BESIDE 2

static int beside_now(PyTypeObject *kind, PyObject *assign) {
    PyObject *mro = kind->tp_mro, *read_only = _PyType_Lookup(kind, read_only_attr), *fill = _PyType_Lookup(kind, fill_attr);
    if (mro == NULL || !PyTuple_Check(mro)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *dict = ((PyTypeObject *)PyTuple_GET_ITEM(mro, i))->tp_dict;
        PyObject *found = dict == NULL ? NULL : PyDict_GetItemWithError(dict, assign_attr);
        if (found != NULL) {
            if (found != assign) {
                return 0;
            }
            int bits = read_only != NULL && PyDict_GetItemWithError(dict, read_only_attr) == read_only ? READ_ONLY_BESIDE : 0;
            bits |= fill != NULL && PyDict_GetItemWithError(dict, fill_attr) == fill ? FILL_BESIDE : 0;
            PyErr_Clear(); /* (a failed lookup: not beside) */
            return bits;
        }
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
    }
    return 0;
}

/* beside_now's answer, kept for the last class asked while its type version tag (which
   any change to the class or its bases replaces) stays the same: the walk of its MRO was a
   tenth of each of fill_diagonal's 2048 stores. */
static PyTypeObject *known_kind;
static unsigned int known_tag;
static PyObject *known_assign;
static int known_answer;

static int beside(PyTypeObject *kind, PyObject *assign) {
    int tagged = PyType_HasFeature(kind, Py_TPFLAGS_VALID_VERSION_TAG) && kind->tp_version_tag != 0;
    if (tagged && kind == known_kind && kind->tp_version_tag == known_tag && assign == known_assign) {
        return known_answer;
    }
    int answer = beside_now(kind, assign);
    if (tagged) {
        /* (borrowed: a class and its `assign` are compared by identity only, and a class
           freed and another made at its address gets a new version tag) */
        known_kind = kind, known_tag = kind->tp_version_tag, known_assign = assign, known_answer = answer;
    }
    return answer;
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

/* The flat offset in *at of `layout`'s element at `key` (one int per axis): 1, or 0 where
   not the case (an index out of range, a stride 0: general's errors). */
static int element_offset(const Binding *b, PyObject *layout, PyObject *key, Py_ssize_t *at) {
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    if (shape == NULL || strides == NULL || offset == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset)) {
        return 0;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(key);
    if (PyTuple_GET_SIZE(shape) != ndim || PyTuple_GET_SIZE(strides) != ndim) {
        return 0;
    }
    *at = PyLong_AsSsize_t(offset);
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
        *at += (index < 0 ? index + length : index) * stride;
    }
    return 1;
}

/* x[i, j, ...] = a Python bool, int or float (scikit-learn's fill_diagonal(D, 0) on
   NumPy, a loop's `a[i, j] = 0`: 5 us each through the Python method's conversion and
   fill): cw_element_put into the element, where the storage's fill is the one beside its
   ElementAssign (`bits`, beside's) and the storage is writable. 1 done, 0 not the case. */
static int store_scalar(PyObject *storage, PyObject *dtype, Py_ssize_t at, PyObject *value, int bits) {
    if (!(bits & FILL_BESIDE)) {
        return 0;
    }
    Py_INCREF(storage); /* (read_only may run Python code that rebinds x's slots) */
    int read_only = bits & READ_ONLY_BESIDE ? 0 : cw_attr_true(storage, read_only_attr);
    int done = read_only != 0 ? (read_only < 0 ? -1 : 0) : cw_element_put(storage, at, dtype, value);
    Py_DECREF(storage);
    return done;
}

/* x[i, j, ...] = v, one int per axis and v a 0-d array of x's class, dtype and device (a
   loop's store: scikit-learn's fill_diagonal, 2048 of them per pairwise_distances call),
   or a Python bool, int or float (store_scalar): for an array, x's storage's assign of v's
   element into the element's 0-d Layout, as general's tuple-of-ints case calls it. 1 done,
   0 not the case (an index out of range, a stride 0, a read-only storage, a scalar to
   convert: general's errors), -1 error. */
int cw_store_element(const Binding *b, PyObject *x, PyObject *key, PyObject *value) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout), *dtype = SLOT(x, b->dtype);
    int scalar = PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value);
    if (storage == NULL || layout == NULL || Py_TYPE(layout) != b->layout_type || dtype == NULL ||
        SLOT(x, b->device) == NULL) {
        return 0;
    }
    if (!scalar && (Py_TYPE(value) != b->array_type || SLOT(value, b->dtype) != dtype ||
                    SLOT(value, b->device) != SLOT(x, b->device))) {
        return 0;
    }
    PyObject *theirs = scalar ? NULL : SLOT(value, b->layout), *their_storage = scalar ? NULL : SLOT(value, b->storage);
    PyObject *their_shape = theirs == NULL || Py_TYPE(theirs) != b->layout_type ? NULL : SLOT(theirs, b->shape);
    if (!scalar && (their_storage == NULL || their_shape == NULL || !PyTuple_CheckExact(their_shape) ||
                    PyTuple_GET_SIZE(their_shape) != 0)) {
        return 0;
    }
    Py_ssize_t at;
    if (!element_offset(b, layout, key, &at)) {
        return 0;
    }
    /* where the storage's assign is ElementAssign (no instance dict to shadow it), its copy
       directly: no bound method, no 0-d Layout made (half of a store's ~0.45 us) */
    PyTypeObject *kind = Py_TYPE(storage);
    PyObject *assign = kind->tp_dictoffset == 0 ? _PyType_Lookup(kind, assign_attr) : NULL;
    int bits = assign != NULL && Py_TYPE(assign) == &cw_ElementAssignType ? beside(kind, assign) : 0;
    if (scalar) {
        return store_scalar(storage, dtype, at, value, bits);
    }
    PyObject *their_offset = SLOT(theirs, b->offset);
    int element_copy = assign != NULL && Py_TYPE(assign) == &cw_ElementAssignType && their_offset != NULL &&
                       PyLong_CheckExact(their_offset);
    if (element_copy && (bits & READ_ONLY_BESIDE)) {
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

/* x[key] = v for a tuple key of slices, ints, None and `...` (cw_basic_layout's) and v an
   array of x's class, dtype and device over another storage of x's storage class, of no
   more dimensions than x[key]: x's storage's assign of v into x[key]'s layout, v's layout
   broadcast onto it, as general's basic case calls it (scikit-learn's chunked stores,
   distances[i:j, k:l] = block: 12 us in Python against NumPy's 1 at 32x32). 1 done, 0 not
   the case (a stride-0 or read-only destination, a key or shapes general raises for, a
   value to convert or squeeze, a recorded lazy storage: general's), -1 error. */
int cw_store_basic(const Binding *b, PyObject *x, PyObject *key, PyObject *value) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *their_storage = SLOT(value, b->storage), *theirs = SLOT(value, b->layout);
    if (Py_TYPE(value) != b->array_type || storage == NULL || layout == NULL || Py_TYPE(layout) != b->layout_type ||
        SLOT(x, b->dtype) == NULL || SLOT(value, b->dtype) != SLOT(x, b->dtype) || SLOT(x, b->device) == NULL ||
        SLOT(value, b->device) != SLOT(x, b->device) || their_storage == NULL || their_storage == storage ||
        Py_TYPE(their_storage) != Py_TYPE(storage) || (PyObject *)Py_TYPE(storage) == cw_lazy_type ||
        theirs == NULL || Py_TYPE(theirs) != b->layout_type) {
        return 0;
    }
    PyObject *strides = SLOT(layout, b->strides);
    if (strides == NULL || !PyTuple_CheckExact(strides)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(strides); i++) {
        PyObject *st = PyTuple_GET_ITEM(strides, i);
        Py_ssize_t v = PyLong_CheckExact(st) ? PyLong_AsSsize_t(st) : 0;
        if (v == 0 || PyErr_Occurred()) { /* (a stride 0 may be a broadcast: general's check) */
            PyErr_Clear();
            return 0;
        }
    }
    PyObject *dst = cw_basic_layout(b, layout, key);
    if (dst == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *dst_shape = SLOT(dst, b->shape), *their_shape = SLOT(theirs, b->shape);
    PyObject *src = NULL;
    int same = 0;
    if (dst_shape != NULL && their_shape != NULL && PyTuple_CheckExact(dst_shape) && PyTuple_CheckExact(their_shape) &&
        PyTuple_GET_SIZE(their_shape) <= PyTuple_GET_SIZE(dst_shape)) {
        same = PyObject_RichCompareBool(their_shape, dst_shape, Py_EQ);
        src = same < 0 ? NULL : same ? Py_NewRef(theirs) : cw_broadcast_layout(b, theirs, their_shape, dst_shape);
    }
    int done = src == NULL ? (PyErr_Occurred() ? -1 : 0) : cw_attr_true(storage, read_only_attr);
    if (src != NULL && done == 0) {
        /* held across the call, which runs Python code that could rebind the slots */
        PyObject *mine = Py_NewRef(storage), *source = Py_NewRef(their_storage);
        PyObject *ran = PyObject_CallMethodObjArgs(mine, assign_attr, dst, source, src, NULL);
        done = ran == NULL ? -1 : 1;
        Py_XDECREF(ran);
        Py_DECREF(mine);
        Py_DECREF(source);
    } else if (done == 1) {
        done = 0; /* read-only: general's error */
    }
    Py_XDECREF(src);
    Py_DECREF(dst);
    return done;
}

int cw_element_store_ready(void) {
    read_only_attr = PyUnicode_InternFromString("read_only");
    assign_attr = PyUnicode_InternFromString("assign");
    fill_attr = PyUnicode_InternFromString("fill");
    return read_only_attr == NULL || assign_attr == NULL || fill_attr == NULL ? -1 : 0;
}
