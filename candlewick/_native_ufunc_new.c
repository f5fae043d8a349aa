/* candlewick._native's UfuncNew: a host backend's two-operand primitive whose common case
   is one NumPy ufunc making a new buffer (the cpu backend's binary and compare:
   cpu_backend/elementwise.py), in C.

   UfuncNew(table, var, quiet, memory_error, general, loud=None) is a method (a
   descriptor, bound to the storage it is read from). Called as
   storage.binary(op, lhs_layout, rhs, rhs_layout), where table[id(op)][id(storage.dtype)]
   is (ufunc, loud, result dtype) (found by identity: _native_ufunc_table.c), both storages are of one class with buf and dtype object
   slots and of one dtype, and the layouts are of one shape, it returns a new storage of
   that class (made as object.__new__ makes it) holding ufunc(a, b) flattened in C order,
   with the ufunc run in the quiet error state (var set to quiet; _native_guard.c) where
   loud is true, as the Python form does. The operands are the 1-D views _native_flat_view.c
   makes (the buffer itself, or a slice) where both layouts allow one; else, where each
   layout is C-contiguous but for stride-0 axes (an operand broadcast onto the other's
   shape, or both onto a larger one) and every axis longer than 1 is unstretched in one
   of them, each buffer's elements reshaped to its layout's shape with 1 on its stretched
   axes, so that NumPy broadcasts them: the strides its loop then sees are the layouts'
   own, as in the Python form's strided views. A MemoryError becomes memory_error(op,
   exc), raised from exc. The matrix form (matrix=True; table[id(None)][id(dtype)]) is
   storage.matmul(rhs, lhs_layout, rhs_layout) on two 2-D layouts each a matrix or its
   transpose in the buffer, viewed with the layouts' strides (_native_buffer_views.c, as
   are the broadcast form's operands), the product flattened; memory_error's op is
   "matmul". The scalar form (convert given; entries (ufunc, loud, result dtype, scalar
   dtype)) is storage.binary_scalar(op, layout, value, reflected) (binary_scalar and
   compare_scalar) on the storage's 1-D view: ufunc(x, s), or ufunc(s, x) where
   reflected, s = convert(value, scalar dtype) made in the call's error state, as the
   Python form's 0-d array. Anything else is general's (the Python primitive), with the same arguments. Why in C: after a NumPy call over 10^5-10^6 elements has evicted the
   caches, the Python form's frame costs 15-25 us of misses on the 2-core VM (a KMeans
   step's x2 - 2 * X @ C.T: bench/pydata_e2e.py). */

#include "_native.h"

#include <stddef.h>


typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int kept;   /* whether the quiet state is entered through the thread's kept context */
    int matrix; /* the matrix product's form: storage.matmul(rhs, lhs_layout, rhs_layout) */
    /* the scalar form's (storage.binary_scalar(op, layout, value, reflected)): convert(value,
       the entry's scalar dtype) makes the scalar operand, in the error state of the call;
       NULL in the other forms */
    PyObject *convert;
    /* table[id(op)][id(dtype)]: (ufunc, loud, result dtype); the matrix form's under id(None) */
    UfuncTable entries;
    PyObject *var, *quiet, *memory_error, *general;
    /* the storage class last seen (held), with its slots' offsets: buf_at < 0 where they
       are not both object slots (its calls are general's) */
    PyTypeObject *storage_type;
    Py_ssize_t buf_at, dtype_at;
} UfuncNew;

static PyObject *reshape_name, *minus_one, *matmul_name;

#define NOT_TAKEN ((PyObject *)&cw_UfuncNewType)

static int learn(UfuncNew *self, PyTypeObject *type) {
    Py_ssize_t at[2];
    int slots = cw_slot_offset(type, "buf", &at[0]) == 0 && cw_slot_offset(type, "dtype", &at[1]) == 0;
    if (!slots) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear(); /* (not slots: general's calls) */
    }
    Py_XSETREF(self->storage_type, (PyTypeObject *)Py_NewRef(type));
    self->buf_at = slots ? at[0] : -1;
    self->dtype_at = at[1];
    return 0;
}

/* The entry (ufunc, loud, result dtype[, scalar dtype]) of `op` on `dtype` (borrowed, a checked tuple),
   NOT_TAKEN or NULL on error (_native_ufunc_table.c's look-up by identity). */
static PyObject *entry_of(UfuncNew *self, PyObject *op, PyObject *dtype) {
    PyObject *entry = cw_ufunc_table_find(&self->entries, op, dtype);
    if (entry == NULL) {
        return PyErr_Occurred() ? NULL : NOT_TAKEN;
    }
    Py_ssize_t size = self->convert != NULL ? 4 : 3;
    return PyTuple_CheckExact(entry) && PyTuple_GET_SIZE(entry) == size ? entry : NOT_TAKEN;
}

