/* candlewick._native's UfuncNew (_native_ufunc_new.c, the class), its common cases: the
   operands read and viewed, the ufunc called, its result made a storage.

   The operands are the two storages' buffers, of the class UfuncNew learnt last (its buf
   and dtype object slots' offsets; any other class: general's) and of one dtype, whose
   entry in the table is found by identity (_native_ufunc_table.c). They are viewed as
   the 1-D views _native_flat_view.c makes (the buffer itself, or a slice) where both
   layouts allow one; else, where each layout is C-contiguous but for stride-0 axes (an
   operand broadcast onto the other's shape, or both onto a larger one) and every axis
   longer than 1 is unstretched in one of them, each buffer's elements reshaped to its
   layout's shape with 1 on its stretched axes, so that NumPy broadcasts them: the
   strides its loop then sees are the layouts' own, as in the Python form's strided
   views (_native_buffer_views.c, which also views the matrix form's operands with their
   layouts' strides). The ufunc runs in the quiet error state (var set to quiet;
   _native_guard.c) where the entry's loud is true; a MemoryError becomes
   memory_error(op, exc), raised from exc. The result, flattened in C order, is put in a
   new storage of the learnt class, made as object.__new__ makes it. */

#include "_native.h"
#include "_native_host.h"

static PyObject *reshape_name, *minus_one, *matmul_name, *converting_names, *unsafe;

/* The entry (ufunc, loud, result dtype[, scalar dtype]) of `op` on `dtype` (borrowed, a
   checked tuple), CW_UFUNC_NEW_DECLINED, or NULL on error (_native_ufunc_table.c's look-up
   by identity). */
static PyObject *entry_of(UfuncNew *self, PyObject *op, PyObject *dtype) {
    PyObject *entry = cw_ufunc_table_find(&self->entries, op, dtype);
    if (entry == NULL) {
        return PyErr_Occurred() ? NULL : CW_UFUNC_NEW_DECLINED;
    }
    Py_ssize_t size = self->convert != NULL || self->converting ? 4 : 3;
    return PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == size ? entry : CW_UFUNC_NEW_DECLINED;
}

/* ufunc(a, b), ufunc(a) where b is NULL (the unary form), or where `scalar_dtype` is given
   (b a Python scalar) ufunc(a, s) or, where `reflected`, ufunc(s, a), s = convert(b,
   scalar_dtype); in the converting form, where `scalar_dtype` is the entry's signature,
   ufunc(a, b, signature=scalar_dtype, casting="unsafe") */
static PyObject *apply(UfuncNew *self, PyObject *ufunc, PyObject *a, PyObject *b, PyObject *scalar_dtype,
                       int reflected) {
    if (scalar_dtype == NULL) {
        PyObject *args[] = {a, b};
        return PyObject_Vectorcall(ufunc, args, b == NULL ? 1 : 2, NULL);
    }
    if (self->converting) {
        PyObject *args[] = {a, b, scalar_dtype, unsafe};
        return PyObject_Vectorcall(ufunc, args, 2, converting_names);
    }
    PyObject *s = PyObject_CallFunctionObjArgs(self->convert, b, scalar_dtype, NULL);
    if (s == NULL) {
        return NULL;
    }
    PyObject *args[] = {reflected ? s : a, reflected ? a : s};
    PyObject *result = PyObject_Vectorcall(ufunc, args, 2, NULL);
    Py_DECREF(s);
    return result;
}

/* apply's call, in the quiet error state where `loud`: new reference, or NULL with the
   error set (a MemoryError made memory_error's). */
