/* candlewick._native, the optional C module: what its parts share.

   The module fills and reads the slots of two Python classes, Layout and the array
   class, at offsets read from the classes' own member descriptors when they are bound
   (_native_binding.c: bind), so a renamed or missing slot fails the bind and the Python code
   paths run instead, never a store at a wrong offset. */

#ifndef CANDLEWICK_NATIVE_H
#define CANDLEWICK_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define SLOT(obj, at) (*(PyObject **)((char *)(obj) + (at)))

/* the most axes a layout the fast paths take has (NumPy's limit; more: the Python paths) */
#define CW_MAX_AXES 64

typedef struct {
    PyTypeObject *layout_type; /* NULL: not bound (every fast path declines) */
    PyTypeObject *array_type;
    Py_ssize_t shape, strides, offset, contig, dense; /* Layout's slots */
    Py_ssize_t storage, layout, dtype, device;        /* the array class's slots */
    PyObject *contiguous_cache;                       /* {shape: offset-0 C-contiguous Layout} */
    PyObject *contiguous_layout;                      /* shape -> that Layout, made and cached */
} Binding;

extern Binding cw_bound;
/* _native_binding.c: the module's bind, unbind and bound_class */
extern const char cw_bind_doc[], cw_unbind_doc[], cw_bound_class_doc[];
PyObject *cw_bind(PyObject *module, PyObject *args);
PyObject *cw_unbind(PyObject *module, PyObject *args);
PyObject *cw_bound_class(PyObject *module, PyObject *args);

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

