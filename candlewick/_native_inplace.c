/* candlewick._native's Update: the common case of an in-place operator, in C.

   Update(op, keeps, general=None) is a callable of two positional arguments (x, other).
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
   a graph pending or x's or other's storage a recorded one (lazy_idle), is
   general(x, other), or returns None without general: the caller's Python path runs
   (candlewick/inplace.py, update: the same case, the same primitive call). With general
   it is a method descriptor: the operator's method itself (inplace.inplace_method). Why
   in C: after an update of 2^20 elements the caches hold the data, not the interpreter's
   objects, and the Python form of this case cost about 8 us of a 320 us update there
   (bench/inplace.py). */

#include "_native.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *keeps, *general;
    /* keeps' dtypes (held) and whether each is real floating: compared by identity, no
       int object made or dict read */
    Py_ssize_t n_kept;
    PyObject **kept;
    char *kept_real;
} Update;

static PyObject *capabilities_attr, *read_only_attr, *group_name;
static PyObject *binary_into_name, *binary_scalar_into_name;

/* NOT_TAKEN: not this fast path's case (no error set). */
#define NOT_TAKEN Py_None

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

static PyObject *run(const Binding *b, Update *self, PyObject *x, PyObject *other) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (storage == NULL || layout == NULL || dtype == NULL || device == NULL || Py_TYPE(layout) != b->layout_type ||
        SLOT(layout, b->shape) == NULL || SLOT(layout, b->strides) == NULL) {
        return NOT_TAKEN;
    }
    /* the dtypes the op keeps, by identity (no attribute of the dtype read) */
    Py_ssize_t k = 0;
    while (k < self->n_kept && self->kept[k] != dtype) {
        k++;
    }
    if (k == self->n_kept) {
        return NOT_TAKEN;
    }
    int real = self->kept_real[k];
    PyObject *method, *operand1, *operand2;
    if (Py_TYPE(other) == Py_TYPE(x)) {
        PyObject *s2 = SLOT(other, b->storage), *l2 = SLOT(other, b->layout);
        if (s2 == NULL || l2 == NULL || Py_TYPE(l2) != b->layout_type || SLOT(other, b->dtype) != dtype ||
            SLOT(other, b->device) != device) {
            return NOT_TAKEN;
        }
        PyObject *shape = SLOT(layout, b->shape), *shape2 = SLOT(l2, b->shape);
        if (shape2 == NULL) {
            return NOT_TAKEN;
        }
        int same = shape == shape2 ? 1 : PyObject_RichCompareBool(shape, shape2, Py_EQ);
        if (same < 0) {
            return NULL;
        }
        /* other broadcast onto x's shape (x -= x.mean(axis=0)), as the general path's
           broadcast_layouts makes its layout */
        PyObject *spread = same ? Py_NewRef(l2) : cw_broadcast_layout(b, l2, shape2, shape);
        if (spread == NULL) {
            return PyErr_Occurred() ? NULL : NOT_TAKEN;
        }
        method = binary_into_name;
        operand1 = Py_NewRef(s2);
        operand2 = spread;
    } else if (PyFloat_CheckExact(other) || PyLong_CheckExact(other)) {
        if (!real) {
            return NOT_TAKEN;
        }
        operand1 = PyNumber_Float(other);
        if (operand1 == NULL) {
            PyErr_Clear(); /* (an int past float's range: the Python path raises its error) */
            return NOT_TAKEN;
        }
        method = binary_scalar_into_name;
        operand2 = Py_NewRef(Py_False);
    } else {
        return NOT_TAKEN;
    }
    /* held across the checks and the primitive, which run Python code that could rebind
       x's slots */
    PyObject *held[] = {Py_NewRef(storage), Py_NewRef(layout), Py_NewRef(device)};
    PyObject *out = NOT_TAKEN;
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

int cw_update_run(PyObject *update, PyObject *x, PyObject *other) {
    Binding b;
    PyObject *out = NOT_TAKEN;
    if (Py_TYPE(update) == &cw_UpdateType && cw_hold_binding(&b)) {
        if (Py_TYPE(x) == b.array_type && lazy_idle(&b, x, other)) {
            out = run(&b, (Update *)update, x, other);
        }
        cw_release_binding(&b);
    }
    return out == NULL ? -1 : out != NOT_TAKEN;
}

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
    PyObject *out = NOT_TAKEN;
    if (cw_hold_binding(&b)) {
        if (Py_TYPE(args[0]) == b.array_type && lazy_idle(&b, args[0], args[1])) {
            out = run(&b, self, args[0], args[1]);
        }
        cw_release_binding(&b);
    }
    if (out == NOT_TAKEN && self->general != Py_None) {
        return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
    }
    return out == NULL ? NULL : Py_NewRef(out);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *op, *keeps, *general = Py_None;
    static char *names[] = {"op", "keeps", "general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!|O:Update", names, &op, &PyDict_Type, &keeps, &general)) {
        return NULL;
    }
    if (general != Py_None && !PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Update: general must be callable or None");
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
    for (Py_ssize_t i = 0; i < self->n_kept; i++) {
        Py_VISIT(self->kept[i]);
    }
    return 0;
}

static int clear(Update *self) {
    Py_CLEAR(self->op);
    Py_CLEAR(self->keeps);
    Py_CLEAR(self->general);
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
    .tp_doc = "Update(op, keeps, general=None): (x, other) -> x after x <op>= other through the storage's "
              "in-place primitive, in its common case; elsewhere general(x, other), or None where general "
              "is None (the caller's Python path runs)",
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
    capabilities_attr = PyUnicode_InternFromString("capabilities");
    read_only_attr = PyUnicode_InternFromString("read_only");
    group_name = PyUnicode_InternFromString("inplace");
    binary_into_name = PyUnicode_InternFromString("binary_into");
    binary_scalar_into_name = PyUnicode_InternFromString("binary_scalar_into");
    if (capabilities_attr == NULL || read_only_attr == NULL ||
        group_name == NULL || binary_into_name == NULL || binary_scalar_into_name == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_UpdateType);
}
