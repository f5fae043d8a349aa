/* candlewick._native: a kernel launch through a driver-style launch function, called
   from C. A GPU backend's launcher queues each kernel through a runtime function of
   hipModuleLaunchKernel's (and cuLaunchKernel's) signature. Called through ctypes, the
   call's argument conversion costs about 1.5 us of a 7-8 us eager op; here the same call
   is a few unboxings. The backend hands over the function's address (it loads the
   runtime; this module links no GPU library). */

#include "_native.h"

typedef int (*launch_function)(void *kernel, unsigned int gx, unsigned int gy, unsigned int gz,
                               unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared,
                               void *stream, void **params, void **extra);

const char cw_launch_doc[] =
    "launch(function, kernel, gx, gy, gz, bx, by, bz, shared, stream, extra, /) -> int\n\n"
    "Call the launch function at address ``function`` (hipModuleLaunchKernel's signature)\n"
    "with the kernel handle, grid and block dimensions, ``shared`` bytes of dynamic shared\n"
    "memory, the stream, no kernel parameter array and the ``extra`` array at address ``extra``\n"
    "(arguments passed as one buffer). Returns the function's status (0 = success).\n"
    "Addresses are ints (0 for the null stream); the GIL is released during the call, as\n"
    "ctypes releases it. TypeError or OverflowError for an argument that is not such an int.";

static int as_dim(PyObject *obj, unsigned int *out) {
    unsigned long v = PyLong_AsUnsignedLong(obj);
    if (v == (unsigned long)-1 && PyErr_Occurred()) {
        return -1;
    }
    if (v > 0xFFFFFFFFul) {
        PyErr_SetString(PyExc_OverflowError, "candlewick._native.launch: a dimension or size past 32 bits");
        return -1;
    }
    *out = (unsigned int)v;
    return 0;
}

static int as_address(PyObject *obj, void **out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.launch: an address must be an int, got %.80s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = PyLong_AsVoidPtr(obj);
    return (*out == NULL && PyErr_Occurred()) ? -1 : 0;
}

PyObject *cw_launch(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 11) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.launch takes 11 arguments (%zd given)", nargs);
        return NULL;
    }
    void *function, *kernel, *stream, *extra;
    unsigned int d[7]; /* grid, block, shared memory bytes */
    if (as_address(args[0], &function) || as_address(args[1], &kernel) || as_address(args[9], &stream) ||
        as_address(args[10], &extra)) {
        return NULL;
    }
    for (int k = 0; k < 7; k++) {
        if (as_dim(args[2 + k], &d[k])) {
            return NULL;
        }
    }
    if (function == NULL || kernel == NULL) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.launch: a null launch function or kernel");
        return NULL;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ((launch_function)function)(kernel, d[0], d[1], d[2], d[3], d[4], d[5], d[6], stream, NULL,
                                         (void **)extra);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}
