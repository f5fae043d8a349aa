/* candlewick._native: a GPU backend's launcher steps that run on every eager op, in C.

   StreamLaunch is a launcher's launch of a struct decided up to a few 8-byte fields
   (rocm_backend's Launcher.stream_launch): the calling thread's stream of the device,
   marked used at the allocator's clock, the struct filled (_native_launch.c) and launched. ContiguousLaunch is an element-wise launch over C-contiguous
   operands on top of it: the grid, the flags and the fields of the struct written here.
   Why in C: the Python frames of these two steps were 0.65 us of a 1.6 us host path of
   x += y (measured on the fake runtime with the launch a no-op), more on a slower host,
   where the eager op's time is the host's. Whatever these do not take (another device
   current on the thread, a kernel handle that is no address) is the Python path's,
   through the callables they are given. */

#include "_native.h"

#include <stddef.h>
#include <string.h>

#define MAX_OFFSETS 18 /* n, ndim and flags, up to 8 operands' pointer and offset */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    void *function;       /* the runtime's launch function (hipModuleLaunchKernel's signature) */
    PyObject *thread;     /* a threading.local whose `ordinal` is the thread's current device */
    PyObject *ordinal;    /* the launcher's device */
    PyObject *streams;    /* the device's per-thread current: `stream` the record launches go to */
    PyObject *allocator;  /* whose `clock` marks the stream used */
    PyObject *set_device; /* set_device(ordinal): the thread's current device made this one */
    PyObject *failed;     /* failed(kernel, status): the exception a failed launch raises */
} StreamLaunch;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    StreamLaunch *launch;
    PyObject *template;   /* the struct's bytes where nothing is filled in */
    PyObject *offsets;    /* byte offsets of n, ndim (flags in its high half), then the operand fields */
    Py_ssize_t at[MAX_OFFSETS], nfields; /* offsets as read at construction; how many operand fields */
    Py_ssize_t scalar_at; /* byte offset of the scalar operands' slots */
    unsigned long long block, items, grid_cap, index_limit, flags_below, flags_above;
    PyObject *general;    /* general(kernel, n, fields, scalar, flags): the Python launch */
} ContiguousLaunch;

static PyObject *ordinal_name, *stream_name, *clock_name, *last_use_name, *ptr_name, *fn_int_name;

/* Queue `kernel` with the struct in buffer on the thread's stream of the device: 0, or
   -1 with the error set. */
static int stream_run(StreamLaunch *self, PyObject *kernel, const unsigned int d[7], unsigned char *buffer,
                      size_t size) {
    PyObject *current;
    int found = cw_optional_attr(self->thread, ordinal_name, &current);
    if (found < 0) {
        return -1;
    }
    if (found == 0) {
        current = Py_NewRef(Py_None); /* (getattr(thread, "ordinal", None)) */
    }
    int same = current == self->ordinal ? 1 : PyObject_RichCompareBool(current, self->ordinal, Py_EQ);
    Py_DECREF(current);
    if (same < 0) {
        return -1;
    }
    if (!same) {
        PyObject *done = PyObject_CallOneArg(self->set_device, self->ordinal);
        if (done == NULL) {
            return -1;
        }
        Py_DECREF(done);
    }
    PyObject *record = PyObject_GetAttr(self->streams, stream_name);
    if (record == NULL) {
        return -1;
    }
    PyObject *clock = PyObject_GetAttr(self->allocator, clock_name);
    PyObject *ptr = clock == NULL ? NULL : PyObject_GetAttr(record, ptr_name);
    PyObject *fn = ptr == NULL ? NULL : PyObject_GetAttr(kernel, fn_int_name);
    void *stream = NULL, *handle = NULL;
    int failed = fn == NULL || PyObject_SetAttr(record, last_use_name, clock) < 0 ||
                 cw_as_address(ptr, &stream) < 0 || cw_as_address(fn, &handle) < 0;
    Py_DECREF(record);
    Py_XDECREF(clock);
    Py_XDECREF(ptr);
    Py_XDECREF(fn);
    if (failed) {
        return -1;
    }
    int status = cw_launch_struct(self->function, handle, d, stream, buffer, size);
    if (status != 0) {
        PyObject *code = PyLong_FromLong(status);
        PyObject *error = code == NULL ? NULL : PyObject_CallFunctionObjArgs(self->failed, kernel, code, NULL);
        Py_XDECREF(code);
        if (error != NULL) {
            PyErr_SetObject((PyObject *)Py_TYPE(error), error);
            Py_DECREF(error);
        }
        return -1;
    }
    return 0;
}

