/* The LazyBlock object (_native_lazy_block.c: its entry, exit and type) and what
   _native_lazy_kept.c adds to it: the block lazy() takes again, and its kept bound
   __enter__/__exit__. */

#ifndef CANDLEWICK_NATIVE_LAZY_BLOCK_H
#define CANDLEWICK_NATIVE_LAZY_BLOCK_H

#include "_native.h"

typedef struct {
    PyObject_HEAD
    PyObject *enabled; /* True or False */
    PyObject *token;   /* the context variable's token of the innermost entry, or NULL */
    PyObject *outer;   /* a list of the outer entries' tokens (the block entered inside itself), or NULL */
    int kept;          /* take's kept block for its `enabled` */
    PyObject *bound[2]; /* a kept block's __enter__ and __exit__ bound to it, made once (entry_get), or NULL */
    int learns;        /* take's (a `with lazy():` statement's): its sites learn (_native_lazy_sites.c) */
    int quiet;         /* its outermost entry runs eagerly (quiet: _native_lazy_sites.c) */
    PyObject *site;    /* the site its outermost entry learns for, or NULL */
    unsigned long long fused_at; /* the count of compiled graphs run at that entry */
    unsigned long long recordings_at; /* and of recording answers (cw_lazy_recordings) */
    double entered;    /* that entry's time on SITE_CLOCK */
    int timed;         /* that run is one its site's window times (else one of a decision's) */
} Block;

/* A new block of `type` for `enabled` (a bool), not entered */
PyObject *cw_new_block(PyTypeObject *type, PyObject *enabled);
/* LazyBlock.take(enabled) (a class method) */
PyObject *cw_lazy_block_take(PyTypeObject *type, PyObject *enabled);
/* LazyBlock's __enter__ and __exit__ made Entries (after its PyType_Ready): 0, or -1 with an error */
int cw_lazy_block_entries_ready(void);

/* _native_lazy_sites.c. Where `self`'s outermost entry (a `with lazy():` statement's
   block, the context not in lazy mode already) runs: 1 quiet (eagerly: the mode's value
   cw_lazy_quiet, no gate), 0 recorded, -1 an error; self->site set where its statement
   learns. */
int cw_lazy_site_enter(Block *self, PyObject *var);
/* What the outermost exit of `self` (quiet or not) teaches its site (self->site let go) */
void cw_lazy_site_leave(Block *self, int quiet);
/* The context variable's value inside a quiet block: (), false (nothing records) but not
   False (lazy_mode.is_lazy is True there) */
extern PyObject *cw_lazy_quiet;

#endif
