/* candlewick._native's binding (bind, unbind, bound_class): where the slots of Layout and
   of the array class lie, read from the classes' own member descriptors (a renamed or
   missing slot fails the bind and the Python code paths run, never a store at a wrong
   offset), the cached contiguous layouts, and the copy of it a fast path holds while it
   runs code that could bind again; also the slots of a host backend's storage class
   (cw_learn_storage) and a Layout made in C (cw_new_layout); and the optional trailing
   `widest` argument the host loops with vector paths share (cw_widest_arg). */

#include "_native.h"
#include "_native_host.h"

#include <structmember.h>

Binding cw_bound;

/* (_native.h) */
/* The object slot obj.name is read from, as cw_member reads it: a member descriptor
   (found through the type's cache) of a class obj is an instance of, the type's attribute
   lookup object's (a __getattr__ is only a fallback); NULL where not so. */
static PyMemberDef *object_slot(PyObject *obj, PyObject *name) {
    /* object.__getattribute__ (its slot wrapper), found as any type's attribute is: from
       3.12 on, a static builtin type's tp_dict is NULL (its dict is the interpreter's) */
    static PyObject *s_getattribute, *object_getattribute;
    if (object_getattribute == NULL) { /* (first use; held for the process) */
        if (s_getattribute == NULL && (s_getattribute = PyUnicode_InternFromString("__getattribute__")) == NULL) {
            PyErr_Clear();
            return NULL;
        }
        object_getattribute = Py_XNewRef(_PyType_Lookup(&PyBaseObject_Type, s_getattribute));
        if (object_getattribute == NULL) {
            return NULL;
        }
    }
    PyTypeObject *type = Py_TYPE(obj);
    if (type->tp_getattro == PyObject_GenericGetAttr ||
        _PyType_Lookup(type, s_getattribute) == object_getattribute) {
        PyObject *descr = _PyType_Lookup(type, name); /* (the interpreter's cached lookup) */
        /* (its class's instance: a member descriptor set on an unrelated class reads
           another layout, and the getattr refuses it) */
        if (descr != NULL && Py_TYPE(descr) == &PyMemberDescr_Type &&
            PyObject_TypeCheck(obj, ((PyDescrObject *)descr)->d_type)) {
            PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
            if (member->type == T_OBJECT_EX && !(member->flags & READ_RESTRICTED)) {
                return member;
            }
        }
    }
    return NULL;
}

PyObject *cw_member(PyObject *obj, PyObject *name) {
    PyMemberDef *member = object_slot(obj, name);
    PyObject *value = member == NULL ? NULL : *(PyObject **)((char *)obj + member->offset);
    return value != NULL ? Py_NewRef(value) : PyObject_GetAttr(obj, name);
}

/* (_native.h) */
PyObject *cw_site_member(cw_MemberSite *site, PyObject *obj, PyObject *name) {
    PyTypeObject *type = Py_TYPE(obj);
    if (type == site->type && site->tag != 0 && type->tp_version_tag == site->tag &&
        PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG)) {
        PyObject *value = *(PyObject **)((char *)obj + site->offset);
        if (value != NULL) {
            return Py_NewRef(value);
        }
    }
    PyMemberDef *member = object_slot(obj, name);
    PyObject *value = member == NULL ? NULL : *(PyObject **)((char *)obj + member->offset);
    if (value == NULL) {
        return PyObject_GetAttr(obj, name);
    }
    /* (the tag is given at the type's first cached lookup, object_slot's, and changes
       with any change to the type or its bases; tags are never reused in a process) */
    if (PyType_HasFeature(type, Py_TPFLAGS_VALID_VERSION_TAG) && type->tp_version_tag != 0) {
        site->type = type;
        site->tag = type->tp_version_tag;
        site->offset = member->offset;
    }
    return Py_NewRef(value);
}

int cw_slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *at) {
    PyObject *key = PyUnicode_FromString(name);
    if (key == NULL) {
        return -1;
    }
    /* found as an instance's getattr finds it (the type's cached MRO lookup); a member
       descriptor of an unrelated class set on it reads another layout (getattr refuses
       it), and a restricted one does more than the plain read or write made in its place */
    PyObject *descr = _PyType_Lookup(type, key);
    Py_DECREF(key);
    PyMemberDef *member = descr != NULL && Py_TYPE(descr) == &PyMemberDescr_Type &&
                                  PyType_IsSubtype(type, ((PyDescrObject *)descr)->d_type)
                              ? ((PyMemberDescrObject *)descr)->d_member
                              : NULL;
    if (member == NULL || member->type != T_OBJECT_EX ||
        (member->flags & (READONLY | READ_RESTRICTED | PY_WRITE_RESTRICTED))) {
        PyErr_Format(PyExc_TypeError, "candlewick._native: %s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    *at = member->offset;
    return 0;
}

/* (_native.h) */
int cw_widest_arg(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t fixed, long fallback, const char *usage,
                  long *widest) {
    if (nargs != fixed && nargs != fixed + 1) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.%s takes %zd or %zd arguments, got %zd", usage, fixed,
                     fixed + 1, nargs);
        return -1;
    }
    if (nargs == fixed) {
        *widest = fallback;
        return 0;
    }
    PyObject *arg = args[fixed];
    if (!PyIndex_Check(arg) || PyBool_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.%s: widest must be an int, not %.100s", usage,
                     Py_TYPE(arg)->tp_name);
        return -1;
    }
    *widest = PyLong_AsLong(arg);
    return *widest == -1 && PyErr_Occurred() ? -1 : 0;
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

const char cw_bind_doc[] =
"bind(layout_type, array_type, contiguous_cache, contiguous_layout)\n\n"
"Learn where the slots of Layout (shape, strides, offset, _contig, dense_size) and of\n"
"the array class (_storage, _layout, _dtype, _device) lie, the dict of cached\n"
"contiguous layouts by shape and the function that makes one. TypeError if a slot is\n"
"not an object slot or an argument has the wrong type (the previous binding then\n"
"stands). The fast paths then take arrays of exactly array_type.";

PyObject *cw_bind(PyObject *module, PyObject *args) {
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

const char cw_unbind_doc[] =
"unbind()\n\n"
"Forget the binding: every fast path declines and the Python code paths run (tests use\n"
"it to run both).";

PyObject *cw_unbind(PyObject *module, PyObject *args) {
    (void)module, (void)args;
    clear_binding();
    Py_RETURN_NONE;
}

const char cw_bound_class_doc[] = "bound_class()\n\nThe array class bound, or None.";

PyObject *cw_bound_class(PyObject *module, PyObject *args) {
    (void)module, (void)args;
    return Py_NewRef(cw_bound.array_type ? (PyObject *)cw_bound.array_type : Py_None);
}
