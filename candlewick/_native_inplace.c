/* candlewick._native's Update: the common case of an in-place operator, in C.

   Update(op, keeps) is a callable of two positional arguments (x, other). Where x is an
   array of exactly the bound class whose dtype the op keeps (keeps: {id(dtype): whether
   it is real floating} of those dtypes), other an array of that class, dtype, device and
   shape or a Python float or int with a real floating x, x has no stride 0, its device
   declares the group "inplace" and its storage is not read-only, it calls the storage's
   binary_into(op, layout, storage, layout, other's storage, other's layout) or
   binary_scalar_into(op, layout, storage, layout, float(other), False) and returns x.
   Anything else, and any call while the module is unbound (lazy mode unbinds it),
   returns None: the caller's Python path runs (candlewick/inplace.py, update: the same
   case, the same primitive call). Why in C: after an update of 2^20 elements the caches
   hold the data, not the interpreter's objects, and the Python form of this case cost
   about 8 us of a 320 us update there (bench/inplace.py). */

#include "_native.h"

#include <stddef.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *keeps;
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

/* 1 where the attribute `name` of `obj` is true, 0 where false or absent, -1 on error. */
static int attr_true(PyObject *obj, PyObject *name) {
    PyObject *value = PyObject_GetAttr(obj, name);
    if (value == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    int truth = PyObject_IsTrue(value);
    Py_DECREF(value);
    return truth;
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

static PyObject *run(const Binding *b, Update *self, PyObject *x, PyObject *other) {
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (storage == NULL || layout == NULL || dtype == NULL || device == NULL || Py_TYPE(layout) != b->layout_type ||
        SLOT(layout, b->shape) == NULL || SLOT(layout, b->strides) == NULL) {
        return NOT_TAKEN;
    }
    /* keeps: {id(dtype): whether it is real floating} for the dtypes the op keeps (a
       lookup by identity: no attribute of the dtype read) */
    PyObject *key = PyLong_FromVoidPtr(dtype);
    if (key == NULL) {
        return NULL;
    }
    PyObject *real = PyDict_GetItemWithError(self->keeps, key);
    Py_DECREF(key);
    if (real == NULL) {
        return PyErr_Occurred() ? NULL : NOT_TAKEN;
    }
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
        if (shape != shape2) {
            int same = PyObject_RichCompareBool(shape, shape2, Py_EQ);
            if (same <= 0) {
                return same < 0 ? NULL : NOT_TAKEN;
            }
        }
        method = binary_into_name;
        operand1 = Py_NewRef(s2);
        operand2 = Py_NewRef(l2);
    } else if (PyFloat_CheckExact(other) || PyLong_CheckExact(other)) {
        if (real != Py_True) {
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
    int read_only = group == 1 ? attr_true(storage, read_only_attr) : 0;
    if (zero < 0 || group < 0 || read_only < 0) {
        out = NULL;
    } else if (zero == 0 && group == 1 && read_only == 0) {
        PyObject *args[] = {storage, self->op, layout, storage, layout, operand1, operand2};
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

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Update *self = (Update *)callable;
    if (kwnames != NULL || PyVectorcall_NARGS(nargsf) != 2) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Update takes two positional arguments (x, other)");
        return NULL;
    }
    Binding b;
    PyObject *out = NOT_TAKEN;
    if (cw_hold_binding(&b)) {
        if (Py_TYPE(args[0]) == b.array_type) {
            out = run(&b, self, args[0], args[1]);
        }
        cw_release_binding(&b);
    }
    return out == NULL ? NULL : Py_NewRef(out);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *op, *keeps;
    static char *names[] = {"op", "keeps", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!:Update", names, &op, &PyDict_Type, &keeps)) {
        return NULL;
    }
    Update *self = (Update *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->op = Py_NewRef(op);
    self->keeps = Py_NewRef(keeps);
    return (PyObject *)self;
}

static int traverse(Update *self, visitproc visit, void *arg) {
    Py_VISIT(self->op);
    Py_VISIT(self->keeps);
    return 0;
}

static int clear(Update *self) {
    Py_CLEAR(self->op);
    Py_CLEAR(self->keeps);
    return 0;
}

static void dealloc(Update *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_UpdateType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Update",
    .tp_basicsize = sizeof(Update),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Update(op, keeps): (x, other) -> x after x <op>= other through the storage's in-place "
              "primitive, in its common case; None where the Python path must run",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Update, vectorcall),
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
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
