/* candlewick._native's Elementwise (_native_elementwise.c), its common case: the
   operands checked (arrays of the bound class, one dtype the op takes or two converted
   to one it takes, one device, one shape or shapes that broadcast; or a real floating
   array and a Python float or int), the storage primitive called (through lazy mode's
   operand where it is on) and the result made a new array of the shape's contiguous
   layout. */

#include "_native.h"
#include "_native_host.h"
#include "_native_lazy.h"

/* Below this many bytes general's allocation check asks the device nothing
   (candlewick.allocation.QUERY_ABOVE_BYTES), so a result smaller needs no check here. */
#define UNCHECKED_BYTES ((Py_ssize_t)1 << 28)
#define WIDEST_ITEM 16 /* complex128: every dtype's item is at most this wide */

static PyObject *name_attr, *level_attr, *dtypes_attr, *capabilities_attr, *binary_dtype, *binary_as_name; /* (interned) */

/* The result's contiguous layout of `shape` (new reference), from the cache or made. */
static PyObject *contiguous_layout(const Binding *b, PyObject *shape) {
    PyObject *layout = PyDict_GetItemWithError(b->contiguous_cache, shape);
    if (layout != NULL) {
        return Py_NewRef(layout);
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    return PyObject_CallOneArg(b->contiguous_layout, shape);
}

/* (_native_host.h) */
PyObject *cw_new_array(const Binding *b, PyTypeObject *cls, PyObject *storage, PyObject *shape,
                           PyObject *dtype, PyObject *device) {
    PyObject *layout = contiguous_layout(b, shape);
    PyObject *out = layout == NULL ? NULL : cls->tp_alloc(cls, 0);
    if (out == NULL) {
        Py_DECREF(storage);
        Py_XDECREF(layout);
        return NULL;
    }
    SLOT(out, b->storage) = storage;
    SLOT(out, b->layout) = layout;
    SLOT(out, b->dtype) = Py_NewRef(dtype);
    SLOT(out, b->device) = Py_NewRef(device);
    return out;
}

/* (_native_host.h) */
PyObject *cw_dtype_entry(PyObject *table, PyObject *dtype) {
    PyObject *name = PyObject_GetAttr(dtype, name_attr);
    if (name == NULL) {
        PyErr_Clear(); /* not a DType: the fallback's case */
        return NULL;
    }
    PyObject *result = PyDict_GetItemWithError(table, name);
    Py_DECREF(name);
    return result;
}

/* The result dtype of `dtype` under the op (borrowed), or NULL: not taken (no error
   set) or an error. */
static PyObject *result_dtype(Elementwise *self, PyObject *dtype) {
    return cw_dtype_entry(self->results, dtype);
}

/* (_native_host.h) */
int cw_device_offers(PyObject *device, PyObject *all_dtypes, PyObject *group) {
    PyObject *declared = PyObject_GetAttr(device, dtypes_attr);
    if (declared == NULL) {
        return -1;
    }
    int every = declared == all_dtypes;
    Py_DECREF(declared);
    if (!every) {
        return 0;
    }
    PyObject *caps = PyObject_GetAttr(device, capabilities_attr);
    if (caps == NULL) {
        return -1;
    }
    int has = PySequence_Contains(caps, group);
    Py_DECREF(caps);
    return has;
}

/* The dtype two arrays of dtypes d1 and d2 (not one) on `device` are converted to as they
   are read (borrowed), or NULL: not this case (no error set) or an error. */
static PyObject *converting_dtype(Elementwise *self, PyObject *d1, PyObject *d2, PyObject *device) {
    if (self->converting == NULL) {
        return NULL;
    }
    PyObject *row = cw_dtype_entry(self->converting, d1);
    PyObject *into = row == NULL || !PyDict_Check(row) ? NULL : cw_dtype_entry(row, d2);
    return into != NULL && cw_device_offers(device, self->all_dtypes, binary_dtype) == 1 ? into : NULL;
}

/* Whether `shape` (a tuple of ints) holds fewer than `limit` elements */
static int below(PyObject *shape, Py_ssize_t limit) {
    Py_ssize_t n = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        Py_ssize_t d = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i));
        if (d < 0 || (d > 0 && n > limit / d)) {
            PyErr_Clear();
            return 0;
        }
        n *= d;
    }
    return n < limit;
}

/* Whether a result of `shape` of the widest item stays below the size the Python path
   checks against the device's free memory (the converting case's result may be wider
   than its operands) */
static int small_result(PyObject *shape) {
    return below(shape, UNCHECKED_BYTES / WIDEST_ITEM);
}

