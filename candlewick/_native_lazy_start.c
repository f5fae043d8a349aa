/* candlewick._native's StartMethod: lazy mode's decision, for a primitive called on a
   computed array, to run it at once or record it (candlewick/fusion/lazy_policy.py, the
   policy; its Python `_start` is the same decision where this module is not built).

   A call made in a `with cw.lazy():` block on an array that is computed (scipy.fft's
   `spectrum * response` between two transforms) asks it once: in Python that was a
   frame, the bound method made through Start's __getattr__ and the call's key built
   in Python, about as much host time as the eager call itself. Here it is one call of C,
   and the element-wise path (_native_elementwise.c, cw_call_primitive) calls it without
   binding a method.

   lazy_starts(start_type, policy) says what the methods share: lazy_policy.Start (its
   object slots `pending`, the thread's pending graph, and `real`, the computed storage)
   and lazy_policy's globals, from which every call reads RECORD_BYTES, REPLAYS, _ripe,
   _counts, Layout, _NOT_AS_IS, call_key_of, PROBE and PROBE_DOUBLINGS as they are then
   (tests set them: read through the view cw_policy_now keeps, _native_lazy_key.c).
   StartMethod(name, positions, pair, only=None, probe=False) is Start's method for
   primitive `name`: `positions` its storage arguments (lazy_keys.STORAGE_ARGS), `pair`
   whether its key is built here in pair_key's one step (binary, compare) rather than by
   call_key_of (the key and the globals' reads: _native_lazy_key.c), `only` the ops (its
   first argument) it may record, any other run at once (reduce: the fused reductions;
   argmin never is), `probe` whether a call its count would run at once is deferred
   instead where it copies a plain view (lazy_defer: its readers read its source) and
   recorded at its PROBE-th such call (copy's: lazy_policy.PROBE). */

#include "_native.h"
#include "_native_lazy.h"

#define MAX_ARGS 8      /* the most arguments a primitive takes here (the protocol's: 6) */
#define MAX_POSITIONS 4 /* the most storage arguments (where: 2) */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *name;
    int pair;
    int probe; /* its calls counted to run at once are deferred, and probed (lazy_policy.PROBE: the copy's) */
    PyObject *only; /* the ops (args[0]) it may record (reduce's fused ones), or NULL: any */
    Py_ssize_t npositions;
    Py_ssize_t positions[MAX_POSITIONS];
    cw_KeyMemo memo; /* its last keys' answers (_native_lazy_key.c) */
} StartMethod;

static PyTypeObject *start_type;
static Py_ssize_t pending_at, real_at;
/* `name`'s primitive called on `receiver` with args (new reference, or NULL). */
static PyObject *call_on(PyObject *name, PyObject *receiver, PyObject *const *args, Py_ssize_t n) {
    PyObject *buffer[MAX_ARGS + 2];
    buffer[1] = receiver;
    for (Py_ssize_t i = 0; i < n; i++) {
        buffer[i + 2] = args[i];
    }
    return PyObject_VectorcallMethod(name, buffer + 1, (size_t)(n + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
}

static PyObject *decide(StartMethod *m, PyObject *pending, PyObject *real, PyObject *const *args, Py_ssize_t n,
                        int sized);

/* Whether `layout` (a copy's) views its storage from offset 0, C-contiguous, as far as the
   layout knows (its dense_size >= 0): only such a copy's readers can read its source
   instead (lazy_copy), so only it is deferred. 1, 0, or -1 with an error. */
int cw_plain_view(PyObject *layout) {
    if (cw_bound.layout_type == NULL || Py_TYPE(layout) != cw_bound.layout_type) {
        return 0;
    }
    PyObject *dense = SLOT(layout, cw_bound.dense);
    if (dense == NULL || !PyLong_Check(dense)) {
        return 0;
    }
    Py_ssize_t size = PyLong_AsSsize_t(dense);
    if (size == -1 && PyErr_Occurred()) {
        return -1;
    }
    return size >= 0;
}

/* Start.<name>(*args): lazy_policy._start's policy. */
static PyObject *start_call(PyObject *callable, PyObject *const *all, size_t nargsf, PyObject *kwnames) {
    StartMethod *m = (StartMethod *)callable;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf) - 1;
    if (start_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.StartMethod: lazy_starts was not called");
        return NULL;
    }
    if (n < 0 || kwnames != NULL || n > MAX_ARGS || !PyObject_TypeCheck(all[0], start_type)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.StartMethod %U: takes a Start and at most %d positional "
                     "arguments", m->name, MAX_ARGS);
        return NULL;
    }
    PyObject *pending = SLOT(all[0], pending_at), *real = SLOT(all[0], real_at);
    if (pending == NULL || real == NULL) {
        PyErr_Format(PyExc_AttributeError, "candlewick._native.StartMethod %U: the Start has no pending or real",
                     m->name);
        return NULL;
    }
    return decide(m, pending, real, all + 1, n, 0);
}

