/* candlewick._native's LazyBlock made once and kept (_native_lazy_block.c is the block
   itself): a loop's `with cw.lazy():` per call makes no object.

   lazy() takes its block from LazyBlock.take, which gives the block it last made for
   `enabled` again once no one else holds it (its class without __dict__, weak
   references, finalizer or slots of its own: nothing left on it is seen), and such a kept block's bound
   __enter__ and __exit__ are made once and kept on it (Entry), where Python's `with`
   made two bound methods per entry. Together the block and the two bound methods were
   about a fifth of an empty block's instructions on Python 3.12. */

#include "_native.h"
#include "_native_lazy.h"
#include "_native_lazy_block.h"

PyObject *cw_new_block(PyTypeObject *type, PyObject *enabled) {
    Block *self = (Block *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->enabled = Py_NewRef(enabled);
    }
    return (PyObject *)self;
}

/* The block take(enabled) last made for each `enabled` (False, True), kept: given again
   while no one else holds it and it is not entered. */
static PyObject *kept[2];

/* Whether no one but kept[] holds `block` (nor its bound __enter__/__exit__, which hold
   it) and it is not entered. */
static int free_again(Block *block) {
    Py_ssize_t holders = 1;
    for (int k = 0; k < 2; k++) {
        if (block->bound[k] != NULL) {
            if (Py_REFCNT(block->bound[k]) != 1) {
                return 0;
            }
            holders++;
        }
    }
    return Py_REFCNT(block) == holders && block->token == NULL;
}

/* `block` kept (1) or let go (0: its bound methods then no longer kept, the cycle they
   make with it broken). */
static void set_kept(Block *block, int on) {
    block->kept = on;
    if (!on) {
        Py_CLEAR(block->bound[0]);
        Py_CLEAR(block->bound[1]);
    }
}

/* Whether a block of `type` given again is one made anew in all that can be seen: no
   instance dict or weak references that its last holder may have left on it, no
   finalizer that its end would have run. */
static int reusable(PyTypeObject *type) {
    /* (a subclass's own __slots__ would widen the object: their values would be seen) */
    return type->tp_basicsize == cw_LazyBlockType.tp_basicsize && type->tp_dictoffset == 0 && type->tp_weaklistoffset == 0 && type->tp_finalize == NULL &&
           type->tp_del == NULL;
}

PyObject *cw_lazy_block_take(PyTypeObject *type, PyObject *enabled) {
    if (!PyBool_Check(enabled)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.LazyBlock.take: enabled must be a bool, got %s",
                     Py_TYPE(enabled)->tp_name);
        return NULL;
    }
    int i = enabled == Py_True;
    PyObject *block = kept[i];
    /* (the GIL held: no other thread takes it between this test and the reference given) */
    if (block != NULL && Py_TYPE(block) == type && free_again((Block *)block)) {
        return Py_NewRef(block);
    }
    block = cw_new_block(type, enabled);
    if (block != NULL) {
        ((Block *)block)->learns = 1; /* a statement's block: its site learns (_native_lazy_sites.c) */
    }
    if (block != NULL && reusable(type)) {
        if (kept[i] != NULL) {
            set_kept((Block *)kept[i], 0);
        }
        set_kept((Block *)block, 1);
        Py_XSETREF(kept[i], Py_NewRef(block));
    }
    return block;
}

/* LazyBlock's __enter__ and __exit__: on a kept block (take's), the bound method made at
   its first `with` is kept on it and given again. Python's `with` looks both up on every
   entry, and each lookup of a C method made a bound method: two allocations and their
   deallocations, about a sixth of a block per call's instructions on Python 3.12. On the
   class, and on any other block, the method descriptor's own answer. */
typedef struct {
    PyObject_HEAD
    PyObject *plain; /* the method descriptor */
    int which;       /* 0 __enter__, 1 __exit__ */
} Entry;

static PyObject *entry_get(Entry *self, PyObject *obj, PyObject *type) {
    descrgetfunc get = Py_TYPE(self->plain)->tp_descr_get;
    if (obj == NULL || obj == Py_None || !PyObject_TypeCheck(obj, &cw_LazyBlockType)) {
        return get(self->plain, obj, type);
    }
    Block *block = (Block *)obj;
    if (block->bound[self->which] != NULL) {
        return Py_NewRef(block->bound[self->which]);
    }
    PyObject *bound = get(self->plain, obj, type);
    if (bound != NULL && block->kept) {
        block->bound[self->which] = Py_NewRef(bound); /* (a cycle with the block, broken by set_kept) */
    }
    return bound;
}

static int entry_traverse(Entry *self, visitproc visit, void *arg) {
    Py_VISIT(self->plain);
    return 0;
}

static void entry_dealloc(Entry *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->plain);
    PyObject_GC_Del(self);
}

static PyObject *entry_doc(Entry *self, void *unused) {
    (void)unused;
    return PyObject_GetAttrString(self->plain, "__doc__");
}

static PyGetSetDef entry_getset[] = {
    {"__doc__", (getter)entry_doc, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject EntryType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "candlewick._native.LazyBlockEntry",
    .tp_basicsize = sizeof(Entry),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)entry_traverse,
    .tp_dealloc = (destructor)entry_dealloc,
    .tp_descr_get = (descrgetfunc)entry_get,
    .tp_getset = entry_getset,
};

/* LazyBlock's __enter__ and __exit__ method descriptors wrapped in Entries (0, or -1 with
   an error). */
int cw_lazy_block_entries_ready(void) {
    if (PyType_Ready(&EntryType) < 0) {
        return -1;
    }
    static const char *const names[] = {"__enter__", "__exit__"};
    PyObject *dict = cw_LazyBlockType.tp_dict;
    for (int k = 0; k < 2; k++) {
        PyObject *plain = dict == NULL ? NULL : PyDict_GetItemString(dict, names[k]);
        if (plain == NULL || Py_TYPE(plain)->tp_descr_get == NULL) {
            PyErr_Format(PyExc_RuntimeError, "candlewick._native.LazyBlock: no method %s", names[k]);
            return -1;
        }
        Entry *entry = PyObject_GC_New(Entry, &EntryType);
        if (entry == NULL) {
            return -1;
        }
        entry->plain = Py_NewRef(plain);
        entry->which = k;
        PyObject_GC_Track(entry);
        int failed = PyDict_SetItemString(dict, names[k], (PyObject *)entry);
        Py_DECREF(entry);
        if (failed < 0) {
            return -1;
        }
    }
    PyType_Modified(&cw_LazyBlockType);
    return 0;
}
