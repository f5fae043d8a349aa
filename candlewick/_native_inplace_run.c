/* candlewick._native's Update (_native_inplace.c), its common case: x <op>= other checked
   (x's dtype one the op keeps, other an array of x's class, dtype and device, broadcast
   onto x's shape where it differs, or a Python float or int with a real floating x; no
   stride 0, the device's group "inplace", lazy mode idle, the storage writable) and the
   storage's binary_into or binary_scalar_into called, a _native.UfuncInto one straight
   through cw_ufunc_into_run. */

#include "_native.h"
#include "_native_host.h"
#include "_native_lazy.h"

static PyObject *capabilities_attr, *read_only_attr, *group_name;
static PyObject *binary_into_name, *binary_scalar_into_name;

/* 1 where a stride of `strides` (a tuple of ints) is 0, 0 where none, -1 on error. */
static int has_zero_stride(PyObject *strides) {
    if (!PyTuple_CheckExact(strides)) {
        return 1; /* (not the case this path knows: declined as if broadcast) */
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(strides); i++) {
        PyObject *s = PyTuple_GET_ITEM(strides, i);
        if (!PyLong_CheckExact(s)) {
            return 1;
        }
        int overflow;
        long v = PyLong_AsLongAndOverflow(s, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (v == 0 && !overflow) {
            return 1;
        }
    }
    return 0;
}

/* 1 where `device` declares the group "inplace", 0 where not, -1 on error. */
static int declares_group(PyObject *device) {
    PyObject *caps = PyObject_GetAttr(device, capabilities_attr);
    if (caps == NULL) {
        PyErr_Clear(); /* (no capabilities: the Python path's case and error) */
        return 0;
    }
    int has = PySequence_Contains(caps, group_name);
    Py_DECREF(caps);
    return has;
}

/* Whether lazy mode has nothing to run or swap before x <op>= other: off, or no graph
   pending anywhere and neither storage a recorded one (the update then runs as eager
   mode runs it; scikit-learn's pairwise_distances makes 12 a call). */
static int lazy_idle(const Binding *b, PyObject *x, PyObject *other) {
    if (cw_lazy_write == NULL) {
        return 1;
    }
    if (cw_lazy_live == NULL || PySet_GET_SIZE(cw_lazy_live) != 0) {
        return 0;
    }
    PyObject *storage = SLOT(x, b->storage);
    if (storage == NULL || (PyObject *)Py_TYPE(storage) == cw_lazy_type) {
        return 0;
    }
    if (Py_TYPE(other) == Py_TYPE(x)) {
        PyObject *s2 = SLOT(other, b->storage);
        return s2 != NULL && (PyObject *)Py_TYPE(s2) != cw_lazy_type;
    }
    return 1;
}

/* Whether `dtype`, one of the dtypes the op keeps (by identity: no attribute of the
   dtype read), is real floating: 1 or 0; -1 where the op does not keep it. */
static int kept_real(const Update *self, PyObject *dtype) {
    for (Py_ssize_t k = 0; k < self->n_kept; k++) {
        if (self->kept[k] == dtype) {
            return self->kept_real[k];
        }
    }
    return -1;
}

static PyObject *run(const Binding *b, Update *self, PyObject *x, PyObject *other) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (storage == NULL || layout == NULL || dtype == NULL || device == NULL || Py_TYPE(layout) != b->layout_type ||
        SLOT(layout, b->shape) == NULL || SLOT(layout, b->strides) == NULL) {
        return CW_UPDATE_DECLINED;
    }
    int real = kept_real(self, dtype);
    if (real < 0) {
        return CW_UPDATE_DECLINED;
    }
    PyObject *method, *operand1, *operand2;
    if (Py_TYPE(other) == Py_TYPE(x)) {
        PyObject *s2 = SLOT(other, b->storage), *l2 = SLOT(other, b->layout);
        if (s2 == NULL || l2 == NULL || Py_TYPE(l2) != b->layout_type || SLOT(other, b->dtype) != dtype ||
            SLOT(other, b->device) != device) {
            return CW_UPDATE_DECLINED;
        }
        PyObject *shape = SLOT(layout, b->shape), *shape2 = SLOT(l2, b->shape);
        if (shape2 == NULL) {
            return CW_UPDATE_DECLINED;
        }
        int same = shape == shape2 ? 1 : PyObject_RichCompareBool(shape, shape2, Py_EQ);
        if (same < 0) {
            return NULL;
        }
        /* other broadcast onto x's shape (x -= x.mean(axis=0)), as the general path's
           broadcast_layouts makes its layout */
        PyObject *spread = same ? Py_NewRef(l2) : cw_broadcast_layout(b, l2, shape2, shape);
        if (spread == NULL) {
            return PyErr_Occurred() ? NULL : CW_UPDATE_DECLINED;
        }
        method = binary_into_name;
        operand1 = Py_NewRef(s2);
        operand2 = spread;
    } else if (PyFloat_CheckExact(other) || PyLong_CheckExact(other)) {
        if (!real) {
            return CW_UPDATE_DECLINED;
        }
        operand1 = PyNumber_Float(other);
        if (operand1 == NULL) {
            PyErr_Clear(); /* (an int past float's range: the Python path raises its error) */
            return CW_UPDATE_DECLINED;
        }
        method = binary_scalar_into_name;
        operand2 = Py_NewRef(Py_False);
    } else {
        return CW_UPDATE_DECLINED;
    }
    /* held across the checks and the primitive, which run Python code that could rebind
       x's slots */
    PyObject *held[] = {Py_NewRef(storage), Py_NewRef(layout), Py_NewRef(device)};
    PyObject *out = CW_UPDATE_DECLINED;
    int zero = has_zero_stride(SLOT(layout, b->strides));
    int group = zero == 0 ? declares_group(device) : 0;
    PyObject *args[] = {storage, self->op, layout, storage, layout, operand1, operand2};
    /* a primitive that is a _native.UfuncInto (the cpu backend's) runs its common case
       straight from here, which asks read_only only where NumPy refuses the write (the
       property costs a Python call); anything else of it, and every other primitive,
       after read_only is asked, through the method */
    int direct = 0;
    if (group == 1 && Py_TYPE(storage)->tp_dictoffset == 0) {
        PyObject *primitive = _PyType_Lookup(Py_TYPE(storage), method); /* (borrowed: held while it runs) */
        if (primitive != NULL && Py_TYPE(primitive) == &cw_UfuncIntoType) {
            Py_INCREF(primitive);
            direct = cw_ufunc_into_run(b, primitive, args);
            Py_DECREF(primitive);
        }
    }
    int read_only = group == 1 && direct == 0 ? cw_attr_true(storage, read_only_attr) : 0;
    if (zero < 0 || group < 0 || direct < 0 || read_only < 0) {
        out = NULL;
    } else if (direct == 1) {
        out = x;
    } else if (zero == 0 && group == 1 && read_only == 0) {
        PyObject *done = PyObject_VectorcallMethod(method, args, 7 | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
        if (done == NULL) {
            out = NULL;
        } else {
            Py_DECREF(done);
            out = x;
        }
    }
    Py_DECREF(operand1);
    Py_DECREF(operand2);
    for (int i = 0; i < 3; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

/* (_native_host.h) */
PyObject *cw_update_case(const Binding *b, Update *self, PyObject *x, PyObject *other) {
    return Py_TYPE(x) == b->array_type && lazy_idle(b, x, other) ? run(b, self, x, other) : CW_UPDATE_DECLINED;
}

/* (_native_host.h) Checked first, so that the result keeps x's dtype and shape: x's
   dtype one the op keeps, other a Python float or int with a real floating x or an
   array of x's class and dtype broadcasting onto x's shape (the Python path, general,
   records the same call and checks the result after; anything else is left to it). */
PyObject *cw_update_rebound(const Binding *b, Update *self, PyObject *x, PyObject *other) {
    if (Py_TYPE(x) != b->array_type) {
        return CW_UPDATE_DECLINED;
    }
    PyObject *layout = SLOT(x, b->layout), *dtype = SLOT(x, b->dtype);
    if (layout == NULL || dtype == NULL || Py_TYPE(layout) != b->layout_type || SLOT(layout, b->shape) == NULL) {
        return CW_UPDATE_DECLINED;
    }
    int real = kept_real(self, dtype);
    if (real < 0) {
        return CW_UPDATE_DECLINED;
    }
    int fits;
    if (Py_TYPE(other) == b->array_type) {
        PyObject *l2 = SLOT(other, b->layout);
        fits = 0;
        if (SLOT(other, b->dtype) == dtype && l2 != NULL && Py_TYPE(l2) == b->layout_type && SLOT(l2, b->shape) != NULL) {
            /* other's shape broadcasts onto x's, giving x's own */
            PyObject *shape = SLOT(layout, b->shape);
            PyObject *spread = cw_broadcast_shape(SLOT(l2, b->shape), shape, PY_SSIZE_T_MAX);
            fits = spread == NULL ? (PyErr_Occurred() ? -1 : 0) : PyObject_RichCompareBool(spread, shape, Py_EQ);
            Py_XDECREF(spread);
        }
    } else {
        fits = (PyFloat_CheckExact(other) || PyLong_CheckExact(other)) && real;
    }
    if (fits > 0) {
        fits = cw_lazy_rebinds(x);
    }
    if (fits <= 0) {
        return fits < 0 ? NULL : CW_UPDATE_DECLINED;
    }
    PyObject *args[] = {x, other};
    PyObject *result = PyObject_Vectorcall(self->rebind, args, 2, NULL);
    if (result == NULL) {
        return NULL;
    }
    PyObject *out = CW_UPDATE_DECLINED; /* (a result of another dtype or shape: general's error) */
    int made_here = Py_TYPE(result) == b->array_type;
    PyObject *storage = made_here ? SLOT(result, b->storage) : NULL, *made = made_here ? SLOT(result, b->layout) : NULL;
    layout = SLOT(x, b->layout); /* (read again: the call ran Python code) */
    if (storage != NULL && made != NULL && layout != NULL && SLOT(result, b->dtype) == SLOT(x, b->dtype) &&
        Py_TYPE(made) == b->layout_type && Py_TYPE(layout) == b->layout_type) {
        int same = PyObject_RichCompareBool(SLOT(made, b->shape), SLOT(layout, b->shape), Py_EQ);
        if (same < 0) {
            out = NULL;
        } else if (same) {
            /* both slots set before the old ones are let go (the old storage's end may
               run Python code, which then sees x whole) */
            PyObject *old_storage = SLOT(x, b->storage), *old_layout = SLOT(x, b->layout);
            SLOT(x, b->storage) = Py_NewRef(storage);
            SLOT(x, b->layout) = Py_NewRef(made);
            Py_XDECREF(old_storage);
            Py_XDECREF(old_layout);
            out = x;
        }
    }
    Py_DECREF(result);
    return out;
}

/* (_native_host.h) */
int cw_update_run(PyObject *update, PyObject *x, PyObject *other) {
    Binding b;
    PyObject *out = CW_UPDATE_DECLINED;
    if (Py_TYPE(update) == &cw_UpdateType && cw_hold_binding(&b)) {
        out = cw_update_case(&b, (Update *)update, x, other);
        cw_release_binding(&b);
    }
    return out == NULL ? -1 : out != CW_UPDATE_DECLINED;
}

int cw_update_run_ready(void) {
    capabilities_attr = PyUnicode_InternFromString("capabilities");
    read_only_attr = PyUnicode_InternFromString("read_only");
    group_name = PyUnicode_InternFromString("inplace");
    binary_into_name = PyUnicode_InternFromString("binary_into");
    binary_scalar_into_name = PyUnicode_InternFromString("binary_scalar_into");
    return capabilities_attr == NULL || read_only_attr == NULL || group_name == NULL || binary_into_name == NULL ||
                   binary_scalar_into_name == NULL
               ? -1
               : 0;
}