/* apply's call, in the quiet error state where `loud`: new reference, or NULL with the
   error set (a MemoryError made memory_error's). */
/* ufunc(a, b), or where `scalar_dtype` is given (b a Python scalar) ufunc(a, s) or, where
   `reflected`, ufunc(s, a), s = convert(b, scalar_dtype) */
static PyObject *apply(UfuncNew *self, PyObject *ufunc, PyObject *a, PyObject *b, PyObject *scalar_dtype, int reflected) {
    if (scalar_dtype == NULL) {
        PyObject *args[] = {a, b};
        return PyObject_Vectorcall(ufunc, args, 2, NULL);
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

/* What run and run_matrix read first: the storages' buffers (borrowed) and the table's
   entry for (key, their dtype) with its loud flag; NULL on error, NOT_TAKEN where the
   operands are not two storages of the learnt class and one dtype, or the table has no
   entry, else the entry (borrowed). */
static PyObject *operands(UfuncNew *self, PyObject *storage, PyObject *rhs, PyObject *key, PyObject **buf1,
                          PyObject **buf2, int *loud) {
    if (Py_TYPE(storage) != self->storage_type && learn(self, Py_TYPE(storage)) < 0) {
        return NULL;
    }
    if (self->buf_at < 0 || Py_TYPE(rhs) != self->storage_type) {
        return NOT_TAKEN;
    }
    PyObject *dtype = SLOT(storage, self->dtype_at);
    *buf1 = SLOT(storage, self->buf_at);
    *buf2 = SLOT(rhs, self->buf_at);
    if (dtype == NULL || *buf1 == NULL || *buf2 == NULL || SLOT(rhs, self->dtype_at) != dtype) {
        return NOT_TAKEN;
    }
    PyObject *entry = entry_of(self, key, dtype);
    if (entry == NULL || entry == NOT_TAKEN) {
        return entry;
    }
    *loud = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1));
    return *loud < 0 ? NULL : entry;
}

/* The common case: a new storage, NOT_TAKEN (borrowed; nothing done, no error), or NULL
   on error. */
static PyObject *run(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *l1 = args[2], *rhs = args[3], *l2 = args[4];
    PyObject *buf1, *buf2;
    int loud;
    PyObject *entry = operands(self, storage, rhs, op, &buf1, &buf2, &loud);
    if (entry == NULL || entry == NOT_TAKEN) {
        return entry;
    }
    /* held from here: the calls run code that could rebind the slots, or learn another
       class (a finalizer's call) */
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->storage_type);
    Py_ssize_t buf_at = self->buf_at, dtype_at = self->dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf1), Py_NewRef(buf2), NULL, NULL, (PyObject *)type};
    PyObject *out = NOT_TAKEN;
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
        PyObject *result = call_ufunc(self, op, PyTuple_GET_ITEM(entry, 0), loud, held[3], held[4], NULL, 0);
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

/* The matrix product's common case (args: storage, rhs, lhs_layout, rhs_layout): as run. */
static PyObject *run_matrix(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *rhs = args[1], *l1 = args[2], *l2 = args[3];
    PyObject *buf1, *buf2;
    int loud;
    PyObject *entry = operands(self, storage, rhs, Py_None, &buf1, &buf2, &loud);
    if (entry == NULL || entry == NOT_TAKEN) {
        return entry;
    }
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->storage_type);
    Py_ssize_t buf_at = self->buf_at, dtype_at = self->dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf1), Py_NewRef(buf2), NULL, NULL, (PyObject *)type};
    PyObject *out = NOT_TAKEN;
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

/* The scalar form's common case (args: storage, op, layout, value, reflected): as run, on
   the 1-D view of the storage that _native_flat_view.c makes. */
