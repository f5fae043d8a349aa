/* candlewick._native's layouts of a view that _native_slice.c's Item makes: x[a:b:c]'s
   (the cut of x's first axis, and the Layout that Layout.slice(0, *key.indices(n)) gives:
   the same shape, strides, offset, _contig and dense_size) and a tuple key's: x[:, a:b],
   x[i, j], x[:, None] (as basic_layout makes it). The cut is shared with Item's store back, which checks that a
   value's layout is the one the cut gives. */

#include "_native.h"
#include "_native_index.h"

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

/* 1 where `bound` is a slice bound that PySlice_Unpack reads without running Python code:
   None, an int, or an instance of a static (C) type with __index__ (NumPy's integers:
   scipy.signal's _centered cuts with np.int64 bounds); what it refuses (a bool array,
   a non-integer) it refuses with the TypeError general's k.indices(n) meets too. */
static int c_bound(PyObject *bound) {
    PyTypeObject *t = Py_TYPE(bound);
    return bound == Py_None || PyLong_CheckExact(bound) ||
           (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) && t->tp_as_number != NULL && t->tp_as_number->nb_index != NULL);
}

/* The layout of x[key] for a tuple key of slices (bounds as c_bound takes), ints (exact),
   None and at most one `...` (new reference); NULL with no error where not that case
   (any other item, an index out of range, too many indices, a zero step: general's
   errors). As basic_layout makes it, item by item: a slice's axis has stride
   `stride * step`, or 0 where it keeps at most one element, and moves the offset by
   `start * stride` where it keeps any; an int drops its axis and moves the offset; a None
   is a new axis of length 1 and stride 0; `...` (or the end of the key) keeps the axes
   not indexed as they are; an empty view keeps x's offset; contiguity is not known yet
   (_contig None, dense_size -1). Why in C: x[:, a:b] and x[i, j] took 3-5 us through
   basic_layout against NumPy's 0.3 (scipy.signal.fftconvolve's _centered crop, the
   KMeans-like loop's nearest[:, None]). */
PyObject *cw_basic_layout(const Binding *b, PyObject *layout, PyObject *key) {
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    Py_ssize_t count = PyTuple_GET_SIZE(key), consumed = 0, ellipses = 0, ints = 0, nones = 0;
    if (shape == NULL || strides == NULL || offset == NULL || !PyTuple_CheckExact(shape) ||
        !PyTuple_CheckExact(strides) || !PyLong_CheckExact(offset) ||
        PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(shape) || count > CW_MAX_AXES) {
        return NULL;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = PyTuple_GET_ITEM(key, k);
        if (item == Py_Ellipsis) {
            ellipses++;
        } else if (PySlice_Check(item)) {
            PySliceObject *slice = (PySliceObject *)item;
            if (!c_bound(slice->start) || !c_bound(slice->stop) || !c_bound(slice->step)) {
                return NULL;
            }
            consumed++;
        } else if (PyLong_CheckExact(item)) {
            consumed++, ints++;
        } else if (item == Py_None) {
            nones++;
        } else {
            return NULL;
        }
    }
    Py_ssize_t fill = ndim - consumed, out_ndim = nones + ndim - ints;
    if (ellipses > 1 || fill < 0 || out_ndim > CW_MAX_AXES) {
        return NULL;
    }
    Py_ssize_t at = PyLong_AsSsize_t(offset), start0 = at, axis = 0, out = 0;
    PyObject *new_shape = PyTuple_New(out_ndim), *new_strides = PyTuple_New(out_ndim);
    PyObject *zero = PyLong_FromLong(0), *one = PyLong_FromLong(1);
    int empty = 0;
    if (new_shape == NULL || new_strides == NULL || zero == NULL || one == NULL || PyErr_Occurred()) {
        goto fail;
    }
    /* the key's items, then (where it has no `...`) one at its end */
    for (Py_ssize_t k = 0; k <= count; k++) {
        PyObject *item = k < count ? PyTuple_GET_ITEM(key, k) : ellipses ? NULL : Py_Ellipsis;
        if (item == NULL) {
            break;
        }
        if (item == Py_None) {
            PyTuple_SET_ITEM(new_shape, out, Py_NewRef(one));
            PyTuple_SET_ITEM(new_strides, out++, Py_NewRef(zero));
            continue;
        }
        if (item == Py_Ellipsis) {
            for (Py_ssize_t i = 0; i < fill; i++, axis++) {
                PyObject *n = PyTuple_GET_ITEM(shape, axis);
                empty |= PyLong_CheckExact(n) && PyLong_AsSsize_t(n) == 0;
                PyTuple_SET_ITEM(new_shape, out, Py_NewRef(n));
                PyTuple_SET_ITEM(new_strides, out++, Py_NewRef(PyTuple_GET_ITEM(strides, axis)));
            }
            continue;
        }
        PyObject *d = PyTuple_GET_ITEM(shape, axis), *s = PyTuple_GET_ITEM(strides, axis);
        if (!PyLong_CheckExact(d) || !PyLong_CheckExact(s)) {
            goto fail;
        }
        Py_ssize_t n = PyLong_AsSsize_t(d), stride = PyLong_AsSsize_t(s);
        if (PyErr_Occurred()) {
            goto fail;
        }
        axis++;
        if (PySlice_Check(item)) {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(item, &start, &stop, &step) < 0) {
                goto fail;
            }
            Py_ssize_t length = PySlice_AdjustIndices(n, &start, &stop, step);
            if (length) {
                at += start * stride;
            }
            empty |= length == 0;
            PyObject *length_obj = PyLong_FromSsize_t(length);
            PyObject *stride_obj = length > 1 ? PyLong_FromSsize_t(stride * step) : Py_NewRef(zero);
            if (length_obj != NULL) {
                PyTuple_SET_ITEM(new_shape, out, length_obj);
            }
            if (stride_obj != NULL) {
                PyTuple_SET_ITEM(new_strides, out, stride_obj);
            }
            out++;
            if (length_obj == NULL || stride_obj == NULL) {
                goto fail;
            }
            continue;
        }
        Py_ssize_t i = PyLong_AsSsize_t(item);
        if ((i == -1 && PyErr_Occurred()) || i < -n || i >= n) {
            goto fail;
        }
        at += (i < 0 ? i + n : i) * stride;
    }
    Py_DECREF(zero), Py_DECREF(one);
    return cw_new_layout(b, new_shape, new_strides, PyLong_FromSsize_t(empty ? start0 : at), Py_NewRef(Py_None),
                         PyLong_FromLong(-1));
fail:
    PyErr_Clear();
    Py_XDECREF(new_shape), Py_XDECREF(new_strides), Py_XDECREF(zero), Py_XDECREF(one);
    return NULL;
}
