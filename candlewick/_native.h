/* candlewick._native, the optional C module: what its layers share (the binding of the
   Layout and array classes, new and broadcast Layouts, the methods made in C that stand
   for Python ones, the storages' Lock, the CPU's vector level). Each layer's own
   declarations are in a header of its own: _native_host.h (the host backends' element-wise
   and in-place paths), _native_index.h (indexing and element stores), _native_sort.h (the
   cpu sort), _native_launch.h (a GPU backend's launches and block cache) and
   _native_lazy.h (lazy mode); each .c file includes the ones it uses.

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

/* A copy of the binding whose objects stay alive while a fast path runs code that could
   bind again or unbind (a primitive in Python, a finalizer run by the garbage collector
   during an allocation): 1 and the copy held, or 0 where nothing is bound. */
int cw_hold_binding(Binding *held);
void cw_release_binding(Binding *held);

/* The offset of `name`, an object slot (T_OBJECT_EX) of `type`, in *at: 0, or -1 with
   TypeError where it is not one that getattr and setattr on an instance read and write
   there (a member descriptor of `type` or a base, not restricted). */
int cw_slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *at);
/* obj.name (new reference, or NULL with an error) (_native_binding.c): read where the
   member descriptor (found through the type's cache) keeps it, where it is an object
   slot of a class obj is an instance of and the type's attribute lookup is object's (a
   __getattr__ is only a fallback), about a fifth of PyObject_GetAttr's instructions; else
   PyObject_GetAttr */
PyObject *cw_member(PyObject *obj, PyObject *name);
/* cw_member at one place in the code that reads the same attribute of objects of one
   class (a storage's size): the type (by its version tag, which any change to it or its
   bases changes) and the slot's offset kept from the last read, so the next read of an
   object of that type is one load (_native_binding.c) */
typedef struct {
    PyTypeObject *type; /* (borrowed: compared, with the tag, never used) */
    unsigned int tag;
    Py_ssize_t offset;
} cw_MemberSite;
PyObject *cw_site_member(cw_MemberSite *site, PyObject *obj, PyObject *name);

/* The optional last argument `widest` of a call taking `fixed` arguments before it (the
   widest vector loop a test lets it take) in *widest, `fallback` where absent: 0, or -1
   with TypeError naming `usage` (the call's signature, e.g. "arg_rows(x, out, largest,
   widest=1)") where the count is neither fixed nor fixed + 1 or widest is not an int
   (_native_binding.c). */
int cw_widest_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t fixed, long fallback, const char *usage,
                  long *widest);

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

/* _native_guard.c: Lock, the lock of a cpu storage's writes (and of BlockCache), taken
   from C without a Python call */
extern PyTypeObject cw_LockType;
int cw_lock_acquire(PyObject *lock);
void cw_lock_release(PyObject *lock);

/* x86-64 vector loops chosen at run time (_native_complex.c, _native_sort_runs.c,
   _native_sort_partition.c, _native_sort_finish.c, _native_transpose.c, _native_arg_rows.c) */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CW_HAVE_AVX2_PATH 1
#include <immintrin.h>
/* 2 AVX-512F, 1 AVX2, 0 neither (the CPU's, asked once). */
int cw_vector_level(void);
#endif

#endif
