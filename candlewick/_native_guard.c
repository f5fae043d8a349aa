/* candlewick._native's guards of a write into a host storage, taken without a Python call:

   - Lock: the lock every write into a cpu storage holds (cpu_backend.storage_slice.lock_of
     makes one per storage, of this type where the module is built, else threading.Lock):
     `with lock:` from Python, cw_lock_acquire / cw_lock_release from C. After a NumPy
     update of 2^20 elements the caches hold its data, and threading.Lock's acquire and
     release through method calls (lookups, argument parsing) cost about 3 us of misses
     there; this lock's C calls touch the lock alone.
   - the quiet error state (NumPy's context variable set to "ignore everything",
     candlewick.fp_state) entered through one context per thread that holds it
     (cw_quiet_enter / cw_quiet_exit): PyContextVar_Set / Reset allocate a mapping and a
     token on every call, entering a kept context allocates nothing; where the current
     state already ignores everything (np.errstate(all="ignore"), np.seterr), nothing is
     entered. Only NumPy's ufunc loop runs inside it; where that context is already
     entered on this thread (a finalizer run by an allocation inside the loop writing
     again), the set / reset form runs instead. The user's own state is never changed. */

#include "_native.h"
#include "_native_host.h"

#if defined(_MSC_VER)
#define CW_THREAD_LOCAL __declspec(thread)
#else
#define CW_THREAD_LOCAL _Thread_local
#endif

typedef struct {
    PyObject_HEAD
    PyThread_type_lock lock;
    int locked;
} Lock;

/* Take the lock, the GIL released while another thread holds it: 0, or -1 on error. */
int cw_lock_acquire(PyObject *self) {
    Lock *lock = (Lock *)self;
    if (!PyThread_acquire_lock(lock->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(lock->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    lock->locked = 1;
    return 0;
}

void cw_lock_release(PyObject *self) {
    Lock *lock = (Lock *)self;
    lock->locked = 0;
    PyThread_release_lock(lock->lock);
}

static PyObject *lock_acquire(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)args;
    if (nargs > 0) {
        /* (exit's arguments reach enter's twin only through __exit__ below) */
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Lock.acquire takes no arguments");
        return NULL;
    }
    if (cw_lock_acquire(self) < 0) {
        return NULL;
    }
    Py_RETURN_TRUE;
}

static PyObject *lock_release(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)args, (void)nargs; /* (__exit__ passes the exception's three values) */
    if (!((Lock *)self)->locked) {
        PyErr_SetString(PyExc_RuntimeError, "release unlocked lock");
        return NULL;
    }
    cw_lock_release(self);
    Py_RETURN_NONE;
}

static PyObject *lock_locked(PyObject *self, PyObject *unused) {
    (void)unused;
    return PyBool_FromLong(((Lock *)self)->locked);
}

static PyObject *lock_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (PyTuple_GET_SIZE(args) != 0 || (kwargs != NULL && PyDict_GET_SIZE(kwargs) != 0)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.Lock takes no arguments");
        return NULL;
    }
    Lock *self = (Lock *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL) {
        Py_DECREF(self);
        PyErr_SetString(PyExc_MemoryError, "candlewick._native.Lock: no lock could be allocated");
        return NULL;
    }
    return (PyObject *)self;
}