static PyObject *run_scalar(const Binding *bd, UfuncNew *self, PyObject *const *args) {
    PyObject *storage = args[0], *op = args[1], *layout = args[2], *value = args[3];
    if (Py_TYPE(storage) != self->storage_type && learn(self, Py_TYPE(storage)) < 0) {
        return NULL;
    }
    if (self->buf_at < 0) {
        return NOT_TAKEN;
    }
    PyObject *dtype = SLOT(storage, self->dtype_at), *buf = SLOT(storage, self->buf_at);
    if (dtype == NULL || buf == NULL) {
        return NOT_TAKEN;
    }
    PyObject *entry = entry_of(self, op, dtype);
    if (entry == NULL || entry == NOT_TAKEN) {
        return entry;
    }
    int loud = PyObject_IsTrue(PyTuple_GET_ITEM(entry, 1)), reflected = PyObject_IsTrue(args[4]);
    if (loud < 0 || reflected < 0) {
        return NULL;
    }
    PyTypeObject *type = (PyTypeObject *)Py_NewRef(self->storage_type);
    Py_ssize_t buf_at = self->buf_at, dtype_at = self->dtype_at;
    PyObject *held[] = {Py_NewRef(entry), Py_NewRef(buf), Py_NewRef(value), NULL, (PyObject *)type};
    PyObject *out = NOT_TAKEN;
    int made = cw_flat_view(bd, buf, layout, &held[3]);
    if (made < 0) {
        out = NULL;
    } else if (made == 1) {
        PyObject *result = call_ufunc(self, op, PyTuple_GET_ITEM(entry, 0), loud, held[3], value,
                                      PyTuple_GET_ITEM(entry, 3), reflected);
        out = result == NULL ? NULL : fresh_storage(type, buf_at, dtype_at, result, PyTuple_GET_ITEM(entry, 2));
    }
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(held[i]);
    }
    return out;
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    UfuncNew *self = (UfuncNew *)callable;
    Binding b;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == (self->matrix ? 4 : 5) && cw_hold_binding(&b)) {
        PyObject *out = self->matrix ? run_matrix(&b, self, args)
                        : self->convert != NULL ? run_scalar(&b, self, args) : run(&b, self, args);
        cw_release_binding(&b);
        if (out != NOT_TAKEN) {
            return out;
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *table, *var, *quiet, *memory_error, *general, *loud = NULL;
    PyObject *convert = NULL;
    int matrix = 0;
    static char *names[] = {"table", "var", "quiet", "memory_error", "general", "loud", "matrix", "convert", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!OOO|OpO:UfuncNew", names, &PyDict_Type, &table,
                                     &PyContextVar_Type, &var, &quiet, &memory_error, &general, &loud, &matrix,
                                     &convert)) {
        return NULL;
    }
    if (convert == Py_None) {
        convert = NULL;
    }
    if (convert != NULL && (matrix || !PyCallable_Check(convert))) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.UfuncNew: convert must be callable, and not with matrix");
        return NULL;
    }
    if (!PyCallable_Check(memory_error) || !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.UfuncNew: memory_error and general must be callable");
        return NULL;
    }
    UfuncNew *self = (UfuncNew *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->matrix = matrix;
    self->convert = Py_XNewRef(convert);
    self->entries.table = Py_NewRef(table);
    self->var = Py_NewRef(var);
    self->quiet = Py_NewRef(quiet);
    self->memory_error = Py_NewRef(memory_error);
    self->general = Py_NewRef(general);
    self->kept = cw_quiet_adopt(var, quiet, loud);
    return (PyObject *)self;
}

static int traverse(UfuncNew *self, visitproc visit, void *arg) {
    if (cw_ufunc_table_traverse(&self->entries, visit, arg)) {
        return -1;
    }
    Py_VISIT(self->var);
    Py_VISIT(self->quiet);
    Py_VISIT(self->memory_error);
    Py_VISIT(self->general);
    Py_VISIT(self->storage_type);
    Py_VISIT(self->convert);
    return 0;
}

static int clear(UfuncNew *self) {
    cw_ufunc_table_clear(&self->entries);
    Py_CLEAR(self->var);
    Py_CLEAR(self->quiet);
    Py_CLEAR(self->memory_error);
    Py_CLEAR(self->general);
    Py_CLEAR(self->storage_type);
    Py_CLEAR(self->convert);
    return 0;
}

static void dealloc(UfuncNew *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_general(UfuncNew *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->general);
}

static PyGetSetDef getset[] = {
    {"general", (getter)get_general, NULL, "the Python primitive run where the fast path declines", NULL},
    {"__wrapped__", (getter)get_general, NULL, "the Python primitive run where the fast path declines", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject cw_UfuncNewType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.UfuncNew",
    .tp_basicsize = sizeof(UfuncNew),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "UfuncNew(table, var, quiet, memory_error, general, loud=None, matrix=False, convert=None): a host backend's two-operand primitive "
              "whose common case is one NumPy ufunc making a new buffer, in C; anything else general's",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(UfuncNew, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = getset,
};

int cw_ufunc_new_ready(void) {
    reshape_name = PyUnicode_InternFromString("reshape");
    matmul_name = PyUnicode_InternFromString("matmul");
    minus_one = PyLong_FromLong(-1);
    if (reshape_name == NULL || matmul_name == NULL || minus_one == NULL || cw_buffer_views_ready() < 0) {
        return -1;
    }
    return PyType_Ready(&cw_UfuncNewType);
}
