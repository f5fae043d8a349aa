/* candlewick._native's lazy-block sites: a `with candlewick.lazy():` statement that
   fused nothing lately runs eagerly.

   Lazy mode pays host time on every call it sees (the operand's checks, the decision to
   record or run at once, the copies it defers) and wins only where a graph fuses. Code
   that fuses nothing (scikit-learn's Ridge and randomized PCA: GEMMs, solves and
   reductions, each read at once) pays that time on every call for nothing: 57-90 us of
   a ~12.8 ms Ridge fit on the H100 and H200 hosts (bench/results/rocm_gpu_tests,
   session 37). A statement is keyed by its place in the code (the frame's code object
   and instruction, as CPython's own caches are); its block's runs are counted: one in
   which no graph fused (lazy_policy.fused: a compiled graph ran, a consumer's copy or
   an irfft's input was written by a graph; a copy only deferred does not count) adds
   one, one that fused starts the count over. After lazy_policy.SITE_RUNS such runs in a
   row its next SITE_QUIET entries are quiet: the context variable holds () (lazy mode
   on, as is_lazy says, but nothing records: every path reads it as off) and the gate
   is not touched, so the block costs its entry and exit and its calls are eager mode's
   own. The run after those is recorded again (a probe): if it fuses the count starts
   over, if not the next quiet stretch is twice as long, up to SITE_QUIET <<
   SITE_DOUBLINGS entries (lazy_policy.PROBE's doubling for copies).

   Only a statement's own block learns (LazyBlock.take's, what lazy() gives): a block
   made by the class (the decorator's, one per call: lazy_mode._Block._recreate_cm) has
   one site for every function it decorates (contextlib's wrapper), and always records.
   A block entered where the context is already in lazy mode (inside another block, or
   CANDLEWICK_LAZY=1) records as now: the outer block's site learns for it. */

#include "_native.h"
#include "_native_lazy.h"
#include "_native_lazy_block.h"

#include <frameobject.h>

PyObject *cw_lazy_quiet;
/* graphs that fused, counted by lazy_policy.fused (this module's lazy_fused) */
static unsigned long long fused_runs;
/* a statement's key (its code object's address and instruction offset, one int: no
   tuple made and no code object hashed at each entry) -> a capsule of its Site, which
   holds the code object (its address then names no other code while the entry lives);
   cleared past MAX_SITES */
static PyObject *sites;
#define MAX_SITES 4096

typedef struct {
    PyObject *code;     /* the statement's code object (held) */
    int lasti;          /* and its instruction offset */
    long long runs;     /* recorded runs in a row with no fused graph */
    long long quiet;    /* quiet entries left before the next probe */
    long long stretch;  /* the next quiet stretch's length */
} Site;

static void site_free(PyObject *capsule) {
    Site *site = PyCapsule_GetPointer(capsule, NULL);
    Py_XDECREF(site->code);
    PyMem_Free(site);
}

/* A new site for (code, lasti) kept under `key`: a borrowed capsule, or NULL with an error */
static PyObject *new_site(const cw_Policy *p, PyObject *key, PyObject *code, int lasti) {
    Site *site = PyMem_Malloc(sizeof(Site));
    if (site == NULL) {
        return PyErr_NoMemory();
    }
    site->code = Py_NewRef(code);
    site->lasti = lasti;
    site->runs = site->quiet = 0;
    site->stretch = p->site_quiet;
    PyObject *capsule = PyCapsule_New(site, NULL, site_free);
    if (capsule == NULL) {
        Py_DECREF(code);
        PyMem_Free(site);
        return NULL;
    }
    if (PyDict_GET_SIZE(sites) >= MAX_SITES) {
        PyDict_Clear(sites);
    }
    int failed = PyDict_SetItem(sites, key, capsule);
    Py_DECREF(capsule); /* (the dict holds it) */
    return failed < 0 ? NULL : capsule;
}

