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

/* _native_lazy_globals.c: a module's globals `names` as they stand (`values`, borrowed),
   read again all at once where the dict changed since (its stamp moved); `derive`,
   where given, makes what the module's reader keeps beside them (0, or -1 with an
   error), after each read. */
typedef struct cw_GlobalsView {
    PyObject *dict; /* the module's globals (cw_globals_give), or NULL */
    const char *module; /* its name, for the error of a name it lacks */
    Py_ssize_t count;
    const char *const *texts; /* the names */
    PyObject **names, **values; /* the names interned (by cw_globals_give); their values at `stamp` */
    uint64_t stamp; /* 0: to be read */
    int (*derive)(struct cw_GlobalsView *view);
} cw_GlobalsView;
#if PY_VERSION_HEX >= 0x030C0000
extern uint64_t cw_globals_changes; /* bumped by every change of a watched dict */
#define CW_GLOBALS_STAMP(dict) ((void)(dict), cw_globals_changes)
#else
#define CW_GLOBALS_STAMP(dict) (((PyDictObject *)(dict))->ma_version_tag)
#endif
/* the view's values read again: 0, or -1 with an error (a name the module lacks) */
int cw_globals_read(cw_GlobalsView *view);
/* the view's values as the dict holds them now: 0, or -1 with an error */
static inline int cw_globals_fresh(cw_GlobalsView *view) {
    return view->stamp != 0 && view->stamp == CW_GLOBALS_STAMP(view->dict) ? 0 : cw_globals_read(view);
}
/* the view made to read `dict` (held) from now on, its names interned at the first
   call: 0, or -1 with an error */
int cw_globals_give(cw_GlobalsView *view, PyObject *dict);
/* each of `count` texts interned into the variable its target points to: 0, or -1 with
   an error (the names the C paths read attributes and globals by, made once) */
int cw_intern_names(size_t count, const char *const *texts, PyObject **const *targets);
int cw_lazy_globals_ready(void);

/* _native_lazy_block.c */
extern PyTypeObject cw_LazyBlockType;
extern const char cw_lazy_blocks_doc[];
PyObject *cw_lazy_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_block_ready(void);

/* _native_lazy_sites.c: what lazy() statements learn (lazy_fused, lazy_sites_forget) */
extern const char cw_lazy_fused_doc[], cw_lazy_sites_forget_doc[];
PyObject *cw_lazy_fused(PyObject *module, PyObject *unused);
PyObject *cw_lazy_sites_forget(PyObject *module, PyObject *unused);
int cw_lazy_sites_ready(void);

/* _native_lazy_call.c: candlewick.lazy in C (LazyCall(general, block_type)) */
extern PyTypeObject cw_LazyCallType;

/* _native_lazy_key.c: lazy_policy's globals (given by lazy_starts) and names, and what
   StartMethod asks of them */
extern PyObject *cw_s_dtype, *cw_s_lazy_type, *cw_s_tracer, *cw_s_real;
extern PyObject *cw_s_defer; /* "defer": the Pending's method making a deferred call (lazy_defer) */
extern PyObject *cw_s_probing; /* "probing": the Pending's mark of a graph holding a probe (lazy_policy.PROBE) */
/* lazy_policy's globals that the decision reads (cw_Policy's `at`) */
enum { CW_P_RECORD_BYTES, CW_P_REPLAYS, CW_P_RIPE, CW_P_COUNTS, CW_P_GENERATION, CW_P_LAYOUT, CW_P_NOT_AS_IS,
       CW_P_CALL_KEY_OF, CW_P_PROBE, CW_P_DOUBLINGS, CW_P_SITE_RUNS, CW_P_SITE_QUIET, CW_P_SITE_DOUBLINGS,
       CW_P_SITE_CLOCK, CW_P_COUNT };
typedef struct {
    PyObject *at[CW_P_COUNT]; /* borrowed */
    /* RECORD_BYTES's, _generation's, PROBE's and PROBE_DOUBLINGS's values */
    long long record_bytes, generation, probe, doublings;
    /* SITE_RUNS's, SITE_QUIET's and SITE_DOUBLINGS's (_native_lazy_sites.c) */
    long long site_runs, site_quiet, site_doublings;
} cw_Policy;
/* lazy_policy's globals as they stand, or NULL with an error (lazy_starts not called, a
   global absent or RECORD_BYTES or _generation not an int of a long long's range) */
const cw_Policy *cw_policy_now(void);
/* lazy_starts's work: lazy_policy's globals dict given (0, or -1 with an error) */
int cw_lazy_key_policy(PyObject *policy);
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
    /* its runs at once since it was made or last probed, and its probes since its answer
       was last other than 1 (lazy_policy.PROBE, PROBE_DOUBLINGS): kept where a later
       generation renews the entry with the same answer */
    long long tally;
    int probes;
} cw_KeyMemoEntry;
typedef struct {
    cw_KeyMemoEntry entries[CW_MEMO_ENTRIES];
    int next; /* the entry replaced next */
} cw_KeyMemo;
void cw_key_memo_clear(cw_KeyMemo *memo);
/* _native_lazy_memo.c: the parts of one call's arguments, as a memo entry compares them */
typedef struct {
    PyObject *parts[CW_MEMO_PARTS];
    unsigned char kinds[CW_MEMO_PARTS];
    int count; /* 0: the call gets no entry */
    int held; /* 1: every part a new reference (cw_memo_hold); 0: borrowed from the arguments, but `owned` */
    PyObject *owned[CW_MEMO_ARGS]; /* while borrowed: the storages' dtypes read (new references) */
    int nowned;
} cw_MemoCall;
/* the parts of a call's arguments (`positions`: its storage arguments) in `call`,
   borrowed; call->count 0 where it gets no entry */
