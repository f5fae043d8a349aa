/* candlewick._native's LazyBlock: a `with candlewick.lazy():` block's entry and exit, in
   C (candlewick/fusion/lazy_mode.py subclasses it for the decorator's part).

   A loop that enters a block per call (`with cw.lazy(): f(x)`: scipy.fft's rfft/irfft
   on 0.1 ms arrays) pays the entry and the exit on every call; in Python they were two
   frames each (the block's method and the gate's switch) around a lock, about half of
   what lazy mode added to such a call. Here each is one call of C, which holds the GIL
   throughout, so the count of open blocks needs no lock: nothing between its read and
   its write runs Python code.

   lazy_blocks(var, gate, flush, live, lazy_type, process_on) says what the blocks share:
   the context variable that says lazy mode is on here, the gate (lazy_gate.GATE: its
   `on` and the hooks its `write_into` and `operand`), the function that runs what is
   pending (called at an exit only while the set `live` of graphs holding nodes is
   non-empty), the recorded storages' type and whether the environment turned lazy
   mode on for the process. The gate is on (GATE.on and the C fast paths' switch,
   set_lazy) while the environment says so or any block is open.

   The gate's flips (an entry and an exit each, for a block per call) write GATE.on's
   object slot and read its hooks from theirs (lazy_gate.Gate's __slots__), and
   lazy()'s LazyBlock(enabled) skips the argument parser: together about an eighth of
   an empty block's instructions.

   A block per call makes no object: _native_lazy_kept.c.

   gate_on is this file's copy of GATE.on (an entry then reads no attribute): only the
   blocks write GATE.on (set_gate here). Code that sets GATE.on by hand (a test) leaves
   the copy stale: an entry that finds the copy on makes nothing, an exit may turn off
   what was set by hand, and the switch no longer matches GATE.on. Such code calls
   lazy_blocks again afterwards with lazy_mode's arguments (fusion/lazy_mode.py's
   native_lazy_blocks call), which reads GATE.on as it stands and makes the gate and the
   switch afresh, or sets GATE.on back before any block enters or exits. */

#include "_native.h"
#include "_native_lazy.h"
#include "_native_lazy_block.h"

#include <structmember.h>

static PyObject *block_var, *block_gate, *block_flush, *block_live, *block_lazy_type;
static int process_on, gate_on;
static Py_ssize_t open_blocks;
static PyObject *on_attr, *write_into_attr, *operand_attr;
static Py_ssize_t on_at = -1; /* GATE.on's object slot where a store to it is object's, else -1 */
/* GATE.write_into's and GATE.operand's object slots where its reads are object's, else -1 */
static Py_ssize_t write_into_at = -1, operand_at = -1;

/* GATE.on = value (0, or -1 with an error): its slot written directly where it is one
   (half of what a block's entry and exit add to a call is their flips of the gate) */
static int set_on(PyObject *value) {
    if (on_at < 0) {
        return PyObject_SetAttr(block_gate, on_attr, value);
    }
    Py_XSETREF(SLOT(block_gate, on_at), Py_NewRef(value));
    return 0;
}

/* The gate's object slot `name` in *at where `generic` (its type's getattr or setattr
   is object's: nothing else runs on the access), else -1: 0, or -1 with an error other
   than its not being one. */
static int gate_slot(PyTypeObject *type, int generic, const char *name, Py_ssize_t *at) {
    *at = -1;
    if (generic && cw_slot_offset(type, name, at) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
            return -1;
        }
        PyErr_Clear(); /* not an object slot: through the attribute */
        *at = -1;
    }
    return 0;
}

/* GATE's hook `name` (new reference, or NULL with an error): its slot `at` read directly
   where set (an entry of a block per call reads two: ~200 instructions through the
   attribute lookup, a twentieth of what lazy mode added to scipy.fft's call) */
static PyObject *hook(Py_ssize_t at, PyObject *name) {
    PyObject *value = at < 0 ? NULL : SLOT(block_gate, at);
    return value != NULL ? Py_NewRef(value) : cw_member(block_gate, name);
}

/* GATE.on and the switch made what the environment and the open blocks say: 0, or -1
   with an error set (the gate then unchanged). */
static int set_gate(void) {
    int on = process_on || open_blocks > 0;
    if (on == gate_on || block_gate == NULL) {
        return 0;
    }
    PyObject *write = NULL, *operand = NULL;
    if (on) { /* (the hooks read now: a test may wrap one) */
        write = hook(write_into_at, write_into_attr);
        operand = write == NULL ? NULL : hook(operand_at, operand_attr);
        if (operand == NULL) {
            Py_XDECREF(write);
            return -1;
        }
    }
    if (set_on(on ? Py_True : Py_False) < 0) {
        Py_XDECREF(write);
        Py_XDECREF(operand);
        return -1;
    }
    gate_on = on;
    int done = cw_set_lazy(on ? write : Py_None, on ? operand : Py_None, on ? block_live : Py_None,
                           on ? block_lazy_type : Py_None);
    Py_XDECREF(write);
    Py_XDECREF(operand);
    return done;
}

