/* candlewick._native: a kernel launch through a driver-style launch function, called
   from C. A GPU backend's launcher queues each kernel through a runtime function of
   hipModuleLaunchKernel's (and cuLaunchKernel's) signature. Called through ctypes, the
   call's argument conversion costs about 1.5 us of a 7-8 us eager op; here the same call
   is a few unboxings. The backend hands over the function's address (it loads the
   runtime; this module links no GPU library).

   Below it, what _native_launcher.c's launches of a struct decided up to a few 8-byte
   fields (pointers, offsets, sizes: a prepared launch's, the element-wise contiguous
   path's) are made of: the struct's bytes come packed once, each launch copies them to
   its own stack buffer, writes the fields and launches, so a launch packs no Python
   values and shares no buffer (no lock: the runtime copies the arguments before the
   launch function returns). */

#include "_native.h"
#include "_native_launch.h"

#include <limits.h>
#include <string.h>

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

int cw_as_address(PyObject *obj, const char *who, void **out) {
    if (!PyLong_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: an address must be an int, got %.80s", who, Py_TYPE(obj)->tp_name);
        return -1;
    }
    *out = PyLong_AsVoidPtr(obj);
    return (*out == NULL && PyErr_Occurred()) ? -1 : 0;
}

/* The arguments at positions ``at`` as addresses into ``out`` (launch and fft_exec read
   theirs alike; ``who`` names the call in the error). */
static int as_addresses(const char *who, PyObject *const *args, const int *at, int count, void **out) {
    for (int k = 0; k < count; k++) {
        if (cw_as_address(args[at[k]], who, &out[k])) {
            return -1;
        }
    }
    return 0;
}

/* The arguments launch takes: the function, the kernel, 7 dimensions, the stream, extra. */
static int launch_arguments(PyObject *const *args, void *addresses[4], unsigned int d[7]) {
    static const int at[4] = {0, 1, 9, 10}; /* function, kernel, stream, extra */
    if (as_addresses("candlewick._native.launch", args, at, 4, addresses)) {
        return -1;
    }
    for (int k = 0; k < 7; k++) {
        if (as_dim(args[2 + k], &d[k])) {
            return -1;
        }
    }
    if (addresses[0] == NULL || addresses[1] == NULL) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.launch: a null launch function or kernel");
        return -1;
    }
    return 0;
}

PyObject *cw_launch(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 11) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.launch takes 11 arguments (%zd given)", nargs);
        return NULL;
    }
    void *a[4]; /* function, kernel, stream, extra */
    unsigned int d[7]; /* grid, block, shared memory bytes */
    if (launch_arguments(args, a, d)) {
        return NULL;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ((launch_function)a[0])(a[1], d[0], d[1], d[2], d[3], d[4], d[5], d[6], a[2], NULL, (void **)a[3]);
    Py_END_ALLOW_THREADS
    return PyLong_FromLong(status);
}

/* hipfftExec<kind>'s two signatures: R2C/C2R/D2Z/Z2D (plan, in, out), C2C/Z2Z with the
   direction last (cuFFT's the same: tools/hip_on_cuda forwards them). */
typedef int (*fft_exec_function)(void *plan, void *src, void *dst);
typedef int (*fft_exec_direction_function)(void *plan, void *src, void *dst, int direction);

const char cw_fft_exec_doc[] =
    "fft_exec(function, plan, direction, src, dst, /) -> int\n\n"
    "Call the hipfftExec<kind> at address ``function`` on the plan handle ``plan`` (an\n"
    "address) from the device address ``src`` to ``dst``, with ``direction`` as its last\n"
    "argument (an int: C2C/Z2Z) or none (None: the real transforms). Returns the function's\n"
    "status (0 = success); the GIL is released during the call. The order puts what a\n"
    "prepared plan fixes first, so that functools.partial(fft_exec, function, plan,\n"
    "direction) runs a plan with no Python frame (rocm_backend/families/fft.py).";