/* _native_lazy_block.c */
extern PyTypeObject cw_LazyBlockType;
extern const char cw_lazy_blocks_doc[];
PyObject *cw_lazy_blocks(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_block_ready(void);

/* _native_lazy_key.c: lazy_policy's globals (cw_lazy_policy, set by lazy_starts) and
   names, and what StartMethod asks of them */
extern PyObject *cw_lazy_policy;
extern PyObject *cw_s_record_bytes, *cw_s_replays, *cw_s_ripe, *cw_s_dtype, *cw_s_lazy_type, *cw_s_tracer, *cw_s_real;
/* lazy_policy's global `name` (borrowed), or NULL with an error */
PyObject *cw_policy_global(PyObject *name);

/* 1 where storage `s` holds fewer than `limit` bytes (size * dtype.itemsize), 0 where not, -1 error */
int cw_storage_smaller(PyObject *s, long long limit);
/* One StartMethod's last pair key, by its parts, and its answer (answer -1: none): held
   (_counts, REPLAYS, Layout, the Pending, the dtype, the op, the other operand's dtype),
   compared by identity, and parts (each Layout's shape, strides, offset), by value */
#define CW_MEMO_HELD 7
typedef struct {
    PyObject *held[CW_MEMO_HELD], *parts[6];
    long long generation; /* lazy_policy._generation when it was made */
    int answer;
} cw_KeyMemo;
void cw_key_memo_clear(cw_KeyMemo *memo);
/* 1 where the call `name`(storage of dtype, *args) on pending's device was counted
   `replays` times or more (its key pair_key's where `pair`, else call_key_of's; a pair
   key's answer kept in `memo` while it stands), 0 where not (an unhashable argument:
   never counted), -1 error */
int cw_counted(PyObject *name, int pair, PyObject *pending, PyObject *dtype, PyObject *const *args, Py_ssize_t n,
               PyObject *replays, cw_KeyMemo *memo);
int cw_lazy_key_ready(void);

/* _native_lazy_start.c */
extern PyTypeObject cw_StartMethodType;
extern const char cw_lazy_starts_doc[];
PyObject *cw_lazy_starts(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_start_ready(void);
/* A new lazy_policy.Start of (pending, real), or NULL with an error */
PyObject *cw_new_start(PyObject *pending, PyObject *real);

/* _native_lazy_operand.c */
extern const char cw_lazy_operand_doc[], cw_lazy_operands_doc[];
PyObject *cw_lazy_operand_of(PyObject *module, PyObject *x);
PyObject *cw_lazy_operands(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
int cw_lazy_operand_ready(void);
/* PyObject_VectorcallMethod(name, args, nargsf, NULL), but where args[0] is a
   lazy_policy.Start whose method is a StartMethod, that method called without making a
   bound method (Start's __getattr__ would make one). */
PyObject *cw_call_primitive(PyObject *name, PyObject *const *args, size_t nargsf);

/* A copy of the binding whose objects stay alive while a fast path runs code that could
   bind again or unbind (a primitive in Python, a finalizer run by the garbage collector
   during an allocation): 1 and the copy held, or 0 where nothing is bound. */
int cw_hold_binding(Binding *held);
void cw_release_binding(Binding *held);

/* The offset of `name`, an object slot (T_OBJECT_EX) of `type`, in *at: 0, or -1 with
   TypeError where it is not one. */
int cw_slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *at);
/* obj.name (new reference, or NULL with an error) (_native_binding.c): read where the
   member descriptor (found through the type's cache) keeps it, where it is an object
   slot of a class obj is an instance of and the type's attribute lookup is object's (a
   __getattr__ is only a fallback),
   about a fifth of PyObject_GetAttr's instructions; else PyObject_GetAttr */
PyObject *cw_member(PyObject *obj, PyObject *name);

/* The storage class a host backend's UfuncInto or UfuncNew saw last (held), with the
   offsets of its object slots buf, dtype and (UfuncInto's) _lock: buf_at < 0 where they
   are not all object slots (the class is not the learnt kind: its calls are general's). */
typedef struct {
    PyTypeObject *type;
    Py_ssize_t buf_at, dtype_at, lock_at;
} StorageSlots;
/* Learn `type` into `known` (its _lock too where `lock`): 0, or -1 on an error other than
   a slot that is not an object slot. */
int cw_learn_storage(StorageSlots *known, PyTypeObject *type, int lock);

/* 1 where the attribute `name` of `obj` is true, 0 where false or absent, -1 on error
   (a storage's read_only: the storages of most backends have none). */
int cw_attr_true(PyObject *obj, PyObject *name);

/* A new candlewick.layout.Layout of its five slots (new reference), each argument a new
   reference it takes (NULL where making it failed: then every other one is released and
   NULL returned, the error kept). */
PyObject *cw_new_layout(const Binding *b, PyObject *shape, PyObject *strides, PyObject *offset, PyObject *contig,
                        PyObject *dense);

/* A method made in C that stands for a Python method, `general`, run for every case the C
   one does not take (Item, Override): its head, its binding to an instance (a method
   descriptor, as a Python function is) and its attributes general, __wrapped__, __doc__,
   __name__, __qualname__ and __module__, general's (inspect.signature, the API docs,
   tools/array_api_needs.py). */
#define CW_METHOD_HEAD \
    PyObject_HEAD \
    vectorcallfunc vectorcall; \
    PyObject *general;
typedef struct {
    CW_METHOD_HEAD
} cw_Method;
PyObject *cw_bind_method(PyObject *self, PyObject *obj, PyObject *type);
extern PyGetSetDef cw_method_getset[];

/* _native_temporary.c */
extern const char cw_temporary_doc[], cw_calibrate_temporary_doc[];
PyObject *cw_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *cw_calibrate_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _native_rows.c */
extern const char cw_rows_doc[];
PyObject *cw_rows(PyObject *module, PyObject *args);

/* _native_assign.c */
extern PyTypeObject cw_ElementAssignType;
int cw_element_assign_ready(void);
/* cw_member(obj, name), or NULL with no error set: the four getattrs were a sixth of
   each of fill_diagonal's 2048 stores. */
PyObject *cw_slot_attr(PyObject *obj, PyObject *name);
/* ElementAssign's copy: element `from` of storage `src` into element `to` of `storage`
   (flat offsets), where both are of one class and DType and their buffers export 1-D
   views of one itemsize holding those elements: 1 done, 0 not the case (no error set). */
int cw_element_copy(PyObject *storage, Py_ssize_t to, PyObject *src, Py_ssize_t from);
/* _native_element_put.c: a Python bool, int or float `value` written into element `to` of `storage` (a class of
   ElementAssign's kind) under the storage's lock, where `dtype` is the storage's DType and
   the conversion is exact and the same in either promotion mode (a bool into bool, an int
   into an integer dtype that holds it, a float or int into float32 or float64): 1 done,
   0 not the case (nothing written, no error set: a read-only buffer included). */
int cw_element_put(PyObject *storage, Py_ssize_t to, PyObject *dtype, PyObject *value);
int cw_element_put_ready(void);

/* _native_complex.c */
extern const char cw_complex64_multiply_doc[];
PyObject *cw_complex64_multiply(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* x86-64 vector loops chosen at run time (_native_complex.c, _native_sort_runs.c, _native_sort_finish.c) */
#define CW_HAVE_AVX2_PATH 1
#include <immintrin.h>
/* 2 AVX-512F, 1 AVX2, 0 neither (the CPU's, asked once). */
int cw_vector_level(void);
#endif

/* _native_elementwise.c: Elementwise, the class; _native_elementwise_run.c: its common case */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int arity;
    PyObject *op, *results, *method, *fallback;
} Elementwise;

extern PyTypeObject cw_ElementwiseType;
int cw_elementwise_ready(void);
/* what the common case answers where it declines (nothing done, no error set): the
   fallback's call then */
#define CW_ELEMENTWISE_DECLINED ((PyObject *)&cw_ElementwiseType)
/* The common case of `self` called with its arity `n` of `args` (b: the caller's held
   binding): the new array, CW_ELEMENTWISE_DECLINED, or NULL on error. */
PyObject *cw_elementwise_case(const Binding *b, Elementwise *self, PyObject *const *args, Py_ssize_t n);
int cw_elementwise_run_ready(void);

/* _native_broadcast.c */
/* `layout` (of shape `from`) broadcast to `to` as Layout.broadcast_to makes it (new
   reference: a new Layout with stride 0 on the axes it spreads, dense_size -1, _contig
   False where an axis is stretched from 1 (or added) to a length > 1 and none is empty,
   else None), or NULL: not this case (no error set: shapes that do not broadcast,
   the Python path's error) or an error. */
PyObject *cw_broadcast_layout(const Binding *b, PyObject *layout, PyObject *from, PyObject *to);
/* The shape `s1` and `s2` broadcast to (a new tuple), or NULL: they do not broadcast, a
   dimension is not an int, or the result holds `limit` elements or more (no error set),
   or an error. */
PyObject *cw_broadcast_shape(PyObject *s1, PyObject *s2, Py_ssize_t limit);

/* _native_inplace.c: Update, the class; _native_inplace_run.c: its common case */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *keeps, *general;
    /* keeps' dtypes (held) and whether each is real floating: compared by identity, no
       int object made or dict read */
    Py_ssize_t n_kept;
    PyObject **kept;
    char *kept_real;
} Update;

extern PyTypeObject cw_UpdateType;
int cw_update_ready(void);
/* what the common case answers where it declines (nothing done, no error set) */
#define CW_UPDATE_DECLINED Py_None
/* The common case of `self`'s x <op>= other (b: the caller's held binding): x (borrowed),
   CW_UPDATE_DECLINED, or NULL on error. */
PyObject *cw_update_case(const Binding *b, Update *self, PyObject *x, PyObject *other);
int cw_update_run_ready(void);
/* The Update `update`'s case of x <op>= other run: 1 done, 0 not the case (nothing
   written, no error), -1 error. */
int cw_update_run(PyObject *update, PyObject *x, PyObject *other);

/* _native_override.c */
extern PyTypeObject cw_OverrideType;
int cw_override_ready(void);

/* _native_ufunc_table.c */
/* how many (op, dtype) pairs a UfuncInto keeps found */
#define CW_UFUNCS_SEEN 4
/* table (a dict: id(op) -> {id(dtype): ufunc}) and the pairs found in it before, with
   their ufunc (all held) */
typedef struct {
    PyObject *table;
    PyObject *seen[CW_UFUNCS_SEEN][3];
    int next_seen;
} UfuncTable;
/* The ufunc of `op` on `dtype` (borrowed); NULL where the table has none (no error set)
   or on error. */
PyObject *cw_ufunc_table_find(UfuncTable *t, PyObject *op, PyObject *dtype);
int cw_ufunc_table_traverse(UfuncTable *t, visitproc visit, void *arg);
void cw_ufunc_table_clear(UfuncTable *t);

/* _native_ufunc.c: UfuncInto, the class; _native_ufunc_run.c: its common case */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int scalar;
    int kept; /* whether the quiet state is entered through the thread's kept context */
    UfuncTable table;
    PyObject *var, *quiet, *memory_error, *general;
    StorageSlots known; /* with its _lock slot */
    /* scalar: convert(value, dtype) makes the scalar operand a 0-d array of the compute
       dtype, as the Python form does (NumPy then runs its contiguous loop with a stride-0
       operand, without the buffered cast of a Python float's weak conversion: 5 % of an
       update of 2^20 float32 in bench/inplace.py); the last one made is kept (value's bits,
       dtype, array: the array is never handed out, the ufunc only reads it) */
    PyObject *convert, *kept_dtype, *kept_array;
    double kept_value;
} UfuncInto;
extern PyTypeObject cw_UfuncIntoType;
int cw_ufunc_into_ready(void);
/* The common case of `self` (args: the primitive's seven, storage first; bd: the caller's
   held binding; unchecked: the caller has not asked the storage's read_only, and a
   read-only destination is then not the case): 1 done, 0 not the case (nothing written,
   no error set), -1 error. */
