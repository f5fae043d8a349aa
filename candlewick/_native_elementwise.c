/* candlewick._native's Elementwise: the common case of a namespace element-wise
   function, in C.

   Elementwise(arity, op, results, method, fallback) is a callable of one or two
   positional arguments. Where they are arrays of exactly the bound class, of one dtype
   the op takes (results: {dtype name: result dtype}), one device and one shape, it
   calls the storage primitive (storage.<method>(op, layout) for one array,
   storage.<method>(op, layout1, storage2, layout2) for two; where one of two shapes
   broadcasts onto the other, that operand's layout broadcast as Layout.broadcast_to
   makes it; where both broadcast onto a larger shape, both layouts, while the result
   stays below the size the Python path checks against the device's free memory) and
   returns a new array of
   that class over its result: the shape's cached contiguous layout, the result dtype,
   the device. While lazy mode is on (cw_lazy_write), the first operand's storage is
   cw_lazy_operand(x) (the one that records the call where lazy mode is on here: the
   Python path's `operand`; a lazy_policy.Start's method is called without a bound method:
   cw_call_primitive), or, where that is not set, the call is the fallback's. Anything
   else, and any call while the module is unbound, is fallback's
   (the same function in Python, elementwise_dispatch), with the same arguments. At 2^20
   elements the Python form of this case costs about 1 us over a 20 us NumPy call; the
   broadcast case's Python form about 9 us, 20-60 us after a NumPy call of 10^5-10^6
   elements has evicted it from the caches (a KMeans step's x2 - 2 * X @ C.T). The class
   is here, its common case in _native_elementwise_run.c.

   Made with converting ({name: {name: dtype}}) and all_dtypes, two arrays of two dtypes
   whose pair converting holds (each converted to that dtype as it is read: X - mean,
   float32 and float64) on a device that declares every dtype (its dtypes are
   all_dtypes) and the optional group "binary_dtype", shapes as above, call
   storage.binary_as(op, layout1, storage2, layout2, dtype) where the result stays
   below the size the Python path checks against the device's free memory (in lazy
   mode through lazy mode's operand, as the common case).

   Made with scalar_below > 0, an op whose method is binary or compare takes an array of a
   real floating dtype the op takes, of fewer elements than scalar_below, and a Python
   float or int after it too (x ** 2, x * eps): storage.binary_scalar or
   compare_scalar(op, layout, float(value), False), as the Python path's inline case
   calls it (in lazy mode through lazy mode's operand). A larger array is the fallback's,
   whose operator writes into it where it is a temporary (candlewick.elision). */

#include "_native.h"
#include "_native_host.h"
#include "_native_lazy.h"

#include <stddef.h>

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    Elementwise *self = (Elementwise *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    Binding b;
    if (kwnames == NULL && n == self->arity && (cw_lazy_write == NULL || cw_lazy_operand != NULL) &&
        cw_hold_binding(&b)) {
        PyObject *out = cw_elementwise_case(&b, self, args, n);
        cw_release_binding(&b);
        if (out != CW_ELEMENTWISE_DECLINED) {
            return out;
        }
    }
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int arity;
    PyObject *op, *results, *method, *fallback, *converting = NULL, *all_dtypes = NULL;
    Py_ssize_t scalar_below = 0;
    static char *names[] = {"arity", "op", "results", "method", "fallback", "converting", "all_dtypes", "scalar_below",
                            NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "iOO!UO|O!On:Elementwise", names, &arity, &op, &PyDict_Type,
                                     &results, &method, &fallback, &PyDict_Type, &converting, &all_dtypes,
                                     &scalar_below)) {
        return NULL;
    }
    if ((converting == NULL) != (all_dtypes == NULL) || (converting != NULL && arity != 2)) {
        PyErr_SetString(PyExc_TypeError,
                        "candlewick._native.Elementwise: converting and all_dtypes go together, with arity 2");
        return NULL;
    }
    if (arity != 1 && arity != 2) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.Elementwise: arity must be 1 or 2");
        return NULL;
    }
    if (!PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Elementwise: fallback must be callable");
        return NULL;
    }
    Elementwise *self = (Elementwise *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->arity = arity;
    self->op = Py_NewRef(op);
    self->results = Py_NewRef(results);
    self->method = Py_NewRef(method);
    PyUnicode_InternInPlace(&self->method);
    self->fallback = Py_NewRef(fallback);
    self->converting = Py_XNewRef(converting);
    self->scalar_below = scalar_below;
    if (scalar_below > 0 && arity == 2 && (PyUnicode_CompareWithASCIIString(method, "binary") == 0 ||
                       PyUnicode_CompareWithASCIIString(method, "compare") == 0)) {
        self->scalar_method = PyUnicode_FromFormat("%U_scalar", method);
        if (self->scalar_method == NULL) {
            Py_DECREF(self);
            return NULL;
        }
        PyUnicode_InternInPlace(&self->scalar_method);
    }
    self->all_dtypes = Py_XNewRef(all_dtypes);
    return (PyObject *)self;
}

static int traverse(Elementwise *self, visitproc visit, void *arg) {
    Py_VISIT(self->op);
    Py_VISIT(self->results);
    Py_VISIT(self->method);
    Py_VISIT(self->fallback);
    Py_VISIT(self->converting);
    Py_VISIT(self->all_dtypes);
    Py_VISIT(self->scalar_method);
    return 0;
}

static int clear(Elementwise *self) {
    Py_CLEAR(self->op);
    Py_CLEAR(self->results);
    Py_CLEAR(self->method);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->converting);
    Py_CLEAR(self->all_dtypes);
    Py_CLEAR(self->scalar_method);
    return 0;
}

static void dealloc(Elementwise *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *get_fallback(Elementwise *self, void *closure) {
    (void)closure;
    return Py_NewRef(self->fallback);
}

static PyGetSetDef getset[] = {
    {"fallback", (getter)get_fallback, NULL, "the Python function run where the fast path declines", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject cw_ElementwiseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Elementwise",
    .tp_basicsize = sizeof(Elementwise),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Elementwise(arity, op, results, method, fallback, converting=None, all_dtypes=None, scalar_below=0): "
              "a namespace element-wise function's common case in C, anything else fallback's",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(Elementwise, vectorcall),
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = getset,
};

int cw_elementwise_ready(void) {
    return cw_elementwise_run_ready() < 0 ? -1 : PyType_Ready(&cw_ElementwiseType);
}