/* 1 where the storage argument `a` is a recorded result (of the pending graph's
   lazy_type, read into *lazy_type at the first operand that needs it), 0 where not, -1
   with an error. An operand of real's type is computed, as real is: the type is read
   only for an operand of another type. */
static int recorded_operand(PyObject *a, PyObject *real, PyObject *pending, PyObject **lazy_type) {
    if (Py_TYPE(a) == Py_TYPE(real)) {
        return 0;
    }
    if (*lazy_type == NULL && (*lazy_type = PyObject_GetAttr(pending, cw_s_lazy_type)) == NULL) {
        return -1;
    }
    return Py_TYPE(a) == (PyTypeObject *)*lazy_type;
}

/* The decision of start_call for Start(pending, real) (`sized`: real's size test made
   already, too large to run at once for its size). */
static PyObject *decide(StartMethod *m, PyObject *pending, PyObject *real, PyObject *const *args, Py_ssize_t n,
                        int sized) {
    if (m->only != NULL && n > 0) { /* an op never recorded (argmin): at once */
        int recordable = PySequence_Contains(m->only, args[0]);
        if (recordable <= 0) {
            Py_INCREF(real);
            PyObject *out = recordable < 0 ? NULL : call_on(m->name, real, args, n);
            Py_DECREF(real);
            return out;
        }
    }
    const cw_Policy *policy = cw_policy_now();
    if (policy == NULL) {
        return NULL;
    }
    PyObject *ripe_set = policy->at[CW_P_RIPE];
    long long limit = policy->record_bytes;
    /* held for the calls below: a primitive runs Python code that could rebind the slots */
    Py_INCREF(pending);
    Py_INCREF(real);
    PyObject *call_args[MAX_ARGS], *out = NULL, *lazy_type = NULL;
    Py_ssize_t replaced[MAX_POSITIONS], nreplaced = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        call_args[i] = args[i];
    }
    int small = sized ? 0 : cw_storage_smaller(real, limit), ripe = small < 0 ? -1 : PySet_Contains(ripe_set, m->name);
    if (ripe < 0) {
        goto done;
    }
    if (small || ripe) { /* (a key is made only for a primitive that has a ripe one) */
        for (Py_ssize_t k = 0; k < m->npositions; k++) {
            Py_ssize_t i = m->positions[k];
            if (i >= n) {
                PyErr_Format(PyExc_TypeError, "candlewick._native.StartMethod %U: takes a storage as argument %zd, "
                             "got %zd arguments", m->name, i, n);
                goto done;
            }
            PyObject *a = args[i];
            int recorded = recorded_operand(a, real, pending, &lazy_type);
            if (recorded < 0) {
                goto done;
            }
            if (recorded) {
                a = PyObject_GetAttr(a, cw_s_real);
                if (a == NULL) {
                    goto done;
                }
                if (a == Py_None) { /* a pending operand: the call joins its graph */
                    Py_DECREF(a);
                    small = ripe = 0;
                    break;
                }
                call_args[i] = a;
                replaced[nreplaced++] = i;
            }
            if (small) {
                small = cw_storage_smaller(a, limit);
                if (small < 0) {
                    goto done;
                }
            }
        }
        if (small) {
            out = call_on(m->name, real, call_args, n);
            goto done;
        }
        if (ripe) {
            static cw_MemberSite dtype_site; /* (real's dtype, read per call: its read kept) */
            PyObject *dtype = cw_site_member(&dtype_site, real, cw_s_dtype);
            int now = dtype == NULL ? -1 : cw_counted(policy, m->name, m->pair, m->positions, m->npositions, pending,
                                                      dtype, call_args, n, &m->memo, m->probe);
            Py_XDECREF(dtype);
            if (now < 0) {
                goto done;
            }
            if (now == 1 && m->probe && n >= 1) {
                /* a copy of a plain view run at once for its count is deferred instead (lazy_defer) */
                int plain = cw_plain_view(call_args[0]);
                if (plain < 0) {
                    goto done;
                }
                now = plain ? 2 : 1;
            }
            if (now == 2) { /* deferred: pending.defer(name, real, *args) (lazy_defer) */
                PyObject *buffer[MAX_ARGS + 4];
                buffer[1] = pending;
                buffer[2] = m->name;
                buffer[3] = real;
                for (Py_ssize_t i = 0; i < n; i++) {
                    buffer[i + 4] = call_args[i];
                }
                out = PyObject_VectorcallMethod(cw_s_defer, buffer + 1, (size_t)(n + 3) | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                                NULL);
                goto done;
            }
            if (now == 1) {
                out = call_on(m->name, real, call_args, n);
                goto done;
            }
            if (now == 3 && PyObject_SetAttr(pending, cw_s_probing, Py_True) < 0) { /* a probe: recorded */
                goto done;
            }
        }
    }
    PyObject *tracer = PyObject_CallMethodOneArg(pending, cw_s_tracer, real); /* recorded */
    if (tracer != NULL) {
        out = call_on(m->name, tracer, args, n);
        Py_DECREF(tracer);
    }
