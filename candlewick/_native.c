/* candlewick._native: the optional C module. Two hot spots of the front end where one
   Python object costs more than NumPy's whole call:
   - _native_rows.c: unstack's row views (NumPy makes a view in C in about 0.06 us; a
     Layout and an array made in Python cost about 0.16 us a row);
   - _native_elementwise.c: the common case of the namespace's element-wise functions
     (two arrays of one class, dtype, device and shape), about 1 us of Python on a 20 us
     NumPy call at 2^20 elements;
   - _native_inplace.c: the in-place operators' common case (x += y, x *= 2.0), whose
     Python form costs microseconds of cache misses after an update of 2^20 elements;
   - _native_override.c: np.add(x, y, out=x)'s way in (Array.__array_ufunc__'s first
     step), for the same reason;
   - _native_ufunc.c: a host backend's in-place primitive whose common case is one NumPy
     ufunc with out= (cpu_backend/inplace.py), for the same reason;
   - _native_slice.c: x[a:b:c] and its store back (x[a:b:c] op= y is a get, an update and
     a store), for the same reason;
   - _native_guard.c: what those primitives hold while they write (a storage's lock, the
     quiet error state), taken without a Python call;
   - _native_launch.c: a GPU backend's kernel launch through its runtime's launch
     function, without ctypes' argument conversion (and a prepared launch's, its
     argument struct filled in C; and a prepared hipFFT plan's exec);
   - _native_blocks.c: a GPU backend's caching allocator's hit path (take and give
     back a cached block, its counts) under the allocator's lock;
   - _native_complex.c: a host backend's complex64 product in double precision,
     rounded once, at about the speed of NumPy's single-precision loop;
   - _native_assign.c: a host backend's assign of one element (a loop's x[i, j] = v);
   - _native_lazy_block.c: a lazy() block's entry and exit (a loop may enter one per
     call), one call of C each;
   - _native_lazy_start.c: lazy mode's decision to run a call on a computed array at
     once or record it (lazy_policy.Start's methods), one call of C, over
     _native_lazy_key.c (the call's key and count);
   - _native_sort.c: the cpu backend's rows sorted by NumPy's default sort with a stable
     sort's zero and NaN runs, collected while the input is copied (no pass of its own).

   setup.py builds it where a C compiler is found. candlewick/_core.py binds it to the
   array class once that class exists (bind_native); where it is absent or cannot bind,
   the same code paths run in Python. This file holds the binding and the module. */

#include "_native.h"

#include <structmember.h>

Binding cw_bound;
PyObject *cw_lazy_write = NULL;
PyObject *cw_lazy_operand = NULL;
PyObject *cw_lazy_live = NULL;
PyObject *cw_lazy_type = NULL;

