/* candlewick._native's lazy_operand(x): the storage an element-wise primitive is called
   on for the array x in lazy mode (candlewick/fusion/lazy_mode.py's `_operand`, the same
   answer in Python where this module is not built).

   Every element-wise call made while a lazy() block is open asks it once per array
   operand (scipy.fft's `spectrum * response` between two transforms): in Python it was
   a frame and a dozen attribute and global reads, about 5k instructions, as much as the
   C decision after it (_native_lazy_start.c). Here it is one call of C, which also makes
   the Start (lazy_policy's) without object.__new__ and two slot stores in Python; the C
   element-wise path (cw_lazy_call) makes no Start at all: the decision is called on the
   Start's parts (cw_start_call), told that the size test was made. A copy this thread
   deferred (lazy_defer), read through its plain view, answers its source's Start (the
   copy is never made for the read); lazy_copy_operand(x), lazy_mode's `_copy_operand`
   (the storage a copy or cast is made on), answers the copy itself instead, whose copy
   is deferred again. lazy_recording(device) is lazy_mode's `_recording` (what each
   recorded call asks first), the thread's last answer kept as lazy_operand keeps it.

   lazy_operands(mode, traced_type, lazy_type) says what it reads: lazy_mode's globals
   (`_block`, the context variable of the mode; `_process_on`; `RECORDED`; `_local`, whose
   identity the thread's last answer of `_recording` is kept with; `_recording`;
   `RECORD_EVERYWHERE`), as they stand at each call, as the Python function reads them
   (tests set them; a view read again where the module's dict changed,
   _native_lazy_globals.c), and the storage types of a
   trace and of lazy mode's recorded results. lazy_policy's RECORD_BYTES is read through
   _native_lazy_key.c (lazy_starts is called first, at lazy_policy's import). */

#include "_native.h"
#include "_native_lazy.h"

static PyObject *traced_type, *lazy_type;
static Py_ssize_t graph_at, real_at, node_at, pending_at;
static PyObject *s_storage, *s_device, *s_last, *s_graph, *s_owner, *s_call, *s_layout, *s_copy;

/* lazy_mode's globals read here (mode_values), in the order of `globals` in cw_lazy_operand_ready */
enum { M_BLOCK, M_PROCESS_ON, M_RECORDED, M_LOCAL, M_RECORDING, M_EVERYWHERE, M_COUNT };
static PyObject *mode_names[M_COUNT], *mode_values[M_COUNT];
static cw_GlobalsView mode = {.module = "lazy_mode", .count = M_COUNT, .names = mode_names, .values = mode_values};

/* x's slot `at` of the bound array class, or its attribute `name` (new reference). */
static PyObject *array_field(PyObject *x, Py_ssize_t at, PyObject *name) {
    if (Py_TYPE(x) == cw_bound.array_type && SLOT(x, at) != NULL) {
        return Py_NewRef(SLOT(x, at));
    }
    return PyObject_GetAttr(x, name);
}

/* This thread's pending graph on `device`, lazy mode being on here (the caller's test),
   or None where the device does not record (new reference), NULL on an error: the
   thread's last answer where it was for that device, RECORD_EVERYWHERE and _local, else
   _recording's. C keeps it in the thread's
   own dict (PyThreadState_GetDict: a dict read) rather than reading _local.last, which
   _recording keeps for the Python path: a threading.local's attribute costs ~1.3k
   instructions, a third of what lazy mode added to `spectrum * response`. The answer
   for a thread, device and setting stands as long as _local does (_recording's Pending
   for a device is made once per thread and kept in _local.pending). */