static PyObject *make(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *enabled;
    static char *names[] = {"enabled", NULL};
    if (kwargs == NULL && PyTuple_GET_SIZE(args) == 1 && PyBool_Check(PyTuple_GET_ITEM(args, 0))) {
        enabled = PyTuple_GET_ITEM(args, 0); /* lazy()'s call: the parse below costs as much as the rest */
    } else if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!:LazyBlock", names, &PyBool_Type, &enabled)) {
        return NULL;
    }
    return cw_new_block(type, enabled);
}

/* The token of the entry before the innermost back in self->token (an exit, or an
   entry undone). */
static void pop_outer(Block *self) {
    Py_ssize_t n = self->outer == NULL ? 0 : PyList_GET_SIZE(self->outer);
    if (n > 0) {
        self->token = Py_NewRef(PyList_GET_ITEM(self->outer, n - 1));
        (void)PyList_SetSlice(self->outer, n - 1, n, NULL); /* (shrinking a list: no allocation) */
    }
}

static PyObject *enter(Block *self, PyObject *unused) {
    (void)unused;
    if (block_var == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.LazyBlock.__enter__: lazy_blocks was not called");
        return NULL;
    }
    int quiet = 0;
    if (self->token == NULL && self->learns && self->enabled == Py_True && !process_on &&
        (quiet = cw_lazy_site_enter(self, block_var)) < 0) {
        return NULL;
    }
    if (quiet) { /* a trial, or its statement ran faster so: eagerly, the gate untouched (_native_lazy_sites.c) */
        PyObject *token = PyContextVar_Set(block_var, cw_lazy_quiet);
        if (token == NULL) {
            Py_CLEAR(self->site);
            return NULL;
        }
        self->token = token;
        self->quiet = 1;
        Py_RETURN_NONE;
    }
    if (self->token != NULL) { /* entered again inside itself: the outer entry's token kept */
        if (self->outer == NULL && (self->outer = PyList_New(0)) == NULL) {
            return NULL;
        }
        if (PyList_Append(self->outer, self->token) < 0) {
            return NULL;
        }
        Py_CLEAR(self->token);
    }
    PyObject *token = PyContextVar_Set(block_var, self->enabled);
    if (token != NULL) {
        open_blocks++;
        if (gate_on || set_gate() == 0) {
            self->token = token;
            Py_RETURN_NONE;
        }
        open_blocks--;
        PyObject *kind, *value, *trace;
        PyErr_Fetch(&kind, &value, &trace);
        (void)PyContextVar_Reset(block_var, token);
        PyErr_Restore(kind, value, trace);
        Py_DECREF(token);
    }
    pop_outer(self);
    if (self->token == NULL) {
        Py_CLEAR(self->site); /* (the outermost entry undone: nothing to learn) */
    }
    return NULL;
}

static PyObject *leave(Block *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.LazyBlock.__exit__: takes 3 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *token = self->token;
    if (token == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "candlewick._native.LazyBlock.__exit__: the block is not entered");
        return NULL;
    }
    self->token = NULL;
    pop_outer(self);
    int outermost = self->token == NULL, quiet = outermost && self->quiet;
    if (outermost) {
        self->quiet = 0;
    }
    int failed = PyContextVar_Reset(block_var, token) < 0;
    Py_DECREF(token);
    if (!failed && PySet_GET_SIZE(block_live) > 0) {
        /* what the block recorded runs before its arrays are used outside it */
        PyObject *done = PyObject_CallNoArgs(block_flush);
        if (done == NULL && args[0] != Py_None) {
            PyErr_Clear(); /* the block's own error goes on; what is pending runs when it is needed */
        }
        failed = done == NULL && args[0] == Py_None;
        Py_XDECREF(done);
    }
    if (outermost && self->site != NULL) { /* (after the flush: a graph the block's end runs is the block's) */
        PyObject *kind, *value, *trace;
        PyErr_Fetch(&kind, &value, &trace);
        cw_lazy_site_leave(self, quiet);
        PyErr_Restore(kind, value, trace);
    }
    if (quiet) {
        return failed ? NULL : Py_NewRef(Py_False);
    }
    open_blocks--;
    if (open_blocks == 0) {
        PyObject *kind, *value, *trace;
        PyErr_Fetch(&kind, &value, &trace);
        if (set_gate() < 0) {
            if (failed) {
                PyErr_Clear(); /* the first error is the one to raise */
            }
            failed = 1;
        }
        if (kind != NULL) {
            PyErr_Restore(kind, value, trace);
        }
    }
    return failed ? NULL : Py_NewRef(Py_False);
}

