/* candlewick._native's UfuncInto: a host backend's in-place primitive whose common case is
   one NumPy ufunc called with out= (the cpu backend's binary_into and
   binary_scalar_into: cpu_backend/inplace.py), in C.

   UfuncInto(scalar, table, var, quiet, memory_error, general) is a method (a descriptor,
   bound to the storage it is read from). Called as
   storage.binary_into(op, dst_layout, lhs, lhs_layout, rhs, rhs_layout) (scalar false) or
   storage.binary_scalar_into(op, dst_layout, src, src_layout, value, reflected) (scalar
   true), it runs table[id(op)][id(storage.dtype)](a, b, out=out) where every
   operand is a storage of the destination's dtype whose layout covers its whole buffer
   (layout.dense_size == buf.size), or a Python float not reflected: holding the
   storage's lock (its _lock attribute) with the context variable var set to quiet
   (NumPy's error state: no IEEE warnings), as the Python form does. A MemoryError
   becomes memory_error(exc), raised from exc. Anything else, and any call while the
   module is unbound, is general's (the Python primitive), with the same arguments. Why
   in C: the ufunc over 2^20 elements leaves the caches holding its data, so each step of
   the Python form misses (bench/inplace.py). */

#include "_native.h"

#include <stddef.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int scalar;
    PyObject *table, *var, *quiet, *memory_error, *general;
} UfuncInto;

static PyObject *dtype_attr, *buf_attr, *lock_attr, *acquire_name,
    *release_name, *out_kwnames;

#define NOT_TAKEN ((PyObject *)&cw_UfuncIntoType)

/* The buffer of `storage` (new reference) where `layout` covers it whole and its dtype is
   `dtype`; NOT_TAKEN (borrowed) where not; NULL on error. */
static PyObject *whole_buffer(const Binding *b, PyObject *storage, PyObject *layout, PyObject *dtype) {
    if (Py_TYPE(layout) != b->layout_type || SLOT(layout, b->dense) == NULL) {
        return NOT_TAKEN;
    }
    PyObject *own = PyObject_GetAttr(storage, dtype_attr);
    if (own == NULL) {
        PyErr_Clear();
        return NOT_TAKEN;
    }
    Py_DECREF(own); /* (compared by identity only) */
    if (own != dtype) {
        return NOT_TAKEN;
    }
    PyObject *buf = PyObject_GetAttr(storage, buf_attr);
    if (buf == NULL) {
        PyErr_Clear();
        return NOT_TAKEN;
    }
    /* the buffer is 1-D: its length is its size */
    Py_ssize_t size = PyObject_Length(buf);
    if (size < 0) {
        Py_DECREF(buf);
        PyErr_Clear();
        return NOT_TAKEN;
    }
    PyObject *dense = SLOT(layout, b->dense);
    if (!PyLong_CheckExact(dense) || PyLong_AsSsize_t(dense) != size) {
        Py_DECREF(buf);
        PyErr_Clear(); /* (a dense size past Py_ssize_t: not the case) */
        return NOT_TAKEN;
    }
    return buf;
}

/* table[id(a)] (borrowed), NOT_TAKEN or NULL on error: ops and dtypes are looked up by
   identity (no attribute of theirs read). */
static PyObject *by_id(PyObject *table, PyObject *a) {
    PyObject *key = PyLong_FromVoidPtr(a);
    if (key == NULL) {
        return NULL;
    }
    PyObject *found = PyDict_GetItemWithError(table, key);
    Py_DECREF(key);
    if (found == NULL) {
        return PyErr_Occurred() ? NULL : NOT_TAKEN;
    }
    return found;
}

/* The ufunc of `op` on `dtype` (borrowed), NOT_TAKEN or NULL on error. */
static PyObject *ufunc_of(UfuncInto *self, PyObject *op, PyObject *dtype) {
    PyObject *row = by_id(self->table, op);
    if (row == NULL || row == NOT_TAKEN || !PyDict_Check(row)) {
        return row == NULL ? NULL : NOT_TAKEN;
    }
    return by_id(row, dtype);
}

/* ufunc(a, b, out=out) under the storage's lock and the quiet error state: None, or NULL
   with the error set (a MemoryError made memory_error's). */
