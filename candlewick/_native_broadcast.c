/* candlewick._native's broadcasting of shapes and layouts (NumPy's rule: aligned at the
   right, each pair of dimensions equal or one of them 1), for the element-wise functions'
   and the in-place operators' common cases (_native_elementwise.c, _native_inplace.c). */

#include "_native.h"

/* (_native.h) */
PyObject *cw_broadcast_layout(const Binding *b, PyObject *layout, PyObject *from, PyObject *to) {
    PyObject *strides = SLOT(layout, b->strides), *offset = SLOT(layout, b->offset);
    if (!PyTuple_CheckExact(from) || !PyTuple_CheckExact(to) || strides == NULL || offset == NULL ||
        !PyTuple_CheckExact(strides) || PyTuple_GET_SIZE(strides) != PyTuple_GET_SIZE(from)) {
        return NULL;
    }
    Py_ssize_t n_from = PyTuple_GET_SIZE(from), n_to = PyTuple_GET_SIZE(to), pad = n_to - n_from;
    if (pad < 0 || n_to > CW_MAX_AXES) {
        return NULL;
    }
    PyObject *new_strides = PyTuple_New(n_to);
    if (new_strides == NULL) {
        return NULL;
    }
    PyObject *zero = NULL;
    /* an axis stretched from 1 (or added) to a length > 1 rereads its elements: not
       C-contiguous, known now (the primitive viewing it need not check), unless an empty
       axis makes the layout empty (Layout's check calls an empty layout contiguous) */
    int stretched = 0, empty = 0;
    for (Py_ssize_t k = 0; k < n_to; k++) {
        PyObject *stride;
        PyObject *length = PyTuple_GET_ITEM(to, k);
        Py_ssize_t want_length = PyLong_CheckExact(length) ? PyLong_AsSsize_t(length) : -1;
        if (want_length == -1 && PyErr_Occurred()) {
            PyErr_Clear();
        }
        empty |= want_length == 0;
        if (k < pad) {
            stride = NULL;
            stretched |= want_length > 1;
        } else {
            PyObject *n = PyTuple_GET_ITEM(from, k - pad), *target = PyTuple_GET_ITEM(to, k);
            if (!PyLong_CheckExact(n) || !PyLong_CheckExact(target)) {
                Py_DECREF(new_strides);
                return NULL;
            }
            Py_ssize_t have = PyLong_AsSsize_t(n), want = PyLong_AsSsize_t(target);
            if (PyErr_Occurred() || (have != want && have != 1)) {
                PyErr_Clear();
                Py_DECREF(new_strides);
                return NULL;
            }
            stride = have == want ? PyTuple_GET_ITEM(strides, k - pad) : NULL;
            stretched |= have != want && want > 1;
        }
        if (stride == NULL) {
            if (zero == NULL && (zero = PyLong_FromLong(0)) == NULL) {
                Py_DECREF(new_strides);
                return NULL;
            }
            stride = zero;
        }
        PyTuple_SET_ITEM(new_strides, k, Py_NewRef(stride));
    }
    Py_XDECREF(zero);
    return cw_new_layout(b, Py_NewRef(to), new_strides, Py_NewRef(offset),
                         Py_NewRef(stretched && !empty ? Py_False : Py_None), PyLong_FromSsize_t(-1));
}

/* (_native.h) */
PyObject *cw_broadcast_shape(PyObject *s1, PyObject *s2, Py_ssize_t limit) {
    if (!PyTuple_CheckExact(s1) || !PyTuple_CheckExact(s2)) {
        return NULL;
    }
    Py_ssize_t n1 = PyTuple_GET_SIZE(s1), n2 = PyTuple_GET_SIZE(s2), n = n1 > n2 ? n1 : n2;
    if (n > CW_MAX_AXES) {
        return NULL;
    }
    Py_ssize_t dims[CW_MAX_AXES], size = 1;
    int from[CW_MAX_AXES]; /* 1: the dimension object of s1, 2: of s2 (reused in the tuple) */
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d1 = k - (n - n1) >= 0 ? PyTuple_GET_ITEM(s1, k - (n - n1)) : NULL;
        PyObject *d2 = k - (n - n2) >= 0 ? PyTuple_GET_ITEM(s2, k - (n - n2)) : NULL;
        if ((d1 != NULL && !PyLong_CheckExact(d1)) || (d2 != NULL && !PyLong_CheckExact(d2))) {
            return NULL;
        }
        Py_ssize_t a = d1 != NULL ? PyLong_AsSsize_t(d1) : 1, c = d2 != NULL ? PyLong_AsSsize_t(d2) : 1;
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return NULL;
        }
        if (a != c && a != 1 && c != 1) {
            return NULL;
        }
        dims[k] = a == 1 ? c : a;
        from[k] = a == 1 ? 2 : 1;
        if (d1 == NULL) {
            from[k] = 2;
        } else if (d2 == NULL) {
            from[k] = 1;
        }
        if (dims[k] != 0 && size > limit / dims[k]) {
            return NULL;
        }
        size *= dims[k];
    }
    if (size >= limit) {
        return NULL;
    }
    PyObject *shape = PyTuple_New(n);
    if (shape == NULL) {
        return NULL;
    }
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *d = from[k] == 1 ? PyTuple_GET_ITEM(s1, k - (n - n1)) : PyTuple_GET_ITEM(s2, k - (n - n2));
        PyTuple_SET_ITEM(shape, k, Py_NewRef(d));
    }
    return shape;
}