static int traverse(Block *self, visitproc visit, void *arg) {
    Py_VISIT(self->token);
    Py_VISIT(self->outer);
    Py_VISIT(self->bound[0]);
    Py_VISIT(self->bound[1]);
    return 0;
}

static int clear(Block *self) {
    Py_CLEAR(self->token);
    Py_CLEAR(self->outer);
    Py_CLEAR(self->bound[0]);
    Py_CLEAR(self->bound[1]);
    Py_CLEAR(self->site);
    return 0;
}

static void dealloc(Block *self) {
    PyObject_GC_UnTrack(self);
    clear(self);
    Py_CLEAR(self->enabled);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMethodDef block_methods[] = {
    {"__enter__", (PyCFunction)enter, METH_NOARGS, "Lazy mode on (enabled) or off in this context; the gate on."},
    {"take", (PyCFunction)cw_lazy_block_take, METH_O | METH_CLASS,
     "take(enabled): a block for enabled, not entered: the one take last made for it where no one else "
     "holds it any more and its class leaves nothing on it (no __dict__, weak references or finalizer), "
     "else a new one."},
    {"__exit__", (PyCFunction)(void (*)(void))leave, METH_FASTCALL,
     "The context's mode back; what is pending run (its error raised unless the block raised); the gate "
     "off after the last open block."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef block_members[] = {
    {"enabled", T_OBJECT, offsetof(Block, enabled), READONLY, "True: lazy mode inside the block; False: eager"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject cw_LazyBlockType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.LazyBlock",
    .tp_basicsize = sizeof(Block),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "LazyBlock(enabled): a lazy() block's entry and exit (lazy_blocks says what they share)",
    .tp_new = make,
    .tp_traverse = (traverseproc)traverse,
    .tp_clear = (inquiry)clear,
    .tp_dealloc = (destructor)dealloc,
    .tp_methods = block_methods,
    .tp_members = block_members,
};

const char cw_lazy_blocks_doc[] =
    "lazy_blocks(var, gate, flush, live, lazy_type, process_on)\n\n"
    "What every LazyBlock shares (see _native_lazy_block.c), then the gate made what\n"
    "process_on and the blocks open say.";

PyObject *cw_lazy_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6 || !PyContextVar_CheckExact(args[0]) || !PyCallable_Check(args[2]) ||
        !PySet_CheckExact(args[3]) || !PyType_Check(args[4]) || !PyBool_Check(args[5])) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.lazy_blocks: takes a ContextVar, the gate, a "
                                         "callable, a set, a type and a bool");
        return NULL;
    }
    Py_ssize_t gate_on_at, gate_write_at, gate_operand_at;
    PyTypeObject *gate_type = Py_TYPE(args[1]);
    int reads = gate_type->tp_getattro == PyObject_GenericGetAttr;
    if (gate_slot(gate_type, gate_type->tp_setattro == PyObject_GenericSetAttr, "on", &gate_on_at) < 0 ||
        gate_slot(gate_type, reads, "write_into", &gate_write_at) < 0 ||
        gate_slot(gate_type, reads, "operand", &gate_operand_at) < 0) {
        return NULL;
    }
    PyObject *old[] = {block_var, block_gate, block_flush, block_live, block_lazy_type};
    block_var = Py_NewRef(args[0]);
    block_gate = Py_NewRef(args[1]);
    block_flush = Py_NewRef(args[2]);
    block_live = Py_NewRef(args[3]);
    block_lazy_type = Py_NewRef(args[4]);
    process_on = args[5] == Py_True;
    on_at = gate_on_at;
    write_into_at = gate_write_at;
    operand_at = gate_operand_at;
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(old[i]);
    }
    PyObject *now = PyObject_GetAttr(block_gate, on_attr); /* the gate as it stands */
    if (now == NULL) {
        return NULL;
    }
    gate_on = now == Py_True;
    Py_DECREF(now);
    if (gate_on) { /* the switch made again with this gate's hooks */
        gate_on = 0;
        if (cw_set_lazy(Py_None, Py_None, Py_None, Py_None) < 0 ||
            set_on(Py_False) < 0) {
            return NULL;
        }
    }
    return set_gate() < 0 ? NULL : Py_NewRef(Py_None);
}

int cw_lazy_block_ready(void) {
    static const char *const texts[] = {"on", "write_into", "operand"};
    PyObject **names[] = {&on_attr, &write_into_attr, &operand_attr};
    if (cw_intern_names(sizeof(texts) / sizeof(texts[0]), texts, names) < 0) {
        return -1;
    }
    return PyType_Ready(&cw_LazyBlockType) < 0 ? -1 : cw_lazy_block_entries_ready();
}