done:
    for (Py_ssize_t k = 0; k < nreplaced; k++) {
        Py_DECREF(call_args[replaced[k]]);
    }
    Py_XDECREF(lazy_type);
    Py_DECREF(pending);
    Py_DECREF(real);
    return out;
}

PyObject *cw_new_start(PyObject *pending, PyObject *real) {
    if (start_type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_operand: lazy_starts was not called");
        return NULL;
    }
    PyObject *start = start_type->tp_alloc(start_type, 0); /* (object.__new__'s, without its checks) */
    if (start != NULL) {
        SLOT(start, pending_at) = Py_NewRef(pending);
        SLOT(start, real_at) = Py_NewRef(real);
    }
    return start;
}

/* Start's StartMethod for primitive `name` (borrowed), or NULL where Start has none: the
   interpreter's own lookup, so a method Python code put on Start is the one called */
static StartMethod *start_method(PyObject *name) {
    PyObject *method = start_type == NULL ? NULL : _PyType_Lookup(start_type, name);
    return method != NULL && Py_TYPE(method) == &cw_StartMethodType ? (StartMethod *)method : NULL;
}

PyObject *cw_start_call(PyObject *name, PyObject *pending, PyObject *real, PyObject *const *args, Py_ssize_t n,
                        int sized) {
    if (n > MAX_ARGS) { /* (call_on's buffer holds MAX_ARGS: no caller passes more today) */
        PyErr_Format(PyExc_TypeError, "candlewick._native.StartMethod: a call takes at most %d arguments, got %zd",
                     MAX_ARGS, n);
        return NULL;
    }
    StartMethod *method = start_method(name);
    if (method != NULL) {
        return decide(method, pending, real, args, n, sized);
    }
    PyObject *start = cw_new_start(pending, real); /* (Start's method as Python finds it) */
    PyObject *out = start == NULL ? NULL : call_on(name, start, args, n);
    Py_XDECREF(start);
    return out;
}

