/* candlewick._native's UfuncInto (_native_ufunc.c, the class), its common case: the
   storage class's slots learnt, the operands viewed (1-D views, or x op= other's broadcast
   form), the storage's lock made on its first write, the ufunc called with out= under the
   lock and the quiet error state, a MemoryError made the backend's. */

#include "_native.h"
#include "_native_host.h"

#include <string.h>

static PyObject *read_only_attr, *out_kwnames, *shape_attr;

#define NOT_TAKEN ((PyObject *)&cw_UfuncIntoType)

/* `storage`'s elements that `layout` reaches as a 1-D NumPy array (new reference;
   cw_flat_view); NOT_TAKEN (borrowed) where the storage is not of the learned class or of
   `dtype`, or cw_flat_view declines the layout; NULL on error. */
static PyObject *flat_view(const Binding *b, UfuncInto *self, PyObject *storage, PyObject *layout, PyObject *dtype) {
    if (Py_TYPE(storage) != self->known.type || SLOT(storage, self->known.dtype_at) != dtype) {
        return NOT_TAKEN;
    }
    PyObject *buf = SLOT(storage, self->known.buf_at), *view;
    if (buf == NULL) {
        return NOT_TAKEN;
    }
    int made = cw_flat_view(b, buf, layout, &view);
    return made < 0 ? NULL : made == 0 ? NOT_TAKEN : view;
}

/* the scalar operand `value` (a float) as convert's 0-d array of `dtype`'s compute dtype
   (new reference; the kept one where value's bits and dtype are the last call's) */
static PyObject *scalar_operand(UfuncInto *self, PyObject *value, PyObject *dtype) {
    double v = PyFloat_AS_DOUBLE(value);
    if (self->kept_array != NULL && self->kept_dtype == dtype && memcmp(&v, &self->kept_value, sizeof v) == 0) {
        return Py_NewRef(self->kept_array);
    }
    PyObject *made = PyObject_CallFunctionObjArgs(self->convert, value, dtype, NULL);
    if (made != NULL) {
        Py_XSETREF(self->kept_array, Py_NewRef(made));
        Py_XSETREF(self->kept_dtype, Py_NewRef(dtype));
        self->kept_value = v;
    }
    return made;
}

/* ufunc(a, b, out=out) (ufunc(a, out=out) where b is NULL) under the storage's lock and
   the quiet error state: 0, or -1 with the error set (a MemoryError made memory_error's). */
static int call_ufunc(UfuncInto *self, PyObject *lock, PyObject *ufunc, PyObject *a, PyObject *b,
                      PyObject *out, PyObject *dtype) {
    WriteGuard guard;
    PyObject *result = NULL;
    if (cw_write_guard_enter(&guard, lock, self->var, self->quiet, self->kept) == 0) {
        /* (converted in the quiet state: a float past float32's range becomes inf unannounced,
           as the Python form's conversion) */
        PyObject *operand = b == NULL ? NULL
                            : self->scalar && self->convert != NULL ? scalar_operand(self, b, dtype) : Py_NewRef(b);
        if (operand != NULL || b == NULL) {
            PyObject *args[] = {a, operand, out};
            if (b == NULL) {
                args[1] = out;
            }
            result = PyObject_Vectorcall(ufunc, args, b == NULL ? 1 : 2, out_kwnames);
            Py_XDECREF(operand);
        }
        if (cw_write_guard_exit(&guard) < 0) {
            Py_CLEAR(result);
        }
    }
    if (result == NULL && PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) {
            PyException_SetTraceback(value, tb);
        }
        PyObject *raised = PyObject_CallOneArg(self->memory_error, value);
        if (raised != NULL) {
            PyException_SetCause(raised, Py_NewRef(value)); /* (steals the new reference) */
            PyErr_SetObject((PyObject *)Py_TYPE(raised), raised);
            Py_DECREF(raised);
        }
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
    }
    Py_XDECREF(result);
    return result == NULL ? -1 : 0;
}