static int as_dims(PyObject *const *args, unsigned int d[7]) {
    for (int k = 0; k < 6; k++) {
        unsigned long v = PyLong_AsUnsignedLong(args[k]);
        if (v == (unsigned long)-1 && PyErr_Occurred()) {
            return -1;
        }
        if (v > 0xFFFFFFFFul) {
            PyErr_SetString(PyExc_OverflowError, "candlewick._native.StreamLaunch: a dimension past 32 bits");
            return -1;
        }
        d[k] = (unsigned int)v;
    }
    d[6] = 0; /* no dynamic shared memory */
    return 0;
}

/* (kernel, gx, gy, gz, bx, by, bz, template, offsets, *fills): the fills as arguments,
   so that a prepared launch's run is a functools.partial of it (no Python frame). */
static PyObject *stream_call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    StreamLaunch *self = (StreamLaunch *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL || nargs < 9) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.StreamLaunch takes 9 positional arguments and the fills "
                        "(kernel, gx, gy, gz, bx, by, bz, template, offsets, *fills)");
        return NULL;
    }
    unsigned int d[7];
    if (as_dims(args + 1, d)) {
        return NULL;
    }
    Py_ssize_t nfills = nargs - 9;
    if (PyTuple_CheckExact(args[8]) && PyTuple_GET_SIZE(args[8]) != nfills) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.StreamLaunch: offsets must be a tuple of one offset per "
                     "fill (%zd fills)", nfills);
        return NULL;
    }
    CW_STRUCT_BUFFER(buffer);
    size_t size;
    if (cw_fill_struct(args[7], args[8], args + 9, nfills, buffer.bytes, &size) ||
        stream_run(self, args[0], d, buffer.bytes, size)) {
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
    int addressed = found == 1 && fn != Py_None;
    Py_XDECREF(fn);
    if (!addressed) { /* (a runtime whose handles are no addresses: the packed launch) */
        return PyObject_Vectorcall(self->general, args, nargs, NULL);
    }
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
    unsigned long long per_block = self->block * self->items;
    unsigned long long grid = (n + per_block - 1) / per_block;
    unsigned int d[7] = {(unsigned int)(grid > self->grid_cap ? self->grid_cap : grid), 1, 1,
                         (unsigned int)self->block, 1, 1, 0};
    if (stream_run(self->launch, args[0], d, buffer.bytes, size)) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *stream_make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *function, *thread, *ordinal, *streams, *allocator, *set_device, *failed;
    static char *names[] = {"function", "thread", "ordinal", "streams", "allocator", "set_device", "failed", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOOOO:StreamLaunch", names, &function, &thread, &ordinal,
                                     &streams, &allocator, &set_device, &failed)) {
        return NULL;
    }
    void *address;
    if (cw_as_address(function, &address)) {
        return NULL;
    }
    if (address == NULL || !PyCallable_Check(set_device) || !PyCallable_Check(failed)) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.StreamLaunch: a null launch function, or set_device or "
                        "failed not callable");
        return NULL;
    }
    StreamLaunch *self = (StreamLaunch *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = stream_call;
    self->function = address;
    self->thread = Py_NewRef(thread);
    self->ordinal = Py_NewRef(ordinal);
    self->streams = Py_NewRef(streams);
    self->allocator = Py_NewRef(allocator);
    self->set_device = Py_NewRef(set_device);
    self->failed = Py_NewRef(failed);
    return (PyObject *)self;
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
    self->launch = (StreamLaunch *)Py_NewRef(launch);
    self->template = Py_NewRef(template);
    self->offsets = Py_NewRef(offsets);
    self->scalar_at = scalar_at;
    self->block = block, self->items = items, self->grid_cap = grid_cap, self->index_limit = index_limit;
    self->flags_below = below, self->flags_above = above;
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int stream_traverse(StreamLaunch *self, visitproc visit, void *arg) {
    Py_VISIT(self->thread);
    Py_VISIT(self->ordinal);
    Py_VISIT(self->streams);
    Py_VISIT(self->allocator);
    Py_VISIT(self->set_device);
    Py_VISIT(self->failed);
    return 0;
}

static int stream_clear(StreamLaunch *self) {
    Py_CLEAR(self->thread);
    Py_CLEAR(self->ordinal);
    Py_CLEAR(self->streams);
    Py_CLEAR(self->allocator);
    Py_CLEAR(self->set_device);
    Py_CLEAR(self->failed);
    return 0;
}

static void stream_dealloc(StreamLaunch *self) {
    PyObject_GC_UnTrack(self);
    stream_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
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

PyTypeObject cw_StreamLaunchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.StreamLaunch",
    .tp_doc = "StreamLaunch(function, thread, ordinal, streams, allocator, set_device, failed)\n\n"
              "A launcher's launch of a struct, (kernel, gx, gy, gz, bx, by, bz, template, offsets, *fills): on the\n"
              "calling thread's stream (streams.stream), with the device current (set_device(ordinal) where\n"
              "thread.ordinal is another), the stream marked used at allocator.clock, kernel.fn_int launched\n"
              "through the launch function at address `function`; a failed launch raises failed(kernel, status).",
    .tp_basicsize = sizeof(StreamLaunch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = stream_make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(StreamLaunch, vectorcall),
    .tp_traverse = (traverseproc)stream_traverse,
    .tp_clear = (inquiry)stream_clear,
    .tp_dealloc = (destructor)stream_dealloc,
};

PyTypeObject cw_ContiguousLaunchType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.ContiguousLaunch",
    .tp_doc = "ContiguousLaunch(launch, template, offsets, scalar_at, block, items, grid_cap, index_limit,\n"
              "flags_below, flags_above, general)\n\n"
              "An element-wise launch over C-contiguous operands, called (kernel, n, fields[, scalar[, flags]]):\n"
              "template with n and 1 | flags << 32 at offsets[0] and offsets[1], the operand fields at the\n"
              "offsets after them, scalar's bytes at scalar_at; flags or'ed with flags_below where n <\n"
              "index_limit, else flags_above; ceil(n / (block * items)) blocks (at most grid_cap) of block\n"
              "threads, queued through the StreamLaunch `launch`. A kernel whose fn_int is None goes to\n"
              "general, called with the same arguments.",
    .tp_basicsize = sizeof(ContiguousLaunch),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_new = contiguous_make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(ContiguousLaunch, vectorcall),
    .tp_traverse = (traverseproc)contiguous_traverse,
    .tp_clear = (inquiry)contiguous_clear,
    .tp_dealloc = (destructor)contiguous_dealloc,
};

int cw_launcher_ready(void) {
    ordinal_name = PyUnicode_InternFromString("ordinal");
    stream_name = PyUnicode_InternFromString("stream");
    clock_name = PyUnicode_InternFromString("clock");
    last_use_name = PyUnicode_InternFromString("last_use");
    ptr_name = PyUnicode_InternFromString("ptr");
    fn_int_name = PyUnicode_InternFromString("fn_int");
    if (ordinal_name == NULL || stream_name == NULL || clock_name == NULL || last_use_name == NULL ||
        ptr_name == NULL || fn_int_name == NULL) {
        return -1;
    }
    if (PyType_Ready(&cw_StreamLaunchType) < 0) {
        return -1;
    }
    return PyType_Ready(&cw_ContiguousLaunchType);
}
