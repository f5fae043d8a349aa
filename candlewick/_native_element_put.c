/* candlewick._native's cw_element_put (_native_index.h): a Python bool, int or float written
   into one element of a storage of ElementAssign's kind (_native_assign.c: its elements
   in `buf`, its DType in `dtype`), for _native_element_store.c's x[i, j] = v. Why in C:
   scikit-learn's fill_diagonal(D, 0) and a loop's `a[i, j] = 0` spent 5 us a store in the
   Python method's conversion (scalars.scalar_into) and the storage's fill, against
   NumPy's 0.1; only the conversions that are exact (or as exact as the Python method's)
   and read no promotion mode are made here, the rest stays the Python method's with its
   errors. */

#include "_native.h"
#include "_native_index.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <string.h>

static PyObject *dtype_attr, *char_attr;

/* `value`'s bytes as an element of the C type NumPy's type character `code` names (a
   DType's char), where the conversion is exact, or as exact as the Python method's, and
   asks nothing of the promotion mode (scalars.scalar_into's cases that neither raise nor
   read it): a bool into bool; an int into an integer type that holds it; a float, or an
   int that float() takes, into float64, or into float32 within its range (the C cast
   rounds as NumPy's does; past the range fill quiets an overflow). Their count, or 0 for
   any other case (float16, complex, a conversion that raises or depends on the mode: the
   Python method's), no error set. */
#define PUT(type, v) \
    do { \
        type put_ = (type)(v); \
        memcpy(out, &put_, sizeof put_); \
        return (Py_ssize_t)sizeof put_; \
    } while (0)
#define PUT_IF(type, v, held) \
    do { \
        if (!(held)) { \
            return 0; \
        } \
        PUT(type, v); \
    } while (0)

static Py_ssize_t element_bytes(Py_UCS4 code, PyObject *value, unsigned char *out) {
    if (code == '?') {
        if (!PyBool_Check(value)) {
            return 0;
        }
        PUT(unsigned char, value == Py_True);
    }
    if (code == 'f' || code == 'd') {
        double d;
        if (PyFloat_CheckExact(value)) {
            d = PyFloat_AS_DOUBLE(value);
        } else if (!PyLong_CheckExact(value) || ((d = PyLong_AsDouble(value)) == -1.0 && PyErr_Occurred())) {
            PyErr_Clear(); /* (an int past float64: float()'s OverflowError, the Python method's) */
            return 0;
        }
        if (code == 'd') {
            PUT(double, d);
        }
        if (isfinite(d) && fabs(d) > FLT_MAX) {
            return 0;
        }
        PUT(float, d);
    }
    if (!PyLong_CheckExact(value) || code >= 128 || code == 0 || strchr("bhilqBHILQ", (int)code) == NULL) {
        return 0;
    }
    if (code >= 'A' && code <= 'Z') {
        unsigned long long u = PyLong_AsUnsignedLongLong(value);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear(); /* (negative or past 64 bits: the Python method's OverflowError) */
            return 0;
        }
        switch (code) {
        case 'B': PUT_IF(unsigned char, u, u <= UCHAR_MAX);
        case 'H': PUT_IF(unsigned short, u, u <= USHRT_MAX);
        case 'I': PUT_IF(unsigned int, u, u <= UINT_MAX);
        case 'L': PUT_IF(unsigned long, u, u <= ULONG_MAX);
        default: PUT(unsigned long long, u);
        }
    }
    int overflow;
    long long s = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow || (s == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    switch (code) {
    case 'b': PUT_IF(signed char, s, SCHAR_MIN <= s && s <= SCHAR_MAX);
    case 'h': PUT_IF(short, s, SHRT_MIN <= s && s <= SHRT_MAX);
    case 'i': PUT_IF(int, s, INT_MIN <= s && s <= INT_MAX);
    case 'l': PUT_IF(long, s, LONG_MIN <= s && s <= LONG_MAX);
    default: PUT(long long, s);
    }
}

/* (_native_index.h) */
int cw_element_put(PyObject *storage, Py_ssize_t to, PyObject *dtype, PyObject *value) {
    PyObject *own = cw_slot_attr(storage, dtype_attr), *code = cw_slot_attr(dtype, char_attr);
    unsigned char bytes[sizeof(long long) > sizeof(double) ? sizeof(long long) : sizeof(double)];
    Py_ssize_t size = own == dtype && code != NULL && PyUnicode_Check(code) && PyUnicode_GET_LENGTH(code) == 1
                          ? element_bytes(PyUnicode_READ_CHAR(code, 0), value, bytes)
                          : 0;
    Py_XDECREF(own), Py_XDECREF(code);
    return size == 0 ? 0 : cw_element_write(storage, to, bytes, size);
}

int cw_element_put_ready(void) {
    dtype_attr = PyUnicode_InternFromString("dtype");
    char_attr = PyUnicode_InternFromString("char");
    return dtype_attr == NULL || char_attr == NULL ? -1 : 0;
}
