/* candlewick._native's kept answers of lazy mode's run-at-once decision (_native_lazy_key.c's
   cw_counted asks them before it makes a call's key): each StartMethod keeps its last
   CW_MEMO_ENTRIES answers, each with what its key was made of, the objects it depends on
   by identity (_counts, REPLAYS, Layout, call_key_of, the Pending, the dtype) and the
   generation of the counts, and the parts of the call's arguments (cw_memo_parts), which
   make an equal key where they are equal: so an answer kept is the one _counts gives. */

#include "_native.h"
#include "_native_lazy.h"

#include <string.h>

/* How a part of a call's arguments is compared with a kept one (each also by its type):
   by identity, by ==, or by the bytes of a float's or complex's value. */
enum { PART_SAME, PART_EQUAL, PART_BITS };

/* Whether `a` is an int or a tuple of ints (Layout fields, axes): its == runs no Python
   code, so no other thread runs while a memo entry is compared. */
static int ints_only(PyObject *a) {
    if (PyLong_CheckExact(a) || PyBool_Check(a)) {
        return 1;
    }
    if (!PyTuple_CheckExact(a)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(a); i++) {
        PyObject *item = PyTuple_GET_ITEM(a, i);
        if (!PyLong_CheckExact(item) && !PyBool_Check(item)) {
            return 0;
        }
    }
    return 1;
}

/* The parts of a call's arguments its key is made of, as a memo entry compares them
   (borrowed in call->parts but each storage's dtype, read as a new reference and kept
   in call->owned; how each compares in call->kinds): each storage argument's dtype (its
   key holds the dtype's name), each Layout's shape, strides and offset, a float or
   complex by its bytes (0.0 and -0.0, two NaNs: other keys; a miss only asks again), an
   int, bool or tuple of ints (axes) by value, any other object (an op, a DType) by
   identity: equal parts make an equal key. call->count is 0 where the call gets no entry
   (a list argument: its key is the list's items as they are then; a tuple of anything
   else or a Layout of another class; a storage argument without a dtype, whose key
   raises). A Layout's fields are checked to be ints only when an entry is kept
   (cw_memo_keep) or compared by value (same_part): most calls find them the very
   tuples kept. */
void cw_memo_parts(PyObject *const *args, Py_ssize_t n, const Py_ssize_t *positions, Py_ssize_t npositions,
                   PyObject *layout_type, cw_MemoCall *call) {
    const Binding *b = &cw_bound;
    int count = 0;
    call->held = 0;
    call->nowned = 0;
    call->count = 0;
    if (n > CW_MEMO_ARGS) {
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = args[i];
        int storage = 0;
        for (Py_ssize_t k = 0; k < npositions; k++) {
            storage |= positions[k] == i;
        }
        if (storage) {
            static cw_MemberSite dtype_site; /* (a storage's dtype, read per call: its read kept) */
            PyObject *dtype = cw_site_member(&dtype_site, a, cw_s_dtype);
            if (dtype == NULL) {
                PyErr_Clear(); /* (the key raises it) */
                goto none;
            }
            call->owned[call->nowned++] = dtype;
            call->parts[count] = dtype;
            call->kinds[count++] = PART_SAME;
        } else if (Py_TYPE(a) == (PyTypeObject *)layout_type) {
            if (Py_TYPE(a) != b->layout_type || SLOT(a, b->shape) == NULL || SLOT(a, b->strides) == NULL ||
                SLOT(a, b->offset) == NULL) {
                goto none;
            }
            call->parts[count] = SLOT(a, b->shape);
            call->kinds[count++] = PART_EQUAL;
            call->parts[count] = SLOT(a, b->strides);
            call->kinds[count++] = PART_EQUAL;
            call->parts[count] = SLOT(a, b->offset);
            call->kinds[count++] = PART_EQUAL;
        } else if (PyFloat_CheckExact(a) || PyComplex_CheckExact(a)) {
            call->parts[count] = a;
            call->kinds[count++] = PART_BITS;
        } else if (ints_only(a)) {
            call->parts[count] = a;
            call->kinds[count++] = PART_EQUAL;
        } else if (PyList_Check(a) || PyTuple_Check(a)) {
            goto none;
        } else {
            call->parts[count] = a;
            call->kinds[count++] = PART_SAME;
        }
    }
    call->count = count;
    return;
none:
    cw_memo_release(call);
}

/* Whether part `a` (of kind `kind`) is kept part `b`: 1 or 0 (== only between ints and
   tuples of ints, which every kept part of that kind is: no Python code runs). */
