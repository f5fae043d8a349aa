/* candlewick._native's temporary(x, key): whether x, the array an operator method was
   called with, is a temporary of the Python expression being evaluated (`-2 * (a @ b)`:
   the product, which nothing else can read again), so that the method may write its
   result into x's memory instead of a new buffer, as NumPy's temporary elision does
   (numpy/_core/src/multiarray/temp_elide.c). Without it a large expression makes one
   new buffer an operator, whose first touch costs page faults: pairwise distances of
   2048 rows made a fresh 9 MB block per product, 1.5x NumPy's time for that step.

   The proof has two parts, both checked on every call:
   - the call path. The C call stack from the operator method's interpreter frame up to
     the one that evaluates the expression is exactly the one recorded for `key` by
     calibrate_temporary
     (candlewick/elision.py runs a controlled `2.0 * make()` through the same operator
     method once). A return address names one call site, so the same sequence of return
     addresses is the same path: the interpreter's binary-operator instruction calling
     PyNumber_<op> on the two operands of its value stack, CPython's dispatch to the array
     class's slot and the operator method, which hands x here. No C extension, no other
     path (operator.mul, a weakref proxy's or a mapping proxy's forwarding slot, a sort's
     key call, a debugger's or profiler's call hooks) gives the same sequence. A PEP 523
     frame evaluator (whose own code would sit between) turns the check off; a path is
     recorded only from the thread that armed the calibration.
   - the references. x's reference count is exactly the references that path holds (the
     operand slot of the value stack, the method's parameter and its argument here, as
     recorded with the calibration), so nothing else refers to x.
   NumPy checks the second and that the frames up to the interpreter belong to CPython
   (which a sort's key call or a proxy's slot satisfy with an operand nothing else owns
   but that is read again); the recorded path rules those out too.

   Off (always 0) where glibc's backtrace or dladdr1 is missing, on free-threaded builds,
   and from Python 3.14, whose interpreter may borrow stack references (a variable's
   count could then equal a temporary's). */

#include "_native.h"
#include "_native_host.h"

#if defined(__GLIBC__) && !defined(Py_GIL_DISABLED) && PY_VERSION_HEX < 0x030E0000
#define CW_TEMPORARY 1
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#else
#define CW_TEMPORARY 0
#endif

/* the keys (one per operator method and op) and the deepest path recorded */
#define KEYS 64
#define DEPTH 48

typedef struct {
    int state;             /* 0: not recorded, 1: recorded, -1: could not be recorded */
    int evals;             /* interpreter frames the path crosses, the expression's last */
    Py_ssize_t refs;       /* x's reference count on the path */
    int length;            /* return addresses recorded */
    void *path[DEPTH];
} Path;

static Path paths[KEYS];
static int armed = -1;     /* the key calibrate_temporary records on the next call, or -1 */
static PyThreadState *armer; /* the thread that armed it: another thread's call records nothing */
#if CW_TEMPORARY
static uintptr_t eval_start, eval_end; /* _PyEval_EvalFrameDefault's code; end 0: unknown */
static int eval_known;                 /* 0 not looked up, 1 found, -1 not found */

/* the interpreter's frame evaluator and its getter, looked up by name at run time (no
   declaration needed from the headers, which differ between versions): the check is off
   where either is missing */
typedef void *(*eval_getter)(PyInterpreterState *);
static void *eval_function;
static eval_getter get_eval;

static int find_eval(void) {
    if (eval_known == 0) {
        Dl_info info;
        const ElfW(Sym) *sym = NULL;
        eval_known = -1;
        eval_function = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
        get_eval = (eval_getter)dlsym(RTLD_DEFAULT, "_PyInterpreterState_GetEvalFrameFunc");
        if (eval_function != NULL && get_eval != NULL &&
            dladdr1(eval_function, &info, (void **)&sym, RTLD_DL_SYMENT) && sym != NULL && sym->st_size > 0 &&
            info.dli_saddr == eval_function) {
            eval_start = (uintptr_t)info.dli_saddr;
            eval_end = eval_start + (uintptr_t)sym->st_size;
            eval_known = 1;
        }
    }
    /* a PEP 523 frame evaluator (a debugger's, a JIT's) runs the frames: its own code
       between them, whose references this path does not know */
    return eval_known == 1 && get_eval(PyInterpreterState_Get()) == eval_function;
}

/* The return addresses above the first interpreter frame (the operator method's, which
   called temporary: how it called a C function varies as the interpreter specializes the
   call, and proves nothing) up to the `evals`-th interpreter frame above it, included:
   their count, or 0 where the stack holds fewer or more than DEPTH. */