int cw_slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *at) {
    PyObject *descr = PyObject_GetAttrString((PyObject *)type, name);
    if (descr == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
    }
    int is_slot = descr != NULL && PyObject_TypeCheck(descr, &PyMemberDescr_Type) &&
                  ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX;
    if (is_slot) {
        *at = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    Py_XDECREF(descr);
    if (!is_slot) {
        PyErr_Format(PyExc_TypeError, "candlewick._native: %s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    return 0;
}

int cw_learn_storage(StorageSlots *known, PyTypeObject *type, int lock) {
    static const char *const names[] = {"buf", "dtype", "_lock"};
    Py_ssize_t at[3] = {-1, -1, -1};
    for (int k = 0; k < (lock ? 3 : 2); k++) {
        if (cw_slot_offset(type, names[k], &at[k]) < 0) {
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
                return -1;
            }
            PyErr_Clear();
            at[0] = -1; /* not all object slots: the class's calls are general's */
            break;
        }
    }
    Py_XSETREF(known->type, (PyTypeObject *)Py_NewRef(type));
    known->buf_at = at[0];
    known->dtype_at = at[1];
    known->lock_at = at[2];
    return 0;
}

/* Absent is found without an AttributeError made and cleared (as getattr(obj, name,
   False) finds it): the exception cost a third of _native_inplace.c's part of an update. */
int cw_optional_attr(PyObject *obj, PyObject *name, PyObject **value) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyObject_GetOptionalAttr(obj, name, value);
#else
    return _PyObject_LookupAttr(obj, name, value);
#endif
}

int cw_attr_true(PyObject *obj, PyObject *name) {
    PyObject *value;
    int found = cw_optional_attr(obj, name, &value);
    if (found <= 0) {
        return found;
    }
    int truth = PyObject_IsTrue(value);
    Py_DECREF(value);
    return truth;
}

PyObject *cw_new_layout(const Binding *b, PyObject *shape, PyObject *strides, PyObject *offset, PyObject *contig,
                        PyObject *dense) {
    PyObject *parts[] = {shape, strides, offset, contig, dense};
    int made = 1;
    for (int i = 0; i < 5; i++) {
        made = made && parts[i] != NULL;
    }
    PyObject *out = made ? b->layout_type->tp_alloc(b->layout_type, 0) : NULL;
    if (out == NULL) {
        for (int i = 0; i < 5; i++) {
            Py_XDECREF(parts[i]);
        }
        return NULL;
    }
    SLOT(out, b->shape) = shape;
    SLOT(out, b->strides) = strides;
    SLOT(out, b->offset) = offset;
    SLOT(out, b->contig) = contig;
    SLOT(out, b->dense) = dense;
    return out;
}

PyObject *cw_bind_method(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyObject *of_general(cw_Method *self, void *closure) {
    if (closure == NULL) {
        return Py_NewRef(self->general);
    }
    return PyObject_GetAttrString(self->general, (const char *)closure);
}

PyGetSetDef cw_method_getset[] = {
    {"general", (getter)of_general, NULL, "the Python method run where the C one declines", NULL},
    {"__wrapped__", (getter)of_general, NULL, NULL, NULL},
    {"__doc__", (getter)of_general, NULL, NULL, "__doc__"},
    {"__name__", (getter)of_general, NULL, NULL, "__name__"},
    {"__qualname__", (getter)of_general, NULL, NULL, "__qualname__"},
    {"__module__", (getter)of_general, NULL, NULL, "__module__"},
    {NULL, NULL, NULL, NULL, NULL},
};

static void clear_binding(void) {
    PyTypeObject *layout = cw_bound.layout_type, *array = cw_bound.array_type;
    PyObject *cache = cw_bound.contiguous_cache, *make = cw_bound.contiguous_layout;
    cw_bound.layout_type = NULL; /* first: a fast path reached from a destructor below declines */
    cw_bound.array_type = NULL;
    cw_bound.contiguous_cache = NULL;
    cw_bound.contiguous_layout = NULL;
    Py_XDECREF(layout);
    Py_XDECREF(array);
    Py_XDECREF(cache);
    Py_XDECREF(make);
}

int cw_hold_binding(Binding *held) {
    if (cw_bound.layout_type == NULL) {
        return 0;
    }
    *held = cw_bound;
    Py_INCREF(held->layout_type);
    Py_INCREF(held->array_type);
    Py_INCREF(held->contiguous_cache);
    Py_INCREF(held->contiguous_layout);
    return 1;
}

void cw_release_binding(Binding *held) {
    Py_DECREF(held->layout_type);
    Py_DECREF(held->array_type);
    Py_DECREF(held->contiguous_cache);
    Py_DECREF(held->contiguous_layout);
}

PyDoc_STRVAR(bind_doc,
"bind(layout_type, array_type, contiguous_cache, contiguous_layout)\n\n"
"Learn where the slots of Layout (shape, strides, offset, _contig, dense_size) and of\n"
"the array class (_storage, _layout, _dtype, _device) lie, the dict of cached\n"
"contiguous layouts by shape and the function that makes one. TypeError if a slot is\n"
"not an object slot or an argument has the wrong type (the previous binding then\n"
"stands). The fast paths then take arrays of exactly array_type.");

static PyObject *bind(PyObject *module, PyObject *args) {
    (void)module;
    PyTypeObject *layout, *array;
    PyObject *cache, *make;
    Py_ssize_t at[9];
    if (!PyArg_ParseTuple(args, "O!O!O!O:bind", &PyType_Type, &layout, &PyType_Type, &array, &PyDict_Type,
                          &cache, &make)) {
        return NULL;
    }
    if (!PyCallable_Check(make)) {
        PyErr_SetString(PyExc_TypeError, "candlewick._native.bind: contiguous_layout must be callable");
        return NULL;
    }
    /* every offset read before any is kept: a failed bind leaves the previous one whole */
    if (cw_slot_offset(layout, "shape", &at[0]) || cw_slot_offset(layout, "strides", &at[1]) ||
        cw_slot_offset(layout, "offset", &at[2]) || cw_slot_offset(layout, "_contig", &at[3]) ||
        cw_slot_offset(layout, "dense_size", &at[4]) || cw_slot_offset(array, "_storage", &at[5]) ||
        cw_slot_offset(array, "_layout", &at[6]) || cw_slot_offset(array, "_dtype", &at[7]) ||
        cw_slot_offset(array, "_device", &at[8])) {
        return NULL;
    }
    clear_binding();
    cw_bound.shape = at[0], cw_bound.strides = at[1], cw_bound.offset = at[2];
    cw_bound.contig = at[3], cw_bound.dense = at[4];
    cw_bound.storage = at[5], cw_bound.layout = at[6], cw_bound.dtype = at[7], cw_bound.device = at[8];
    cw_bound.contiguous_cache = Py_NewRef(cache);
    cw_bound.contiguous_layout = Py_NewRef(make);
    cw_bound.array_type = (PyTypeObject *)Py_NewRef(array);
    cw_bound.layout_type = (PyTypeObject *)Py_NewRef(layout);
    Py_RETURN_NONE;
}

PyDoc_STRVAR(unbind_doc,
"unbind()\n\n"
"Forget the binding: every fast path declines and the Python code paths run (tests use\n"
"it to run both).");

static PyObject *unbind(PyObject *module, PyObject *args) {
    (void)module, (void)args;
    clear_binding();
    Py_RETURN_NONE;
}

PyDoc_STRVAR(set_lazy_doc,
"set_lazy(write_into, operand=None, live=None, lazy_type=None)\n\n"
"Lazy mode on somewhere (write_into: the function a write runs first, given the array\n"
"written) or off (None). While on, the fast paths that compute (Update and the Override\n"
"through it) decline, so that the Python paths record; Elementwise declines too unless\n"
"operand is given (operand(x): the storage to call x's primitive on, a recording one\n"
"where lazy mode is on in this context); Item's stores call write_into(x) before they\n"
"write, but where live (a set: the pending graphs holding nodes) is empty and x's\n"
"storage is not of lazy_type (nothing to run, nothing to swap); views (Item's get,\n"
"rows) are unchanged.");

int cw_set_lazy(PyObject *hook, PyObject *operand, PyObject *live, PyObject *lazy_type) {
    if ((hook != Py_None && !PyCallable_Check(hook)) || (operand != Py_None && !PyCallable_Check(operand))) {
        PyErr_SetString(PyExc_TypeError,
                        "candlewick._native.set_lazy: write_into and operand must be callable or None");
        return -1;
    }
    if ((live == Py_None) != (lazy_type == Py_None) || (live != Py_None && !PySet_CheckExact(live)) ||
        (lazy_type != Py_None && !PyType_Check(lazy_type))) {
        PyErr_SetString(PyExc_TypeError,
                        "candlewick._native.set_lazy: live must be a set and lazy_type a type, both or neither");
        return -1;
    }
    PyObject *old[] = {cw_lazy_write, cw_lazy_operand, cw_lazy_live, cw_lazy_type};
    int on = hook != Py_None;
    cw_lazy_write = on ? Py_NewRef(hook) : NULL;
    cw_lazy_operand = on && operand != Py_None ? Py_NewRef(operand) : NULL;
    cw_lazy_live = on && live != Py_None ? Py_NewRef(live) : NULL;
    cw_lazy_type = on && lazy_type != Py_None ? Py_NewRef(lazy_type) : NULL;
    for (int i = 0; i < 4; i++) {
        Py_XDECREF(old[i]);
    }
    return 0;
}

static PyObject *set_lazy(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *hook, *operand = Py_None, *live = Py_None, *lazy_type = Py_None;
    if (!PyArg_UnpackTuple(args, "set_lazy", 1, 4, &hook, &operand, &live, &lazy_type)) {
        return NULL;
    }
    return cw_set_lazy(hook, operand, live, lazy_type) < 0 ? NULL : Py_NewRef(Py_None);
}

PyDoc_STRVAR(bound_class_doc, "bound_class()\n\nThe array class bound, or None.");

static PyObject *bound_class(PyObject *module, PyObject *args) {
    (void)module, (void)args;
    return Py_NewRef(cw_bound.array_type ? (PyObject *)cw_bound.array_type : Py_None);
}

static PyMethodDef methods[] = {
    {"bind", bind, METH_VARARGS, bind_doc},
    {"unbind", unbind, METH_NOARGS, unbind_doc},
    {"bound_class", bound_class, METH_NOARGS, bound_class_doc},
    {"set_lazy", set_lazy, METH_VARARGS, set_lazy_doc},
    {"lazy_blocks", (PyCFunction)(void (*)(void))cw_lazy_blocks, METH_FASTCALL, cw_lazy_blocks_doc},
    {"lazy_starts", (PyCFunction)(void (*)(void))cw_lazy_starts, METH_FASTCALL, cw_lazy_starts_doc},
    {"rows", cw_rows, METH_VARARGS, cw_rows_doc},
    {"launch", (PyCFunction)(void (*)(void))cw_launch, METH_FASTCALL, cw_launch_doc},
    {"fft_exec", (PyCFunction)(void (*)(void))cw_fft_exec, METH_FASTCALL, cw_fft_exec_doc},
    {"complex64_multiply", (PyCFunction)(void (*)(void))cw_complex64_multiply, METH_FASTCALL,
     cw_complex64_multiply_doc},
    {"sort_rows", (PyCFunction)(void (*)(void))cw_sort_rows, METH_FASTCALL, cw_sort_rows_doc},
    {"temporary", (PyCFunction)(void (*)(void))cw_temporary, METH_FASTCALL, cw_temporary_doc},
    {"calibrate_temporary", (PyCFunction)(void (*)(void))cw_calibrate_temporary, METH_FASTCALL,
     cw_calibrate_temporary_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "candlewick._native",
    .m_doc = "The optional C part of candlewick's front end: unstack's rows and the element-wise fast path",
    .m_size = -1,
    .m_methods = methods,
};

PyMODINIT_FUNC PyInit__native(void) {
    if (cw_elementwise_ready() < 0 || cw_update_ready() < 0 || cw_ufunc_into_ready() < 0 || cw_ufunc_new_ready() < 0 ||
        cw_guard_ready() < 0 || cw_item_ready() < 0 ||
        cw_override_ready() < 0 || cw_block_cache_ready() < 0 || cw_element_assign_ready() < 0 ||
        cw_launcher_ready() < 0 || cw_contiguous_launch_ready() < 0 || cw_lazy_block_ready() < 0 ||
        cw_lazy_start_ready() < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "Elementwise", (PyObject *)&cw_ElementwiseType) < 0 ||
        PyModule_AddObjectRef(module, "Update", (PyObject *)&cw_UpdateType) < 0 ||
        PyModule_AddObjectRef(module, "UfuncInto", (PyObject *)&cw_UfuncIntoType) < 0 ||
        PyModule_AddObjectRef(module, "UfuncNew", (PyObject *)&cw_UfuncNewType) < 0 ||
        PyModule_AddObjectRef(module, "Lock", (PyObject *)&cw_LockType) < 0 ||
        PyModule_AddObjectRef(module, "Item", (PyObject *)&cw_ItemType) < 0 ||
        PyModule_AddObjectRef(module, "Override", (PyObject *)&cw_OverrideType) < 0 ||
        PyModule_AddObjectRef(module, "BlockCache", (PyObject *)&cw_BlockCacheType) < 0 ||
        PyModule_AddObjectRef(module, "ElementAssign", (PyObject *)&cw_ElementAssignType) < 0 ||
        PyModule_AddObjectRef(module, "StreamLaunch", (PyObject *)&cw_StreamLaunchType) < 0 ||
        PyModule_AddObjectRef(module, "ContiguousLaunch", (PyObject *)&cw_ContiguousLaunchType) < 0 ||
        PyModule_AddObjectRef(module, "LazyBlock", (PyObject *)&cw_LazyBlockType) < 0 ||
        PyModule_AddObjectRef(module, "StartMethod", (PyObject *)&cw_StartMethodType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