int cw_ufunc_into_case(const Binding *bd, UfuncInto *self, PyObject *const *args, int unchecked);
int cw_ufunc_into_run_ready(void);
/* The common case of the UfuncInto `callable` run for a caller that has not asked the
   storage's read_only (args: the primitive's seven, storage first; b: the caller's held
   binding): 1 done, 0 not the case (nothing written, no error set: the caller's other
   path runs), -1 error. */
int cw_ufunc_into_run(const Binding *b, PyObject *callable, PyObject *const *args);

/* _native_write_guard.c */
typedef struct {
    PyObject *lock, *var, *token; /* (borrowed: the caller holds the lock and var) */
} WriteGuard;
/* The storage's lock taken, then var set to quiet (cw_quiet_enter): 0, or -1 with the
   error set and nothing held. */
int cw_write_guard_enter(WriteGuard *guard, PyObject *lock, PyObject *var, PyObject *quiet, int kept);
/* Both left: 0 with the error set before it (if any) kept, or -1 with leaving's error. */
int cw_write_guard_exit(WriteGuard *guard);
int cw_write_guard_ready(void);

/* _native_buffer_views.c */
/* Two operands' buffers viewed for NumPy's broadcasting (UfuncNew's broadcast form):
   layouts of one shape, each C-contiguous but for its stride-0 axes, every axis longer
   than 1 unstretched in one of them; each buffer's elements reshaped to its layout's
   shape with 1 on its stretched axes. 1 with *a, *b new references; 0 for any other
   pair (no error set); -1 on error. */