/* x op= other where other's layout is broadcast onto x's shape (stride-0 axes: scikit-learn's
   X -= mean, pairwise_distances' d += XX): x's elements viewed with x's shape (*whole) and
   other's reshaped with 1 on its stretched axes (*spread), so that NumPy broadcasts them as
   the Python form's strided view does (cw_spread_views: UfuncNew's broadcast form). 1 with
   both new references, 0 not this case (x itself stretched, other not of x's class and
   dtype, a layout not C-contiguous but for stride-0 axes), -1 on error. */
static int spread_operands(const Binding *bd, UfuncInto *self, PyObject *storage, PyObject *dst_layout,
                           PyObject *other, PyObject *other_layout, PyObject *dtype, PyObject *dst_shape,
                           PyObject **whole, PyObject **spread) {
    if (Py_TYPE(other) != self->known.type || SLOT(other, self->known.dtype_at) != dtype) {
        return 0;
    }
    PyObject *buf = SLOT(storage, self->known.buf_at), *other_buf = SLOT(other, self->known.buf_at);
    if (buf == NULL || other_buf == NULL) {
        return 0;
    }
    int made = cw_spread_views(bd, buf, dst_layout, other_buf, other_layout, whole, spread);
    if (made != 1) {
        return made;
    }
    /* x's view keeps every axis only where x has no stride 0 (a store through one is general's error) */
    PyObject *shape = PyObject_GetAttr(*whole, shape_attr);
    int same = shape == NULL ? -1 : PyObject_RichCompareBool(shape, dst_shape, Py_EQ);
    Py_XDECREF(shape);
    if (same != 1) {
        Py_CLEAR(*whole);
        Py_CLEAR(*spread);
    }
    return same;
}

/* The common case: 1 done, 0 not this case (nothing written, no error), -1 error.
   `unchecked`: the caller has not asked the storage's read_only (_native.Update): a
   read-only destination, which NumPy refuses before it writes, is then not the case. */
