/* candlewick._rows: the row views of unstack, made in C.

   unstack of an n-row array returns n arrays, each a Python Array with its own Layout.
   Made in Python that is two objects and nine attribute stores a row (about 0.16 us),
   where NumPy makes a row view in C (about 0.06 us); here both objects are allocated
   and their slots filled directly, as NumPy fills its view structs.

   Optional: setup.py builds it where a C compiler is found, and candlewick/_core.py
   falls back to the same loop in Python when it is absent or cannot bind. bind() reads
   each slot's offset from the classes' own member descriptors, so a renamed or missing
   slot is an error at bind time (and the Python loop is used), never a wrong store. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

static PyTypeObject *layout_type, *array_type;
static Py_ssize_t at_shape, at_strides, at_offset, at_contig, at_dense;
static Py_ssize_t at_storage, at_layout, at_dtype, at_device;

#define SLOT(obj, at) (*(PyObject **)((char *)(obj) + (at)))

static int slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *at) {
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);
    if (descr == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
    }
    int is_slot = descr != NULL && PyObject_TypeCheck(descr, &PyMemberDescr_Type) &&
                  ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX;
    if (is_slot) {
        *at = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    Py_XDECREF(descr);
    if (!is_slot) {
        PyErr_Format(PyExc_TypeError, "candlewick._rows: %s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(bind_doc,
"bind(layout_type, array_type)\n\n"
"Learn where the slots of Layout (shape, strides, offset, _contig, dense_size) and of\n"
"the array class (_storage, _layout, _dtype, _device) lie; TypeError if one is not an\n"
"object slot (the previous binding then stands).");

static PyObject *bind(PyObject *module, PyObject *args) {
    (void)module;
    PyTypeObject *layout, *array;
    Py_ssize_t at[9];
    if (!PyArg_ParseTuple(args, "O!O!:bind", &PyType_Type, &layout, &PyType_Type, &array)) {
        return NULL;
    }
    /* every offset read before any is kept: a failed bind leaves the previous one whole */
    if (slot_offset(layout, "shape", &at[0]) || slot_offset(layout, "strides", &at[1]) ||
        slot_offset(layout, "offset", &at[2]) || slot_offset(layout, "_contig", &at[3]) ||
        slot_offset(layout, "dense_size", &at[4]) || slot_offset(array, "_storage", &at[5]) ||
        slot_offset(array, "_layout", &at[6]) || slot_offset(array, "_dtype", &at[7]) ||
        slot_offset(array, "_device", &at[8])) {
        return NULL;
    }
    at_shape = at[0], at_strides = at[1], at_offset = at[2], at_contig = at[3], at_dense = at[4];
    at_storage = at[5], at_layout = at[6], at_dtype = at[7], at_device = at[8];
    Py_INCREF(layout);
    Py_XSETREF(layout_type, layout);
    Py_INCREF(array);
    Py_XSETREF(array_type, array);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(rows_doc,
"rows(x, shape, strides, start, step, count, contiguous, first_dense_size)\n\n"
"A tuple of count arrays viewing x's storage: row i has Layout(shape, strides,\n"
"start + i * step, contiguous), dense_size first_dense_size for row 0 and -1 for the\n"
"others (Layout.selection_parts gives these arguments). x must be of the bound class.");

static PyObject *rows(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *x, *shape, *strides, *contiguous, *first_dense;
    Py_ssize_t start, step, count;
    if (!PyArg_ParseTuple(args, "OO!O!nnnOO:rows", &x, &PyTuple_Type, &shape, &PyTuple_Type, &strides,
                          &start, &step, &count, &contiguous, &first_dense)) {
        return NULL;
    }
    if (array_type == NULL || Py_TYPE(x) != array_type) {
        PyErr_SetString(PyExc_TypeError, "candlewick._rows.rows: x is not of the bound array class");
        return NULL;
    }
    if (count < 0) {
        PyErr_SetString(PyExc_ValueError, "candlewick._rows.rows: count must be >= 0");
        return NULL;
    }
    PyObject *storage = SLOT(x, at_storage), *dtype = SLOT(x, at_dtype), *device = SLOT(x, at_device);
    if (storage == NULL || dtype == NULL || device == NULL) {
        PyErr_SetString(PyExc_TypeError, "candlewick._rows.rows: x is not a complete array");
        return NULL;
    }
    PyObject *not_dense = PyLong_FromLong(-1);
    PyObject *out = PyTuple_New(count);
    if (not_dense == NULL || out == NULL) {
        goto fail;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *offset = PyLong_FromSsize_t(start + i * step);
        if (offset == NULL) {
            goto fail;
        }
        PyObject *layout = layout_type->tp_alloc(layout_type, 0);
        if (layout == NULL) {
            Py_DECREF(offset);
            goto fail;
        }
        SLOT(layout, at_shape) = Py_NewRef(shape);
        SLOT(layout, at_strides) = Py_NewRef(strides);
        SLOT(layout, at_offset) = offset;
        SLOT(layout, at_contig) = Py_NewRef(contiguous);
        SLOT(layout, at_dense) = Py_NewRef(i == 0 ? first_dense : not_dense);
        PyObject *array = array_type->tp_alloc(array_type, 0);
        if (array == NULL) {
            Py_DECREF(layout);
            goto fail;
        }
        SLOT(array, at_storage) = Py_NewRef(storage);
        SLOT(array, at_layout) = layout;
        SLOT(array, at_dtype) = Py_NewRef(dtype);
        SLOT(array, at_device) = Py_NewRef(device);
        PyTuple_SET_ITEM(out, i, array);
    }
    Py_DECREF(not_dense);
    return out;

fail:
    Py_XDECREF(not_dense);
    Py_XDECREF(out);
    return NULL;
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_VARARGS, bind_doc},
    {"rows", rows, METH_VARARGS, rows_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "candlewick._rows", "unstack's row views, made in C (optional)", -1, methods,
};

PyMODINIT_FUNC PyInit__rows(void) {
    return PyModule_Create(&module_def);
}