int cw_spread_views(const Binding *b, PyObject *buf1, PyObject *l1, PyObject *buf2, PyObject *l2, PyObject **a,
                    PyObject **bv);
/* A 2-D layout that is a matrix or its transpose in `buf` viewed with its strides: 1
   with *view a new reference, 0 for any other layout (no error set), -1 on error. */
int cw_matrix_view(const Binding *b, PyObject *buf, PyObject *layout, PyObject **view);
int cw_buffer_views_ready(void);

/* _native_ufunc_new.c: UfuncNew, the class; _native_ufunc_new_run.c: its common cases */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int kept;   /* whether the quiet state is entered through the thread's kept context */
    int matrix; /* the matrix product's form: storage.matmul(rhs, lhs_layout, rhs_layout) */
    /* the scalar form's (storage.binary_scalar(op, layout, value, reflected)): convert(value,
       the entry's scalar dtype) makes the scalar operand, in the error state of the call;
       NULL in the other forms */
    PyObject *convert;
    /* table[id(op)][id(dtype)]: (ufunc, loud, result dtype); the matrix form's under id(None) */
    UfuncTable entries;
    PyObject *var, *quiet, *memory_error, *general;
    StorageSlots known; /* lock_at unused */
} UfuncNew;
extern PyTypeObject cw_UfuncNewType;
int cw_ufunc_new_ready(void);
/* what a common case answers where it declines (nothing done, no error set): general's
   call then */
#define CW_UFUNC_NEW_DECLINED ((PyObject *)&cw_UfuncNewType)
/* Each form's common case (args as the call takes them): a new storage,
   CW_UFUNC_NEW_DECLINED, or NULL on error. */
