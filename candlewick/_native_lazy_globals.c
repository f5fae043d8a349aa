/* candlewick._native's reads of lazy mode's module globals (lazy_mode's and lazy_policy's),
   kept until their dict changes.

   Every element-wise call in a lazy() block reads about a dozen of them (the mode's
   context variable, LIVE, RECORD_BYTES, REPLAYS, _counts, ...), each a dict lookup: about
   1.4k instructions of the ~4k the block adds to scipy.fft's `spectrum * response`. They
   are read at each call because tests set them (monkeypatch), and lazy_policy rebinds
   _generation at each change of its counts; between such changes the dicts stand still,
   and a read kept with the dict's stamp is the lookup's answer.

   The stamp: from Python 3.12 on, a count bumped by a dict watcher (PyDict_AddWatcher)
   on every change of a watched dict (the dict is watched when a read of it is first
   kept); before 3.12, the dict's own version tag (ma_version_tag: changed by every
   change of the dict). Where no watcher is left (3.12+: 8 per interpreter), nothing is
   kept and each read is a lookup.

   The value kept is borrowed, as the lookup's: valid while the dict holds it, that is
   while the stamp stands. */

#include "_native.h"
#include "_native_lazy.h"

#define KEPT 64 /* a power of two, several times the names lazy mode's C reads */

typedef struct {
    PyObject *dict, *name, *value; /* dict and name compared by identity (names interned) */
    uint64_t stamp;
} Kept;

static Kept kept[KEPT]; /* open addressing by the name's and dict's addresses */

#if PY_VERSION_HEX >= 0x030C0000
static int watcher = -1;
static uint64_t changes = 1; /* 0: never a stamp */

static int on_change(PyDict_WatchEvent event, PyObject *dict, PyObject *key, PyObject *value) {
    (void)event, (void)dict, (void)key, (void)value;
    changes++;
    return 0;
}

/* The stamp of `dict` where it is watched (`watch`: watched now if not yet), else 0 */
static uint64_t stamp_of(PyObject *dict, int watch) {
    if (watch) {
        if (watcher < 0 || PyDict_Watch(watcher, dict) < 0) {
            PyErr_Clear();
            return 0;
        }
    }
    return changes;
}
#else
static uint64_t stamp_of(PyObject *dict, int watch) {
    (void)watch;
    return ((PyDictObject *)dict)->ma_version_tag;
}
#endif

PyObject *cw_kept_global(PyObject *dict, PyObject *name) {
    size_t at = (((uintptr_t)name ^ (uintptr_t)dict) >> 4) % KEPT, probes = 0;
    while (kept[at].name != NULL && (kept[at].name != name || kept[at].dict != dict) && probes < KEPT) {
        at = (at + 1) % KEPT;
        probes++;
    }
    int found = probes < KEPT && kept[at].name != NULL;
    if (found && kept[at].stamp != 0 && kept[at].stamp == stamp_of(dict, 0)) {
        return kept[at].value;
    }
    PyObject *value = PyDict_GetItemWithError(dict, name);
    if (value == NULL || probes == KEPT) {
        return value; /* (absent, or the table full: not kept) */
    }
    /* (the dict and name are not held: a stamp of a dict that went away is never met
       again, and a new dict at its address has another stamp) */
    kept[at].dict = dict;
    kept[at].name = name;
    kept[at].value = value;
    kept[at].stamp = stamp_of(dict, 1);
    return value;
}

int cw_lazy_globals_ready(void) {
#if PY_VERSION_HEX >= 0x030C0000
    watcher = PyDict_AddWatcher(on_change);
    if (watcher < 0) {
        PyErr_Clear(); /* none left: every read a lookup */
    }
#endif
    return 0;
}
