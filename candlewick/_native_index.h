/* candlewick._native's indexing: unstack's rows, x[key] and its stores (Item: the
   views' layouts, the store of one element or of an array into a basic key), and a host
   storage's one-element assign and write (ElementAssign, cw_element_put). */

#ifndef CANDLEWICK_NATIVE_INDEX_H
#define CANDLEWICK_NATIVE_INDEX_H

#include "_native.h"

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
   views of one itemsize holding those elements, written by cw_element_write: 1 done, 0
   not the case (no error set). */
int cw_element_copy(PyObject *storage, Py_ssize_t to, PyObject *src, Py_ssize_t from);
/* The write both make (cw_element_copy's and cw_element_put's): `size` bytes at `bytes`
   copied into element `to` of `storage`'s `buf` under the storage's `_lock` (where it has
   one: cpu_backend's lock_of, which fill and assign hold), where the lock is the module's
   Lock and buf exports a writable 1-D view of that itemsize holding that element: 1 done,
   0 not the case (nothing written, no error set: a read-only buffer or another lock
   included). */
int cw_element_write(PyObject *storage, Py_ssize_t to, const void *bytes, Py_ssize_t size);
/* _native_element_put.c: a Python bool, int or float `value` written into element `to` of `storage` (a class of
   ElementAssign's kind) under the storage's lock, where `dtype` is the storage's DType and
   the conversion is exact and the same in either promotion mode (a bool into bool, an int
   into an integer dtype that holds it, a float or int into float32 or float64): 1 done,
   0 not the case (nothing written, no error set: a read-only buffer included). */
int cw_element_put(PyObject *storage, Py_ssize_t to, PyObject *dtype, PyObject *value);
int cw_element_put_ready(void);

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

#endif
