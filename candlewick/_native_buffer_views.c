/* candlewick._native's views of a host storage's 1-D NumPy buffer through a layout that
   NumPy can be handed without a strided view made: a layout C-contiguous but for its
   stride-0 axes, as the buffer's elements reshaped with 1 on those axes (NumPy's
   broadcasting then gives the layout's strides back), and a matrix or its transpose
   (UfuncNew's operands: _native_ufunc_new.c). */

#include "_native.h"
#include "_native_host.h"

/* the most axes taken (more: not the case) */
#define MAX_AXES 16

static PyObject *reshape_name, *transpose_name;

/* A layout's shape, strides and offset as C integers: its number of axes, or -1: not
   this case (no error set). */
static int read_layout(const Binding *b, PyObject *layout, Py_ssize_t *shape, Py_ssize_t *strides,
                       Py_ssize_t *offset) {
    if (Py_TYPE(layout) != b->layout_type) {
        return -1;
    }
    PyObject *sh = SLOT(layout, b->shape), *st = SLOT(layout, b->strides), *off = SLOT(layout, b->offset);
    if (sh == NULL || st == NULL || off == NULL || !PyTuple_CheckExact(sh) || !PyTuple_CheckExact(st) ||
        !PyLong_CheckExact(off) || PyTuple_GET_SIZE(sh) != PyTuple_GET_SIZE(st) || PyTuple_GET_SIZE(sh) > MAX_AXES) {
        return -1;
    }
    int ndim = (int)PyTuple_GET_SIZE(sh);
    *offset = PyLong_AsSsize_t(off);
    for (int i = 0; i < ndim; i++) {
        PyObject *n = PyTuple_GET_ITEM(sh, i), *s = PyTuple_GET_ITEM(st, i);
        shape[i] = PyLong_CheckExact(n) ? PyLong_AsSsize_t(n) : -1;
        strides[i] = PyLong_CheckExact(s) ? PyLong_AsSsize_t(s) : -1;
        if (shape[i] < 0 || (strides[i] == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
    }
    if (*offset == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return -1;
    }
    return ndim;
}

/* `buf`'s elements of a layout C-contiguous but for its stride-0 axes (`kept`: the shape
   with 1 on those axes) reshaped to `kept`: 1 with *view a new reference, 0 for any
   other layout (no error set), -1 on error. */
static int unstretched(PyObject *buf, int ndim, const Py_ssize_t *shape, const Py_ssize_t *strides,
                       Py_ssize_t offset, Py_ssize_t *kept, PyObject **view) {
    Py_ssize_t want = 1; /* the stride an axis needs, in elements (C order over kept) */
    for (int i = ndim - 1; i >= 0; i--) {
        kept[i] = strides[i] == 0 ? 1 : shape[i];
        if (shape[i] == 0 || (kept[i] > 1 && strides[i] != want)) {
            return 0;
        }
        want *= kept[i];
    }
    Py_ssize_t size = PyObject_Length(buf);
    if (size < 0) {
        return -1;
    }
    if (offset < 0 || want > size - offset) {
        return 0;
    }
    PyObject *elements = offset == 0 && want == size ? Py_NewRef(buf) : PySequence_GetSlice(buf, offset, offset + want);
    if (elements == NULL) {
        return -1;
    }
    PyObject *dims = PyTuple_New(ndim);
    for (int i = 0; dims != NULL && i < ndim; i++) {
        PyObject *n = PyLong_FromSsize_t(kept[i]);
        if (n == NULL) {
            Py_CLEAR(dims);
            break;
        }
        PyTuple_SET_ITEM(dims, i, n);
    }
    *view = dims == NULL ? NULL : PyObject_CallMethodOneArg(elements, reshape_name, dims);
    Py_XDECREF(dims);
    Py_DECREF(elements);
    return *view == NULL ? -1 : 1;
}

int cw_spread_views(const Binding *b, PyObject *buf1, PyObject *l1, PyObject *buf2, PyObject *l2, PyObject **a,
                        PyObject **bv) {
    Py_ssize_t shape1[MAX_AXES], strides1[MAX_AXES], shape2[MAX_AXES], strides2[MAX_AXES];
    Py_ssize_t kept1[MAX_AXES], kept2[MAX_AXES], off1, off2;
    int n1 = read_layout(b, l1, shape1, strides1, &off1), n2 = read_layout(b, l2, shape2, strides2, &off2);
    if (n1 < 1 || n1 != n2) {
        return 0;
    }
    for (int i = 0; i < n1; i++) {
        if (shape1[i] != shape2[i]) {
            return 0;
        }
    }
    PyObject *x, *y;
    int made = unstretched(buf1, n1, shape1, strides1, off1, kept1, &x);
    if (made != 1) {
        return made;
    }
    made = unstretched(buf2, n2, shape2, strides2, off2, kept2, &y);
    if (made != 1) {
        Py_DECREF(x);
        return made;
    }
    /* NumPy's broadcast of the two is the layouts' shape only where each axis longer
       than 1 keeps its length in one of them */
    for (int i = 0; i < n1; i++) {
        if (shape1[i] > 1 && kept1[i] == 1 && kept2[i] == 1) {
            Py_DECREF(x);
            Py_DECREF(y);
            return 0;
        }
    }
    *a = x, *bv = y;
    return 1;
}

int cw_matrix_view(const Binding *b, PyObject *buf, PyObject *layout, PyObject **view) {
    Py_ssize_t shape[MAX_AXES], strides[MAX_AXES], offset, kept[2];
    if (read_layout(b, layout, shape, strides, &offset) != 2 || shape[0] == 0 || shape[1] == 0) {
        return 0;
    }
    int c_order = (shape[1] == 1 || strides[1] == 1) && (shape[0] == 1 || strides[0] == shape[1]);
    int f_order = (shape[0] == 1 || strides[0] == 1) && (shape[1] == 1 || strides[1] == shape[0]);
    if (c_order) {
        return unstretched(buf, 2, shape, (Py_ssize_t[]){shape[1] == 1 ? 1 : strides[0], 1}, offset, kept, view);
    }
    if (!f_order) {
        return 0;
    }
    /* the transpose's rows: a C-contiguous matrix of the flipped shape, then its .T */
    Py_ssize_t flipped[2] = {shape[1], shape[0]};
    PyObject *rows;
    int made = unstretched(buf, 2, flipped, (Py_ssize_t[]){shape[0], 1}, offset, kept, &rows);
    if (made != 1) {
        return made;
    }
    *view = PyObject_GetAttr(rows, transpose_name);
    Py_DECREF(rows);
    return *view == NULL ? -1 : 1;
}

int cw_buffer_views_ready(void) {
    reshape_name = PyUnicode_InternFromString("reshape");
    transpose_name = PyUnicode_InternFromString("T");
    return reshape_name == NULL || transpose_name == NULL ? -1 : 0;
}


