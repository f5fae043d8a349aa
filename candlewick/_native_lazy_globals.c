/* candlewick._native's reads of lazy mode's module globals (lazy_mode's and lazy_policy's),
   kept until their dict changes.

   Every element-wise call in a lazy() block reads about a dozen of them (the mode's
   context variable, LIVE, RECORD_BYTES, REPLAYS, _counts, ...). They are read at each
   call because tests set them (monkeypatch), and lazy_policy rebinds _generation at
   each change of its counts; between such changes the dicts stand still. A view
   (cw_GlobalsView) holds the values of its names as they were at the dict's stamp, all
   read again at once when the stamp moved: a call then checks one stamp per module
   instead of making a lookup per name (a kept read per name cost ~60 instructions,
   ~800 of the ~2.8k lazy mode added to a primitive call that runs at once, callgrind
   2026-12-02).

   The stamp: from Python 3.12 on, a count bumped by a dict watcher (PyDict_AddWatcher)
   on every change of a watched dict (the dict is watched at its view's first read);
   before 3.12, the dict's own version tag (ma_version_tag: changed by every change of
   the dict). Where no watcher is left (3.12+: 8 per interpreter) the stamp is 0 and
   every check reads the names again.

   The values are borrowed, as a lookup's: valid while the dict holds them, that is
   while the stamp stands. A view interns its own names from their texts when its dict
   is given; cw_intern_names interns the other names the lazy paths read attributes by,
   each file's table of texts and variables in one call. */

#include "_native.h"
#include "_native_lazy.h"

#if PY_VERSION_HEX >= 0x030C0000
static int watcher = -1;
uint64_t cw_globals_changes = 1; /* 0: never a stamp */

static int on_change(PyDict_WatchEvent event, PyObject *dict, PyObject *key, PyObject *value) {
    (void)event, (void)dict, (void)key, (void)value;
    cw_globals_changes++;
    return 0;
}

/* The stamp of `dict`, watched from now on (0 where it cannot be) */
static uint64_t watched_stamp(PyObject *dict) {
    if (watcher < 0 || PyDict_Watch(watcher, dict) < 0) {
        PyErr_Clear();
        return 0;
    }
    return cw_globals_changes;
}
#else
static uint64_t watched_stamp(PyObject *dict) {
    return CW_GLOBALS_STAMP(dict);
}
#endif

/* (_native_lazy.h) */
int cw_globals_read(cw_GlobalsView *view) {
    if (view->dict == NULL) {
        PyErr_Format(PyExc_RuntimeError, "candlewick._native: %s's globals were not given", view->module);
        return -1;
    }
    view->stamp = 0; /* (until every name is read) */
    /* taken first: a change made while they are read (Python code run by a derived
       value's conversion) leaves the view to be read again */
    uint64_t stamp = watched_stamp(view->dict);
    for (Py_ssize_t i = 0; i < view->count; i++) {
        PyObject *value = PyDict_GetItemWithError(view->dict, view->names[i]);
        if (value == NULL) {
            if (!PyErr_Occurred()) {
                PyErr_Format(PyExc_RuntimeError, "candlewick._native: %s has no %U", view->module, view->names[i]);
            }
            return -1;
        }
        view->values[i] = value;
    }
    if (view->derive != NULL && view->derive(view) < 0) {
        return -1;
    }
    view->stamp = stamp;
    return 0;
}

/* (_native_lazy.h) */
int cw_globals_give(cw_GlobalsView *view, PyObject *dict) {
    for (Py_ssize_t i = 0; i < view->count; i++) {
        if (view->names[i] == NULL && (view->names[i] = PyUnicode_InternFromString(view->texts[i])) == NULL) {
            return -1;
        }
    }
    Py_XSETREF(view->dict, Py_NewRef(dict));
    view->stamp = 0;
    return 0;
}

/* (_native_lazy.h) */
int cw_intern_names(size_t count, const char *const *texts, PyObject **const *targets) {
    for (size_t i = 0; i < count; i++) {
        if ((*targets[i] = PyUnicode_InternFromString(texts[i])) == NULL) {
            return -1;
        }
    }
    return 0;
}

int cw_lazy_globals_ready(void) {
#if PY_VERSION_HEX >= 0x030C0000
    watcher = PyDict_AddWatcher(on_change);
    if (watcher < 0) {
        PyErr_Clear(); /* none left: every check reads again */
    }
#endif
    return 0;
}
