/* candlewick._native's lazy mode as the C paths read it: what lazy_operands(mode,
   traced_type, lazy_type) gives (lazy_mode's globals: `_block`, the context variable of
   the mode; `_process_on`; `RECORDED`; `_local`, whose identity the thread's last answer
   of `_recording` is kept with; `_recording`; `RECORD_EVERYWHERE`; read as they stand at
   each call, as the Python functions read them (tests set them; a view read again where
   the module's dict changed, _native_lazy_globals.c), and the storage types of a trace
   and of lazy mode's recorded results, with the latter's slots), and the questions asked
   of it: whether lazy mode is on here (cw_lazy_mode_on), this thread's pending graph on a
   device (lazy_recording(device), lazy_mode's `_recording`, the thread's last answer kept
   in C), whether a storage is a call this thread deferred (lazy_defer) and whether that
   call is a copy, and lazy_write.rebinds(x) (cw_lazy_rebinds: the in-place operators'
   rebinding update, _native_inplace_run.c). The storage an element-wise call is made on
   is _native_lazy_operand.c's. */

#include "_native.h"
#include "_native_lazy.h"

cw_LazyTypes cw_lazy_types;
unsigned long long cw_lazy_recordings;
static PyObject *s_device, *s_last, *s_owner, *s_call, *s_copy;

/* lazy_mode's globals read here, in the order of the LG_ indices (_native_lazy.h) */
static const char *const mode_texts[LG_COUNT] = {"_block", "_process_on", "RECORDED", "_local", "_recording",
                                                 "RECORD_EVERYWHERE"};
static PyObject *mode_names[LG_COUNT], *mode_values[LG_COUNT];
cw_GlobalsView cw_lazy_globals = {.module = "lazy_mode", .count = LG_COUNT, .texts = mode_texts, .names = mode_names,
                                  .values = mode_values};

/* (_native_lazy.h) x's slot `at` of the bound array class, or its attribute `name` (new
   reference). */
PyObject *cw_array_field(PyObject *x, Py_ssize_t at, PyObject *name) {
    if (Py_TYPE(x) == cw_bound.array_type && SLOT(x, at) != NULL) {
        return Py_NewRef(SLOT(x, at));
    }
    return PyObject_GetAttr(x, name);
}

/* This thread's pending graph on `device`, lazy mode being on here (the caller's test),
   or None where the device does not record (new reference), NULL on an error: the
   thread's last answer where it was for that device, RECORD_EVERYWHERE and _local, else
   _recording's. C keeps it in the thread's own dict (PyThreadState_GetDict: a dict
   read) rather than reading _local.last, which _recording keeps for the Python path: a
   threading.local's attribute costs ~1.3k
   instructions, a third of what lazy mode added to `spectrum * response`. The answer
   for a thread, device and setting stands as long as _local does (_recording's Pending
   for a device is made once per thread and kept in _local.pending). */