/* The site of the statement running in the current Python frame (a borrowed capsule),
   NULL with an error, or NULL and no error where there is no frame. */
static PyObject *site_here(const cw_Policy *p) {
    PyFrameObject *frame = PyEval_GetFrame();
    if (frame == NULL) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030B0000
    int lasti = PyFrame_GetLasti(frame);
#else
    int lasti = frame->f_lasti;
#endif
    PyObject *code = (PyObject *)PyFrame_GetCode(frame);
    /* (another statement may share the int: one in a code object 2**16 code units long,
       or one whose code object was freed; the site's own code and offset tell them apart) */
    PyObject *key = PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)code ^
                                                ((unsigned long long)(unsigned)lasti << 48));
    PyObject *capsule = key == NULL ? NULL : PyDict_GetItemWithError(sites, key);
    if (capsule != NULL) {
        Site *site = PyCapsule_GetPointer(capsule, NULL);
        if (site->code != code || site->lasti != lasti) {
            capsule = NULL; /* another statement's: replaced */
        }
    }
    if (capsule == NULL && key != NULL && !PyErr_Occurred()) {
        capsule = new_site(p, key, code, lasti);
    }
    Py_XDECREF(key);
    Py_DECREF(code);
    return capsule;
}

/* (_native_lazy_block.h) */
int cw_lazy_site_enter(Block *self, PyObject *var) {
    const cw_Policy *p = cw_policy_now();
    if (p == NULL) {
        return -1;
    }
    if (p->site_runs == 0) { /* (learning off: the tests' default, tests/conftest.py) */
        return 0;
    }
    PyObject *on = NULL;
    if (PyContextVar_Get(var, NULL, &on) < 0) {
        return -1;
    }
    int inside = on == Py_True;
    Py_XDECREF(on);
    if (inside) {
        return 0;
    }
    PyObject *capsule = site_here(p);
    if (capsule == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    Site *site = PyCapsule_GetPointer(capsule, NULL);
    if (site->quiet > 0) {
        site->quiet--;
        return 1;
    }
    Py_XSETREF(self->site, Py_NewRef(capsule));
    self->fused_at = fused_runs;
    return 0;
}

/* (_native_lazy_block.h) */
void cw_lazy_site_leave(Block *self) {
    Site *site = PyCapsule_GetPointer(self->site, NULL);
    const cw_Policy *p = cw_policy_now();
    if (p == NULL) {
        PyErr_Clear(); /* (a policy global set wrong: its next entry raises; this run teaches nothing) */
    } else if (fused_runs != self->fused_at) {
        site->runs = 0;
        site->stretch = p->site_quiet;
    } else if (p->site_runs > 0 && ++site->runs >= p->site_runs) {
        site->quiet = site->stretch;
        long long most = p->site_quiet << p->site_doublings;
        site->stretch = site->stretch >= most / 2 ? most : site->stretch * 2;
        site->runs = p->site_runs - 1; /* after the quiet stretch, one run decides */
    }
    Py_CLEAR(self->site);
}

const char cw_lazy_fused_doc[] =
    "lazy_fused()\n\n"
    "Count one graph that fused (lazy_policy.fused): the lazy() statement running it learns\n"
    "that its block pays (_native_lazy_sites.c).";

PyObject *cw_lazy_fused(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    fused_runs++;
    Py_RETURN_NONE;
}

const char cw_lazy_sites_forget_doc[] =
    "lazy_sites_forget()\n\n"
    "Forget what every lazy() statement learned (lazy_policy.reset).";

PyObject *cw_lazy_sites_forget(PyObject *module, PyObject *unused) {
    (void)module, (void)unused;
    PyDict_Clear(sites);
    Py_RETURN_NONE;
}

int cw_lazy_sites_ready(void) {
    cw_lazy_quiet = PyTuple_New(0);
    sites = PyDict_New();
    return cw_lazy_quiet == NULL || sites == NULL ? -1 : 0;
}
