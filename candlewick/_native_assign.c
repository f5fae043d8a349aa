/* candlewick._native's ElementAssign(general): a host backend's assign primitive whose
   one-element case runs in C (cpu_backend/storage.py's CpuStorage.assign).

   ElementAssign(general) is a method (a descriptor) of a storage class whose instances
   hold their elements in `buf` (a 1-D C-contiguous object with the buffer protocol) and
   their DType in `dtype`; general is the Python primitive it stands for. Its case:
   storage.assign(dst, src, src_layout) where dst and src_layout are 0-d Layouts of the
   bound class, src a storage of the storage's own class and DType (so one element
   format), both buffers of one itemsize, and the storage's `_lock` (if it has one yet)
   the module's Lock: the element at src_layout.offset copied into the one at dst.offset
   under that lock (general's one-element case, `with lock_of(x): x.buf[i] = src.buf[j]`).
   Anything else (and any call while the module is unbound) is general's, errors
   included. Why in C:
   scikit-learn's fill_diagonal stores 2048 elements one by one per pairwise_distances
   call (`D[i, i] = 0`, _native_slice.c's store_element), where NumPy's namespace fills
   the diagonal in one call; the Python primitive was about half of each store. */

#include "_native.h"
#include "_native_index.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

typedef struct {
    CW_METHOD_HEAD
} ElementAssign;

static PyObject *buf_attr, *dtype_attr, *lock_attr;

/* 1 where `layout` is a 0-d Layout of the bound class, its offset in *at; else 0. */
static int element_at(const Binding *b, PyObject *layout, Py_ssize_t *at) {
    if (Py_TYPE(layout) != b->layout_type) {
        return 0;
    }
    PyObject *shape = SLOT(layout, b->shape), *offset = SLOT(layout, b->offset);
    if (shape == NULL || offset == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) != 0 ||
        !PyLong_CheckExact(offset)) {
        return 0;
    }
    *at = PyLong_AsSsize_t(offset);
    if (*at == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return 1;
}

/* (_native_index.h) */
PyObject *cw_slot_attr(PyObject *obj, PyObject *name) {
    PyObject *value = cw_member(obj, name);
    if (value == NULL) {
        PyErr_Clear();
    }
    return value;
}

/* (_native_index.h) */
int cw_element_write(PyObject *storage, Py_ssize_t to, const void *bytes, Py_ssize_t size) {
    PyObject *lock = cw_slot_attr(storage, lock_attr);
    if (lock != NULL && Py_TYPE(lock) != &cw_LockType) {
        Py_DECREF(lock); /* (another lock: the Python primitives' `with lock_of(x)`) */
        return 0;
    }
    /* the lock the Python primitives' lock_of(x) gives, taken as fill and assign take
       it; where the storage has no lock yet, no write holds one (a write makes it before
       taking it) and none starts while this one holds the GIL */
    Py_INCREF(storage); /* (the wait for the lock lets other threads run) */
    if (lock != NULL) {
        cw_lock_acquire(lock);
    }
    PyObject *buf = cw_slot_attr(storage, buf_attr);
    Py_buffer out;
    int done = 0;
    /* the storage's class holds its DType's elements in buf, so the caller's element
       format is the buffer's where their itemsizes agree (NumPy builds a format string on
       every export that asks for one) */
    if (buf != NULL && PyObject_GetBuffer(buf, &out, PyBUF_ND | PyBUF_WRITABLE) == 0) {
        if (out.ndim == 1 && out.itemsize == size && 0 <= to && to < out.shape[0]) {
            /* (memmove: the source may be this buffer, the very element included) */
            memmove((char *)out.buf + to * out.itemsize, bytes, (size_t)size);
            done = 1;
        }
        PyBuffer_Release(&out);
    }
    PyErr_Clear(); /* (a read-only buffer, one that cannot be exported: general's case) */
    Py_XDECREF(buf);
    if (lock != NULL) {
        cw_lock_release(lock);
        Py_DECREF(lock);
    }
    Py_DECREF(storage);
    return done;
}

/* (_native_index.h) */
int cw_element_copy(PyObject *storage, Py_ssize_t to, PyObject *src, Py_ssize_t from) {
    if (Py_TYPE(src) != Py_TYPE(storage)) {
        return 0;
    }
    PyObject *dtype = cw_slot_attr(storage, dtype_attr), *src_dtype = cw_slot_attr(src, dtype_attr);
    int same_dtype = dtype != NULL && dtype == src_dtype;
    Py_XDECREF(dtype), Py_XDECREF(src_dtype);
    if (!same_dtype) {
        return 0;
    }
    PyObject *src_buf = cw_slot_attr(src, buf_attr);
    int done = 0;
    Py_buffer in;
    /* one storage class and one DType: one element format */
    if (src_buf != NULL && PyObject_GetBuffer(src_buf, &in, PyBUF_ND) == 0) {
        if (in.ndim == 1 && 0 <= from && from < in.shape[0]) {
            done = cw_element_write(storage, to, (const char *)in.buf + from * in.itemsize, in.itemsize);
        }
        PyBuffer_Release(&in);
    }
    PyErr_Clear(); /* (a buffer that cannot be exported: general's case) */
    Py_XDECREF(src_buf);
    return done;
}

/* The copy of a call's arguments: 1 done, 0 not the case (no error set). */
static int copy_element(const Binding *b, PyObject *const *args) {
    PyObject *storage = args[0], *dst = args[1], *src = args[2], *src_layout = args[3];
    Py_ssize_t to, from;
    if (!element_at(b, dst, &to) || !element_at(b, src_layout, &from)) {
        return 0;
    }
    return cw_element_copy(storage, to, src, from);
}

static PyObject *call(PyObject *callable, PyObject *const *args, size_t nargsf, PyObject *kwnames) {
    ElementAssign *self = (ElementAssign *)callable;
    Binding b;
    if (kwnames == NULL && PyVectorcall_NARGS(nargsf) == 4 && cw_hold_binding(&b)) {
        int done = copy_element(&b, args);
        cw_release_binding(&b);
        if (done) {
            Py_RETURN_NONE;
        }
    }
    return PyObject_Vectorcall(self->general, args, nargsf, kwnames);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *general;
    static char *names[] = {"general", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O:ElementAssign", names, &general)) {
        return NULL;
    }
    if (!PyCallable_Check(general)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.ElementAssign: general must be callable");
        return NULL;
    }
    ElementAssign *self = (ElementAssign *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = call;
    self->general = Py_NewRef(general);
    return (PyObject *)self;
}

static int traverse(ElementAssign *self, visitproc visit, void *arg) {
    Py_VISIT(self->general);
    return 0;
}

static int clear(ElementAssign *self) {
    Py_CLEAR(self->general);
    return 0;
}

static void dealloc(ElementAssign *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_ElementAssignType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.ElementAssign",
    .tp_basicsize = sizeof(ElementAssign),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_new = make,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(ElementAssign, vectorcall),
    .tp_descr_get = cw_bind_method,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_getset = cw_method_getset,
};

int cw_element_assign_ready(void) {
    buf_attr = PyUnicode_InternFromString("buf");
    dtype_attr = PyUnicode_InternFromString("dtype");
    lock_attr = PyUnicode_InternFromString("_lock");
    if (buf_attr == NULL || dtype_attr == NULL || lock_attr == NULL || cw_element_put_ready() < 0) {
        return -1;
    }
    return PyType_Ready(&cw_ElementAssignType);
}
