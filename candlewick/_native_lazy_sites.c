/* candlewick._native's lazy-block sites: a `with candlewick.lazy():` statement whose block
   fuses nothing runs in whichever mode ran it faster.

   Lazy mode pays host time on every call it sees (the operand's checks, the decision to
   record or run at once, the copies it defers) and wins where a graph fuses, or where a
   copy it deferred or wrote for a consumer is never made. Code that fuses nothing may
   still win (PCA full's deferred copy of X: lazy / eager 0.987 on the H100; scipy.fft's
   product written as irfft's input: 0.934) or lose (Ridge, host-bound: its 57-90 us of
   checks on a ~12 ms fit on the H100 and H200 hosts, bench/results/rocm_gpu_tests,
   session 37, where its saved copies did not show; scipy.signal.fftconvolve, host-bound
   at 0.18 ms a call, whose saved irfft copy did not pay for its checks: 1.011 on the
   H100, session 38).

   A statement is keyed by its place in the code (the frame's code object and
   instruction, as CPython's own caches are). A block in which a compiled graph ran
   (lazy_policy.fused) records, and its statement's learning starts over: fusing is what
   lazy mode is for, and what it saves is the device's time, which one block's time need
   not show. Any other block learns. A window times lazy_policy.SITE_RUNS recorded runs
   and as many quiet ones in turn, recorded first (a trial runs quiet: the context
   variable holds (), lazy mode on, as is_lazy says, but nothing records; the gate is not
   touched, so the calls are eager mode's own; in turn, so that a host whose speed drifts,
   by half on a busy H100 host, drifts under both modes alike), and each mode's least
   time decides the next SITE_QUIET entries: the other mode where its runs were faster
   than the last decision's by over 1 - SITE_MARGIN (recorded, where none was made yet),
   else the last decision's again. A decision that stands at the next comparison holds twice
   as long, up to SITE_QUIET << SITE_DOUBLINGS entries; one that changes starts again from
   SITE_QUIET. A run after a switch of mode costs more than the runs after it (the
   interpreter's specialized code and the caches meet other types and other code: ~4 us
   of a 110 us fftconvolve on the development VM's fake runtime, 9-14 us of ~300 us either
   way on the H100), which each of a window's runs pays alike, and each window pays, so a
   decision that stands is long. A decision's blocks that take over SITE_CHANGE times, or
   under 1 / SITE_CHANGE of, their mode's least block time (entry to exit) in the window
   that decided, SITE_STRAYS times in a row, ran other work: the learning starts over at
   the next entry.

   A recorded run in which no call was given a graph (cw_lazy_recordings unchanged from
   its entry to its exit: its devices do not fuse, as cpu, or every operand was below
   RECORD_BYTES, and nothing was deferred) ran eager mode's calls with lazy mode's checks
   on top: its statement decides quiet at the exit, as a window that found quiet faster
   would, and times nothing (on cpu a window's recorded runs, and a decision to record
   where they happened to be a percent faster, left lazy mode 0.2-1.7 % above eager's
   time in bench/pydata_e2e's cpu records, 2026-12-07).

   A run's time is from its entry to the statement's next entry (SITE_CLOCK, a monotonic
   clock unless a test gives one): what the block left the device to do is waited for
   somewhere before the statement runs again (a host read, the caller's synchronize, a
   full queue), so a copy saved on the device shows in it, where the block's own entry
   and exit would show only the host's time (scipy.fft's case, its results read after
   the block). The least of a mode's runs drops the entries after which the caller did
   other work. Threads entering one statement share its site: a run then lasts until any
   thread's next entry, which both modes' runs see alike.

   Only a statement's own block learns (LazyBlock.take's, what lazy() gives): a block
   made by the class (the decorator's, one per call: lazy_mode._Block._recreate_cm) has
   one place for every function it decorates (contextlib's wrapper), and always records.
   A block entered where the context is already in lazy mode (inside another block, or
   CANDLEWICK_LAZY=1) records as before: the outer statement learns for it. A statement
   is a place, not a computation: a helper that opens one block for any work
   (bench/lazy_pairs.call) learns from all of it: a decision stands for at most
   SITE_QUIET << SITE_DOUBLINGS entries of work whose blocks take about its time. */

#include "_native.h"
#include "_native_lazy.h"
#include "_native_lazy_block.h"

#include <frameobject.h>
#include <math.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

PyObject *cw_lazy_quiet;
/* compiled graphs run, counted by lazy_policy.fused (this module's lazy_fused) */
static unsigned long long fused_runs;
/* a statement's key (its code object's address and instruction offset, one int: no
   tuple made and no code object hashed at each entry) -> a capsule of its Site, which
   holds the code object (its address then names no other code while the entry lives);
   cleared past MAX_SITES */
