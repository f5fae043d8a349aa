/* candlewick._native: ContiguousLaunch, a GPU backend's element-wise launch over
   C-contiguous operands (rocm_backend's RocmDevice.ew_contiguous): the grid, the flags and
   the struct's fields written here, the launch through a StreamLaunch (_native_launcher.c).
   Why in C: the element-wise, copy, fill and in-place families launch through it on every
   eager op, where the host's time is the op's; two Python copies of this step (with and
   without a scalar) were 0.46 us of x += y's 1.6 us host path on the fake runtime. */

#include "_native.h"
#include "_native_launch.h"

#include <stddef.h>
#include <string.h>

#define MAX_OFFSETS 18 /* n, ndim and flags, up to 8 operands' pointer and offset */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *launch; /* a StreamLaunch */
    PyObject *template;   /* the struct's bytes where nothing is filled in */
    PyObject *offsets;    /* byte offsets of n, ndim (flags in its high half), then the operand fields */
    Py_ssize_t at[MAX_OFFSETS], nfields; /* offsets as read at construction; how many operand fields */
    Py_ssize_t scalar_at; /* byte offset of the scalar operands' slots */
    unsigned long long block, items, grid_cap, index_limit, flags_below, flags_above;
    PyObject *general;    /* general(kernel, n, fields, scalar, flags): the Python launch */
} ContiguousLaunch;

static PyObject *fn_int_name, *items_name;

/* contiguous_call's launch from C, the kernel's handle `fn` read. */
static PyObject *contiguous_run(ContiguousLaunch *self, PyObject *const *args, Py_ssize_t nargs, PyObject *fn) {
    unsigned long long n = PyLong_AsUnsignedLongLong(args[1]);
    if (n == (unsigned long long)-1 && PyErr_Occurred()) {
        return NULL;
    }
    unsigned long long flags = 0;
    if (nargs == 5 && cw_as_word(args[4], &flags)) {
        return NULL;
    }
    PyObject *fields = PySequence_Fast(args[2], "candlewick._native.ContiguousLaunch: fields must be a sequence");
    if (fields == NULL) {
        return NULL;
    }
    Py_ssize_t nfields = PySequence_Fast_GET_SIZE(fields);
    if (nfields > self->nfields) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.ContiguousLaunch: %zd operand fields (at most %zd)", nfields,
                     self->nfields);
        Py_DECREF(fields);
        return NULL;
    }
    CW_STRUCT_BUFFER(buffer);
    size_t size = (size_t)PyBytes_GET_SIZE(self->template);
    memcpy(buffer.bytes, PyBytes_AS_STRING(self->template), size);
    PyObject **items = PySequence_Fast_ITEMS(fields);
    for (Py_ssize_t k = 0; k < nfields; k++) {
        unsigned long long word;
        if (cw_as_word(items[k], &word)) {
            Py_DECREF(fields);
            return NULL;
        }
        cw_put_word(buffer.bytes, self->at[2 + k], word);
    }
    Py_DECREF(fields);
    if (nargs >= 4 && args[3] != Py_None) {
        if (!PyBytes_CheckExact(args[3]) || (size_t)(self->scalar_at + PyBytes_GET_SIZE(args[3])) > size) {
            PyErr_SetString(PyExc_ValueError, "candlewick._native.ContiguousLaunch: scalar must be bytes that fit the "
                            "struct's scalar slots");
            return NULL;
        }
        memcpy(buffer.bytes + self->scalar_at, PyBytes_AS_STRING(args[3]), (size_t)PyBytes_GET_SIZE(args[3]));
    }
    flags |= n < self->index_limit ? self->flags_below : self->flags_above;
    cw_put_word(buffer.bytes, self->at[0], n);
    cw_put_word(buffer.bytes, self->at[1], 1 | flags << 32);
    /* the kernel's elements a thread a step (rocm_backend's KernelSpec.items), else the default */
    unsigned long long per_thread = self->items;
    PyObject *own;
    int found = cw_optional_attr(args[0], items_name, &own);
    if (found < 0) {
        return NULL;
    }
    if (found) {
        per_thread = PyLong_Check(own) ? PyLong_AsUnsignedLongLong(own) : 0;
        Py_DECREF(own);
        if (per_thread == 0 || per_thread > 0xFFFFull) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "candlewick._native.ContiguousLaunch: the kernel's items must be an int "
                            "from 1 to 65535");
            return NULL;
        }
    }
    unsigned long long per_block = self->block * per_thread;
    unsigned long long grid = (n + per_block - 1) / per_block;
    unsigned int d[7] = {(unsigned int)(grid > self->grid_cap ? self->grid_cap : grid), 1, 1,
                         (unsigned int)self->block, 1, 1, 0};
    if (cw_stream_run(self->launch, args[0], fn, d, buffer.bytes, size)) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* (kernel, n, fields[, scalar[, flags]]): n > 0 elements, fields the operands' (pointer,
   offset) pairs (at most 4 pairs; the others stay 0), scalar None or the bytes of the
   scalar slots, flags or'ed into the struct's. */