static PyObject *call_ufunc(UfuncNew *self, PyObject *op, PyObject *ufunc, int loud, PyObject *a, PyObject *b,
                            PyObject *scalar_dtype, int reflected) {
    PyObject *result = NULL, *token = NULL;
    if (!loud) {
        result = apply(self, ufunc, a, b, scalar_dtype, reflected);
    } else if (cw_quiet_enter(self->var, self->quiet, self->kept, &token) == 0) {
        result = apply(self, ufunc, a, b, scalar_dtype, reflected);
        /* the state restored whatever happened, the error kept */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (cw_quiet_exit(self->var, token) < 0) {
            Py_CLEAR(result);
            Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
            PyErr_Fetch(&type, &value, &tb);
        }
        PyErr_Restore(type, value, tb);
    }
    if (result == NULL && PyErr_ExceptionMatches(PyExc_MemoryError)) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb != NULL) {
            PyException_SetTraceback(value, tb);
        }
        PyObject *raised = PyObject_CallFunctionObjArgs(self->memory_error, op, value, NULL);
        if (raised != NULL) {
            PyException_SetCause(raised, Py_NewRef(value)); /* (steals the new reference) */
            PyErr_SetObject((PyObject *)Py_TYPE(raised), raised);
            Py_DECREF(raised);
        }
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
    }
    return result;
}

/* A new storage of the learned class holding `buf` (a reference stolen) as `dtype`,
   made as object.__new__ makes it (no __init__ call), or NULL on error. */
static PyObject *fresh_storage(PyTypeObject *type, Py_ssize_t buf_at, Py_ssize_t dtype_at, PyObject *buf,
                               PyObject *dtype) {
    PyObject *storage = type->tp_alloc(type, 0);
    if (storage == NULL) {
        Py_DECREF(buf);
        return NULL;
    }
    SLOT(storage, buf_at) = buf;
    SLOT(storage, dtype_at) = Py_NewRef(dtype);
    return storage;
}

/* What cw_ufunc_new_run and cw_ufunc_new_run_matrix read first: the storages' buffers
   (borrowed) and the table's entry for (key, their dtype) with its loud flag, or where
   `into` is given (the converting form) for (key, into), the storages' dtypes then any;
   NULL on error, CW_UFUNC_NEW_DECLINED where the operands are not two storages of the
   learnt class and one dtype, or the table has no entry, else the entry (borrowed). */
static PyObject *operands(UfuncNew *self, PyObject *storage, PyObject *rhs, PyObject *key, PyObject *into,
                          PyObject **buf1, PyObject **buf2, int *loud) {
    if (Py_TYPE(storage) != self->known.type && cw_learn_storage(&self->known, Py_TYPE(storage), 0) < 0) {
        return NULL;
    }
    if (self->known.buf_at < 0 || Py_TYPE(rhs) != self->known.type) {
        return CW_UFUNC_NEW_DECLINED;
    }
    PyObject *dtype = SLOT(storage, self->known.dtype_at);
    *buf1 = SLOT(storage, self->known.buf_at);
    *buf2 = SLOT(rhs, self->known.buf_at);
    if (dtype == NULL || *buf1 == NULL || *buf2 == NULL || (into == NULL && SLOT(rhs, self->known.dtype_at) != dtype)) {
        return CW_UFUNC_NEW_DECLINED;
    }
    PyObject *entry = entry_of(self, key, into != NULL ? into : dtype);
    if (entry == NULL || entry == CW_UFUNC_NEW_DECLINED) {
        return entry;
    }
    *loud = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
    return *loud < 0 ? NULL : entry;
}

/* The common case (args: storage, op, lhs_layout, rhs, rhs_layout), and the converting
   form's (dtype after them). */
