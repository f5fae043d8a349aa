/* candlewick._native: StreamLaunch, a GPU backend's launch of a struct decided up to a
   few 8-byte fields (rocm_backend's Launcher.stream_launch), in C: the calling thread's
   stream of the device, marked used at the allocator's clock, the struct filled
   (_native_launch.c) and launched. _native_contiguous.c's ContiguousLaunch, the
   element-wise launch over C-contiguous operands, runs on top of it (cw_stream_run).
   Why in C: every eager op launches through it; in Python (the thread's device check, the
   record, the mark, the call) it was 0.19 us of x += y's 1.6 us host path on the fake
   runtime with the launch a no-op, more on a slower host, where the op's time is the
   host's. What it does not take (another device current on the thread) is done through
   the callables it is given. */

#include "_native.h"
#include "_native_launch.h"

#include <stddef.h>
#include <string.h>

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

static PyObject *ordinal_name, *stream_name, *clock_name, *last_use_name, *ptr_name, *fn_int_name;

int cw_stream_run(PyObject *launch, PyObject *kernel, PyObject *fn, const unsigned int d[7], unsigned char *buffer,
                  size_t size) {
    StreamLaunch *self = (StreamLaunch *)launch;
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
    void *stream = NULL, *handle = NULL;
    int failed = ptr == NULL || PyObject_SetAttr(record, last_use_name, clock) < 0 ||
                 cw_as_address(ptr, "candlewick._native.StreamLaunch", &stream) < 0 ||
                 cw_as_address(fn, "candlewick._native.StreamLaunch", &handle) < 0;
    Py_DECREF(record);
    Py_XDECREF(clock);
    Py_XDECREF(ptr);
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
    if (cw_fill_struct(args[7], args[8], args + 9, nfills, buffer.bytes, &size)) {
        return NULL;
    }
    PyObject *fn = PyObject_GetAttr(args[0], fn_int_name);
    int failed = fn == NULL || cw_stream_run(callable, args[0], fn, d, buffer.bytes, size);
    Py_XDECREF(fn);
    if (failed) {
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
    if (cw_as_address(function, "candlewick._native.StreamLaunch", &address)) {
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
    return PyType_Ready(&cw_StreamLaunchType);
}
