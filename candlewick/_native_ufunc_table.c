/* candlewick._native's look-up of the ufunc a host backend's in-place primitive runs
   (UfuncInto's): table[id(op)][id(dtype)], ops and dtypes found by identity (no
   attribute of theirs read), the last pairs found kept so that a repeated pair costs no
   int object made and no dict read. */

#include "_native.h"
#include "_native_host.h"

/* table[id(a)] (borrowed); NULL with no error where absent, NULL with an error on one. */
static PyObject *by_id(PyObject *table, PyObject *a) {
    PyObject *key = PyLong_FromVoidPtr(a);
    if (key == NULL) {
        return NULL;
    }
    PyObject *found = PyDict_GetItemWithError(table, key);
    Py_DECREF(key);
    return found;
}

PyObject *cw_ufunc_table_find(UfuncTable *t, PyObject *op, PyObject *dtype) {
    for (int i = 0; i < CW_UFUNCS_SEEN; i++) {
        if (t->seen[i][0] == op && t->seen[i][1] == dtype) {
            return t->seen[i][2];
        }
    }
    PyObject *row = by_id(t->table, op);
    if (row == NULL || !PyDict_Check(row)) {
        return NULL;
    }
    PyObject *ufunc = by_id(row, dtype);
    if (ufunc == NULL) {
        return NULL;
    }
    PyObject **slot = t->seen[t->next_seen];
    t->next_seen = (t->next_seen + 1) % CW_UFUNCS_SEEN;
    PyObject *old[3] = {slot[0], slot[1], slot[2]};
    slot[0] = Py_NewRef(op), slot[1] = Py_NewRef(dtype), slot[2] = Py_NewRef(ufunc);
    for (int i = 0; i < 3; i++) {
        Py_XDECREF(old[i]);
    }
    return ufunc;
}

int cw_ufunc_table_traverse(UfuncTable *t, visitproc visit, void *arg) {
    Py_VISIT(t->table);
    for (int i = 0; i < CW_UFUNCS_SEEN; i++) {
        for (int j = 0; j < 3; j++) {
            Py_VISIT(t->seen[i][j]);
        }
    }
    return 0;
}

void cw_ufunc_table_clear(UfuncTable *t) {
    Py_CLEAR(t->table);
    for (int i = 0; i < CW_UFUNCS_SEEN; i++) {
        for (int j = 0; j < 3; j++) {
            Py_CLEAR(t->seen[i][j]);
        }
    }
}