PyObject *cw_ufunc_new_run(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *l1 = args[2], *rhs = args[3], *l2 = args[4];
    PyObject *buf1, *buf2;
    int loud;
    PyObject *entry = operands(self, storage, rhs, op, self->converting ? args[5] : NULL, &buf1, &buf2, &loud);
    if (entry == NULL || entry == CW_UFUNC_NEW_DECLINED) {
        return entry;
    }
    /* held from here: the calls run code that could rebind the slots, or learn another
       class (a finalizer's call) */
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->known.type);
    Py_ssize_t buf_at = self->known.buf_at, dtype_at = self->known.dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf1), Py_NewRef(buf2), NULL, NULL, (PyObject *)type};
    PyObject *out = CW_UFUNC_NEW_DECLINED;
    int flat = 1; /* whether the operands are 1-D views (the result then is) */
    int made = cw_flat_view(bd, buf1, l1, &held[3]);
    if (made == 1) {
        made = cw_flat_view(bd, buf2, l2, &held[4]);
        if (made != 1) {
            Py_CLEAR(held[3]);
        }
    }
    if (made == 0) {
        flat = 0;
        made = cw_spread_views(bd, buf1, l1, buf2, l2, &held[3], &held[4]);
    }
    if (made < 0) {
        out = NULL;
    } else if (made == 1) {
        PyObject *result = call_ufunc(self, op, PyTuple_GET_ITEM(entry, 0), loud, held[3], held[4],
                                      self->converting ? PyTuple_GET_ITEM(entry, 3) : NULL, 0);
        if (result != NULL && !flat) {
            Py_SETREF(result, PyObject_CallMethodOneArg(result, reshape_name, minus_one));
        }
        out = result == NULL ? NULL : fresh_storage(type, buf_at, dtype_at, result, PyTuple_GET_ITEM(entry, 2));
    }
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(held[i]);
    }
    return out;
}

/* The matrix product's common case (args: storage, rhs, lhs_layout, rhs_layout): as
   cw_ufunc_new_run. */
PyObject *cw_ufunc_new_run_matrix(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *rhs = args[1], *l1 = args[2], *l2 = args[3];
    PyObject *buf1, *buf2;
    int loud;
    PyObject *entry = operands(self, storage, rhs, Py_None, NULL, &buf1, &buf2, &loud);
    if (entry == NULL || entry == CW_UFUNC_NEW_DECLINED) {
        return entry;
    }
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->known.type);
    Py_ssize_t buf_at = self->known.buf_at, dtype_at = self->known.dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf1), Py_NewRef(buf2), NULL, NULL, (PyObject *)type};
    PyObject *out = CW_UFUNC_NEW_DECLINED;
    int made = cw_matrix_view(bd, buf1, l1, &held[3]);
    if (made == 1) {
        made = cw_matrix_view(bd, buf2, l2, &held[4]);
    }
    if (made < 0) {
        out = NULL;
    } else if (made == 1) {
        PyObject *result = call_ufunc(self, matmul_name, PyTuple_GET_ITEM(entry, 0), loud, held[3], held[4], NULL, 0);
        if (result != NULL) {
            Py_SETREF(result, PyObject_CallMethodOneArg(result, reshape_name, minus_one));
        }
        out = result == NULL ? NULL : fresh_storage(type, buf_at, dtype_at, result, PyTuple_GET_ITEM(entry, 2));
    }
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(held[i]);
    }
    return out;
}

/* What the one-operand forms (scalar, unary) read first: the storage's buffer (borrowed)
   and the table's entry for (op, its dtype); NULL on error, CW_UFUNC_NEW_DECLINED where
   the storage is not of the learnt class or the table has no entry, else the entry
   (borrowed). */
static PyObject *operand(UfuncNew *self, PyObject *storage, PyObject *op, PyObject **buf) {
    if (Py_TYPE(storage) != self->known.type && cw_learn_storage(&self->known, Py_TYPE(storage), 0) < 0) {
        return NULL;
    }
    if (self->known.buf_at < 0) {
        return CW_UFUNC_NEW_DECLINED;
    }
    PyObject *dtype = SLOT(storage, self->known.dtype_at);
    *buf = SLOT(storage, self->known.buf_at);
    if (dtype == NULL || *buf == NULL) {
        return CW_UFUNC_NEW_DECLINED;
    }
    return entry_of(self, op, dtype);
}

/* The unary form's common case (args: storage, op, layout): ufunc(x) on the 1-D view of
   the storage that _native_flat_view.c makes, as cw_ufunc_new_run. */