PyObject *cw_fft_exec(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.fft_exec takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    static const int at[4] = {0, 1, 3, 4}; /* function, plan, src, dst */
    void *a[4];
    if (as_addresses("candlewick._native.fft_exec", args, at, 4, a)) {
        return NULL;
    }
    void *function = a[0], *plan = a[1], *src = a[2], *dst = a[3];
    if (function == NULL) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.fft_exec: a null exec function");
        return NULL;
    }
    int status;
    if (args[2] == Py_None) {
        Py_BEGIN_ALLOW_THREADS
        status = ((fft_exec_function)function)(plan, src, dst);
        Py_END_ALLOW_THREADS
    } else {
        long direction = PyLong_Check(args[2]) ? PyLong_AsLong(args[2]) : (PyErr_Format(
            PyExc_TypeError, "candlewick._native.fft_exec: direction must be None or an int, got %.80s",
            Py_TYPE(args[2])->tp_name), -1);
        if (direction == -1 && PyErr_Occurred()) {
            return NULL;
        }
        if (direction < INT_MIN || direction > INT_MAX) {
            PyErr_SetString(PyExc_OverflowError, "candlewick._native.fft_exec: a direction past an int");
            return NULL;
        }
        Py_BEGIN_ALLOW_THREADS
        status = ((fft_exec_direction_function)function)(plan, src, dst, (int)direction);
        Py_END_ALLOW_THREADS
    }
    return PyLong_FromLong(status);
}

/* HIP_LAUNCH_PARAM_BUFFER_POINTER, _SIZE, _END (CUDA's CU_LAUNCH_PARAM_* are 1, 2, 0:
   tools/hip_on_cuda translates HIP's) */
#define PARAM_BUFFER_POINTER ((void *)1)
#define PARAM_BUFFER_SIZE ((void *)2)
#define PARAM_END ((void *)3)

int cw_as_word(PyObject *obj, unsigned long long *out) {
    PyObject *index = PyNumber_Index(obj); /* an int, or what struct's "q" also takes (__index__) */
    if (index == NULL) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.StreamLaunch: a fill must be an int, got %.80s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(index, &overflow);
    if (overflow > 0) { /* an address past 2^63 */
        *out = PyLong_AsUnsignedLongLong(index);
        Py_DECREF(index);
        return (*out == (unsigned long long)-1 && PyErr_Occurred()) ? -1 : 0;
    }
    Py_DECREF(index);
    if (overflow < 0 || (v == -1 && PyErr_Occurred())) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_OverflowError, "candlewick._native.StreamLaunch: a fill below -2^63");
        }
        return -1;
    }
    *out = (unsigned long long)v;
    return 0;
}

int cw_fill_struct(PyObject *template, PyObject *offsets, PyObject *const *fills, Py_ssize_t nfills,
                   unsigned char *buffer, size_t *size) {
    if (!PyBytes_CheckExact(template)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.StreamLaunch: template must be bytes, got %.80s",
                     Py_TYPE(template)->tp_name);
        return -1;
    }
    *size = (size_t)PyBytes_GET_SIZE(template);
    if (!PyTuple_CheckExact(offsets) || PyTuple_GET_SIZE(offsets) < nfills) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.StreamLaunch: offsets must be a tuple of one offset per "
                     "fill (%zd fills)", nfills);
        return -1;
    }
    if (*size > CW_FILLED_MAX_BYTES) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.StreamLaunch: a template of %zu bytes (at most %d)", *size,
                     CW_FILLED_MAX_BYTES);
        return -1;
    }
    memcpy(buffer, PyBytes_AS_STRING(template), *size);
    for (Py_ssize_t k = 0; k < nfills; k++) {
        Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(offsets, k));
        if (at == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (at < 0 || (size_t)at + 8 > *size) {
            PyErr_Format(PyExc_ValueError, "candlewick._native.StreamLaunch: a field at byte %zd does not fit a "
                         "template of %zu bytes", at, *size);
            return -1;
        }
        unsigned long long word;
        if (cw_as_word(fills[k], &word)) {
            return -1;
        }
        cw_put_word(buffer, at, word);
    }
    return 0;
}

void cw_put_word(unsigned char *buffer, Py_ssize_t at, unsigned long long word) {
    for (int b = 0; b < 8; b++) { /* little-endian, as the device reads it */
        buffer[at + b] = (unsigned char)(word >> (8 * b));
    }
}

int cw_launch_struct(void *function, void *kernel, const unsigned int d[7], void *stream, unsigned char *buffer,
                     size_t size) {
    void *extra[5] = {PARAM_BUFFER_POINTER, buffer, PARAM_BUFFER_SIZE, &size, PARAM_END};
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = ((launch_function)function)(kernel, d[0], d[1], d[2], d[3], d[4], d[5], d[6], stream, NULL, extra);
    Py_END_ALLOW_THREADS
    return status;
}