static PyObject *sites;
#define MAX_SITES 4096
/* A decision's block that took more than SITE_CHANGE times, or less than 1 / SITE_CHANGE
   of, its mode's least in the window that decided (from its entry to its exit: the
   caller's work between entries not in it), SITE_STRAYS times in a row, ran other work:
   the learning starts over. A host's hiccup (a collection of the garbage collector, a
   preempted thread) is one such block, not three. */
#define SITE_CHANGE 2.0
#define SITE_STRAYS 3
/* A window changes the mode only where the other one's least run is under SITE_MARGIN of
   the mode's own: a tie, or a difference within one percent, runs as the last decision
   ran, eager mode's own calls where none was made yet. Recording a block that fuses
   nothing wins by what a deferred copy saves (PCA full: 1.2 %; scipy.fft: 7 %) and loses
   by its host work (fftconvolve, host-bound: 2-3 % on the H100 before the deferred
   product's run lost its frames, 1-3 % faster since), and each run's time wanders by a
   percent or more on a busy host: without the margin, least-of-three decisions of
   fftconvolve recorded 12-75 % of its entries (H100, 2026-12-06). Each change costs a
   window eight entries later, whose runs each follow a switch of mode: a margin asked of
   recording alone turned fftconvolve, recorded 1-2 % faster, back to quiet at every
   other window (lazy / eager 0.994-0.997 learning against 0.983-0.991 recorded, H100,
   2026-12-06). */
#define SITE_MARGIN 0.99

typedef struct {
    PyObject *code;     /* the statement's code object (held) */
    int lasti;          /* and its instruction offset */
    long long runs;     /* this window's timed recorded runs */
    long long trials;   /* and its timed quiet runs (trials) */
    int open;           /* a timed run awaiting the next entry: 0 none, 1 recorded, 2 quiet */
    double opened;      /* and its entry's time */
    long long quiet;    /* quiet entries left of the last decision */
    long long hold;     /* recorded entries left of the last decision */
    long long stretch;  /* the next decision's length */
    int last;           /* the last decision: 0 none, 1 recorded, 2 quiet */
    double best[2];     /* this window's least time of a recorded [0] and a quiet [1] run */
    double took[2];     /* and of a recorded and a quiet block, from its entry to its exit */
    double usual[2];    /* the last window's took[], which a decision's blocks are held to */
    int strays;         /* a decision's blocks in a row that took another time than usual[] */
} Site;

/* the statement looked up last (a loop enters one statement again and again: no key made,
   no lookup) and its capsule, borrowed from `sites`: NULL wherever `sites` lets one go */
static Site *last_site;
static PyObject *last_capsule;

/* A new window: nothing timed yet */
static void window(Site *site) {
    site->runs = site->trials = 0;
    site->open = 0;
    site->best[0] = site->best[1] = HUGE_VAL;
    site->took[0] = site->took[1] = HUGE_VAL;
}

/* Nothing learned: the statement learns from its next entry (a new site, or its work changed) */
static void restart(Site *site, const cw_Policy *p) {
    window(site);
    site->quiet = site->hold = 0;
    site->last = 0;
    site->stretch = p->site_quiet;
    site->usual[0] = site->usual[1] = HUGE_VAL;
    site->strays = 0;
}

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
    restart(site, p);
    PyObject *capsule = PyCapsule_New(site, NULL, site_free);
    if (capsule == NULL) {
        Py_DECREF(code);
        PyMem_Free(site);
        return NULL;
    }
    last_site = NULL, last_capsule = NULL; /* (the item this replaces, or all, may go) */
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
    if (last_site != NULL && last_site->code == code && last_site->lasti == lasti) {
        Py_DECREF(code);
        return last_capsule;
    }
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
    if (capsule != NULL) {
        last_site = PyCapsule_GetPointer(capsule, NULL);
        last_capsule = capsule;
    }
    return capsule;
}

/* Seconds on SITE_CLOCK (a monotonic clock where it is None, else its call's float) in
   *t: 0, or -1 with an error */
