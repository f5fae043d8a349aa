/* candlewick._native's layouts of a view that _native_slice.c's Item makes: x[a:b:c]'s
   (the cut of x's first axis, and the Layout that Layout.slice(0, *key.indices(n)) gives:
   the same shape, strides, offset, _contig and dense_size) and x[:, None]'s (as
   basic_layout makes it). The cut is shared with Item's store back, which checks that a
   value's layout is the one the cut gives. */

#include "_native.h"

/* 1 where `bound` is None or an int (not a bool), else 0. */
static int plain_bound(PyObject *bound) {
    return bound == Py_None || PyLong_CheckExact(bound);
}

/* The cut `key` makes on x's first axis: 1, or 0 where not this case (no error set). */
int cw_cut_of(const Binding *b, PyObject *layout, PyObject *key, Cut *cut) {
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
PyObject *cw_cut_layout(const Binding *b, PyObject *layout, const Cut *cut) {
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
PyObject *cw_expand_layout(const Binding *b, PyObject *layout, PyObject *key) {
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    Py_ssize_t count = PyTuple_GET_SIZE(key), axes = 0;
    if (shape == NULL || strides == NULL || offset == NULL ||
        !PyTuple_CheckExact(shape) || !PyTuple_CheckExact(strides) ||
        PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape) || count > CW_MAX_AXES) {
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