static void lock_dealloc(Lock *self) {
    if (self->lock != NULL) {
        if (self->locked) {
            PyThread_release_lock(self->lock);
        }
        PyThread_free_lock(self->lock);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef lock_methods[] = {
    {"acquire", (PyCFunction)(void (*)(void))lock_acquire, METH_FASTCALL, "Take the lock (waiting for it)."},
    {"release", (PyCFunction)(void (*)(void))lock_release, METH_FASTCALL, "Give the lock back."},
    {"locked", lock_locked, METH_NOARGS, "Whether the lock is held."},
    {"__enter__", (PyCFunction)(void (*)(void))lock_acquire, METH_FASTCALL, "Take the lock (waiting for it)."},
    {"__exit__", (PyCFunction)(void (*)(void))lock_release, METH_FASTCALL, "Give the lock back."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject cw_LockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.Lock",
    .tp_basicsize = sizeof(Lock),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Lock(): a lock for `with`, which candlewick's C primitives take without a Python call",
    .tp_new = lock_new,
    .tp_dealloc = (destructor)lock_dealloc,
    .tp_methods = lock_methods,
};

/* --- the quiet error state ---------------------------------------------------------------- */

/* the one (variable, value) pair the kept contexts hold (the first UfuncInto's) */
static PyObject *quiet_var, *quiet_value, *context_key;
/* this thread's kept context (borrowed: its thread state's dict holds it), and which
   thread state it was found for */
static CW_THREAD_LOCAL PyObject *thread_context;
static CW_THREAD_LOCAL PyThreadState *context_state;
static CW_THREAD_LOCAL uint64_t context_state_id;
static CW_THREAD_LOCAL int context_entered;

/* NumPy's error state as NumPy 2 keeps it in the variable: a capsule of this name over
   this struct (numpy/_core/src/umath/extobj.h), whose errmask 0 is "ignore everything".
   Read only where the pair given to cw_quiet_adopt reads as expected (state_readable). */
#define EXTOBJ_NAME "numpy.ufunc.extobj"
typedef struct {
    int errmask;
    Py_ssize_t bufsize;
    PyObject *pyfunc;
} numpy_extobj;
static int state_readable;

static const numpy_extobj *extobj_of(PyObject *state) {
    return PyCapsule_IsValid(state, EXTOBJ_NAME) ? PyCapsule_GetPointer(state, EXTOBJ_NAME) : NULL;
}

int cw_quiet_adopt(PyObject *var, PyObject *quiet, PyObject *loud) {
    if (quiet_var == NULL) {
        quiet_var = Py_NewRef(var);
        quiet_value = Py_NewRef(quiet);
        const numpy_extobj *q = extobj_of(quiet), *l = loud == NULL ? NULL : extobj_of(loud);
        state_readable = q != NULL && l != NULL && q->errmask == 0 && l->errmask != 0 &&
                         q->bufsize == l->bufsize && q->bufsize > 0;
    }
    return var == quiet_var && quiet == quiet_value;
}

/* 1 where the current value of `var` is already quiet (the value itself, or NumPy's state
   ignoring everything, as np.errstate(all="ignore") sets it), else 0: nothing to enter. */
static int already_quiet(PyObject *var) {
    PyObject *value;
    if (PyContextVar_Get(var, NULL, &value) < 0) {
        PyErr_Clear();
        return 0;
    }
    if (value == NULL) {
        return 0;
    }
    const numpy_extobj *state = value == quiet_value || !state_readable ? NULL : extobj_of(value);
    int quiet = value == quiet_value || (state != NULL && state->errmask == 0);
    Py_DECREF(value);
    return quiet;
}

/* This thread's context holding the quiet state (borrowed), NULL on error. */
static PyObject *kept_context(void) {
    PyThreadState *ts = PyThreadState_Get();
    uint64_t id = PyThreadState_GetID(ts);
    if (thread_context != NULL && context_state == ts && context_state_id == id) {
        return thread_context;
    }
    PyObject *dict = PyThreadState_GetDict();
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native: no thread state dict");
        return NULL;
    }
    PyObject *ctx = PyDict_GetItemWithError(dict, context_key);
    if (ctx == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        ctx = PyContext_New();
        if (ctx == NULL) {
            return NULL;
        }
        if (PyContext_Enter(ctx) < 0) {
            Py_DECREF(ctx);
            return NULL;
        }
        PyObject *token = PyContextVar_Set(quiet_var, quiet_value);
        int exited = PyContext_Exit(ctx);
        Py_XDECREF(token);
        if (token == NULL || exited < 0 || PyDict_SetItem(dict, context_key, ctx) < 0) {
            Py_DECREF(ctx);
            return NULL;
        }
        Py_DECREF(ctx); /* (the dict holds it) */
    }
    thread_context = ctx;
    context_state = ts;
    context_state_id = id;
    return ctx;
}

int cw_quiet_enter(PyObject *var, PyObject *quiet, int kept, PyObject **token) {
    *token = NULL;
    if (kept && already_quiet(var)) {
        *token = Py_NewRef(Py_None); /* (nothing to exit) */
        return 0;
    }
    if (kept && !context_entered) {
        PyObject *ctx = kept_context();
        if (ctx == NULL || PyContext_Enter(ctx) < 0) {
            return -1;
        }
        context_entered = 1;
        return 0;
    }
    *token = PyContextVar_Set(var, quiet);
    return *token == NULL ? -1 : 0;
}

int cw_quiet_exit(PyObject *var, PyObject *token) {
    if (token == Py_None) {
        Py_DECREF(token);
        return 0;
    }
    if (token == NULL) {
        context_entered = 0;
        return PyContext_Exit(thread_context);
    }
    int reset = PyContextVar_Reset(var, token);
    Py_DECREF(token);
    return reset;
}

int cw_guard_ready(void) {
    context_key = PyUnicode_InternFromString("candlewick._native quiet context");
    if (context_key == NULL) {
        return -1;
    }
    return PyType_Ready(&cw_LockType);
}
