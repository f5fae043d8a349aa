/* candlewick._native's Reduction: the common case of the namespace's sum, prod, max, min,
   any and all, in C.

   Reduction(op, same, into, floats, all_dtypes, identity, fallback, operand=True) is a
   callable of one array and the keywords axis, dtype and keepdims. Where x is an array of
   exactly the bound class, keepdims a bool, axis None or an int in range and dtype
   absent, None or x's own, with x's dtype in `same` ({dtype name: result dtype}: the
   dtypes reduced as they are), it calls storage.reduce(op, layout, axes); where dtype is
   one of `into` (a tuple of DTypes, by identity) and x's dtype is in `floats` (names: a
   float accumulator of a real floating x, scikit-learn's _safe_accumulator_op), on a
   device declaring every dtype (its dtypes are `all_dtypes`) and the optional group
   "reduce_dtype", it calls storage.reduce_as(op, layout, axes, dtype). It returns a new
   array of that class over the result, of the reduced shape's contiguous layout. An op
   without an identity (max, min: identity False) declines a reduction over an empty axis.
   While lazy mode is on the primitive is called on lazy mode's operand(x) (cw_lazy_call:
   the storage that records the call), as the Python path calls it; made with operand
   False (any, all: their Python path calls x's own storage), lazy mode's calls are the
   fallback's. Anything else, a keyword or an argument more, or the module unbound, is
   fallback's (the Python function: statistical.py, utility.py) with the same arguments.

   Why in C: a StandardScaler fit makes six sums, a max, a min and an any, each after
   NumPy's calls over the data have evicted the caches, where the Python path's four
   frames (the function, its common case, the axis's and the result's) cost ~2.5 us a
   call together (statistical.reduction_in_c). */

#include "_native.h"
#include "_native_host.h"
#include "_native_lazy.h"

#include <stddef.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *same, *into, *floats, *all_dtypes, *fallback;
    int identity;
    int operand; /* whether the Python path calls the primitive on lazy mode's operand(x) */
} Reduction;

static PyObject *axis_name, *dtype_name, *keepdims_name, *reduce_name, *reduce_as_name, *reduce_dtype, *one;

#define DECLINED ((PyObject *)&cw_ReductionType)

/* The call's keywords axis, dtype and keepdims into *axis, *dtype and *keepdims
   (borrowed; left NULL where absent): 1, or 0 where a keyword is none of them. */
static int keywords(PyObject *const *values, PyObject *kwnames, PyObject **axis, PyObject **dtype,
                    PyObject **keepdims) {
    Py_ssize_t n = kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        PyObject **slot = key == axis_name ? axis : key == dtype_name ? dtype : key == keepdims_name ? keepdims : NULL;
        if (slot == NULL) { /* (a name not interned, or another keyword: the fallback's) */
            return 0;
        }
        *slot = values[i];
    }
    return 1;
}