static PyObject *one_array(const Binding *b, Elementwise *self, PyObject *x) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (storage == NULL || layout == NULL || dtype == NULL || device == NULL ||
        Py_TYPE(layout) != b->layout_type || SLOT(layout, b->shape) == NULL) {
        return CW_ELEMENTWISE_DECLINED;
    }
    PyObject *out_dtype = result_dtype(self, dtype);
    if (out_dtype == NULL) {
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    /* held across the primitive, which runs Python code that could rebind x's slots */
    PyObject *held[] = {Py_NewRef(storage), Py_NewRef(layout), Py_NewRef(out_dtype), Py_NewRef(device)};
    PyObject *args[] = {storage, self->op, layout};
    /* (in lazy mode: called on the storage that records the call) */
    PyObject *result = cw_lazy_call(self->method, x, args, 3 | PY_VECTORCALL_ARGUMENTS_OFFSET);
    PyObject *out = result == NULL ? NULL
                                   : cw_new_array(b, Py_TYPE(x), result, SLOT(layout, b->shape), out_dtype, device);
    for (int i = 0; i < 4; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

/* The two-operand primitive on (s1, l1) and (s2, l2): self's method, or where `into` is
   given binary_as into it; in lazy mode called on the storage that records the call. */
static PyObject *call_two(Elementwise *self, PyObject *x1, PyObject *s1, PyObject *l1, PyObject *s2, PyObject *l2,
                          PyObject *into) {
    PyObject *args[] = {s1, self->op, l1, s2, l2, into};
    size_t n = (into != NULL ? 6 : 5) | PY_VECTORCALL_ARGUMENTS_OFFSET;
    PyObject *method = into != NULL ? binary_as_name : self->method;
    return cw_lazy_call(method, x1, args, n);
}

/* Two arrays (checked by two_arrays) of shapes that each broadcast onto a third, larger
   than both: both layouts broadcast to it, where the result stays below general's
   allocation check (else, and shapes that do not broadcast, CW_ELEMENTWISE_DECLINED). */
static PyObject *both_spread(const Binding *b, Elementwise *self, PyObject *x1, PyObject *x2, PyObject *into) {
    PyObject *l1 = SLOT(x1, b->layout), *l2 = SLOT(x2, b->layout);
    PyObject *s1 = SLOT(l1, b->shape), *s2 = SLOT(l2, b->shape);
    PyObject *dtype = into != NULL ? into : SLOT(x1, b->dtype), *device = SLOT(x1, b->device);
    PyObject *out_dtype = result_dtype(self, dtype);
    if (out_dtype == NULL) {
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    PyObject *shape = cw_broadcast_shape(s1, s2, UNCHECKED_BYTES / WIDEST_ITEM);
    if (shape == NULL) {
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    PyObject *spread1 = cw_broadcast_layout(b, l1, s1, shape);
    PyObject *spread2 = spread1 == NULL ? NULL : cw_broadcast_layout(b, l2, s2, shape);
    if (spread2 == NULL) {
        Py_DECREF(shape);
        Py_XDECREF(spread1);
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    PyObject *s_1 = SLOT(x1, b->storage), *s_2 = SLOT(x2, b->storage);
    PyObject *held[] = {Py_NewRef(s_1), Py_NewRef(s_2), Py_NewRef(out_dtype), Py_NewRef(device)};
    PyObject *result = call_two(self, x1, s_1, spread1, s_2, spread2, into);
    PyObject *out = result == NULL ? NULL : cw_new_array(b, Py_TYPE(x1), result, shape, out_dtype, device);
    for (int i = 0; i < 4; i++) {
        Py_DECREF(held[i]);
    }
    Py_DECREF(shape);
    Py_DECREF(spread1);
    Py_DECREF(spread2);
    return out;
}

static PyObject *two_arrays(const Binding *b, Elementwise *self, PyObject *x1, PyObject *x2) {
    PyObject *s1 = SLOT(x1, b->storage), *l1 = SLOT(x1, b->layout);
    PyObject *s2 = SLOT(x2, b->storage), *l2 = SLOT(x2, b->layout);
    PyObject *dtype = SLOT(x1, b->dtype), *dtype2 = SLOT(x2, b->dtype), *device = SLOT(x1, b->device);
    if (s1 == NULL || l1 == NULL || s2 == NULL || l2 == NULL || dtype == NULL || dtype2 == NULL || device == NULL ||
        device != SLOT(x2, b->device) || Py_TYPE(l1) != b->layout_type || Py_TYPE(l2) != b->layout_type) {
        return CW_ELEMENTWISE_DECLINED;
    }
    PyObject *into = NULL; /* the dtype two dtypes are converted to */
    if (dtype != dtype2) {
        into = converting_dtype(self, dtype, dtype2, device);
        if (into == NULL) {
            return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
        }
        dtype = into;
    }
    PyObject *shape = SLOT(l1, b->shape), *shape2 = SLOT(l2, b->shape);
    if (shape == NULL || shape2 == NULL) {
        return CW_ELEMENTWISE_DECLINED;
    }
    PyObject *spread = NULL; /* the broadcast operand's layout, where the shapes differ */
    int spread_first = 0;
    if (shape != shape2) {
        int same = PyObject_RichCompareBool(shape, shape2, Py_EQ);
        if (same < 0) {
            return NULL;
        }
        if (!same) {
            /* one operand broadcast onto the other's shape (x - x.mean(axis=0), a row or a
               column against a matrix): the result is no larger than that operand, which
               was checked when it was made */
            spread = cw_broadcast_layout(b, l2, shape2, shape);
            if (spread == NULL && !PyErr_Occurred()) {
                spread = cw_broadcast_layout(b, l1, shape, shape2);
                spread_first = 1;
            }
            if (spread == NULL && !PyErr_Occurred()) {
                /* both broadcast (a column against a row: a KMeans step's
                   nearest[:, None] == clusters) */
                return both_spread(b, self, x1, x2, into);
            }
            if (spread == NULL) {
                return NULL;
            }
            if (spread_first) {
                shape = shape2;
            }
        }
    }
    PyObject *out_dtype = result_dtype(self, dtype);
    if (out_dtype == NULL || (into != NULL && !small_result(shape))) {
        Py_XDECREF(spread);
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    PyObject *held[] = {Py_NewRef(s1), Py_NewRef(l1), Py_NewRef(s2), Py_NewRef(l2),
                        Py_NewRef(shape), Py_NewRef(out_dtype), Py_NewRef(device)};
    PyObject *result = call_two(self, x1, s1, spread != NULL && spread_first ? spread : l1, s2,
                                spread != NULL && !spread_first ? spread : l2, into);
    PyObject *out = result == NULL ? NULL : cw_new_array(b, Py_TYPE(x1), result, shape, out_dtype, device);
    for (int i = 0; i < 7; i++) {
        Py_DECREF(held[i]);
    }
    Py_XDECREF(spread);
    return out;
}

/* An array of a real floating dtype the op takes and a Python float or int after it
   (x ** 2, x * eps): the storage's scalar primitive (binary_scalar, compare_scalar) with
   the value as a float, as the Python path's inline case calls it (its int made a float
   there too: an int past a float's range raises OverflowError either way). */
static PyObject *with_scalar(const Binding *b, Elementwise *self, PyObject *x, PyObject *value) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (self->scalar_method == NULL || storage == NULL || layout == NULL || dtype == NULL ||
        device == NULL || Py_TYPE(layout) != b->layout_type || SLOT(layout, b->shape) == NULL ||
        !below(SLOT(layout, b->shape), self->scalar_below)) {
        return CW_ELEMENTWISE_DECLINED;
    }
    PyObject *level = PyObject_GetAttr(dtype, level_attr);
    if (level == NULL) {
        PyErr_Clear(); /* not a DType: the fallback's case */
        return CW_ELEMENTWISE_DECLINED;
    }
    int floating = PyLong_CheckExact(level) && PyLong_AsLong(level) == 2;
    Py_DECREF(level);
    PyObject *out_dtype = floating ? result_dtype(self, dtype) : NULL;
    if (out_dtype == NULL) {
        return PyErr_Occurred() ? NULL : CW_ELEMENTWISE_DECLINED;
    }
    PyObject *number = PyFloat_CheckExact(value) ? Py_NewRef(value) : PyNumber_Float(value);
    if (number == NULL) {
        return NULL;
    }
    PyObject *held[] = {Py_NewRef(storage), Py_NewRef(layout), Py_NewRef(out_dtype), Py_NewRef(device), number};
    PyObject *args[] = {storage, self->op, layout, number, Py_False};
    /* (in lazy mode: called on the storage that records the call) */
    PyObject *result = cw_lazy_call(self->scalar_method, x, args, 5 | PY_VECTORCALL_ARGUMENTS_OFFSET);
    PyObject *out = result == NULL ? NULL
                                   : cw_new_array(b, Py_TYPE(x), result, SLOT(layout, b->shape), out_dtype, device);
    for (int i = 0; i < 5; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

/* (_native_host.h) */
PyObject *cw_elementwise_case(const Binding *b, Elementwise *self, PyObject *const *args, Py_ssize_t n) {
    if (Py_TYPE(args[0]) != b->array_type) {
        return CW_ELEMENTWISE_DECLINED;
    }
    if (n == 1) {
        return one_array(b, self, args[0]);
    }
    if (Py_TYPE(args[1]) == b->array_type) {
        return two_arrays(b, self, args[0], args[1]);
    }
    return PyFloat_CheckExact(args[1]) || PyLong_CheckExact(args[1]) ? with_scalar(b, self, args[0], args[1])
                                                                     : CW_ELEMENTWISE_DECLINED;
}

int cw_elementwise_run_ready(void) {
    static const char *const texts[] = {"name", "level", "dtypes", "capabilities", "binary_dtype", "binary_as"};
    PyObject **names[] = {&name_attr, &level_attr, &dtypes_attr, &capabilities_attr, &binary_dtype, &binary_as_name};
    return cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names);
}