static int same_part(PyObject *a, PyObject *b, unsigned char kind) {
    if (a == b) {
        return 1;
    }
    if (Py_TYPE(a) != Py_TYPE(b) || kind == PART_SAME) {
        return 0;
    }
    if (kind == PART_BITS) {
        if (PyFloat_CheckExact(a)) {
            double x = PyFloat_AS_DOUBLE(a), y = PyFloat_AS_DOUBLE(b);
            return memcmp(&x, &y, sizeof x) == 0;
        }
        Py_complex x = ((PyComplexObject *)a)->cval, y = ((PyComplexObject *)b)->cval;
        return memcmp(&x.real, &y.real, sizeof x.real) == 0 && memcmp(&x.imag, &y.imag, sizeof x.imag) == 0;
    }
    if (!ints_only(a)) {
        return 0;
    }
    int same = PyObject_RichCompareBool(a, b, Py_EQ);
    if (same < 0) {
        PyErr_Clear();
        return 0;
    }
    return same;
}

/* Whether entry `e` was made of this call's key (held the same objects, every part the
   same), under any generation. */
static int same_key(const cw_KeyMemoEntry *e, PyObject *const *held, const cw_MemoCall *call) {
    if (e->held[0] == NULL || e->nparts != call->count) {
        return 0;
    }
    for (int i = 0; i < CW_MEMO_HELD; i++) { /* by identity: another object is another key here */
        if (held[i] != e->held[i]) {
            return 0;
        }
    }
    for (int i = 0; i < call->count; i++) {
        if (call->kinds[i] != e->kinds[i] || !same_part(call->parts[i], e->parts[i], call->kinds[i])) {
            return 0;
        }
    }
    return 1;
}

/* (_native_lazy.h) */
cw_KeyMemoEntry *cw_memo_find(cw_KeyMemo *memo, PyObject *const *held, const cw_MemoCall *call,
                              long long generation) {
    if (call->count == 0) {
        return NULL;
    }
    for (int k = 0; k < CW_MEMO_ENTRIES; k++) {
        cw_KeyMemoEntry *e = &memo->entries[k];
        if (e->generation == generation && same_key(e, held, call)) {
            return e;
        }
    }
    return NULL;
}

static void entry_clear(cw_KeyMemoEntry *e) {
    for (int i = 0; i < CW_MEMO_HELD; i++) {
        Py_CLEAR(e->held[i]);
    }
    for (int i = 0; i < e->nparts; i++) {
        Py_CLEAR(e->parts[i]);
    }
    e->nparts = 0;
}

/* (_native_lazy.h) */
void cw_memo_hold(cw_MemoCall *call) {
    if (call->held) {
        return;
    }
    for (int i = 0; i < call->count; i++) {
        Py_INCREF(call->parts[i]);
    }
    for (int i = 0; i < call->nowned; i++) {
        Py_DECREF(call->owned[i]); /* (held through its part now) */
    }
    call->nowned = 0;
    call->held = 1;
}

/* (_native_lazy.h) */
cw_KeyMemoEntry *cw_memo_keep(cw_KeyMemo *memo, PyObject *const *held, cw_MemoCall *call, long long generation,
                              int answer) {
    if (call->count == 0 || !call->held) {
        cw_memo_release(call);
        return NULL;
    }
    for (int i = 0; i < call->count; i++) {
        if (call->kinds[i] == PART_EQUAL && !ints_only(call->parts[i])) {
            cw_memo_release(call); /* (comparing it could run Python code) */
            return NULL;
        }
    }
    /* an entry of this key made under an earlier generation is renewed: its tally goes on
       (a change of the counts elsewhere does not restart a call's count to its probe), its
       probes too while its answer stands (another answer, as a fused probe's mark, starts
       them over) */
    for (int k = 0; k < CW_MEMO_ENTRIES; k++) {
        cw_KeyMemoEntry *e = &memo->entries[k];
        if (same_key(e, held, call)) {
            if (e->answer != answer) {
                e->tally = 0;
                e->probes = 0;
            }
            e->generation = generation;
            e->answer = answer;
            cw_memo_release(call);
            return e;
        }
    }
    cw_KeyMemoEntry *e = &memo->entries[memo->next];
    memo->next = (memo->next + 1) % CW_MEMO_ENTRIES;
    entry_clear(e);
    for (int i = 0; i < CW_MEMO_HELD; i++) {
        e->held[i] = Py_NewRef(held[i]);
    }
    for (int i = 0; i < call->count; i++) {
        e->parts[i] = call->parts[i];
        e->kinds[i] = call->kinds[i];
    }
    e->nparts = call->count;
    e->generation = generation;
    e->answer = answer;
    e->tally = 0;
    e->probes = 0;
    call->count = 0; /* (taken over) */
    call->held = 0;
    return e;
}

void cw_key_memo_clear(cw_KeyMemo *memo) {
    for (int k = 0; k < CW_MEMO_ENTRIES; k++) {
        entry_clear(&memo->entries[k]);
    }
    memo->next = 0;
}

/* (_native_lazy.h) */
void cw_memo_release(cw_MemoCall *call) {
    if (call->held) {
        for (int i = 0; i < call->count; i++) {
            Py_DECREF(call->parts[i]);
        }
    }
    for (int i = 0; i < call->nowned; i++) {
        Py_DECREF(call->owned[i]);
    }
    call->count = call->nowned = call->held = 0;
}
