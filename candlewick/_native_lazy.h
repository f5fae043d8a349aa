/* candlewick._native's lazy mode: the hooks that set_lazy hands the fast paths (which
   decline, or call the write hook, while lazy mode is on), a lazy() block's entry and
   exit, the decision to record a call or run it (its key and count), and the storage an
   element-wise call in lazy mode is made on. */

#ifndef CANDLEWICK_NATIVE_LAZY_H
#define CANDLEWICK_NATIVE_LAZY_H

#include "_native.h"

/* Lazy mode's write hook while lazy mode is on somewhere (set_lazy), else NULL: the fast
   paths that compute decline then, and Item's stores call it with the array first. */
extern PyObject *cw_lazy_write;
/* lazy mode's operand(x) (the storage x's element-wise primitive is called on), set
   with cw_lazy_write where the Elementwise path may run in lazy mode; else NULL */
extern PyObject *cw_lazy_operand;
/* with cw_lazy_write, where given: the set of pending graphs holding nodes and the
   recorded storages' type (a store need not call cw_lazy_write while the set is empty
   and the array's storage is not of that type); else NULL */
extern PyObject *cw_lazy_live, *cw_lazy_type;
/* set_lazy's work (each argument None or as set_lazy takes it): 0, or -1 with TypeError */
int cw_set_lazy(PyObject *hook, PyObject *operand, PyObject *live, PyObject *lazy_type);

/* _native_lazy_globals.c: dict[name] (borrowed) of a module's globals dict, kept until
   the dict changes; NULL where absent (an error set only where the lookup raised) */
PyObject *cw_kept_global(PyObject *dict, PyObject *name);
int cw_lazy_globals_ready(void);

/* _native_lazy_block.c */
extern PyTypeObject cw_LazyBlockType;
extern const char cw_lazy_blocks_doc[];
PyObject *cw_lazy_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_block_ready(void);

/* _native_lazy_call.c: candlewick.lazy in C (LazyCall(general, block_type)) */
extern PyTypeObject cw_LazyCallType;

/* _native_lazy_key.c: lazy_policy's globals (cw_lazy_policy, set by lazy_starts) and
   names, and what StartMethod asks of them */
extern PyObject *cw_lazy_policy;
extern PyObject *cw_s_record_bytes, *cw_s_replays, *cw_s_ripe, *cw_s_dtype, *cw_s_lazy_type, *cw_s_tracer, *cw_s_real;
extern PyObject *cw_s_defer; /* "defer": the Pending's method making a deferred call (lazy_defer) */
/* lazy_policy's global `name` (borrowed), or NULL with an error */
PyObject *cw_policy_global(PyObject *name);
/* 1 where storage `s` holds fewer than `limit` bytes (size * dtype.itemsize), 0 where not, -1 error */
int cw_storage_smaller(PyObject *s, long long limit);
/* One StartMethod's last answers (CW_MEMO_ENTRIES of them, the oldest replaced first), each
   kept with what its key was made of: held (_counts, REPLAYS, Layout, call_key_of, the
   Pending, the dtype), compared by identity, and the arguments' parts (each storage's
   dtype, each Layout's shape, strides and offset, scalars, ops, axes: see
   _native_lazy_key.c's call_parts), each by identity, value or bytes */
#define CW_MEMO_HELD 6
#define CW_MEMO_ARGS 8 /* the most arguments a call kept has (StartMethod's MAX_ARGS) */
#define CW_MEMO_PARTS (3 * CW_MEMO_ARGS)
#define CW_MEMO_ENTRIES 4
typedef struct {
    PyObject *held[CW_MEMO_HELD], *parts[CW_MEMO_PARTS]; /* held[0] NULL: empty */
    unsigned char kinds[CW_MEMO_PARTS];
    int nparts;
    long long generation; /* lazy_policy._generation when it was made */
    int answer;
} cw_KeyMemoEntry;
typedef struct {
    cw_KeyMemoEntry entries[CW_MEMO_ENTRIES];
    int next; /* the entry replaced next */
} cw_KeyMemo;
void cw_key_memo_clear(cw_KeyMemo *memo);
/* _native_lazy_memo.c: the parts of a call's arguments (new references in parts, how each
   compares in kinds; `positions`: its storage arguments): how many, 0 where it gets no entry */
int cw_memo_parts(PyObject *const *args, Py_ssize_t n, const Py_ssize_t *positions, Py_ssize_t npositions,
                  PyObject *layout_type, PyObject **parts, unsigned char *kinds);
/* the kept answer standing for held, parts and generation, else -1 */
int cw_memo_answer(const cw_KeyMemo *memo, PyObject *const *held, PyObject *const *parts, const unsigned char *kinds,
                   int count, long long generation);
/* the oldest entry made this call's (the parts taken over) */
void cw_memo_keep(cw_KeyMemo *memo, PyObject *const *held, PyObject **parts, const unsigned char *kinds, int count,
                  long long generation, int answer);
void cw_memo_release(PyObject **parts, int count);
/* 1 where the call `name`(storage of dtype, *args) on pending's device was counted
   `replays` times or more (its key pair_key's where `pair`, else call_key_of's, which
   reads args' storages at `positions` as their dtypes; the answer kept in `memo` for
   calls whose arguments make the same key), 0 where not (an unhashable argument: never
   counted), 2 where it is marked lazy_policy._DEFERS (deferred), -1 error */
int cw_counted(PyObject *name, int pair, const Py_ssize_t *positions, Py_ssize_t npositions, PyObject *pending,
               PyObject *dtype, PyObject *const *args, Py_ssize_t n, PyObject *replays, cw_KeyMemo *memo);
/* reads what lazy_policy's globals `policy` hold that never changes (_DEFERS): 0, or -1
   with an error (lazy_starts calls it) */
int cw_lazy_key_policy(PyObject *policy);
int cw_lazy_key_ready(void);

/* _native_lazy_start.c */
extern PyTypeObject cw_StartMethodType;
extern const char cw_lazy_starts_doc[];
PyObject *cw_lazy_starts(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_start_ready(void);
/* A new lazy_policy.Start of (pending, real), or NULL with an error */
PyObject *cw_new_start(PyObject *pending, PyObject *real);
/* Start(pending, real).<name>(*args) without making the Start where its method is a
   StartMethod (`sized`: real's size test made already, too large to run at once for its
   size), else as Python calls it */
PyObject *cw_start_call(PyObject *name, PyObject *pending, PyObject *real, PyObject *const *args, Py_ssize_t n,
                        int sized);

/* _native_lazy_operand.c */
extern const char cw_lazy_operand_doc[], cw_lazy_operands_doc[];
PyObject *cw_lazy_operand_of(PyObject *module, PyObject *x);
PyObject *cw_lazy_operands(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* The primitive `name` called on lazy_operand(x) where args[0] is x's storage (args and
   nargsf as cw_call_primitive takes them; args[0] replaced meanwhile): the C element-wise
   path in lazy mode. Where the operand hook is the C lazy_operand, the Start it would
   make is not made (cw_start_call); else the hook is called. */
PyObject *cw_lazy_call(PyObject *name, PyObject *x, PyObject **args, size_t nargsf);
int cw_lazy_operand_ready(void);
/* PyObject_VectorcallMethod(name, args, nargsf, NULL), but where args[0] is a
   lazy_policy.Start whose method is a StartMethod, that method called without making a
   bound method (Start's __getattr__ would make one). */
PyObject *cw_call_primitive(PyObject *name, PyObject *const *args, size_t nargsf);

#endif
