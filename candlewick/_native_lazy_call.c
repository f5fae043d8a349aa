/* candlewick._native's LazyCall: `candlewick.lazy` itself, one call of C.

   A loop that opens a block per call (`with cw.lazy(): f(x)`: bench/pydata_e2e's
   scipy.fft rfft/irfft, a 0.1 ms call) pays lazy()'s own call each time: as a Python
   function, a frame around LazyBlock.take, about 600 instructions, a tenth of what lazy
   mode added to that call (callgrind, 2026-12-01) when the block records nothing.

   LazyCall(general, block_type) stands for lazy_mode.lazy (`general`, the Python
   function: its docs, signature and errors, see CW_METHOD_HEAD): lazy() and lazy(b)
   with b a bool are block_type.take(b) (_native_lazy_kept.c), in C; any other call
   (a keyword, a value of another type: the error) is general's, with the same
   arguments. */

#include "_native.h"
#include "_native_lazy.h"
#include "_native_lazy_block.h"

typedef struct {
    CW_METHOD_HEAD
    PyTypeObject *block_type; /* lazy_mode._Block, a LazyBlock subclass */
} LazyCall;

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    LazyCall *self = (LazyCall *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames == NULL && (n == 0 || (n == 1 && PyBool_Check(args[0])))) {
        return cw_lazy_block_take(self->block_type, n == 0 ? Py_True : args[0]);
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *general, *block_type;
    static char *names[] = {"general", "block_type", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO!:LazyCall", names, &general, &PyType_Type, &block_type)) {
        return NULL;
    }
    if (!PyCallable_Check(general) || !PyType_IsSubtype((PyTypeObject *)block_type, &cw_LazyBlockType)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.LazyCall: takes a callable and a LazyBlock subclass");
        return NULL;
    }
    LazyCall *self = (LazyCall *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->general = Py_NewRef(general);
    self->block_type = (PyTypeObject *)Py_NewRef(block_type);
    return (PyObject *)self;
}

/* pickle and copy: the global it stands for, by name (as a function pickles) */
static PyObject *reduce(LazyCall *self, PyObject *unused) {
    (void)unused;
    return PyObject_GetAttrString(self->general, "__qualname__");
}

static PyMethodDef call_methods[] = {
    {"__reduce__", (PyCFunction)reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static int traverse(LazyCall *self, visitproc visit, void *arg) {
    Py_VISIT(self->general);
    Py_VISIT(self->block_type);
    return 0;
}

static int clear(LazyCall *self) {
    Py_CLEAR(self->general);
    Py_CLEAR(self->block_type);
    return 0;
}

static void dealloc(LazyCall *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_LazyCallType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.LazyCall",
    .tp_basicsize = sizeof(LazyCall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "LazyCall(general, block_type): candlewick.lazy in C (lazy() and lazy(bool): block_type.take; "
              "any other call general's)",
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(LazyCall, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = cw_method_getset,
    .tp_methods = call_methods,
};