static int clock_now(const cw_Policy *p, double *t) {
    PyObject *clock = p->at[CW_P_SITE_CLOCK];
    if (clock == Py_None) {
#ifdef _WIN32
        LARGE_INTEGER count, rate;
        QueryPerformanceCounter(&count);
        QueryPerformanceFrequency(&rate);
        *t = (double)count.QuadPart / (double)rate.QuadPart;
#else
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        *t = (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
#endif
        return 0;
    }
    PyObject *value = PyObject_CallNoArgs(clock);
    *t = value == NULL ? -1.0 : PyFloat_AsDouble(value);
    Py_XDECREF(value);
    return *t == -1.0 && PyErr_Occurred() ? -1 : 0;
}

/* The window's two modes compared: the next `stretch` entries run in the faster, where it
   is faster by over 1 - SITE_MARGIN; else in the mode of the last decision (quiet where
   there is none) */
static void decide(Site *site, const cw_Policy *p) {
    int choice = site->last == 1 ? (site->best[1] < SITE_MARGIN * site->best[0] ? 2 : 1)
                                 : (site->best[0] < SITE_MARGIN * site->best[1] ? 1 : 2);
    if (choice != site->last) {
        site->stretch = p->site_quiet;
    }
    *(choice == 2 ? &site->quiet : &site->hold) = site->stretch;
    long long most = p->site_quiet << p->site_doublings;
    site->stretch = site->stretch >= most / 2 ? most : site->stretch * 2;
    site->last = choice;
    site->usual[0] = site->took[0], site->usual[1] = site->took[1];
    site->strays = 0;
    window(site);
}

/* A timed run of `site` ended (the statement entered again) after `seconds` */
static void timed(Site *site, const cw_Policy *p, int quiet, double seconds) {
    double *best = &site->best[quiet];
    if (seconds < *best) {
        *best = seconds;
    }
    ++*(quiet ? &site->trials : &site->runs);
    if (site->runs >= p->site_runs && site->trials >= p->site_runs) {
        decide(site, p);
    }
}

/* (_native_lazy_block.h) */
int cw_lazy_site_enter(Block *self, PyObject *var) {
    Py_CLEAR(self->site); /* (an entry that failed after its site was set) */
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
    double now;
    if (clock_now(p, &now) < 0) {
        return -1;
    }
    if (site->open != 0) { /* the last timed run ends here */
        int quiet = site->open == 2;
        site->open = 0;
        timed(site, p, quiet, now - site->opened);
    }
    Py_XSETREF(self->site, Py_NewRef(capsule));
    self->fused_at = fused_runs;
    self->recordings_at = cw_lazy_recordings;
    self->entered = now;
    self->timed = 0;
    if (site->quiet > 0) {
        site->quiet--;
        return 1;
    }
    if (site->hold > 0) {
        site->hold--;
        return 0;
    }
    site->opened = now;
    site->open = site->runs > site->trials ? 2 : 1; /* recorded and quiet in turn: a trial runs quiet */
    self->timed = 1;
    return site->open == 2;
}

/* (_native_lazy_block.h) */
void cw_lazy_site_leave(Block *self, int quiet) {
    Site *site = PyCapsule_GetPointer(self->site, NULL);
    const cw_Policy *p = cw_policy_now();
    double now;
    if (p == NULL || clock_now(p, &now) < 0) {
        PyErr_Clear(); /* (a policy global set wrong: its next entry raises) */
    } else if (!quiet && fused_runs != self->fused_at) { /* a compiled graph ran: the learning starts over */
        window(site); /* (this run untimed; a decision to record goes on) */
        site->last = 0;
        site->stretch = p->site_quiet;
    } else if (!quiet && cw_lazy_recordings == self->recordings_at) {
        /* no call of the block was given a graph (its devices do not fuse, as cpu, or
           every operand was below RECORD_BYTES): it ran eager mode's calls and lazy mode's
           checks, which a window would time to no purpose: quiet, decided now */
        double took = now - self->entered;
        site->took[0] = site->took[1] = took; /* (what the decision's blocks are held to) */
        site->best[0] = HUGE_VAL, site->best[1] = 0.0;
        site->hold = 0;
        decide(site, p);
    } else {
        double took = now - self->entered, *usual = &site->usual[quiet];
        if (self->timed) {
            if (took < site->took[quiet]) {
                site->took[quiet] = took;
            }
        } else if (*usual < HUGE_VAL && (took > SITE_CHANGE * *usual || took * SITE_CHANGE < *usual)) {
            if (++site->strays >= SITE_STRAYS) {
                restart(site, p); /* its work is another's (a helper's statement: bench/lazy_pairs.call) */
            }
        } else {
            site->strays = 0;
        }
    }
    Py_CLEAR(self->site);
}

const char cw_lazy_fused_doc[] =
    "lazy_fused()\n\n"
    "Count one compiled graph that ran (lazy_policy.fused): the lazy() statement running it\n"
    "records (_native_lazy_sites.c).";

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
    last_site = NULL, last_capsule = NULL;
    PyDict_Clear(sites);
    Py_RETURN_NONE;
}

int cw_lazy_sites_ready(void) {
    cw_lazy_quiet = PyTuple_New(0);
    sites = PyDict_New();
    return cw_lazy_quiet == NULL || sites == NULL ? -1 : 0;
}