void cw_memo_parts(PyObject *const *args, Py_ssize_t n, const Py_ssize_t *positions, Py_ssize_t npositions,
                   PyObject *layout_type, cw_MemoCall *call);
/* the kept entry standing for held, the call's parts and generation, else NULL */
cw_KeyMemoEntry *cw_memo_find(cw_KeyMemo *memo, PyObject *const *held, const cw_MemoCall *call, long long generation);
/* the call's parts held (before Python code runs: the key's making) */
void cw_memo_hold(cw_MemoCall *call);
/* the oldest entry made this held call's (its parts taken over; its tally 0) and
   returned, where its parts may be compared without running Python code; else the call
   released and NULL */
cw_KeyMemoEntry *cw_memo_keep(cw_KeyMemo *memo, PyObject *const *held, cw_MemoCall *call, long long generation,
                              int answer);
void cw_memo_release(cw_MemoCall *call);
/* 1 where the call `name`(storage of dtype, *args) on pending's device was counted
   REPLAYS times or more (its key pair_key's where `pair`, else call_key_of's, which
   reads args' storages at `positions` as their dtypes; the answer kept in `memo` for
   calls whose arguments make the same key), 3 where so but `probes` and this run is its
   PROBE-th at once (recorded: a probe), 0 where not (an unhashable argument: never
   counted), 2 where it is marked lazy_policy._DEFERS (deferred), -1 error */
int cw_counted(const cw_Policy *policy, PyObject *name, int pair, const Py_ssize_t *positions, Py_ssize_t npositions,
               PyObject *pending, PyObject *dtype, PyObject *const *args, Py_ssize_t n, cw_KeyMemo *memo,
               int probes);
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

/* Whether `layout` views its storage from offset 0, C-contiguous, as far as the layout
   knows (its dense_size >= 0): 1, 0, or -1 with an error (_native_lazy_start.c) */
int cw_plain_view(PyObject *layout);

/* _native_lazy_mode.c: what lazy mode's C paths read, given by lazy_operands(mode,
   traced_type, lazy_type): lazy_mode's globals (a view, their values at the LG_ indices)
   and the storage types of a trace and of lazy mode's recorded results, with the
   latter's slots */
enum { LG_BLOCK, LG_PROCESS_ON, LG_RECORDED, LG_LOCAL, LG_RECORDING, LG_EVERYWHERE, LG_COUNT };
/* answers of recording_on that were a pending graph (a device that records), counted: a
   lazy() statement's block that got none ran eager mode's calls (_native_lazy_sites.c) */
extern unsigned long long cw_lazy_recordings;
extern cw_GlobalsView cw_lazy_globals; /* (its dict NULL until lazy_operands is called) */
typedef struct {
    PyObject *traced_type, *lazy_type;
    Py_ssize_t graph_at, real_at, node_at, pending_at; /* lazy_type's slots */
} cw_LazyTypes;
extern cw_LazyTypes cw_lazy_types;
extern const char cw_lazy_recording_doc[], cw_lazy_operands_doc[];
PyObject *cw_lazy_recording_of(PyObject *module, PyObject *device);
PyObject *cw_lazy_operands(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* x's slot `at` of the bound array class, or its attribute `name` (new reference) */
PyObject *cw_array_field(PyObject *x, Py_ssize_t at, PyObject *name);
/* Whether lazy mode is on here (lazy_mode.is_lazy), the globals fresh: 1, 0, or -1
   with an error */
int cw_lazy_mode_on(void);
/* This thread's pending graph on x's device, lazy mode being on here, or None where the
   device does not record (new reference), NULL with an error */
PyObject *cw_lazy_recording(PyObject *x);
/* Whether `storage` (a LazyStorage pending elsewhere than `pending`'s graph) is a call
   `pending` deferred (lazy_defer): 1, 0, or -1 with an error */
int cw_lazy_own_deferral(PyObject *storage, PyObject *pending);
/* Whether a Deferral's `call` is a copy's */
int cw_lazy_copy_call(PyObject *call);
/* lazy_write.rebinds(x) (whether x <op>= y may give x the recorded result of x <op> y):
   x of the bound array class holding alone a LazyStorage not run, lazy mode on here,
   and that storage pending in this thread's graph or a copy this thread deferred. 1, 0
   (also before lazy_operands is called), or -1 with an error. */
int cw_lazy_rebinds(PyObject *x);
int cw_lazy_mode_ready(void);

/* _native_lazy_operand.c */
extern const char cw_lazy_operand_doc[], cw_lazy_copy_operand_doc[];
PyObject *cw_lazy_operand_of(PyObject *module, PyObject *x);
PyObject *cw_lazy_copy_operand_of(PyObject *module, PyObject *x);
/* The primitive `name` called on lazy_operand(x) where args[0] is x's storage (args and
   nargsf as cw_call_primitive takes them; args[0] replaced meanwhile): the C element-wise
   and reduction paths' call, in lazy mode or not. Where the operand hook is the C
   lazy_operand, the Start it would make is not made (cw_start_call); where no hook is set
   (cw_lazy_operand NULL), cw_call_primitive on args as given; else the hook is called. */
PyObject *cw_lazy_call(PyObject *name, PyObject *x, PyObject **args, size_t nargsf);
int cw_lazy_operand_ready(void);
/* PyObject_VectorcallMethod(name, args, nargsf, NULL), but where args[0] is a
   lazy_policy.Start whose method is a StartMethod, that method called without making a
   bound method (Start's __getattr__ would make one). */
PyObject *cw_call_primitive(PyObject *name, PyObject *const *args, size_t nargsf);

#endif