PyObject *cw_ufunc_new_run(const Binding *bd, UfuncNew *self, PyObject *const *args);
PyObject *cw_ufunc_new_run_matrix(const Binding *bd, UfuncNew *self, PyObject *const *args);
PyObject *cw_ufunc_new_run_scalar(const Binding *bd, UfuncNew *self, PyObject *const *args);
int cw_ufunc_new_run_ready(void);

/* _native_flat_view.c */
/* `buf` (a host storage's 1-D NumPy buffer) as the 1-D array of the elements `layout`
   reaches, in C order: the buffer itself where the layout covers it whole, else a slice of
   it (NumPy's view) where the layout is 1-D with a stride other than 0, or C-contiguous.
   1 with *view a new reference; 0 for any other layout (nothing set, no error); -1 on
   error. */
int cw_flat_view(const Binding *b, PyObject *buf, PyObject *layout, PyObject **view);

/* _native_slice.c */
extern PyTypeObject cw_ItemType;
int cw_item_ready(void);

/* _native_slice_layout.c */
/* The cut a slice key makes on a layout's first axis: key.indices(n), the view's length,
   the first stride and the view's offset. */
typedef struct {
    Py_ssize_t start, length, step; /* key.indices(n) and the view's length */
    Py_ssize_t stride, offset;      /* x's first stride and the view's offset */
} Cut;
/* The cut `key` makes on the first axis of `layout` (a key that is a slice whose bounds
   are None or ints, a layout with at least one axis of int slots): 1, or 0 where not this
   case (no error set). */
int cw_cut_of(const Binding *b, PyObject *layout, PyObject *key, Cut *cut);
/* The view's Layout for a cut cw_cut_of made (new reference), NULL on error. */
PyObject *cw_cut_layout(const Binding *b, PyObject *layout, const Cut *cut);
/* x[key]'s layout for a tuple key of slices, ints, None and `...`, as basic_layout makes
   it: see _native_slice_layout.c (new reference; NULL, with no error where not that case). */
PyObject *cw_basic_layout(const Binding *b, PyObject *layout, PyObject *key);

/* _native_element_store.c */
/* x[i, j, ...] = v: 1 done, 0 not the case (general's errors), -1 error. */
int cw_store_element(const Binding *b, PyObject *x, PyObject *key, PyObject *value);
/* x[tuple of slices, ints, None, `...`] = v, an array of x's class, dtype and device: 1
   done, 0 not the case (general's errors), -1 error. */
int cw_store_basic(const Binding *b, PyObject *x, PyObject *key, PyObject *value);
int cw_element_store_ready(void);

/* _native_guard.c */
extern PyTypeObject cw_LockType;
int cw_lock_acquire(PyObject *lock);
void cw_lock_release(PyObject *lock);
/* Whether (var, quiet) is the pair the kept contexts hold (the first one asked is);
   loud (or NULL): a state that warns, with which the first call checks that NumPy's
   state reads as expected (else the current state is never read). */
int cw_quiet_adopt(PyObject *var, PyObject *quiet, PyObject *loud);
/* var set to quiet (kept: through this thread's kept context where it can), *token what
   cw_quiet_exit takes back: 0, or -1 on error. */
int cw_quiet_enter(PyObject *var, PyObject *quiet, int kept, PyObject **token);
int cw_quiet_exit(PyObject *var, PyObject *token);
int cw_guard_ready(void);

/* _native_blocks.c */
extern PyTypeObject cw_BlockCacheType;
int cw_block_cache_ready(void);

