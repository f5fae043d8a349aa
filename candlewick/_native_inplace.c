/* candlewick._native's Update: the common case of an in-place operator, in C.

   Update(op, keeps, general=None, rebind=None) is a callable of two positional arguments (x, other).
   Where x is an array of exactly the bound class whose dtype the op keeps (keeps:
   {dtype: whether it is real floating} of those dtypes, compared by identity), other an
   array of that class, dtype, device and shape or a Python float or int with a real
   floating x (an array of another shape: broadcast onto x's, its layout as the general
   path's broadcast_layouts makes it), x has no stride 0, its device declares the group
   "inplace" and its storage
   is not read-only, it calls the storage's
   binary_into(op, layout, storage, layout, other's storage, other's layout) or
   binary_scalar_into(op, layout, storage, layout, float(other), False) and returns x. A
   primitive that is a _native.UfuncInto (cpu's) runs its common case straight from here
   (cw_ufunc_into_run), read_only asked only where NumPy refuses the write. Anything
   else, and any call while the module is unbound or lazy mode is on (cw_lazy_write) with
   a graph pending or x's or other's storage a recorded one (lazy_idle), is lazy mode's
   rebinding update where rebind is given and lazy_write.rebinds(x) holds (x given the
   result of rebind(x, other), the forward operator's C case: cw_update_rebound), else
   general(x, other), or returns None without general: the caller's Python path runs
   (candlewick/inplace.py, update: the same case, the same primitive call). With general
   it is a method descriptor: the operator's method itself (inplace.inplace_method). Why
   in C: after an update of 2^20 elements the caches hold the data, not the interpreter's
   objects, and the Python form of this case cost about 8 us of a 320 us update there
   (bench/inplace.py). The class is here, its common case in _native_inplace_run.c. */

#include "_native.h"
#include "_native_host.h"
#include "_native_lazy.h"

#include <stddef.h>
#include <string.h>

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Update *self = (Update *)callable;
    if (kwnames != NULL || PyVectorcall_NARGS(nargsf) != 2) {
        if (self->general != Py_None) {
            return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
        }
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Update takes two positional arguments (x, other)");
        return NULL;
    }
    Binding b;
    PyObject *out = CW_UPDATE_DECLINED;
    if (cw_hold_binding(&b)) {
        out = cw_update_case(&b, self, args[0], args[1]);
        if (out == CW_UPDATE_DECLINED && self->rebind != Py_None && cw_lazy_write != NULL) {
            out = cw_update_rebound(&b, self, args[0], args[1]);
        }
        cw_release_binding(&b);
    }
    if (out == CW_UPDATE_DECLINED && self->general != Py_None) {
        return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
    }
    return out == NULL ? NULL : Py_NewRef(out);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *op, *keeps, *general = Py_None, *rebind = Py_None;
    static char *names[] = {"op", "keeps", "general", "rebind", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!|OO:Update", names, &op, &PyDict_Type, &keeps, &general,
                                     &rebind)) {
        return NULL;
    }
    if ((general != Py_None && !PyCallable_Check(general)) || (rebind != Py_None && !PyCallable_Check(rebind))) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Update: general and rebind must be callable or None");
        return NULL;
    }
    Update *self = (Update *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->op = Py_NewRef(op);
    self->keeps = Py_NewRef(keeps);
    self->general = Py_NewRef(general);
    self->rebind = Py_NewRef(rebind);
    Py_ssize_t n = PyDict_GET_SIZE(keeps), pos = 0, i = 0;
    self->kept = PyMem_Calloc(n > 0 ? n : 1, sizeof(PyObject *));
    self->kept_real = PyMem_Calloc(n > 0 ? n : 1, 1);
    if (self->kept == NULL || self->kept_real == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    PyObject *dtype, *real;
    while (PyDict_Next(keeps, &pos, &dtype, &real)) {
        int truth = PyObject_IsTrue(real);
        if (truth < 0) {
            Py_DECREF(self);
            return NULL;
        }
        self->kept[i] = Py_NewRef(dtype);
        self->kept_real[i] = (char)truth;
        self->n_kept = ++i;
    }
    return (PyObject *)self;
}

static int traverse(Update *self, visitproc visit, void *arg) {
    Py_VISIT(self->op);
    Py_VISIT(self->keeps);
    Py_VISIT(self->general);
    Py_VISIT(self->rebind);
    for (Py_ssize_t i = 0; i < self->n_kept; i++) {
        Py_VISIT(self->kept[i]);
    }
    return 0;
}

static int clear(Update *self) {
    Py_CLEAR(self->op);
    Py_CLEAR(self->keeps);
    Py_CLEAR(self->general);
    Py_CLEAR(self->rebind);
    for (Py_ssize_t i = 0; i < self->n_kept; i++) {
        Py_CLEAR(self->kept[i]);
    }
    self->n_kept = 0;
    return 0;
}

static void dealloc(Update *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    PyMem_Free(self->kept);
    PyMem_Free(self->kept_real);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_general(Update *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->general);
}

/* __doc__, __name__, __qualname__, __module__: general's, for readers of the method */
static PyObject *get_of_general(Update *self, void *closure) {
    if (self->general == Py_None) {
        if (strcmp((const char *)closure, "__doc__") == 0) {
            return PyUnicode_FromString(cw_UpdateType.tp_doc);
        }
        PyErr_Format(PyExc_AttributeError, "candlewick._native.Update has no %s without general", (const char *)closure);
        return NULL;
    }
    return PyObject_GetAttrString(self->general, (const char *)closure);
}

static PyGetSetDef getset[] = {
    {"general", (getter)get_general, NULL, "the Python method run where the short path declines (or None)", NULL},
    {"__doc__", (getter)get_of_general, NULL, NULL, "__doc__"},
    {"__name__", (getter)get_of_general, NULL, NULL, "__name__"},
    {"__qualname__", (getter)get_of_general, NULL, NULL, "__qualname__"},
    {"__module__", (getter)get_of_general, NULL, NULL, "__module__"},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject cw_UpdateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Update",
    .tp_basicsize = sizeof(Update),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "Update(op, keeps, general=None, rebind=None): (x, other) -> x after x <op>= other through the "
              "storage's in-place primitive, in its common case; in lazy mode, where x alone holds a pending "
              "result, x given rebind(x, other); elsewhere general(x, other), or None where general is None "
              "(the caller's Python path runs)",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Update, vectorcall),
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_descr_get = cw_bind_method,
    .tp_getset = getset,
};

int cw_update_ready(void) {
    return cw_update_run_ready() < 0 ? -1 : PyType_Ready(&cw_UpdateType);
}