static PyObject *recording_on(PyObject *device) {
    if (cw_globals_fresh(&mode) < 0) {
        return NULL;
    }
    PyObject *local = mode_values[M_LOCAL], *everywhere = mode_values[M_EVERYWHERE];
    PyObject *own = PyThreadState_GetDict(); /* (borrowed; NULL: none to keep the answer in) */
    PyObject *last = own == NULL ? NULL : PyDict_GetItemWithError(own, s_last); /* (_local, device, setting, answer) */
    if (last != NULL && PyTuple_CheckExact(last) && PyTuple_GET_SIZE(last) == 4 && PyTuple_GET_ITEM(last, 0) == local &&
        PyTuple_GET_ITEM(last, 1) == device && PyTuple_GET_ITEM(last, 2) == everywhere) {
        return Py_NewRef(PyTuple_GET_ITEM(last, 3));
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    /* (held: _recording runs Python code, which may rebind lazy_mode's globals) */
    Py_INCREF(local);
    Py_INCREF(everywhere);
    PyObject *answer = PyObject_CallOneArg(mode_values[M_RECORDING], device);
    if (answer != NULL && own != NULL) {
        PyObject *kept = PyTuple_Pack(4, local, device, everywhere, answer);
        if (kept == NULL || PyDict_SetItem(own, s_last, kept) < 0) {
            Py_CLEAR(answer);
        }
        Py_XDECREF(kept);
    }
    Py_DECREF(local);
    Py_DECREF(everywhere);
    return answer;
}

/* recording_on(x's device) */
static PyObject *recording(PyObject *x) {
    PyObject *device = array_field(x, cw_bound.device, s_device);
    if (device == NULL) {
        return NULL;
    }
    PyObject *answer = recording_on(device); /* (the globals read again: the attribute may run Python code) */
    Py_DECREF(device);
    return answer;
}

/* Whether lazy mode is on here (lazy_mode.is_lazy): 1, 0, or -1 with an error; the
   globals fresh. */
static int mode_on(void) {
    PyObject *on = NULL;
    if (PyContextVar_Get(mode_values[M_BLOCK], NULL, &on) < 0) {
        return -1;
    }
    if (on == NULL || on == Py_None) {
        Py_XDECREF(on);
        on = Py_NewRef(mode_values[M_PROCESS_ON]);
    }
    int lazy = on == NULL ? -1 : PyObject_IsTrue(on);
    Py_XDECREF(on);
    return lazy;
}

/* Whether `storage` (a LazyStorage pending elsewhere than `pending`'s graph) is a call
   `pending` deferred (its node None, its pending a Deferral whose owner is `pending`):
   1, 0, or -1 with an error. */
static int own_deferral(PyObject *storage, PyObject *pending) {
    PyObject *node = SLOT(storage, node_at), *deferral = SLOT(storage, pending_at);
    if (node != Py_None || deferral == NULL) {
        return 0;
    }
    PyObject *owner = cw_member(deferral, s_owner);
    if (owner == NULL) {
        return -1;
    }
    int own = owner == pending;
    Py_DECREF(owner);
    return own;
}

/* Whether a Deferral's `call` is a copy's: (name, receiver, args) with name "copy". */
static int copy_call(PyObject *call) {
    return PyTuple_CheckExact(call) && PyTuple_GET_SIZE(call) > 0 && PyUnicode_CheckExact(PyTuple_GET_ITEM(call, 0)) &&
           PyUnicode_Compare(PyTuple_GET_ITEM(call, 0), s_copy) == 0;
}

/* What a read of x, whose storage is `storage` (a call `pending` deferred: own_deferral),
   is made on instead: the source of a deferred copy (new reference) where x reads the
   copy through its plain view (x's layout of the copy's shape, its dense size known) and
   `pending` holds no probe, as lazy_copy.on_source answers then; NULL without an error
   where not (the copy's own methods decide), NULL with one on an error. */
static PyObject *deferred_copy_source(PyObject *x, PyObject *storage, PyObject *pending) {
    PyObject *call = cw_member(SLOT(storage, pending_at), s_call);
    if (call == NULL) {
        return NULL;
    }
    PyObject *source = NULL, *args, *copied;
    if (copy_call(call) && PyTuple_GET_SIZE(call) == 3 && PyTuple_CheckExact(args = PyTuple_GET_ITEM(call, 2)) &&
        PyTuple_GET_SIZE(args) >= 1 && cw_bound.layout_type != NULL &&
        Py_TYPE(copied = PyTuple_GET_ITEM(args, 0)) == cw_bound.layout_type) {
        PyObject *layout = array_field(x, cw_bound.layout, s_layout);
        if (layout == NULL) {
            Py_DECREF(call);
            return NULL;
        }
        int plain = cw_plain_view(layout);
        if (plain > 0) {
            plain = PyObject_RichCompareBool(SLOT(layout, cw_bound.shape), SLOT(copied, cw_bound.shape), Py_EQ);
        }
        Py_DECREF(layout);
        int probing = 0;
        if (plain > 0) {
            PyObject *mark = PyObject_GetAttr(pending, cw_s_probing);
            probing = mark == NULL ? -1 : PyObject_IsTrue(mark);
            Py_XDECREF(mark);
        }
        if (plain < 0 || probing < 0) {
            Py_DECREF(call);
            return NULL;
        }
        if (plain && !probing) {
            source = Py_NewRef(PyTuple_GET_ITEM(call, 1));
        }
    }
    Py_DECREF(call);
    return source;
}

/* lazy_mode._operand(x) (new reference, or NULL with an error), but where that is a
   new Start(pending, storage): storage, with *start_pending the pending graph (new
   reference; else NULL) and *sized whether storage's size test was made (the Start's
   decision need not make it again). */
static PyObject *operand(PyObject *x, PyObject **start_pending, int *sized, int keep_deferred) {
    *start_pending = NULL;
    *sized = 0;
    if (mode.dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_operand: lazy_operands was not called");
        return NULL;
    }
    PyObject *storage = array_field(x, cw_bound.storage, s_storage);
    if (storage == NULL || Py_TYPE(storage) == (PyTypeObject *)traced_type) {
        return storage; /* tracing a fused function: its own recording */
    }
    if (Py_TYPE(storage) == (PyTypeObject *)lazy_type && SLOT(storage, graph_at) == Py_None) {
        PyObject *real = SLOT(storage, real_at); /* a result that has run: x holds it from now on */
        if (real == NULL) {
            Py_DECREF(storage);
            PyErr_SetString(PyExc_AttributeError, "candlewick._native.lazy_operand: a run LazyStorage has no real");
            return NULL;
        }
        Py_SETREF(storage, Py_NewRef(real));
        if (PyObject_SetAttr(x, s_storage, storage) < 0) {
            Py_DECREF(storage);
            return NULL;
        }
    }
    int recorded = Py_TYPE(storage) == (PyTypeObject *)lazy_type;
    if (cw_globals_fresh(&mode) < 0) {
        Py_DECREF(storage);
        return NULL;
    }
    PyObject *graphs = mode_values[M_RECORDED]; /* (a kept result alone is no graph to join) */
    int recorded_anywhere = PyAnySet_CheckExact(graphs) ? PySet_GET_SIZE(graphs) > 0 : PyObject_IsTrue(graphs);
    if (recorded_anywhere < 0) {
        Py_DECREF(storage);
        return NULL;
    }
    if (!recorded_anywhere && !recorded) {
        *sized = 1;
        /* no graph recorded anywhere and x too small for fusing to pay: x's own primitive */
        const cw_Policy *policy = cw_policy_now();
        int small = policy == NULL ? -1 : cw_storage_smaller(storage, policy->record_bytes);
        if (small != 0) {
            if (small < 0) {
                Py_CLEAR(storage);
            }
            return storage;
        }
        if (cw_globals_fresh(&mode) < 0) { /* (the size test may have run Python code) */
            Py_DECREF(storage);
            return NULL;
        }
    }
    int lazy = mode_on();
    PyObject *pending = lazy <= 0 ? NULL : recording(x);
    if (pending == NULL || pending == Py_None) {
        Py_XDECREF(pending);
        if (lazy != 0 && PyErr_Occurred()) {
            Py_CLEAR(storage);
        }
        return storage; /* lazy mode is off here, or x's device does not record */
    }
    PyObject *out;
    if (recorded) {
        PyObject *graph = PyObject_GetAttr(pending, s_graph);
        if (graph == NULL) {
            out = NULL;
        } else if (graph == SLOT(storage, graph_at)) { /* pending in this graph */
            out = Py_NewRef(storage);
        } else {
            int deferred = own_deferral(storage, pending);
            if (deferred < 0) {
                out = NULL;
            } else if (deferred) { /* deferred here (lazy_defer) */
                PyObject *source = keep_deferred ? NULL : deferred_copy_source(x, storage, pending);
                if (source != NULL) { /* a copy read plainly: read from its source, a Start's */
                    Py_DECREF(graph);
                    Py_DECREF(storage);
                    *start_pending = pending;
                    return source;
                }
                out = PyErr_Occurred() ? NULL : Py_NewRef(storage); /* its own methods read what it defers */
            } else { /* pending in another graph (another device's, another thread's) */
                out = PyObject_CallMethodOneArg(pending, cw_s_tracer, storage);
            }
        }
        Py_XDECREF(graph);
    } else { /* a Start: recorded, or run at once (lazy_policy) */
        *start_pending = pending;
        return storage;
    }
    Py_DECREF(pending);
    Py_DECREF(storage);
    return out;
}

/* lazy_mode._operand(x), or (`keep_deferred`) _copy_operand(x): see there. */
static PyObject *operand_of(PyObject *x, int keep_deferred) {
    PyObject *pending;
    int sized;
    PyObject *storage = operand(x, &pending, &sized, keep_deferred);
    if (storage == NULL || pending == NULL) {
        return storage;
    }
    PyObject *start = cw_new_start(pending, storage);
    Py_DECREF(pending);
    Py_DECREF(storage);
    return start;
}

PyObject *cw_lazy_operand_of(PyObject *module, PyObject *x) {
    (void)module;
    return operand_of(x, 0);
}

PyObject *cw_lazy_copy_operand_of(PyObject *module, PyObject *x) {
    (void)module;
    return operand_of(x, 1);
}

/* lazy_mode._recording(device): see there. */
PyObject *cw_lazy_recording_of(PyObject *module, PyObject *device) {
    (void)module;
    if (mode.dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_recording: lazy_operands was not called");
        return NULL;
    }
    if (cw_globals_fresh(&mode) < 0) {
        return NULL;
    }
    int lazy = mode_on();
    if (lazy < 0) {
        return NULL;
    }
    if (!lazy) {
        Py_RETURN_NONE;
    }
    return recording_on(device);
}

/* (_native_lazy.h) lazy_write.rebinds(x) in C. */
int cw_lazy_rebinds(PyObject *x) {
    if (mode.dict == NULL || Py_TYPE(x) != cw_bound.array_type) {
        return 0;
    }
    /* alone: x's slot is the storage's one reference (the Python path's SOLE) */
    PyObject *storage = SLOT(x, cw_bound.storage);
    if (storage == NULL || Py_REFCNT(storage) != 1 || Py_TYPE(storage) != (PyTypeObject *)lazy_type ||
        SLOT(storage, real_at) != Py_None || SLOT(storage, pending_at) == NULL) {
        return 0;
    }
    if (cw_globals_fresh(&mode) < 0) {
        return -1;
    }
    int lazy = mode_on();
    if (lazy <= 0) {
        return lazy;
    }
    Py_INCREF(storage); /* (held: recording may run Python code that rebinds x's slots) */
    PyObject *pending = recording(x);
    int out = pending == NULL ? -1 : 0;
    if (pending != NULL && pending != Py_None) {
        if (SLOT(storage, node_at) != Py_None) {
            out = SLOT(storage, pending_at) == pending; /* a result pending in this thread's graph */
        } else if ((out = own_deferral(storage, pending)) == 1) { /* deferred here: only a copy's update reads its source */
            PyObject *call = cw_member(SLOT(storage, pending_at), s_call);
            out = call == NULL ? -1 : copy_call(call);
            Py_XDECREF(call);
        }
    }
    Py_XDECREF(pending);
    Py_DECREF(storage);
    return out;
}

PyObject *cw_lazy_call(PyObject *name, PyObject *x, PyObject **args, size_t nargsf) {
    PyObject *hook = cw_lazy_operand, *pending = NULL, *storage;
    int sized = 0;
    if (PyCFunction_Check(hook) && PyCFunction_GET_FUNCTION(hook) == cw_lazy_operand_of) {
        storage = operand(x, &pending, &sized, 0);
    } else {
        storage = PyObject_CallOneArg(hook, x); /* (a hook of the tests' or the Python path's) */
    }
    if (storage == NULL) {
        return NULL;
    }
    PyObject *given = args[0], *out;
    if (pending != NULL) {
        out = cw_start_call(name, pending, storage, (PyObject *const *)args + 1,
                            (Py_ssize_t)PyVectorcall_NARGS(nargsf) - 1, sized);
        Py_DECREF(pending);
    } else {
        args[0] = storage;
        out = cw_call_primitive(name, (PyObject *const *)args, nargsf);
        args[0] = given;
    }
    Py_DECREF(storage);
    return out;
}

const char cw_lazy_operand_doc[] = "lazy_operand(x)\n\nlazy_mode._operand(x) in C (see _native_lazy_operand.c).";

const char cw_lazy_recording_doc[] =
    "lazy_recording(device)\n\nlazy_mode._recording(device) in C: this thread's pending graph on device where lazy\n"
    "mode is on here and the device records, else None (see _native_lazy_operand.c).";

const char cw_lazy_copy_operand_doc[] =
    "lazy_copy_operand(x)\n\nlazy_mode._copy_operand(x) in C: lazy_operand(x), but a copy this thread deferred is\n"
    "itself (see _native_lazy_operand.c).";

const char cw_lazy_operands_doc[] =
    "lazy_operands(mode, traced_type, lazy_type)\n\n"
    "What lazy_operand reads (see _native_lazy_operand.c): lazy_mode's globals and the\n"
    "storage types of a trace and of lazy mode's recorded results.";

PyObject *cw_lazy_operands(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 3 || !PyDict_CheckExact(args[0]) || !PyType_Check(args[1]) || !PyType_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.lazy_operands: takes a dict and two types");
        return NULL;
    }
    Py_ssize_t graph, real, node, pending;
    if (cw_slot_offset((PyTypeObject *)args[2], "graph", &graph) < 0 ||
        cw_slot_offset((PyTypeObject *)args[2], "real", &real) < 0 ||
        cw_slot_offset((PyTypeObject *)args[2], "node", &node) < 0 ||
        cw_slot_offset((PyTypeObject *)args[2], "pending", &pending) < 0) {
        return NULL;
    }
    cw_globals_give(&mode, args[0]);
    Py_XSETREF(traced_type, Py_NewRef(args[1]));
    Py_XSETREF(lazy_type, Py_NewRef(args[2]));
    graph_at = graph;
    real_at = real;
    node_at = node;
    pending_at = pending;
    Py_RETURN_NONE;
}

int cw_lazy_operand_ready(void) {
    static const char *const texts[] = {"_storage", "_device", "candlewick.lazy_last", "graph", "owner", "call",
                                        "_layout", "copy"};
    PyObject **names[] = {&s_storage, &s_device, &s_last, &s_graph, &s_owner, &s_call, &s_layout, &s_copy};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) {
            return -1;
        }
    }
    static const char *const globals[M_COUNT] = {"_block", "_process_on", "RECORDED", "_local", "_recording",
                                                 "RECORD_EVERYWHERE"};
    for (int i = 0; i < M_COUNT; i++) {
        if ((mode_names[i] = PyUnicode_InternFromString(globals[i])) == NULL) {
            return -1;
        }
    }
    return 0;
}
