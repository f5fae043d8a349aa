/* candlewick._native's Override: np.add(x, y, out=x) reaching Array.__array_ufunc__, in C.

   Override(updaters, general) is a method (a descriptor) of the bound array class,
   general the Python method it stands for (Array.__array_ufunc__,
   candlewick/array_interop.py). Its case is that method's first step: NumPy's call
   (x, ufunc, "__call__", a, b, out=(a,)) with updaters[ufunc] (numpy_out.UPDATERS: the
   BinaryOp ufuncs' _native.Update) taking a <op>= b: a is returned. Anything else,
   including every case the Update declines, is general's, with the same arguments. Why
   in C: the Python method is a frame with packed arguments, whose objects miss the
   caches after an update of 2^20 elements (bench/inplace.py). */

#include "_native.h"
#include "_native_host.h"

#include <stddef.h>

typedef struct {
    CW_METHOD_HEAD
    PyObject *updaters;
} Override;

static PyObject *call_name, *out_name;

/* 1 where `s` is the str `name` (interned: usually the same object), else 0. */
static int is_name(PyObject *s, PyObject *name) {
    return s == name || (PyUnicode_CheckExact(s) && PyUnicode_Compare(s, name) == 0);
}

/* 1 done (args[3] updated), 0 not the case, -1 error. */
static int run(Override *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    if (nargs != 5 || kwnames == NULL || PyTuple_GET_SIZE(kwnames) != 1 ||
        !is_name(PyTuple_GET_ITEM(kwnames, 0), out_name) || !is_name(args[2], call_name)) {
        return 0;
    }
    PyObject *out = args[5];
    if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 1 || PyTuple_GET_ITEM(out, 0) != args[3]) {
        return 0;
    }
    PyObject *update = PyDict_GetItemWithError(self->updaters, args[1]);
    if (update == NULL) {
        if (PyErr_Occurred()) {
            PyErr_Clear(); /* (an unhashable callable: general's) */
        }
        return 0;
    }
    Py_INCREF(update); /* (borrowed from the dict: held while it runs) */
    int done = cw_update_run(update, args[3], args[4]);
    Py_DECREF(update);
    return done;
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Override *self = (Override *)callable;
    int done = run(self, args, PyVectorcall_NARGS(nargsf), kwnames);
    if (done != 0) {
        return done < 0 ? NULL : Py_NewRef(args[3]);
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *updaters, *general;
    static char *names[] = {"updaters", "general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!O:Override", names, &PyDict_Type, &updaters, &general)) {
        return NULL;
    }
    if (!PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Override: general must be callable");
        return NULL;
    }
    Override *self = (Override *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->updaters = Py_NewRef(updaters);
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int traverse(Override *self, visitproc visit, void *arg) {
    Py_VISIT(self->updaters);
    Py_VISIT(self->general);
    return 0;
}

static int clear(Override *self) {
    Py_CLEAR(self->updaters);
    Py_CLEAR(self->general);
    return 0;
}

static void dealloc(Override *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_OverrideType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Override",
    .tp_basicsize = sizeof(Override),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Override, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = cw_method_getset,
};

int cw_override_ready(void) {
    call_name = PyUnicode_InternFromString("__call__");
    out_name = PyUnicode_InternFromString("out");
    if (call_name == NULL || out_name == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_OverrideType);
}
