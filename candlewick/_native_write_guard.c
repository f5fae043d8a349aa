/* candlewick._native's guard held around one write into a host storage (UfuncInto's
   ufunc call): the storage's lock (a _native.Lock through its C calls, any other lock
   through its acquire / release methods) and the quiet error state (_native_guard.c),
   entered in that order and left in the reverse one whatever the write did, the write's
   error kept unless leaving fails. */

#include "_native.h"
#include "_native_host.h"

static PyObject *acquire_name, *release_name;

static int take(PyObject *lock) {
    if (Py_TYPE(lock) == &cw_LockType) {
        return cw_lock_acquire(lock);
    }
    PyObject *got = PyObject_CallMethodNoArgs(lock, acquire_name);
    Py_XDECREF(got);
    return got == NULL ? -1 : 0;
}

static int give_back(PyObject *lock) {
    if (Py_TYPE(lock) == &cw_LockType) {
        cw_lock_release(lock);
        return 0;
    }
    PyObject *released = PyObject_CallMethodNoArgs(lock, release_name);
    Py_XDECREF(released);
    return released == NULL ? -1 : 0;
}

int cw_write_guard_enter(WriteGuard *guard, PyObject *lock, PyObject *var, PyObject *quiet, int kept) {
    if (take(lock) < 0) {
        return -1;
    }
    if (cw_quiet_enter(var, quiet, kept, &guard->token) < 0) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (give_back(lock) < 0) {
            Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        } else {
            PyErr_Restore(type, value, tb);
        }
        return -1;
    }
    guard->lock = lock, guard->var = var;
    return 0;
}

int cw_write_guard_exit(WriteGuard *guard) {
    int failed = 0;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (cw_quiet_exit(guard->var, guard->token) < 0) {
        failed = 1;
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        PyErr_Fetch(&type, &value, &tb);
    }
    if (give_back(guard->lock) < 0) {
        Py_XDECREF(type), Py_XDECREF(value), Py_XDECREF(tb);
        return -1;
    }
    PyErr_Restore(type, value, tb);
    return failed ? -1 : 0;
}

int cw_write_guard_ready(void) {
    acquire_name = PyUnicode_InternFromString("acquire");
    release_name = PyUnicode_InternFromString("release");
    return acquire_name == NULL || release_name == NULL ? -1 : 0;
}
