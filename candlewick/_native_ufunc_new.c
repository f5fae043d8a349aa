/* candlewick._native's UfuncNew: a host backend's primitive whose common case is one NumPy
   ufunc making a new buffer (the cpu backend's unary, binary and compare:
   cpu_backend/elementwise.py), in C. This file holds the class: its construction, its
   call (the form's common case, or general), its references; the common cases, their
   operands and the ufunc's call are _native_ufunc_new_run.c's.

   UfuncNew(table, var, quiet, memory_error, general, loud=None, matrix=False,
   convert=None, unary=False, converting=False) is a method (a descriptor, bound to the storage it is read
   from). Called as storage.binary(op, lhs_layout, rhs, rhs_layout), where table[id(op)][id(storage.dtype)]
   is (ufunc, loud, result dtype), both storages are of one class with buf and dtype
   object slots and of one dtype, and the layouts are of one shape (one or both broadcast
   onto it), it returns a new storage of that class holding ufunc(a, b) flattened in C
   order, with the ufunc run in the quiet error state where loud is true, as the Python
   form does. The matrix form (matrix=True; table[id(None)][id(dtype)]) is
   storage.matmul(rhs, lhs_layout, rhs_layout) on two 2-D layouts each a matrix or its
   transpose in the buffer, the product flattened; memory_error's op is "matmul". The
   scalar form (convert given; entries (ufunc, loud, result dtype, scalar dtype)) is
   storage.binary_scalar(op, layout, value, reflected) (binary_scalar and compare_scalar)
   on the storage's 1-D view: ufunc(x, s), or ufunc(s, x) where reflected, s =
   convert(value, scalar dtype) made in the call's error state, as the Python form's 0-d
   array; an entry whose ufunc is {value: one-operand ufunc} is that ufunc of x where the
   value (not reflected) is one of them (x ** 2 as np.square), general's otherwise. The
   unary form (unary=True; entries (one-operand ufunc, loud, result dtype)) is
   storage.unary(op, layout): ufunc(x) on the storage's 1-D view (isnan, isfinite, sqrt:
   a StandardScaler fit makes four such calls over X). The converting form
   (converting=True; table[id(op)][id(dtype)] is (ufunc, loud, result dtype, signature)) is
   storage.binary_as(op, lhs_layout, rhs, rhs_layout, dtype): the operands of any dtypes,
   viewed as the common case's, given to ufunc(a, b, signature=signature,
   casting="unsafe"), which converts each as it reads it (scikit-learn's X - mean, float32
   and float64). Anything else is general's (the
   Python primitive), with the same arguments. Why
   in C: after a NumPy call over 10^5-10^6 elements has evicted the caches, the Python
   form's frame costs 15-25 us of misses on the 2-core VM (a KMeans step's x2 - 2 * X @
   C.T: bench/pydata_e2e.py). */

#include "_native.h"
#include "_native_host.h"

#include <stddef.h>

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    UfuncNew *self = (UfuncNew *)callable;
    Binding b;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == (self->matrix ? 4 : self->unary ? 3 : self->converting ? 6 : 5) &&
        cw_hold_binding(&b)) {
        PyObject *out = self->matrix ? cw_ufunc_new_run_matrix(&b, self, args)
                        : self->unary ? cw_ufunc_new_run_unary(&b, self, args)
                        : self->convert != NULL ? cw_ufunc_new_run_scalar(&b, self, args)
                        : cw_ufunc_new_run(&b, self, args);
        cw_release_binding(&b);
        if (out != CW_UFUNC_NEW_DECLINED) {
            return out;
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *table, *var, *quiet, *memory_error, *general, *loud = NULL;
    PyObject *convert = NULL;
    int matrix = 0, unary = 0, converting = 0;
    static char *names[] = {"table", "var", "quiet", "memory_error", "general", "loud", "matrix", "convert", "unary",
                            "converting", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O!OOO|OpOpp:UfuncNew", names, &PyDict_Type, &table,
                                     &PyContextVar_Type, &var, &quiet, &memory_error, &general, &loud, &matrix,
                                     &convert, &unary, &converting)) {
        return NULL;
    }
    if (convert == Py_None) {
        convert = NULL;
    }
    if (convert != NULL && !PyCallable_Check(convert)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.UfuncNew: convert must be callable");
        return NULL;
    }
    if (matrix + unary + converting + (convert != NULL) > 1) {
        PyErr_SetString(PyExc_TypeError,
                        "candlewick._native.UfuncNew: one form: matrix, unary, converting or convert's");
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
    self->unary = unary;
    self->converting = converting;
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
    Py_VISIT(self->known.type);
    Py_VISIT(self->convert);
    return 0;
}

static int clear(UfuncNew *self) {
    cw_ufunc_table_clear(&self->entries);
    Py_CLEAR(self->var);
    Py_CLEAR(self->quiet);
    Py_CLEAR(self->memory_error);
    Py_CLEAR(self->general);
    Py_CLEAR(self->known.type);
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
    .tp_doc = "UfuncNew(table, var, quiet, memory_error, general, loud=None, matrix=False, convert=None, unary=False, "
              "converting=False): a host backend's one- or two-operand primitive whose common case is one NumPy ufunc making a new "
              "buffer, in C; anything else general's",
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
    if (cw_ufunc_new_run_ready() < 0) {
        return -1;
    }
    return PyType_Ready(&cw_UfuncNewType);
}