static PyObject *recording_on(PyObject *device) {
    if (cw_globals_fresh(&cw_lazy_globals) < 0) {
        return NULL;
    }
    PyObject *local = mode_values[LG_LOCAL], *everywhere = mode_values[LG_EVERYWHERE];
    PyObject *own = PyThreadState_GetDict(); /* (borrowed; NULL: none to keep the answer in) */
    PyObject *last = own == NULL ? NULL : PyDict_GetItemWithError(own, s_last); /* (_local, device, setting, answer) */
    if (last != NULL && PyTuple_CheckExact(last) && PyTuple_GET_SIZE(last) == 4 && PyTuple_GET_ITEM(last, 0) == local &&
        PyTuple_GET_ITEM(last, 1) == device && PyTuple_GET_ITEM(last, 2) == everywhere) {
        PyObject *kept = PyTuple_GET_ITEM(last, 3);
        cw_lazy_recordings += kept != Py_None;
        return Py_NewRef(kept);
    }
    if (PyErr_Occurred()) {
        return NULL;
    }
    /* (held: _recording runs Python code, which may rebind lazy_mode's globals) */
    Py_INCREF(local);
    Py_INCREF(everywhere);
    PyObject *answer = PyObject_CallOneArg(mode_values[LG_RECORDING], device);
    cw_lazy_recordings += answer != NULL && answer != Py_None;
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
PyObject *cw_lazy_recording(PyObject *x) {
    PyObject *device = cw_array_field(x, cw_bound.device, s_device);
    if (device == NULL) {
        return NULL;
    }
    PyObject *answer = recording_on(device); /* (the globals read again: the attribute may run Python code) */
    Py_DECREF(device);
    return answer;
}

/* Whether lazy mode is on here (lazy_mode.is_lazy): 1, 0, or -1 with an error; the
   globals fresh. */
int cw_lazy_mode_on(void) {
    PyObject *on = NULL;
    if (PyContextVar_Get(mode_values[LG_BLOCK], NULL, &on) < 0) {
        return -1;
    }
    if (on == NULL || on == Py_None) {
        Py_XDECREF(on);
        on = Py_NewRef(mode_values[LG_PROCESS_ON]);
    }
    int lazy = on == NULL ? -1 : PyObject_IsTrue(on);
    Py_XDECREF(on);
    return lazy;
}

/* Whether `storage` (a LazyStorage pending elsewhere than `pending`'s graph) is a call
   `pending` deferred (its node None, its pending a Deferral whose owner is `pending`):
   1, 0, or -1 with an error. */
int cw_lazy_own_deferral(PyObject *storage, PyObject *pending) {
    PyObject *node = SLOT(storage, cw_lazy_types.node_at), *deferral = SLOT(storage, cw_lazy_types.pending_at);
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
int cw_lazy_copy_call(PyObject *call) {
    return PyTuple_CheckExact(call) && PyTuple_GET_SIZE(call) > 0 && PyUnicode_CheckExact(PyTuple_GET_ITEM(call, 0)) &&
           PyUnicode_Compare(PyTuple_GET_ITEM(call, 0), s_copy) == 0;
}

/* lazy_mode._recording(device): see there. */
PyObject *cw_lazy_recording_of(PyObject *module, PyObject *device) {
    (void)module;
    if (cw_lazy_globals.dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_recording: lazy_operands was not called");
        return NULL;
    }
    if (cw_globals_fresh(&cw_lazy_globals) < 0) {
        return NULL;
    }
    int lazy = cw_lazy_mode_on();
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
    if (cw_lazy_globals.dict == NULL || Py_TYPE(x) != cw_bound.array_type) {
        return 0;
    }
    /* alone: x's slot is the storage's one reference (the Python path's SOLE) */
    PyObject *storage = SLOT(x, cw_bound.storage);
    if (storage == NULL || Py_REFCNT(storage) != 1 || Py_TYPE(storage) != (PyTypeObject *)cw_lazy_types.lazy_type ||
        SLOT(storage, cw_lazy_types.real_at) != Py_None || SLOT(storage, cw_lazy_types.pending_at) == NULL) {
        return 0;
    }
    if (cw_globals_fresh(&cw_lazy_globals) < 0) {
        return -1;
    }
    int lazy = cw_lazy_mode_on();
    if (lazy <= 0) {
        return lazy;
    }
    Py_INCREF(storage); /* (held: recording may run Python code that rebinds x's slots) */
    PyObject *pending = cw_lazy_recording(x);
    int out = pending == NULL ? -1 : 0;
    if (pending != NULL && pending != Py_None) {
        if (SLOT(storage, cw_lazy_types.node_at) != Py_None) {
            out = SLOT(storage, cw_lazy_types.pending_at) == pending; /* a result pending in this thread's graph */
        } else if ((out = cw_lazy_own_deferral(storage, pending)) == 1) { /* deferred here: only a copy's update reads its source */
            PyObject *call = cw_member(SLOT(storage, cw_lazy_types.pending_at), s_call);
            out = call == NULL ? -1 : cw_lazy_copy_call(call);
            Py_XDECREF(call);
        }
    }
    Py_XDECREF(pending);
    Py_DECREF(storage);
    return out;
}

const char cw_lazy_recording_doc[] =
    "lazy_recording(device)\n\nlazy_mode._recording(device) in C: this thread's pending graph on device where lazy\n"
    "mode is on here and the device records, else None (see _native_lazy_mode.c).";


const char cw_lazy_operands_doc[] =
    "lazy_operands(mode, traced_type, lazy_type)\n\n"
    "What lazy mode's C paths read (see _native_lazy_mode.c): lazy_mode's globals and the\n"
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
    if (cw_globals_give(&cw_lazy_globals, args[0]) < 0) {
        return NULL;
    }
    Py_XSETREF(cw_lazy_types.traced_type, Py_NewRef(args[1]));
    Py_XSETREF(cw_lazy_types.lazy_type, Py_NewRef(args[2]));
    cw_lazy_types.graph_at = graph;
    cw_lazy_types.real_at = real;
    cw_lazy_types.node_at = node;
    cw_lazy_types.pending_at = pending;
    Py_RETURN_NONE;
}

int cw_lazy_mode_ready(void) {
    static const char *const texts[] = {"_device", "candlewick.lazy_last", "owner", "call", "copy"};
    PyObject **names[] = {&s_device, &s_last, &s_owner, &s_call, &s_copy};
    return cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names);
}