int cw_ufunc_into_case(const Binding *bd, UfuncInto *self, PyObject *const *args, int unchecked) {
    PyObject *storage = args[0], *op = args[1], *dst_layout = args[2];
    PyObject *src = args[3], *src_layout = args[4], *other = args[5], *other_layout = args[6];
    if (self->scalar && (!PyFloat_CheckExact(other) || other_layout != Py_False)) {
        return 0;
    }
    if (Py_TYPE(storage) != self->known.type && cw_learn_storage(&self->known, Py_TYPE(storage), 1) < 0) {
        return -1;
    }
    if (self->known.buf_at < 0) {
        return 0;
    }
    PyObject *dtype = SLOT(storage, self->known.dtype_at);
    if (dtype == NULL) {
        return 0;
    }
    PyObject *ufunc = cw_ufunc_table_find(&self->table, op, dtype);
    int unary = 0;
    if (ufunc != NULL && PyDict_CheckExact(ufunc)) {
        /* a kernel that is a one-operand ufunc at some values of the scalar ({value: ufunc}:
           x **= 2 as np.square, cpu_backend/ops.py's AT_SCALAR) is that ufunc at them */
        ufunc = self->scalar ? PyDict_GetItemWithError(ufunc, other) : NULL;
        unary = 1;
    }
    if (ufunc == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    PyObject *lock = SLOT(storage, self->known.lock_at);
    if (lock == NULL) {
        /* a storage's lock is made on its first write (storage_slice.lock_of): here, as a
           fresh result's first update (scikit-learn's temp **= 2, X -= mean) would else be
           the Python primitive's, ~5 us at 64 elements. Made, then the slot read again: the
           allocation may run a finalizer that lets another thread set one first */
        PyObject *made = PyObject_CallNoArgs((PyObject *)&cw_LockType);
        if (made == NULL) {
            return -1;
        }
        if (SLOT(storage, self->known.lock_at) == NULL) {
            SLOT(storage, self->known.lock_at) = made;
        } else {
            Py_DECREF(made);
        }
        lock = SLOT(storage, self->known.lock_at);
    }
    PyObject *dst_shape = Py_TYPE(dst_layout) == bd->layout_type ? SLOT(dst_layout, bd->shape) : NULL;
    if (dst_shape == NULL) {
        return 0;
    }
    /* the operands viewed alike need one shape (the protocol's; checked, as NumPy would
       broadcast other shapes) */
    PyObject *layouts[] = {src_layout, self->scalar ? dst_layout : other_layout};
    for (int i = 0; i < 2; i++) {
        PyObject *shape = Py_TYPE(layouts[i]) == bd->layout_type ? SLOT(layouts[i], bd->shape) : NULL;
        int same = shape == dst_shape ? 1 : shape == NULL ? 0 : PyObject_RichCompareBool(shape, dst_shape, Py_EQ);
        if (same <= 0) {
            return same;
        }
    }
    /* held from here: the views are new, the calls run code that could rebind the slots */
    PyObject *held[] = {Py_NewRef(ufunc), Py_NewRef(lock), NULL, NULL, NULL};
    int done = 0;
    PyObject *out = held[2] = flat_view(bd, self, storage, dst_layout, dtype);
    PyObject *a = out == NULL || out == NOT_TAKEN ? out
                  : src == storage && src_layout == dst_layout ? Py_NewRef(out)
                  : flat_view(bd, self, src, src_layout, dtype);
    held[3] = a;
    PyObject *b = a == NULL || a == NOT_TAKEN ? a
                  : self->scalar ? Py_NewRef(other) : flat_view(bd, self, other, other_layout, dtype);
    held[4] = b;
    if (b == NOT_TAKEN && !self->scalar && a == out && out != NOT_TAKEN) {
        /* x op= other broadcast onto x's shape (x itself the left operand) */
        PyObject *whole = NULL, *spread = NULL;
        int made = spread_operands(bd, self, storage, dst_layout, other, other_layout, dtype, dst_shape, &whole, &spread);
        if (made != 0) {
            Py_DECREF(held[2]);
            Py_DECREF(held[3]);
            held[2] = out = whole;
            held[3] = a = Py_XNewRef(whole);
            held[4] = b = spread;
        }
    }
    if (out == NULL || a == NULL || b == NULL) {
        done = -1;
    } else if (out == NOT_TAKEN || a == NOT_TAKEN || b == NOT_TAKEN) {
        done = 0;
    } else {
        done = call_ufunc(self, lock, ufunc, a, unary ? NULL : b, out, dtype) == 0 ? 1 : -1;
        if (done < 0 && unchecked) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            int read_only = cw_attr_true(storage, read_only_attr);
            if (read_only == 0) {
                PyErr_Restore(type, value, tb);
            } else {
                Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
                done = read_only < 0 ? -1 : 0; /* (the caller's path raises its error) */
            }
        }
    }
    for (int i = 0; i < 5; i++) {
        if (held[i] != NOT_TAKEN) {
            Py_XDECREF(held[i]);
        }
    }
    return done;
}

int cw_ufunc_into_run(const Binding *b, PyObject *callable, PyObject *const *args) {
    return Py_TYPE(callable) == &cw_UfuncIntoType ? cw_ufunc_into_case(b, (UfuncInto *)callable, args, 1) : 0;
}

int cw_ufunc_into_run_ready(void) {
    read_only_attr = PyUnicode_InternFromString("read_only");
    shape_attr = PyUnicode_InternFromString("shape");
    PyObject *out = PyUnicode_InternFromString("out");
    out_kwnames = out == NULL ? NULL : PyTuple_Pack(1, out);
    Py_XDECREF(out);
    if (read_only_attr == NULL || shape_attr == NULL || out_kwnames == NULL || cw_write_guard_ready() < 0) {
        return -1;
    }
    return 0;
}