PyObject *cw_call_primitive(PyObject *name, PyObject *const *args, size_t nargsf) {
    if (Py_TYPE(args[0]) == start_type) {
        StartMethod *method = start_method(name);
        if (method != NULL) {
            return start_call((PyObject *)method, args, PyVectorcall_NARGS(nargsf), NULL);
        }
    }
    return PyObject_VectorcallMethod(name, args, nargsf, NULL);
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *name, *positions, *only = Py_None;
    int pair, probe = 0;
    static char *names[] = {"name", "positions", "pair", "only", "probe", NULL};
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "UO!p|Op:StartMethod", names, &name, &PyTuple_Type, &positions,
                                     &pair, &only, &probe)) {
        return NULL;
    }
    Py_ssize_t count = PyTuple_GET_SIZE(positions);
    if (count > MAX_POSITIONS) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.StartMethod: positions must hold at most %d, got %zd",
                     MAX_POSITIONS, count);
        return NULL;
    }
    Py_ssize_t at[MAX_POSITIONS];
    for (Py_ssize_t k = 0; k < count; k++) {
        at[k] = PyLong_AsSsize_t(PyTuple_GET_ITEM(positions, k));
        if (at[k] < 0 || at[k] >= MAX_ARGS) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "candlewick._native.StartMethod: positions must be ints from 0 to "
                             "%d", MAX_ARGS - 1);
            }
            return NULL;
        }
    }
    StartMethod *self = (StartMethod *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->vectorcall = start_call;
    self->name = Py_NewRef(name);
    PyUnicode_InternInPlace(&self->name);
    self->pair = pair;
    self->probe = probe;
    self->only = only == Py_None ? NULL : Py_NewRef(only);
    self->npositions = count;
    for (Py_ssize_t k = 0; k < count; k++) {
        self->positions[k] = at[k];
    }
    return (PyObject *)self;
}

static PyObject *bind(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    return obj == NULL || obj == Py_None ? Py_NewRef(self) : PyMethod_New(self, obj);
}

static PyObject *get_name(StartMethod *self, void *unused) {
    (void)unused;
    return Py_NewRef(self->name);
}

static PyGetSetDef getset[] = {
    {"__name__", (getter)get_name, NULL, "the primitive's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static void dealloc(StartMethod *self) {
    Py_CLEAR(self->name);
    Py_CLEAR(self->only);
    cw_key_memo_clear(&self->memo);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject cw_StartMethodType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.StartMethod",
    .tp_basicsize = sizeof(StartMethod),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "StartMethod(name, positions, pair, only=None, probe=False): lazy_policy.Start's method for a "
              "primitive (see _native_lazy_start.c)",
    .tp_new = make,
    .tp_dealloc = (destructor)dealloc,
    .tp_vectorcall_offset = offsetof(StartMethod, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_descr_get = bind,
    .tp_getset = getset,
};

const char cw_lazy_starts_doc[] =
    "lazy_starts(start_type, policy)\n\n"
    "What every StartMethod shares (see _native_lazy_start.c): lazy_policy.Start, whose\n"
    "object slots pending and real it reads, and lazy_policy's globals.";

PyObject *cw_lazy_starts(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0]) || !PyDict_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.lazy_starts: takes a type and a dict");
        return NULL;
    }
    Py_ssize_t pending, real;
    if (cw_slot_offset((PyTypeObject *)args[0], "pending", &pending) < 0 ||
        cw_slot_offset((PyTypeObject *)args[0], "real", &real) < 0 || cw_lazy_key_policy(args[1]) < 0) {
        return NULL;
    }
    Py_XSETREF(start_type, (PyTypeObject *)Py_NewRef(args[0]));
    pending_at = pending;
    real_at = real;
    Py_RETURN_NONE;
}

int cw_lazy_start_ready(void) {
    return cw_lazy_key_ready() < 0 ? -1 : PyType_Ready(&cw_StartMethodType);
}