static PyObject *reduce_case(const Binding *b, Reduction *self, PyObject *x, PyObject *axis, PyObject *dtype,
                             PyObject *keepdims) {
    if (Py_TYPE(x) != b->array_type) {
        return DECLINED;
    }
    PyObject *storage = SLOT(x, b->storage), *layout = SLOT(x, b->layout);
    PyObject *x_dtype = SLOT(x, b->dtype), *device = SLOT(x, b->device);
    if (storage == NULL || layout == NULL || x_dtype == NULL || device == NULL || Py_TYPE(layout) != b->layout_type) {
        return DECLINED;
    }
    PyObject *shape = SLOT(layout, b->shape);
    if (shape == NULL || !PyTuple_CheckExact(shape)) {
        return DECLINED;
    }
    int keep = keepdims == NULL || keepdims == Py_False ? 0 : keepdims == Py_True ? 1 : -1;
    if (keep < 0) {
        return DECLINED;
    }
    Py_ssize_t ndim = PyTuple_GET_SIZE(shape), at = -1; /* at: the one axis, -1 all */
    if (axis != NULL && axis != Py_None) {
        if (!PyLong_CheckExact(axis)) {
            return DECLINED;
        }
        at = PyLong_AsSsize_t(axis);
        if (at == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return DECLINED;
        }
        if (at < -ndim || at >= ndim) {
            return DECLINED; /* (the fallback's error) */
        }
        at += at < 0 ? ndim : 0;
    }
    PyObject *out_dtype, *method;
    if (dtype == NULL || dtype == Py_None || dtype == x_dtype) {
        out_dtype = cw_dtype_entry(self->same, x_dtype);
        method = reduce_name;
    } else {
        int found = 0;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->into) && !found; i++) {
            found = PyTuple_GET_ITEM(self->into, i) == dtype;
        }
        out_dtype = found && cw_dtype_entry(self->floats, x_dtype) != NULL ? dtype : NULL;
        method = reduce_as_name;
        if (out_dtype != NULL) {
            int ok = cw_device_offers(device, self->all_dtypes, reduce_dtype);
            if (ok <= 0) {
                return ok < 0 ? NULL : DECLINED;
            }
        }
    }
    if (out_dtype == NULL) {
        return PyErr_Occurred() ? NULL : DECLINED;
    }
    if (!self->identity) { /* (a reduction over an empty axis: the fallback's error) */
        for (Py_ssize_t i = 0; i < ndim; i++) {
            if ((at < 0 || at == i) && PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) == 0) {
                return DECLINED;
            }
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
    }
    Py_ssize_t n_axes = at < 0 ? ndim : 1, n_out = keep ? ndim : ndim - n_axes;
    PyObject *axes = PyTuple_New(n_axes), *out_shape = PyTuple_New(n_out);
    if (axes == NULL || out_shape == NULL) {
        Py_XDECREF(axes);
        Py_XDECREF(out_shape);
        return NULL;
    }
    for (Py_ssize_t i = 0, j = 0; i < ndim; i++) {
        int reduced = at < 0 || at == i;
        if (reduced) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL) {
                Py_DECREF(axes);
                Py_DECREF(out_shape);
                return NULL;
            }
            PyTuple_SET_ITEM(axes, at < 0 ? i : 0, index);
        }
        if (!reduced || keep) {
            PyTuple_SET_ITEM(out_shape, j++, reduced ? Py_NewRef(one) : Py_NewRef(PyTuple_GET_ITEM(shape, i)));
        }
    }
    /* held across the primitive, which runs Python code that could rebind x's slots */
    PyObject *held[] = {Py_NewRef(storage), Py_NewRef(layout), Py_NewRef(out_dtype), Py_NewRef(device), axes,
                        out_shape};
    PyObject *args[] = {storage, self->op, layout, axes, dtype};
    size_t n = (method == reduce_name ? 4 : 5) | PY_VECTORCALL_ARGUMENTS_OFFSET;
    /* (in lazy mode: called on the storage that records the call, as the Python path's operand(x)) */
    PyObject *result = cw_lazy_call(method, x, args, n);
    PyObject *out = result == NULL ? NULL : cw_new_array(b, Py_TYPE(x), result, out_shape, out_dtype, device);
    for (int i = 0; i < 6; i++) {
        Py_DECREF(held[i]);
    }
    return out;
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Reduction *self = (Reduction *)callable;
    PyObject *axis = NULL, *dtype = NULL, *keepdims = NULL;
    Binding b;
    if (PyVectorcall_NARGS(nargsf) == 1 && (cw_lazy_write == NULL || (self->operand && cw_lazy_operand != NULL)) &&
        keywords(args + 1, kwnames, &axis, &dtype, &keepdims) && cw_hold_binding(&b)) {
        PyObject *out = reduce_case(&b, self, args[0], axis, dtype, keepdims);
        cw_release_binding(&b);
        if (out != DECLINED) {
            return out;
        }
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *op, *same, *into, *floats, *all_dtypes, *fallback;
    int identity, operand = 1;
    static char *names[] = {"op", "same", "into", "floats", "all_dtypes", "identity", "fallback", "operand", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!O!O!OpO|p:Reduction", names, &op, &PyDict_Type, &same,
                                     &PyTuple_Type, &into, &PyDict_Type, &floats, &all_dtypes, &identity,
                                     &fallback, &operand)) {
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Reduction: fallback must be callable");
        return NULL;
    }
    Reduction *self = (Reduction *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->op = Py_NewRef(op);
    self->same = Py_NewRef(same);
    self->into = Py_NewRef(into);
    self->floats = Py_NewRef(floats);
    self->all_dtypes = Py_NewRef(all_dtypes);
    self->identity = identity;
    self->operand = operand;
    self->fallback = Py_NewRef(fallback);
    return (PyObject *)self;
}

static int traverse(Reduction *self, visitproc visit, void *arg) {
    Py_VISIT(self->op);
    Py_VISIT(self->same);
    Py_VISIT(self->into);
    Py_VISIT(self->floats);
    Py_VISIT(self->all_dtypes);
    Py_VISIT(self->fallback);
    return 0;
}

static int clear(Reduction *self) {
    Py_CLEAR(self->op);
    Py_CLEAR(self->same);
    Py_CLEAR(self->into);
    Py_CLEAR(self->floats);
    Py_CLEAR(self->all_dtypes);
    Py_CLEAR(self->fallback);
    return 0;
}

static void dealloc(Reduction *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_fallback(Reduction *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->fallback);
}

static PyGetSetDef getset[] = {
    {"fallback", (getter)get_fallback, NULL, "the Python function run where the fast path declines", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject cw_ReductionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Reduction",
    .tp_basicsize = sizeof(Reduction),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Reduction(op, same, into, floats, all_dtypes, identity, fallback, operand=True): sum's, prod's, "
              "max's, min's, any's or all's common case in C, anything else fallback's",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Reduction, vectorcall),
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = getset,
};

int cw_reduction_ready(void) {
    static const char *const texts[] = {"axis", "dtype", "keepdims", "reduce", "reduce_as", "reduce_dtype"};
    PyObject **names[] = {&axis_name, &dtype_name, &keepdims_name, &reduce_name, &reduce_as_name, &reduce_dtype};
    if (cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names) < 0 || (one = PyLong_FromLong(1)) == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_ReductionType);
}
