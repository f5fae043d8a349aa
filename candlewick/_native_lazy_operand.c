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
   is deferred again.

   What it reads of lazy mode (lazy_mode's globals, the storage types, the thread's
   pending graph) is _native_lazy_mode.c's. lazy_policy's RECORD_BYTES is read through
   _native_lazy_key.c (lazy_starts is called first, at lazy_policy's import). */

#include "_native.h"
#include "_native_lazy.h"

static PyObject *s_storage, *s_graph, *s_call, *s_layout;

/* What a read of x, whose storage is `storage` (a call `pending` deferred: own_deferral),
   is made on instead: the source of a deferred copy (new reference) where x reads the
   copy through its plain view (x's layout of the copy's shape, its dense size known) and
   `pending` holds no probe, as lazy_copy.on_source answers then; NULL without an error
   where not (the copy's own methods decide), NULL with one on an error. */
static PyObject *deferred_copy_source(PyObject *x, PyObject *storage, PyObject *pending) {
    PyObject *call = cw_member(SLOT(storage, cw_lazy_types.pending_at), s_call);
    if (call == NULL) {
        return NULL;
    }
    PyObject *source = NULL, *args, *copied;
    if (cw_lazy_copy_call(call) && PyTuple_GET_SIZE(call) == 3 && PyTuple_CheckExact(args = PyTuple_GET_ITEM(call, 2)) &&
        PyTuple_GET_SIZE(args) >= 1 && cw_bound.layout_type != NULL &&
        Py_TYPE(copied = PyTuple_GET_ITEM(args, 0)) == cw_bound.layout_type) {
        PyObject *layout = cw_array_field(x, cw_bound.layout, s_layout);
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
    if (cw_lazy_globals.dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.lazy_operand: lazy_operands was not called");
        return NULL;
    }
    PyObject *storage = cw_array_field(x, cw_bound.storage, s_storage);
    if (storage == NULL || Py_TYPE(storage) == (PyTypeObject *)cw_lazy_types.traced_type) {
        return storage; /* tracing a fused function: its own recording */
    }
    if (Py_TYPE(storage) == (PyTypeObject *)cw_lazy_types.lazy_type && SLOT(storage, cw_lazy_types.graph_at) == Py_None) {
        PyObject *real = SLOT(storage, cw_lazy_types.real_at); /* a result that has run: x holds it from now on */
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
    int recorded = Py_TYPE(storage) == (PyTypeObject *)cw_lazy_types.lazy_type;
    if (cw_globals_fresh(&cw_lazy_globals) < 0) {
        Py_DECREF(storage);
        return NULL;
    }
    PyObject *graphs = cw_lazy_globals.values[LG_RECORDED]; /* (a kept result alone is no graph to join) */
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
        if (cw_globals_fresh(&cw_lazy_globals) < 0) { /* (the size test may have run Python code) */
            Py_DECREF(storage);
            return NULL;
        }
    }
    int lazy = cw_lazy_mode_on();
    PyObject *pending = lazy <= 0 ? NULL : cw_lazy_recording(x);
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
        } else if (graph == SLOT(storage, cw_lazy_types.graph_at)) { /* pending in this graph */
            out = Py_NewRef(storage);
        } else {
            int deferred = cw_lazy_own_deferral(storage, pending);
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

PyObject *cw_lazy_call(PyObject *name, PyObject *x, PyObject **args, size_t nargsf) {
    PyObject *hook = cw_lazy_operand, *pending = NULL, *storage;
    int sized = 0;
    if (hook == NULL) { /* (lazy mode off, or on without the operand hook: x's own storage) */
        return cw_call_primitive(name, args, nargsf);
    }
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

const char cw_lazy_copy_operand_doc[] =
    "lazy_copy_operand(x)\n\nlazy_mode._copy_operand(x) in C: lazy_operand(x), but a copy this thread deferred is\n"
    "itself (see _native_lazy_operand.c).";

int cw_lazy_operand_ready(void) {
    static const char *const texts[] = {"_storage", "graph", "call", "_layout"};
    PyObject **names[] = {&s_storage, &s_graph, &s_call, &s_layout};
    return cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names);
}
