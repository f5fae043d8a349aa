/* candlewick._native: the optional C module. Two hot spots of the front end where one
   Python object costs more than NumPy's whole call:
   - _native_rows.c: unstack's row views (NumPy makes a view in C in about 0.06 us; a
     Layout and an array made in Python cost about 0.16 us a row);
   - _native_elementwise.c: the common case of the namespace's element-wise functions
     (two arrays of one class, dtype, device and shape), about 1 us of Python on a 20 us
     NumPy call at 2^20 elements;
   - _native_reduction.c: the common case of the namespace's sum, prod, max, min, any and
     all (one axis or all, keepdims, sum's float accumulator of a float array), for the
     same reason as the next;
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
     call), one call of C each; _native_lazy_sites.c what a lazy() statement learns
     (one that fuses nothing runs in whichever mode, recorded or eager, ran it faster);
   - _native_lazy_start.c: lazy mode's decision to run a call on a computed array at
     once or record it (lazy_policy.Start's methods), one call of C, over
     _native_lazy_key.c (the call's key and count);
   - _native_lazy_operand.c: the storage an element-wise call in lazy mode is made on
     (lazy_mode._operand), one call of C, over _native_lazy_mode.c (lazy mode's state as
     these paths read it: lazy_mode's globals, this thread's pending graph);
   - _native_sort.c: the cpu backend's rows sorted by NumPy's default sort with a stable
     sort's zero and NaN runs, collected while the input is copied (no pass of its own).

   setup.py builds it where a C compiler is found. candlewick/_core.py binds it to the
   array class once that class exists (bind_native); where it is absent or cannot bind,
   the same code paths run in Python. This file holds the module (its functions and
   types), lazy mode's hooks (set_lazy) and the helpers the parts share for attributes
   and methods made in C; _native_binding.c the binding (bind). */

#include "_native.h"
#include "_native_host.h"
#include "_native_index.h"
#include "_native_launch.h"
#include "_native_lazy.h"
#include "_native_sort.h"

PyObject *cw_lazy_write = NULL;
PyObject *cw_lazy_operand = NULL;
PyObject *cw_lazy_live = NULL;
PyObject *cw_lazy_type = NULL;

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

static PyMethodDef methods[] = {
    {"bind", cw_bind, METH_VARARGS, cw_bind_doc},
    {"unbind", cw_unbind, METH_NOARGS, cw_unbind_doc},
    {"bound_class", cw_bound_class, METH_NOARGS, cw_bound_class_doc},
    {"set_lazy", set_lazy, METH_VARARGS, set_lazy_doc},
    {"lazy_blocks", (PyCFunction)(void (*)(void))cw_lazy_blocks, METH_FASTCALL, cw_lazy_blocks_doc},
    {"lazy_starts", (PyCFunction)(void (*)(void))cw_lazy_starts, METH_FASTCALL, cw_lazy_starts_doc},
    {"lazy_operands", (PyCFunction)(void (*)(void))cw_lazy_operands, METH_FASTCALL, cw_lazy_operands_doc},
    {"lazy_operand", cw_lazy_operand_of, METH_O, cw_lazy_operand_doc},
    {"lazy_copy_operand", cw_lazy_copy_operand_of, METH_O, cw_lazy_copy_operand_doc},
    {"lazy_recording", cw_lazy_recording_of, METH_O, cw_lazy_recording_doc},
    {"lazy_fused", cw_lazy_fused, METH_NOARGS, cw_lazy_fused_doc},
    {"lazy_sites_forget", cw_lazy_sites_forget, METH_NOARGS, cw_lazy_sites_forget_doc},
    {"rows", cw_rows, METH_VARARGS, cw_rows_doc},
    {"launch", (PyCFunction)(void (*)(void))cw_launch, METH_FASTCALL, cw_launch_doc},
    {"fft_exec", (PyCFunction)(void (*)(void))cw_fft_exec, METH_FASTCALL, cw_fft_exec_doc},
    {"complex64_multiply", (PyCFunction)(void (*)(void))cw_complex64_multiply, METH_FASTCALL,
     cw_complex64_multiply_doc},
    {"arg_rows", (PyCFunction)(void (*)(void))cw_arg_rows, METH_FASTCALL, cw_arg_rows_doc},
    {"copy_crossed", (PyCFunction)(void (*)(void))cw_copy_crossed, METH_FASTCALL, cw_copy_crossed_doc},
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
    if (cw_elementwise_ready() < 0 || cw_reduction_ready() < 0 || cw_update_ready() < 0 || cw_ufunc_into_ready() < 0 || cw_ufunc_new_ready() < 0 ||
        cw_guard_ready() < 0 || cw_item_ready() < 0 ||
        cw_override_ready() < 0 || cw_block_cache_ready() < 0 || cw_element_assign_ready() < 0 ||
        cw_launcher_ready() < 0 || cw_contiguous_launch_ready() < 0 || cw_lazy_globals_ready() < 0 || cw_lazy_block_ready() < 0 ||
        PyType_Ready(&cw_LazyCallType) < 0 || cw_lazy_start_ready() < 0 || cw_lazy_operand_ready() < 0 ||
        cw_lazy_mode_ready() < 0 || cw_lazy_sites_ready() < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(module, "Elementwise", (PyObject *)&cw_ElementwiseType) < 0 ||
        PyModule_AddObjectRef(module, "Reduction", (PyObject *)&cw_ReductionType) < 0 ||
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
        PyModule_AddObjectRef(module, "LazyCall", (PyObject *)&cw_LazyCallType) < 0 ||
        PyModule_AddObjectRef(module, "StartMethod", (PyObject *)&cw_StartMethodType) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