/* _native_launch.c */
extern const char cw_launch_doc[];
PyObject *cw_launch(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
extern const char cw_fft_exec_doc[];
PyObject *cw_fft_exec(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
/* An int as an address (TypeError naming the call ``who`` for another kind) / as an 8-byte
   field (an int or what has __index__; addresses past 2^63 too): 0, or -1 with the error set. */
int cw_as_address(PyObject *obj, const char *who, void **out);
int cw_as_word(PyObject *obj, unsigned long long *out);
/* An argument struct on the caller's stack: aligned for every field kind. */
#define CW_FILLED_MAX_BYTES 1024 /* the largest argument struct of rocm_backend is 432 bytes */
#define CW_STRUCT_BUFFER(name) \
    union { \
        unsigned char bytes[CW_FILLED_MAX_BYTES]; \
        long double align_; \
        unsigned long long words_[1]; \
    } name
/* `template`'s bytes copied into buffer (*size of them) with each of the nfills `fills`
   written at the byte offset of the same place in the tuple `offsets` (which may hold
   more): 0, or -1 with the error set (a template that is no bytes or too large, a field
   past its end, a fill that is no int). */
int cw_fill_struct(PyObject *template, PyObject *offsets, PyObject *const *fills, Py_ssize_t nfills,
                   unsigned char *buffer, size_t *size);
void cw_put_word(unsigned char *buffer, Py_ssize_t at, unsigned long long word);
/* The launch function at `function` called with the struct in buffer (size bytes) as its
   extra argument, the GIL released: the function's status. */
int cw_launch_struct(void *function, void *kernel, const unsigned int d[7], void *stream, unsigned char *buffer,
                     size_t size);

/* _native_launcher.c */
extern PyTypeObject cw_StreamLaunchType;
int cw_launcher_ready(void);
/* Queue `kernel` with the struct in buffer (size bytes) through the StreamLaunch `launch`,
   on the calling thread's stream of its device: 0, or -1 with the error set. `fn` is the
   kernel's fn_int, the handle, which the caller has read (ContiguousLaunch reads it to
   choose its path); `kernel` itself names a failed launch. */
int cw_stream_run(PyObject *launch, PyObject *kernel, PyObject *fn, const unsigned int d[7], unsigned char *buffer,
                  size_t size);

/* _native_contiguous.c */
extern PyTypeObject cw_ContiguousLaunchType;
int cw_contiguous_launch_ready(void);
/* The value of the attribute `name` of obj in *value (new reference) and 1, or 0 where
   it has none (no AttributeError made), -1 on another error. */
int cw_optional_attr(PyObject *obj, PyObject *name, PyObject **value);

/* _native_sort_runs.c: a row of a sort's input read, its zeros' signs and NaNs collected */
/* A row's NaNs in the order read, appended; `ends` (in sort_rows) keeps where each row's
   end. */
typedef struct {
    char *data;
    Py_ssize_t count, capacity;
} Run;

/* The signs of a row's zeros in the order read, one bit each (1: -0.0), appended: all a
   zero run holds, cheaper to collect than the zeros themselves. */
typedef struct {
    unsigned long long *words;
    Py_ssize_t count, capacity; /* bits, words */
} Signs;

/* The row's n elements (step bytes apart from x, any sign) copied into dst (contiguous;
   NULL: only read), its zeros' signs and NaNs appended (format 0-3; -1: a copy): 0, or -1
   where memory ran out. */
int cw_sort_collect_row(const char *x, Py_ssize_t n, Py_ssize_t step, char *dst, Py_ssize_t size, int format,
                        Signs *signs, Run *nans);

/* x's n elements (contiguous, 4- or 8-byte floats, format 2-3) partitioned into dst: the
   ones below zero at its front (their count in *below), the others but the zeros (above
   zero, NaNs) at its back, each part in no order; the zeros' signs and the NaNs appended
   as cw_sort_collect_row appends them. Returns the count at the back, -1 where memory ran
   out, -2 where this CPU has no such loop (AVX-512 F, BW and BMI2). */
/* How many of `samples` elements spread evenly over x's n (contiguous; format 0-3) are zeros or NaNs. */
int cw_sort_sampled_ties(const char *x, Py_ssize_t n, Py_ssize_t size, int format, int samples);
Py_ssize_t cw_sort_partition_row(const char *x, Py_ssize_t n, char *dst, Py_ssize_t size, Signs *signs, Run *nans,
                                 Py_ssize_t *below);

/* _native_sort_finish.c: a sorted row's NaN run and (where zc >= 2) zero run overwritten
   by the runs collected (nc NaNs at `nans`; zc zeros from their signs, bits z0.. of
   `signs`), each in reverse where `mirrored`; the row reversed where `reverse`. The zero
   run is found below the NaNs, or starts at `lo` where lo >= 0 (a partitioned row's gap,
   written whatever zc). */
void cw_sort_finish_row(char *row, Py_ssize_t n, Py_ssize_t size, int mirrored, const Signs *signs, Py_ssize_t z0,
                        Py_ssize_t zc, Py_ssize_t lo, const char *nans, Py_ssize_t nc, int reverse);

/* _native_sort.c */
extern const char cw_sort_rows_doc[];
PyObject *cw_sort_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
