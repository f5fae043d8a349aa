/* candlewick._native's view of a host storage's 1-D buffer as the elements a layout
   reaches (cw_flat_view): what UfuncInto (_native_ufunc.c) hands NumPy's ufunc as its
   operands and out=, so that operands of one shape meet element for element without an
   n-d view made. */

#include "_native.h"
#include "_native_host.h"

int cw_flat_view(const Binding *b, PyObject *buf, PyObject *layout, PyObject **view) {
    if (Py_TYPE(layout) != b->layout_type) {
        return 0;
    }
    PyObject *dense = SLOT(layout, b->dense);
    PyObject *shape = SLOT(layout, b->shape), *strides = SLOT(layout, b->strides);
    PyObject *offset = SLOT(layout, b->offset), *contig = SLOT(layout, b->contig);
    if (dense == NULL || !PyLong_CheckExact(dense) || shape == NULL || !PyTuple_CheckExact(shape) ||
        strides == NULL || !PyTuple_CheckExact(strides) || offset == NULL || !PyLong_CheckExact(offset)) {
        return 0;
    }
    /* the buffer is 1-D: its length is its size */
    Py_ssize_t size = PyObject_Length(buf);
    Py_ssize_t want = PyLong_AsSsize_t(dense);
    if (size < 0 || (want == -1 && PyErr_Occurred())) {
        PyErr_Clear(); /* (a dense size past Py_ssize_t: not the case) */
        return 0;
    }
    if (want == size) {
        *view = Py_NewRef(buf);
        return 1;
    }
    Py_ssize_t start = PyLong_AsSsize_t(offset), step = 1, count = 1;
    if (start == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape);
    for (Py_ssize_t i = 0; i < ndim; i++) {
        PyObject *n = PyTuple_GET_ITEM(shape, i);
        Py_ssize_t v = PyLong_CheckExact(n) ? PyLong_AsSsize_t(n) : -1;
        if (v < 0) {
            PyErr_Clear();
            return 0;
        }
        count *= v;
    }
    if (ndim == 1 && PyTuple_GET_SIZE(strides) == 1) {
        PyObject *s = PyTuple_GET_ITEM(strides, 0);
        step = PyLong_CheckExact(s) ? PyLong_AsSsize_t(s) : 0;
        if (step == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            step = 0;
        }
    } else if (contig != Py_True && ndim > 0) { /* (a 0-d layout is its one element: contiguous) */
        step = 0;
    }
    if (step == 0 || count == 0 || start < 0 || start >= size) {
        return 0;
    }
    Py_ssize_t last = start + (count - 1) * step; /* (within the buffer, as the layout's) */
    if (last < 0 || last >= size) {
        return 0;
    }
    PyObject *lo = PyLong_FromSsize_t(start), *by = PyLong_FromSsize_t(step);
    PyObject *hi = last + (step > 0 ? 1 : -1) >= 0 ? PyLong_FromSsize_t(last + (step > 0 ? 1 : -1)) : Py_NewRef(Py_None);
    PyObject *key = lo == NULL || hi == NULL || by == NULL ? NULL : PySlice_New(lo, hi, by);
    Py_XDECREF(lo), Py_XDECREF(hi), Py_XDECREF(by);
    if (key == NULL) {
        return -1;
    }
    *view = PyObject_GetItem(buf, key);
    Py_DECREF(key);
    return *view == NULL ? -1 : 1;
}