static PyObject *call_ufunc(UfuncInto *self, PyObject *lock, PyObject *ufunc, PyObject *a, PyObject *b,
                            PyObject *out) {
    PyObject *got = PyObject_CallMethodNoArgs(lock, acquire_name);
    if (got == NULL) {
        return NULL;
    }
    Py_DECREF(got);
    PyObject *result = NULL;
    PyObject *token = PyContextVar_Set(self->var, self->quiet);
    if (token != NULL) {
        PyObject *args[] = {a, b, out};
        result = PyObject_Vectorcall(ufunc, args, 2, out_kwnames);
        /* the state restored and the lock released whatever happened, the error kept */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (PyContextVar_Reset(self->var, token) < 0) {
            Py_CLEAR(result);
            Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
            PyErr_Fetch(&type, &value, &tb);
        }
        Py_DECREF(token);
        PyErr_Restore(type, value, tb);
    }
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *released = PyObject_CallMethodNoArgs(lock, release_name);
    if (released == NULL) {
        Py_CLEAR(result);
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        return NULL;
    }
    Py_DECREF(released);
    PyErr_Restore(type, value, tb);
    if (result == NULL && PyErr_ExceptionMatches(PyExc_MemoryError)) {
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
    return result;
}

static PyObject *run(const Binding *bd, UfuncInto *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *dst_layout = args[2];
    PyObject *src = args[3], *src_layout = args[4], *other = args[5], *other_layout = args[6];
    if (self->scalar && (!PyFloat_CheckExact(other) || other_layout != Py_False)) {
        return NOT_TAKEN;
    }
    PyObject *dtype = PyObject_GetAttr(storage, dtype_attr);
    if (dtype == NULL) {
        PyErr_Clear();
        return NOT_TAKEN;
    }
    PyObject *out = NOT_TAKEN, *a = NOT_TAKEN, *b = NOT_TAKEN, *lock = NULL, *result = NOT_TAKEN;
    PyObject *ufunc = ufunc_of(self, op, dtype);
    if (ufunc == NULL || ufunc == NOT_TAKEN) {
        result = ufunc;
        goto done;
    }
    Py_INCREF(ufunc); /* (held: the calls below run Python code) */
    out = whole_buffer(bd, storage, dst_layout, dtype);
    if (out == NULL || out == NOT_TAKEN) {
        result = out;
        goto done_ufunc;
    }
    a = src == storage && src_layout == dst_layout ? Py_NewRef(out) : whole_buffer(bd, src, src_layout, dtype);
    if (a == NULL || a == NOT_TAKEN) {
        result = a;
        goto done_ufunc;
    }
    b = self->scalar ? Py_NewRef(other) : whole_buffer(bd, other, other_layout, dtype);
    if (b == NULL || b == NOT_TAKEN) {
        result = b;
        goto done_ufunc;
    }
    lock = PyObject_GetAttr(storage, lock_attr);
    if (lock == NULL) {
        PyErr_Clear(); /* (made on first use by the Python primitive) */
        goto done_ufunc;
    }
    result = call_ufunc(self, lock, ufunc, a, b, out);
    if (result != NULL) {
        Py_DECREF(result);
        result = Py_None;
    }
done_ufunc:
    Py_DECREF(ufunc);
done:
    if (out != NOT_TAKEN) {
        Py_XDECREF(out);
    }
    if (a != NOT_TAKEN) {
        Py_XDECREF(a);
    }
    if (b != NOT_TAKEN) {
        Py_XDECREF(b);
    }
    Py_XDECREF(lock);
    Py_DECREF(dtype);
    return result;
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    UfuncInto *self = (UfuncInto *)callable;
    Binding b;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == 7 && cw_hold_binding(&b)) {
        PyObject *out = run(&b, self, args);
        cw_release_binding(&b);
        if (out != NOT_TAKEN) {
            return out == NULL ? NULL : Py_NewRef(out);
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *bind_to(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int scalar;
    PyObject *table, *var, *quiet, *memory_error, *general;
    static char *names[] = {"scalar", "table", "var", "quiet", "memory_error", "general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "pO!O!OOO:UfuncInto", names, &scalar, &PyDict_Type, &table,
                                     &PyContextVar_Type, &var, &quiet, &memory_error, &general)) {
        return NULL;
    }
    if (!PyCallable_Check(memory_error) || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.UfuncInto: memory_error and general must be callable");
        return NULL;
    }
    UfuncInto *self = (UfuncInto *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->scalar = scalar;
    self->table = Py_NewRef(table);
    self->var = Py_NewRef(var);
    self->quiet = Py_NewRef(quiet);
    self->memory_error = Py_NewRef(memory_error);
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int traverse(UfuncInto *self, visitproc visit, void *arg) {
    Py_VISIT(self->table);
    Py_VISIT(self->var);
    Py_VISIT(self->quiet);
    Py_VISIT(self->memory_error);
    Py_VISIT(self->general);
    return 0;
}

static int clear(UfuncInto *self) {
    Py_CLEAR(self->table);
    Py_CLEAR(self->var);
    Py_CLEAR(self->quiet);
    Py_CLEAR(self->memory_error);
    Py_CLEAR(self->general);
    return 0;
}

static void dealloc(UfuncInto *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_general(UfuncInto *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->general);
}

static PyGetSetDef getset[] = {
    {"general", (getter)get_general, NULL, "the Python primitive run where the fast path declines", NULL},
    {"__wrapped__", (getter)get_general, NULL, "the Python primitive run where the fast path declines", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject cw_UfuncIntoType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.UfuncInto",
    .tp_basicsize = sizeof(UfuncInto),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "UfuncInto(scalar, table, var, quiet, memory_error, general): a host backend's in-place "
              "primitive whose common case is one NumPy ufunc with out=, in C; anything else general's",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(UfuncInto, vectorcall),
    .tp_descr_get = bind_to,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = getset,
};

int cw_ufunc_into_ready(void) {
    dtype_attr = PyUnicode_InternFromString("dtype");
    buf_attr = PyUnicode_InternFromString("buf");
    lock_attr = PyUnicode_InternFromString("_lock");
    acquire_name = PyUnicode_InternFromString("acquire");
    release_name = PyUnicode_InternFromString("release");
    PyObject *out = PyUnicode_InternFromString("out");
    out_kwnames = out == NULL ? NULL : PyTuple_Pack(1, out);
    Py_XDECREF(out);
    if (dtype_attr == NULL || buf_attr == NULL || lock_attr == NULL || acquire_name == NULL || release_name == NULL || out_kwnames == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_UfuncIntoType);
}