static int walk(void **out, int evals) {
    void *frames[DEPTH + 16];
    int n = backtrace(frames, DEPTH + 16);
    int seen = 0, length = 0;
    for (int i = 0; i < n; i++) {
        uintptr_t at = (uintptr_t)frames[i];
        int in_eval = at >= eval_start && at < eval_end;
        if (seen > 0) {
            if (length == DEPTH) {
                return 0;
            }
            out[length++] = frames[i];
        }
        if (in_eval && ++seen == evals + 1) {
            return length;
        }
    }
    return 0;
}
#endif

/* The path of the key args[key_at] of a call of `fname`, which takes `want` arguments
   (`signature`); NULL with the error set where the count or the key is wrong. */
static Path *path_of(PyObject *const *args, Py_ssize_t nargs, Py_ssize_t want, int key_at, const char *fname,
                     const char *signature) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "candlewick._native.%s: takes (%s)", fname, signature);
        return NULL;
    }
    long key = PyLong_AsLong(args[key_at]);
    if (key == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (key < 0 || key >= KEYS) {
        PyErr_Format(PyExc_ValueError, "candlewick._native.%s: key must be in [0, %d), got %ld", fname, KEYS, key);
        return NULL;
    }
    return &paths[key];
}

const char cw_temporary_doc[] =
    "temporary(x, key)\n\n"
    "True where x is a temporary of the expression being evaluated, reached through the path\n"
    "recorded for key with x's reference count recorded there; False where not; None where\n"
    "key has no path yet (candlewick/elision.py records it). With calibrate_temporary armed\n"
    "for key, records this call's path and x's count instead (and returns False).";

PyObject *cw_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Path *p = path_of(args, nargs, 2, 1, "temporary", "x, key");
    if (p == NULL) {
        return NULL;
    }
#if CW_TEMPORARY
    int key = (int)(p - paths);
    if (!find_eval()) {
        Py_RETURN_FALSE;
    }
    if (armed == key && armer == PyThreadState_Get()) {
        armed = -1;
        p->length = walk(p->path, p->evals);
        p->refs = Py_REFCNT(args[0]);
        p->state = p->length > 0 ? 1 : -1;
        Py_RETURN_FALSE;
    }
    if (p->state == 0 && armed != key) {
        Py_RETURN_NONE;
    }
    if (p->state <= 0 || Py_REFCNT(args[0]) != p->refs) {
        Py_RETURN_FALSE;
    }
    void *here[DEPTH];
    int length = walk(here, p->evals);
    if (length != p->length || memcmp(here, p->path, (size_t)length * sizeof(void *)) != 0) {
        Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
#else
    if (p->state == 0) {
        Py_RETURN_NONE;
    }
    Py_RETURN_FALSE;
#endif
}

const char cw_calibrate_temporary_doc[] =
    "calibrate_temporary(key, evals, refs, probe)\n\n"
    "Record key's path: probe() must evaluate an expression whose operator method calls\n"
    "temporary(x, key) once with x a temporary of that expression, the expression's frame\n"
    "the `evals`-th interpreter frame above the operator method's (its caller: 1); the\n"
    "path is kept where x's reference count there is `refs`.\n"
    "Returns whether key has a path now (False: temporary answers False for key).";

PyObject *cw_calibrate_temporary(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Path *p = path_of(args, nargs, 4, 0, "calibrate_temporary", "key, evals, refs, probe");
    if (p == NULL) {
        return NULL;
    }
    long evals = PyLong_AsLong(args[1]);
    Py_ssize_t refs = evals == -1 && PyErr_Occurred() ? -1 : PyLong_AsSsize_t(args[2]);
    if (refs == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (evals < 1 || evals > DEPTH || refs < 1) {
        PyErr_SetString(PyExc_ValueError, "candlewick._native.calibrate_temporary: evals in [1, 48], refs >= 1");
        return NULL;
    }
    p->state = -1;
    p->evals = (int)evals;
    armed = (int)(p - paths);
    armer = PyThreadState_Get();
    PyObject *out = PyObject_CallNoArgs(args[3]);
    int recorded = armed == -1 && p->state == 1 && p->refs == refs;
    armed = -1;
    if (out == NULL) {
        p->state = -1;
        return NULL;
    }
    Py_DECREF(out);
    if (!recorded) {
        p->state = -1;
    }
    return PyBool_FromLong(recorded);
}
