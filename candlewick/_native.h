/* candlewick._native, the optional C module: what its parts share.

   The module fills and reads the slots of two Python classes, Layout and the array
   class, at offsets read from the classes' own member descriptors when they are bound
   (_native.c: bind), so a renamed or missing slot fails the bind and the Python code
   paths run instead, never a store at a wrong offset. */

#ifndef CANDLEWICK_NATIVE_H
#define CANDLEWICK_NATIVE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define SLOT(obj, at) (*(PyObject **)((char *)(obj) + (at)))

typedef struct {
    PyTypeObject *layout_type; /* NULL: not bound (every fast path declines) */
    PyTypeObject *array_type;
    Py_ssize_t shape, strides, offset, contig, dense; /* Layout's slots */
    Py_ssize_t storage, layout, dtype, device;        /* the array class's slots */
    PyObject *contiguous_cache;                       /* {shape: offset-0 C-contiguous Layout} */
    PyObject *contiguous_layout;                      /* shape -> that Layout, made and cached */
} Binding;

extern Binding cw_bound;

/* A copy of the binding whose objects stay alive while a fast path runs code that could
   bind again or unbind (a primitive in Python, a finalizer run by the garbage collector
   during an allocation): 1 and the copy held, or 0 where nothing is bound. */
int cw_hold_binding(Binding *held);
void cw_release_binding(Binding *held);

/* _native_rows.c */
extern const char cw_rows_doc[];
PyObject *cw_rows(PyObject *module, PyObject *args);

/* _native_elementwise.c */
extern PyTypeObject cw_ElementwiseType;
int cw_elementwise_ready(void);

/* _native_inplace.c */
extern PyTypeObject cw_UpdateType;
int cw_update_ready(void);

/* _native_ufunc.c */
extern PyTypeObject cw_UfuncIntoType;
int cw_ufunc_into_ready(void);

/* _native_launch.c */
extern const char cw_launch_doc[];
PyObject *cw_launch(PyObject *module, PyObject *const *args, Py_ssize_t nargs);

#endif