PyObject *cw_ufunc_new_run_unary(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *layout = args[2], *buf;
    PyObject *entry = operand(self, storage, op, &buf);
    if (entry == NULL || entry == CW_UFUNC_NEW_DECLINED) {
        return entry;
    }
    int loud = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
    if (loud < 0) {
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->known.type);
    Py_ssize_t buf_at = self->known.buf_at, dtype_at = self->known.dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf), NULL, (PyObject *)type};
    PyObject *out = CW_UFUNC_NEW_DECLINED;
    int made = cw_flat_view(bd, buf, layout, &held[2]);
    if (made < 0) {
        out = NULL;
    } else if (made == 1) {
        PyObject *result = call_ufunc(self, op, PyTuple_GET_ITEM(entry, 0), loud, held[2], NULL, NULL, 0);
        out = result == NULL ? NULL : fresh_storage(type, buf_at, dtype_at, result, PyTuple_GET_ITEM(entry, 2));
    }
    for (int i = 0; i < 4; i++) {
        Py_XDECREF(held[i]);
    }
    return out;
}

/* The scalar form's common case (args: storage, op, layout, value, reflected): as
   cw_ufunc_new_run, on the 1-D view of the storage that _native_flat_view.c makes. */
PyObject *cw_ufunc_new_run_scalar(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *layout = args[2], *value = args[3], *buf;
    PyObject *entry = operand(self, storage, op, &buf);
    if (entry == NULL || entry == CW_UFUNC_NEW_DECLINED) {
        return entry;
    }
    int loud = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1)), reflected = PyObject_IsTrue(args[4]);
    if (loud < 0 || reflected < 0) {
        return NULL;
    }
    /* a kernel that is a one-operand ufunc at some values ({value: ufunc}: x ** 2 as
       np.square, cpu_backend/ops.py's AT_SCALAR) is that ufunc at them, else general's */
    PyObject *ufunc = PyTuple_GET_ITEM(entry, 0), *scalar_dtype = PyTuple_GET_ITEM(entry, 3);
    if (PyDict_CheckExact(ufunc)) {
        ufunc = reflected || !(PyFloat_CheckExact(value) || PyLong_CheckExact(value))
                    ? NULL /* (anything else, hashable or not, is general's to judge) */
                    : PyDict_GetItemWithError(ufunc, value);
        if (ufunc == NULL) {
            return PyErr_Occurred() ? NULL : CW_UFUNC_NEW_DECLINED;
        }
        scalar_dtype = NULL;
    }
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->known.type);
    Py_ssize_t buf_at = self->known.buf_at, dtype_at = self->known.dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf), Py_NewRef(value), NULL, (PyObject *)type,
                        Py_NewRef(ufunc)};
    PyObject *out = CW_UFUNC_NEW_DECLINED;
    int made = cw_flat_view(bd, buf, layout, &held[3]);
    if (made < 0) {
        out = NULL;
    } else if (made == 1) {
        PyObject *result = call_ufunc(self, op, ufunc, loud, held[3], scalar_dtype == NULL ? NULL : value,
                                      scalar_dtype, reflected);
        out = result == NULL ? NULL : fresh_storage(type, buf_at, dtype_at, result, PyTuple_GET_ITEM(entry, 2));
    }
    for (int i = 0; i < 6; i++) {
        Py_XDECREF(held[i]);
    }
    return out;
}

int cw_ufunc_new_run_ready(void) {
    reshape_name = PyUnicode_InternFromString("reshape");
    matmul_name = PyUnicode_InternFromString("matmul");
    minus_one = PyLong_FromLong(-1);
    unsafe = PyUnicode_InternFromString("unsafe");
    converting_names = Py_BuildValue("(ss)", "signature", "casting");
    if (reshape_name == NULL || matmul_name == NULL || minus_one == NULL || unsafe == NULL || converting_names == NULL) {
        return -1;
    }
    return cw_buffer_views_ready();
}
