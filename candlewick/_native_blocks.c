/* candlewick._native's BlockCache: the hit path of a GPU backend's caching allocator.

   BlockCache(free, lock) keeps the counts of the blocks handed out (in_use bytes, their
   high-water mark peak_in_use, active blocks, allocations) and hands out and takes back
   blocks of `free` ({rounded size: [pointer ints]}, the allocator's own dict) under
   `lock` (a candlewick._native.Lock, which the allocator's Python code holds too):
   take(size) pops a block (0 where none is cached) and counts it out, give(ptr, size)
   puts it back and counts it in. In Python (rocm_backend/runtime/block_cache.py) the
   pair costs about 0.7 us of an eager op's host path; here two lock calls and a dict
   lookup each. count_out / count_in count without the lock for callers that hold it. */

#include "_native.h"
#include "_native_launch.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD
    PyObject *free; /* dict: rounded size -> list of pointer ints */
    PyObject *lock; /* a cw_LockType */
    long long in_use, peak_in_use, active, allocations;
} BlockCache;

static void count_out(BlockCache *self, long long size) {
    self->in_use += size;
    if (self->in_use > self->peak_in_use) {
        self->peak_in_use = self->in_use;
    }
    self->active += 1;
    self->allocations += 1;
}

static int as_size(PyObject *obj, long long *size) {
    *size = PyLong_AsLongLong(obj);
    return (*size == -1 && PyErr_Occurred()) ? -1 : 0;
}

static PyObject *take(BlockCache *self, PyObject *arg) {
    long long size;
    if (as_size(arg, &size)) {
        return NULL;
    }
    if (cw_lock_acquire(self->lock) < 0) {
        return NULL;
    }
    PyObject *ptr = NULL;
    PyObject *bucket = PyDict_GetItemWithError(self->free, arg); /* borrowed */
    if (bucket != NULL && PyList_CheckExact(bucket) && PyList_GET_SIZE(bucket) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(bucket) - 1;
        ptr = Py_NewRef(PyList_GET_ITEM(bucket, last));
        if (PyList_SetSlice(bucket, last, last + 1, NULL) < 0) { /* pop: no object's finalizer runs */
            Py_CLEAR(ptr);
        }
    } else if (!PyErr_Occurred()) {
        ptr = PyLong_FromLong(0);
    }
    if (ptr != NULL) {
        count_out(self, size);
    }
    cw_lock_release(self->lock);
    return ptr;
}

static PyObject *give(BlockCache *self, PyObject *const *args, Py_ssize_t nargs) {
    long long size;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "BlockCache.give takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (as_size(args[1], &size)) {
        return NULL;
    }
    /* a size never cached before gets its list made before the lock is taken: an object
       the garbage collector tracks, whose allocation may run a collection, and with it a
       buffer's finalizer that gives a block back (the lock is not re-entrant) */
    PyObject *made = NULL;
    if (PyDict_GetItemWithError(self->free, args[1]) == NULL) {
        if (PyErr_Occurred() || (made = PyList_New(0)) == NULL) {
            return NULL;
        }
    }
    if (cw_lock_acquire(self->lock) < 0) {
        Py_XDECREF(made);
        return NULL;
    }
    int done = -1;
    PyObject *bucket = PyDict_GetItemWithError(self->free, args[1]); /* borrowed */
    if (bucket == NULL && !PyErr_Occurred() && made != NULL && PyDict_SetItem(self->free, args[1], made) == 0) {
        bucket = made;
    }
    if (bucket != NULL) {
        done = PyList_Append(bucket, args[0]);
    }
    if (done == 0) {
        self->in_use -= size;
        self->active -= 1;
    }
    cw_lock_release(self->lock);
    Py_XDECREF(made);
    if (done < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "BlockCache.give: the cache changed while it was given a block");
        }
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *count_out_method(BlockCache *self, PyObject *arg) {
    long long size;
    if (as_size(arg, &size)) {
        return NULL;
    }
    count_out(self, size);
    Py_RETURN_NONE;
}

static PyObject *count_in_method(BlockCache *self, PyObject *arg) {
    long long size;
    if (as_size(arg, &size)) {
        return NULL;
    }
    self->in_use -= size;
    self->active -= 1;
    Py_RETURN_NONE;
}

static int init(BlockCache *self, PyObject *args, PyObject *kwargs) {
    PyObject *free, *lock;
    if (!PyArg_ParseTuple(args, "O!O!:BlockCache", &PyDict_Type, &free, &cw_LockType, &lock)) {
        return -1;
    }
    (void)kwargs;
    Py_XSETREF(self->free, Py_NewRef(free));
    Py_XSETREF(self->lock, Py_NewRef(lock));
    self->in_use = self->peak_in_use = self->active = self->allocations = 0;
    return 0;
}

static void dealloc(BlockCache *self) {
    Py_XDECREF(self->free);
    Py_XDECREF(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef block_methods[] = {
    {"take", (PyCFunction)take, METH_O, "take(size) -> a cached block's pointer of that rounded size, or 0; counted out"},
    {"give", (PyCFunction)(void (*)(void))give, METH_FASTCALL, "give(ptr, size): the block back to the cache, counted in"},
    {"count_out", (PyCFunction)count_out_method, METH_O, "count_out(size): a block handed out (the lock held)"},
    {"count_in", (PyCFunction)count_in_method, METH_O, "count_in(size): a block back (the lock held)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef block_members[] = {
    {"free", T_OBJECT_EX, offsetof(BlockCache, free), READONLY, "the cached blocks: {size: [pointers]}"},
    {"in_use", T_LONGLONG, offsetof(BlockCache, in_use), 0, "bytes of the blocks handed out"},
    {"peak_in_use", T_LONGLONG, offsetof(BlockCache, peak_in_use), 0, "the high-water mark of in_use"},
    {"active", T_LONGLONG, offsetof(BlockCache, active), 0, "blocks handed out"},
    {"allocations", T_LONGLONG, offsetof(BlockCache, allocations), 0, "blocks ever handed out"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject cw_BlockCacheType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.BlockCache",
    .tp_basicsize = sizeof(BlockCache),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "BlockCache(free, lock): a caching allocator's free blocks by size and its counts (_native_blocks.c)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)init,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = block_methods,
    .tp_members = block_members,
};

int cw_block_cache_ready(void) {
    return PyType_Ready(&cw_BlockCacheType);
}