static PyObject *contiguous_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    ContiguousLaunch *self = (ContiguousLaunch *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs < 3 || nargs > 5) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.ContiguousLaunch takes 3 to 5 positional arguments "
                        "(kernel, n, fields, scalar, flags)");
        return NULL;
    }
    PyObject *fn;
    int found = cw_optional_attr(args[0], fn_int_name, &fn);
    if (found < 0) {
        return NULL;
    }
    if (found == 0 || fn == Py_None) { /* (a runtime whose handles are no addresses: the packed launch) */
        Py_XDECREF(fn);
        return PyObject_Vectorcall(self->general, args, nargs, NULL);
    }
    PyObject *result = contiguous_run(self, args, nargs, fn);
    Py_DECREF(fn);
    return result;
}

static PyObject *contiguous_make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *launch, *template, *offsets, *general;
    Py_ssize_t scalar_at;
    unsigned long long block, items, grid_cap, index_limit, below, above;
    static char *names[] = {"launch", "template", "offsets", "scalar_at", "block", "items", "grid_cap", "index_limit",
                            "flags_below", "flags_above", "general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!SO!nKKKKKKO:ContiguousLaunch", names, &cw_StreamLaunchType,
                                     &launch, &template, &PyTuple_Type, &offsets, &scalar_at, &block, &items,
                                     &grid_cap, &index_limit, &below, &above, &general)) {
        return NULL;
    }
    Py_ssize_t size = PyBytes_GET_SIZE(template);
    int bad = size > CW_FILLED_MAX_BYTES || PyTuple_GET_SIZE(offsets) < 2 || PyTuple_GET_SIZE(offsets) > MAX_OFFSETS || scalar_at < 0 || scalar_at > size ||
              block == 0 || block > 0xFFFFFFFFull || items == 0 || grid_cap == 0 || grid_cap > 0xFFFFFFFFull ||
              !PyCallable_Check(general);
    for (Py_ssize_t k = 0; !bad && k < PyTuple_GET_SIZE(offsets); k++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, k));
        if (at == -1 && PyErr_Occurred()) {
            return NULL;
        }
        bad = at < 0 || at + 8 > size;
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.ContiguousLaunch: a template, offsets, block, items or "
                        "grid cap out of range, or general not callable");
        return NULL;
    }
    ContiguousLaunch *self = (ContiguousLaunch *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->nfields = PyTuple_GET_SIZE(offsets) - 2;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(offsets); k++) {
        self->at[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, k)); /* (checked above) */
    }
    self->vectorcall = contiguous_call;
    self->launch = Py_NewRef(launch);
    self->template = Py_NewRef(template);
    self->offsets = Py_NewRef(offsets);
    self->scalar_at = scalar_at;
    self->block = block, self->items = items, self->grid_cap = grid_cap, self->index_limit = index_limit;
    self->flags_below = below, self->flags_above = above;
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int contiguous_traverse(ContiguousLaunch *self, visitproc visit, void *arg) {
    Py_VISIT(self->launch);
    Py_VISIT(self->template);
    Py_VISIT(self->offsets);
    Py_VISIT(self->general);
    return 0;
}

static int contiguous_clear(ContiguousLaunch *self) {
    Py_CLEAR(self->launch);
    Py_CLEAR(self->template);
    Py_CLEAR(self->offsets);
    Py_CLEAR(self->general);
    return 0;
}

static void contiguous_dealloc(ContiguousLaunch *self) {
    PyObject_GC_UnTrack(self);
    contiguous_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_ContiguousLaunchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.ContiguousLaunch",
    .tp_doc = "ContiguousLaunch(launch, template, offsets, scalar_at, block, items, grid_cap, index_limit,\n"
              "flags_below, flags_above, general)\n\n"
              "An element-wise launch over C-contiguous operands, called (kernel, n, fields[, scalar[, flags]]):\n"
              "template with n and 1 | flags << 32 at offsets[0] and offsets[1], the operand fields at the\n"
              "offsets after them, scalar's bytes at scalar_at; flags or'ed with flags_below where n <\n"
              "index_limit, else flags_above; ceil(n / (block * items)) blocks (at most grid_cap) of block\n"
              "threads (items: the kernel's own `items` where it has one), queued through the StreamLaunch\n"
              "`launch`. A kernel whose fn_int is None goes to general, called with the same arguments.",
    .tp_basicsize = sizeof(ContiguousLaunch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = contiguous_make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(ContiguousLaunch, vectorcall),
    .tp_traverse = (traverseproc)contiguous_traverse,
    .tp_clear = (inquiry)contiguous_clear,
    .tp_dealloc = (destructor)contiguous_dealloc,
};

int cw_contiguous_launch_ready(void) {
    fn_int_name = PyUnicode_InternFromString("fn_int");
    items_name = PyUnicode_InternFromString("items");
    if (fn_int_name == NULL || items_name == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_ContiguousLaunchType);
}
