/* candlewick._native's host paths: a host backend's element-wise functions' and in-place
   operators' common cases (Elementwise, Update, Override), its primitives that are one
   NumPy ufunc (UfuncInto, UfuncNew: their tables, the storage class learnt, the buffers
   viewed, the lock and quiet error state held around the call), the operator's
   temporaries and the complex64 product. */

#ifndef CANDLEWICK_NATIVE_HOST_H
#define CANDLEWICK_NATIVE_HOST_H

#include "_native.h"

/* _native_binding.c: the storage class a host backend's UfuncInto or UfuncNew saw last (held), with the
   offsets of its object slots buf, dtype and (UfuncInto's) _lock: buf_at < 0 where they
   are not all object slots (the class is not the learnt kind: its calls are general's). */
typedef struct {
    PyTypeObject *type;
    Py_ssize_t buf_at, dtype_at, lock_at;
} StorageSlots;
/* Learn `type` into `known` (its _lock too where `lock`): 0, or -1 on an error other than
   a slot that is not an object slot. */
int cw_learn_storage(StorageSlots *known, PyTypeObject *type, int lock);

/* _native_temporary.c */
extern const char cw_temporary_doc[], cw_calibrate_temporary_doc[];
PyObject *cw_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs);
PyObject *cw_calibrate_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _native_complex.c */
extern const char cw_complex64_multiply_doc[];
PyObject *cw_complex64_multiply(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _native_transpose.c */
extern const char cw_copy_crossed_doc[];
PyObject *cw_copy_crossed(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _native_arg_rows.c */
extern const char cw_arg_rows_doc[];
PyObject *cw_arg_rows(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

/* _native_elementwise.c: Elementwise, the class; _native_elementwise_run.c: its common case */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    int arity;
    PyObject *op, *results, *method, *fallback;
    /* two arrays of two dtypes: {dtype name: {dtype name: the dtype both convert to}}
       (read where the device declares every dtype, `all_dtypes`, and "binary_dtype"), or
       NULL: such a pair is the fallback's */
    PyObject *converting, *all_dtypes;
    /* a binary or comparison op's primitive of an array and a Python scalar
       (binary_scalar, compare_scalar; interned), or NULL; taken for arrays of fewer
       elements than scalar_below (a larger one's operator may write into it where it is a
       temporary: candlewick.elision, in the Python method) */
    PyObject *scalar_method;
    Py_ssize_t scalar_below;
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

/* What the Elementwise and Reduction cases share (_native_elementwise_run.c). A new array
   of `cls` over `storage` (a reference stolen) of `shape`'s contiguous layout, `dtype` and
   `device`, or NULL with an error. */
PyObject *cw_new_array(const Binding *b, PyTypeObject *cls, PyObject *storage, PyObject *shape, PyObject *dtype,
                       PyObject *device);
/* `dtype`'s entry in `table` (a dict by dtype name; borrowed), or NULL: none (no error set,
   also where dtype has no name: not a DType) or an error. */
PyObject *cw_dtype_entry(PyObject *table, PyObject *dtype);
/* Whether `device` declares every dtype (its dtypes are `all_dtypes`) and the optional
   group `group` (a str): 1, 0, or -1 with an error. */
int cw_device_offers(PyObject *device, PyObject *all_dtypes, PyObject *group);

/* _native_reduction.c: Reduction, the namespace's sum, prod, max, min, any and all's
   common case */
extern PyTypeObject cw_ReductionType;
int cw_reduction_ready(void);

/* _native_inplace.c: Update, the class; _native_inplace_run.c: its common case */
typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *op, *keeps, *general;
    /* lazy mode's x <op> y as x <op>= y records it (Update's `rebind`), or None */
    PyObject *rebind;
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
/* Lazy mode's rebinding case of `self`'s x <op>= other (lazy_write.rebinds; b: the
   caller's held binding): x (borrowed) given the result of self->rebind(x, other),
   CW_UPDATE_DECLINED, or NULL on error. */
PyObject *cw_update_rebound(const Binding *b, Update *self, PyObject *x, PyObject *other);
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
    int unary;  /* the one-operand form: storage.unary(op, layout) */
    /* the converting form: storage.binary_as(op, lhs_layout, rhs, rhs_layout, dtype) */
    int converting;
    /* the scalar form's (storage.binary_scalar(op, layout, value, reflected)): convert(value,
       the entry's scalar dtype) makes the scalar operand, in the error state of the call;
       NULL in the other forms */
    PyObject *convert;
    /* table[id(op)][id(dtype)]: (ufunc, loud, result dtype); the matrix form's under id(None);
       the unary form's ufuncs take one operand; the scalar form's entries add the scalar's
       dtype, the converting form's the ufunc's signature */
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
PyObject *cw_ufunc_new_run_unary(const Binding *bd, UfuncNew *self, PyObject *const *args);
int cw_ufunc_new_run_ready(void);

/* _native_flat_view.c */
/* `buf` (a host storage's 1-D NumPy buffer) as the 1-D array of the elements `layout`
   reaches, in C order: the buffer itself where the layout covers it whole, else a slice of
   it (NumPy's view) where the layout is 1-D with a stride other than 0, or C-contiguous.
   1 with *view a new reference; 0 for any other layout (nothing set, no error); -1 on
   error. */
int cw_flat_view(const Binding *b, PyObject *buf, PyObject *layout, PyObject **view);

/* _native_guard.c: the quiet error state (its Lock: _native.h) */
/* Whether (var, quiet) is the pair the kept contexts hold (the first one asked is);
   loud (or NULL): a state that warns, with which the first call checks that NumPy's
   state reads as expected (else the current state is never read). */
int cw_quiet_adopt(PyObject *var, PyObject *quiet, PyObject *loud);
/* var set to quiet (kept: through this thread's kept context where it can), *token what
   cw_quiet_exit takes back: 0, or -1 on error. */
int cw_quiet_enter(PyObject *var, PyObject *quiet, int kept, PyObject **token);
int cw_quiet_exit(PyObject *var, PyObject *token);
int cw_guard_ready(void);

#endif
