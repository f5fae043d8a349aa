/* candlewick._native's UfuncInto: a host backend's in-place primitive whose common case is
   one NumPy ufunc called with out= (the cpu backend's binary_into and
   binary_scalar_into: cpu_backend/inplace.py), in C. This file holds the class: its
   construction, its call (the common case, or general), its references; the common case,
   its operands and the ufunc's call are _native_ufunc_run.c's.

   UfuncInto(scalar, table, var, quiet, memory_error, general, loud=None, convert=None) is a method (a
   descriptor, bound to the storage it is read from). Called as
   storage.binary_into(op, dst_layout, lhs, lhs_layout, rhs, rhs_layout) (scalar false) or
   storage.binary_scalar_into(op, dst_layout, src, src_layout, value, reflected) (scalar
   true), it runs table[id(op)][id(storage.dtype)](a, b, out=out) (in the scalar form an
   entry may be {value: one-operand ufunc}: ufunc(a, out=out) where the value is one of
   them, x **= 2 as np.square; general's otherwise) where every operand is
   a storage of the destination's class (its buf, dtype and _lock object slots; a _lock not
   yet made is made here, a _native.Lock as storage_slice.lock_of makes it) and dtype,
   of one shape, viewed as a 1-D NumPy array (the buffer itself where the layout covers
   it whole, else a slice of it where the layout is 1-D or C-contiguous: _native_flat_view.c),
   or, for x op= other (the left operand the destination itself), other's layout broadcast
   onto x's (stride-0 axes) viewed for NumPy's broadcasting (spread_operands), or a
   Python float not reflected: holding the storage's lock (_native.Lock's C calls, another
   lock's methods) with the context variable var set to quiet (NumPy's error state: no
   IEEE warnings; _native_guard.c, held through _native_write_guard.c), as the Python
   form does; the ufunc found by identity (_native_ufunc_table.c). A MemoryError becomes
   memory_error(exc), raised from exc. Anything else, and any call while the module is
   unbound, is general's (the Python primitive), with the same arguments. loud: a NumPy
   state that warns, for _native_guard.c's check that it can read NumPy's state. Why in
   C: the ufunc over 2^20 elements leaves the caches holding its data, so each step of
   the Python form misses (bench/inplace.py). _native.Update runs the common case
   straight from C (cw_ufunc_into_run). */

#include "_native.h"
#include "_native_host.h"

#include <stddef.h>

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    UfuncInto *self = (UfuncInto *)callable;
    Binding b;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == 7 && cw_hold_binding(&b)) {
        int done = cw_ufunc_into_case(&b, self, args, 0);
        cw_release_binding(&b);
        if (done != 0) {
            return done < 0 ? NULL : Py_NewRef(Py_None);
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int scalar;
    PyObject *table, *var, *quiet, *memory_error, *general, *loud = NULL, *convert = NULL;
    static char *names[] = {"scalar", "table", "var", "quiet", "memory_error", "general", "loud", "convert", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "pO!O!OOO|OO:UfuncInto", names, &scalar, &PyDict_Type, &table,
                                     &PyContextVar_Type, &var, &quiet, &memory_error, &general, &loud, &convert)) {
        return NULL;
    }
    if (convert == Py_None) {
        convert = NULL;
    }
    if (!PyCallable_Check(memory_error) || !PyCallable_Check(general) || (convert != NULL && !PyCallable_Check(convert))) {
        PyErr_SetString(PyExc_TypeError,
                        "candlewick._native.UfuncInto: memory_error, general and convert must be callable");
        return NULL;
    }
    UfuncInto *self = (UfuncInto *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->scalar = scalar;
    self->table.table = Py_NewRef(table);
    self->var = Py_NewRef(var);
    self->quiet = Py_NewRef(quiet);
    self->memory_error = Py_NewRef(memory_error);
    self->general = Py_NewRef(general);
    self->convert = Py_XNewRef(convert);
    self->kept = cw_quiet_adopt(var, quiet, loud);
    return (PyObject *)self;
}

static int traverse(UfuncInto *self, visitproc visit, void *arg) {
    if (cw_ufunc_table_traverse(&self->table, visit, arg) < 0) {
        return -1;
    }
    Py_VISIT(self->var);
    Py_VISIT(self->quiet);
    Py_VISIT(self->memory_error);
    Py_VISIT(self->general);
    Py_VISIT(self->known.type);
    Py_VISIT(self->convert);
    Py_VISIT(self->kept_dtype);
    Py_VISIT(self->kept_array);
    return 0;
}

static int clear(UfuncInto *self) {
    cw_ufunc_table_clear(&self->table);
    Py_CLEAR(self->var);
    Py_CLEAR(self->quiet);
    Py_CLEAR(self->memory_error);
    Py_CLEAR(self->general);
    Py_CLEAR(self->known.type);
    Py_CLEAR(self->convert);
    Py_CLEAR(self->kept_dtype);
    Py_CLEAR(self->kept_array);
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
    .tp_doc = "UfuncInto(scalar, table, var, quiet, memory_error, general, loud=None, convert=None): a host backend's in-place "
              "primitive whose common case is one NumPy ufunc with out=, in C; anything else general's",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(UfuncInto, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = getset,
};

int cw_ufunc_into_ready(void) {
    if (cw_ufunc_into_run_ready() < 0) {
        return -1;
    }
    return PyType_Ready(&cw_UfuncIntoType);
}
