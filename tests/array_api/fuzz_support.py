"""Building blocks of the fuzz test: the public callables, a strategy of bad (and some
good) arguments, and the rule that sorts what a call raised into documented errors and
findings.

Documented errors: TypeError, ValueError, IndexError, OverflowError and candlewick's
own error classes (``candlewick.errors``); BufferError from the DLPack entry points
(the DLPack protocol's error); UnsupportedOperation only where a backend lacks a
capability (never on the reference cpu backend except for float16/bfloat16). Anything
else (AttributeError, KeyError, ZeroDivisionError, AssertionError, a NumPy exception
class, an error raised inside NumPy that the front end let through, a NumPy object
returned where an array belongs, a call that hangs) is a finding.
"""

import inspect
import math
import os
import pathlib
import re
import signal
import traceback

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import candlewick as cw
from candlewick.errors import CandlewickError, UnsupportedOperation

DOCUMENTED = (TypeError, ValueError, IndexError, OverflowError, CandlewickError)
DLPACK_ENTRY_POINTS = {"from_dlpack", "Array.__dlpack__", "Array.__dlpack_device__"}
CALL_TIMEOUT_S = 20.0
EXTRA_DTYPES = ("float16", "bfloat16")
ALL_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")

_NUMPY_DIR = str(pathlib.Path(np.__file__).parent)
_ML_DTYPES_DIR = str(pathlib.Path(ml_dtypes.__file__).parent)


# --- the callables under test ----------------------------------------------------------

ARRAY_METHODS = (
    "__getitem__", "__setitem__", "astype", "to_device", "__dlpack__", "__dlpack_device__",
    "__array_namespace__", "__bool__", "__int__", "__float__", "__complex__", "__index__",
    "__add__", "__radd__", "__iadd__", "__sub__", "__truediv__", "__rtruediv__", "__floordiv__",
    "__mod__", "__pow__", "__rpow__", "__ipow__", "__matmul__", "__imatmul__", "__and__",
    "__lshift__", "__rshift__", "__ilshift__", "__lt__", "__eq__", "__neg__", "__invert__",
    "__abs__", "__len__", "__iter__",
)
INFO_METHODS = ("capabilities", "default_device", "default_dtypes", "devices", "dtypes")


def public_targets():
    """``(qualified name, callable)`` for every public function of the namespace and of
    its linalg/fft extensions, the Array methods, and the inspection object's methods."""
    targets = []
    for name in cw.__all__:
        obj = getattr(cw, name)
        if callable(obj) and not isinstance(obj, cw.Array):
            targets.append((name, obj))
    for ext in ("linalg", "fft"):
        module = getattr(cw, ext)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if callable(obj):
                targets.append((f"{ext}.{name}", obj))
    for name in ARRAY_METHODS:
        targets.append((f"Array.{name}", _array_method(name)))
    info = cw.__array_namespace_info__()
    for name in INFO_METHODS:
        targets.append((f"info.{name}", getattr(info, name)))
    return targets


def _array_method(name):
    def call(self, *args, **kwargs):
        if not isinstance(self, cw.Array):
            raise TypeError("the fuzz harness passes a non-array as self")
        result = getattr(self, name)(*args, **kwargs)
        if name in ("__iter__",):
            result = list(result)
        return result

    call.__name__ = name
    call._takes_self = True
    try:  # the method's own parameters, without self
        method_params = [p for p in list(inspect.signature(getattr(cw.Array, name)).parameters.values())[1:]
                         if not p.name.startswith("_")]  # closure defaults, not parameters
        call.__signature__ = inspect.Signature(method_params)
    except (TypeError, ValueError):
        pass
    return call


def signature_of(fn):
    """(minimum positional count, maximum positional count or None, keyword names)."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return 0, 4, ()
    required = optional = 0
    variadic = False
    keywords = []
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if p.default is p.empty:
                required += 1
            else:
                optional += 1
            if p.kind is p.POSITIONAL_OR_KEYWORD:
                keywords.append(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            variadic = True
        elif p.kind is p.KEYWORD_ONLY:
            keywords.append(p.name)
    return required, None if variadic else required + optional, tuple(keywords)


# --- argument strategies ---------------------------------------------------------------

# Integers are either small or far beyond any allocation, never in between: a fuzzed
# shape must fail at once or be tiny, not make a CI machine allocate gigabytes.
INTS = st.sampled_from([0, 1, 2, 3, 7, -1, -2, -3, -7, 2**62, 2**63, 2**64, -(2**63) - 1, 10**30])
FLOATS = st.sampled_from([0.0, -0.0, 0.5, -2.5, 3.0, float("nan"), float("inf"), float("-inf"), 1e300])
COMPLEXES = st.sampled_from([1j, complex(float("nan"), 1.0), 2.5 - 1j])
STRINGS = st.sampled_from(["", "a", "cpu", "rocm:99", "nope", "cpu:1", "float32", "int8", "xy",
                           "ij", "left", "right", "ortho", "forward", "fro", "nuc", "reduced",
                           "complete", "numeric", "integral", "2024.12", "backward"])


def small_arrays(draw_dtype=st.sampled_from(ALL_DTYPE_NAMES)):
    """Small arrays of every dtype (float16/bfloat16 included), sometimes strided views."""
    @st.composite
    def build(draw):
        name = draw(draw_dtype)
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        size = math.prod(shape)
        values = draw(st.lists(st.sampled_from([0, 1, -1, 2, 3, 0.5, float("nan"), float("inf")]),
                               min_size=size, max_size=size))
        host = np.array(values, dtype=np.float64).reshape(shape)
        with np.errstate(all="ignore"):
            host = _host_of_dtype(host, name)
        x = cw.asarray(host)
        view = draw(st.sampled_from(["plain", "plain", "flip", "transpose"]))
        if view == "flip" and x.ndim:
            x = x[::-1]
        elif view == "transpose" and x.ndim >= 2:
            x = x.mT
        return x

    return build()


def _host_of_dtype(host, name):
    if name == "bool":
        return host != 0
    if name.startswith(("int", "uint")):
        return np.nan_to_num(host, nan=0, posinf=5).astype(np.int64).astype(name)
    if name == "bfloat16":
        return host.astype(ml_dtypes.bfloat16)
    if name.startswith("complex"):
        return (host + 1j * host[::-1] if host.ndim else host + 0j).astype(name)
    return host.astype(name)


def dtype_objects():
    return st.sampled_from([getattr(cw, n) for n in ALL_DTYPE_NAMES] + [
        np.dtype("float64"), np.float32, int, float, bool, complex, "float64", "bogus"])


def containers(inner):
    return st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.lists(st.lists(INTS, max_size=2), max_size=2),  # ragged nests
        st.dictionaries(st.sampled_from(["a", "axis"]), inner, max_size=1),
        st.lists(INTS, max_size=3).map(tuple),
    )


def bad_values():
    scalars = st.one_of(st.booleans(), INTS, FLOATS, COMPLEXES)
    leaves = st.one_of(
        small_arrays(), small_arrays(), scalars, STRINGS, dtype_objects(),
        st.sampled_from([None, Ellipsis, b"x", object(), lambda x: x, np.float32(1.5), np.int64(3),
                         np.ones((2, 2)), slice(1, None, -1), slice(None), slice(0, 2**63), cw.newaxis]),
        st.builds(lambda: cw.get_device("cpu")),
    )
    return st.one_of(leaves, leaves, containers(leaves))


def _good_values():
    """Plausible values by parameter name, so that most calls get past the first check
    and a bad value in one slot reaches the deeper validation."""
    ints = st.integers(-4, 4)
    axis = st.one_of(st.none(), ints, st.lists(ints, max_size=3).map(tuple))
    arrays = small_arrays()
    flags = st.booleans()
    small = st.integers(0, 4)
    scalars = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0]))
    by_name = {
        "axis": axis, "axes": axis, "source": axis, "destination": axis, "shift": axis,
        "shape": st.lists(small, max_size=3).map(tuple), "s": st.lists(st.integers(1, 4), max_size=2).map(tuple),
        "repetitions": st.lists(small, max_size=3).map(tuple),
        "dtype": dtype_objects(), "device": st.sampled_from(["cpu", None]),
        "copy": st.sampled_from([None, True, False]), "keepdims": flags, "stable": flags,
        "descending": flags, "endpoint": flags, "upper": flags, "full_matrices": flags,
        "include_initial": flags,
        "k": ints, "n": st.one_of(st.none(), small), "offset": ints, "n_rows": small,
        "n_cols": st.one_of(st.none(), small), "num": small, "repeats": st.one_of(small, arrays),
        "correction": st.sampled_from([0, 1, 0.5]), "ord": st.sampled_from([None, 1, 2, -1, float("inf"), "fro", "nuc"]),
        "rtol": st.one_of(st.none(), st.floats(0, 1), arrays), "d": st.sampled_from([1.0, 0.5]),
        "side": st.sampled_from(["left", "right"]), "norm": st.sampled_from(["backward", "ortho", "forward"]),
        "mode": st.sampled_from(["reduced", "complete"]), "indexing": st.sampled_from(["xy", "ij"]),
        "kind": st.sampled_from(["numeric", "integral", None, "bool"]),
        "start": scalars, "stop": st.one_of(st.none(), scalars), "step": st.sampled_from([1, 2, -1, 0.5]),
        "fill_value": scalars, "min": st.one_of(st.none(), scalars, arrays), "max": st.one_of(st.none(), scalars, arrays),
        "api_version": st.sampled_from([None, "2024.12", "2023.12"]), "stream": st.none(),
        "max_version": st.sampled_from([None, (1, 0), (0, 8)]), "dl_device": st.none(),
        "arrays": st.lists(arrays, min_size=1, max_size=3), "sorter": st.one_of(st.none(), arrays),
        "prepend": st.one_of(st.none(), arrays), "append": st.one_of(st.none(), arrays),
        "key": st.one_of(ints, st.just(Ellipsis), st.just(slice(None, None, -1)), arrays,
                         st.lists(st.one_of(ints, st.just(slice(1, None)), st.none()), max_size=3).map(tuple)),
        "value": st.one_of(scalars, arrays), "other": st.one_of(scalars, arrays, arrays),
    }
    return by_name, arrays


def call_arguments(fn, keyword_pool):
    """(args, kwargs) for ``fn``: plausible values with one or two bad ones, usually in an
    arity the signature accepts; now and then a wrong arity or an unknown keyword."""
    takes_self = getattr(fn, "_takes_self", False)
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    good_by_name, default_good = _good_values()
    bad = bad_values()

    def value_for(pname, draw):
        good = good_by_name.get(pname, default_good)
        return draw(bad) if draw(st.integers(0, 3)) == 3 else draw(good)

    @st.composite
    def build(draw):
        args, kwargs = [], {}
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                args.extend(value_for("arrays_item", draw) for _ in range(draw(st.integers(0, 3))))
            elif p.kind is p.VAR_KEYWORD:
                continue
            elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
                # Hypothesis favours small draws, so rare events fire on the largest value
                if draw(st.integers(0, 19)) != 19:  # now and then leave a required one out
                    args.append(value_for(p.name, draw))
            elif draw(st.booleans()):
                if p.kind is p.POSITIONAL_ONLY:
                    args.append(value_for(p.name, draw))
                else:
                    kwargs[p.name] = value_for(p.name, draw)
        if not params:
            args = [draw(bad) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.integers(0, 19)) == 19:
            args.append(draw(bad))  # one positional too many
        if draw(st.integers(0, 19)) == 19:
            kwargs[draw(st.sampled_from(sorted(keyword_pool) + ["bogus"]))] = draw(bad)
        if takes_self:
            args = [draw(small_arrays())] + args
        return args, kwargs

    return build()


def keyword_pool(targets):
    pool = set()
    for _, fn in targets:
        pool.update(signature_of(fn)[2])
    return pool


# --- classification --------------------------------------------------------------------

class CallTimedOut(Exception):
    """A fuzzed call ran longer than CALL_TIMEOUT_S."""


def _on_alarm(signum, frame):
    raise CallTimedOut(f"the call ran for more than {CALL_TIMEOUT_S} s")


def invoke(name, fn, args, kwargs):
    """Run one fuzzed call; return None or an exception."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT_S)
    try:
        result = fn(*args, **kwargs)
        if name == "default_device":
            with result:
                pass
        return None, result
    except BaseException as exc:  # noqa: BLE001 - sorting every outcome is the point
        if isinstance(exc, KeyboardInterrupt):
            raise
        return exc, None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if name == "set_default_device":
            cw.set_default_device(None)


def _innermost_frame(exc):
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return "?", 0
    return last.tb_frame.f_code.co_filename, last.tb_lineno


def _where(exc):
    filename, line = _innermost_frame(exc)
    for root in (os.getcwd() + os.sep, _NUMPY_DIR.rsplit(os.sep, 1)[0] + os.sep):
        if filename.startswith(root):
            filename = filename[len(root):]
    return f"{filename}:{line}"


def problem_with(name, exc, result, on_reference_backend, *, is_class=False):
    """None if the outcome is acceptable, else a one-line reason (the finding).
    ``is_class``: the target is a class (a result tuple type), which holds what it is given."""
    if exc is None:
        if not is_class and name != "to_numpy" and _holds_numpy_object(result):
            return f"returned a NumPy object ({type(result).__name__}) where a candlewick array belongs"
        return None
    if isinstance(exc, CallTimedOut):
        return str(exc)
    if isinstance(exc, UnsupportedOperation):
        if not on_reference_backend:
            return None
        dtype = getattr(exc, "dtype", None)
        if dtype is not None and getattr(dtype, "name", str(dtype)) in EXTRA_DTYPES:
            return None
        return "UnsupportedOperation on the reference cpu backend"
    if isinstance(exc, BufferError) and name in DLPACK_ENTRY_POINTS:
        return None
    module = type(exc).__module__ or ""
    if module.startswith(("numpy", "ml_dtypes")):
        return f"a NumPy exception class leaked: {module}.{type(exc).__name__}"
    if not isinstance(exc, DOCUMENTED):
        return f"undocumented exception {type(exc).__name__}"
    if not isinstance(exc, CandlewickError) and origin_of(exc) == "numpy":
        return f"{type(exc).__name__} raised inside NumPy (the input was not validated before the call)"
    return None


def soft_problem_with(name, exc):
    """A documented error class, but raised by a Python builtin on unvalidated input
    (so its message does not name the argument): reported, not failed."""
    if exc is None or isinstance(exc, CandlewickError) or not isinstance(exc, DOCUMENTED):
        return None
    if origin_of(exc) == "builtin":
        return f"{type(exc).__name__} from a Python builtin, not from an argument check"
    return None


_ARITY_ERROR = re.compile(r"positional argument|unexpected keyword argument|required (positional|keyword)"
                          r"|takes no arguments|multiple values for argument")


def origin_of(exc):
    """"raise" (a raise statement in Python code outside NumPy), "numpy" (NumPy's Python
    code, or a line that calls into NumPy), or "builtin" (any other call on the line)."""
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames or (isinstance(exc, TypeError) and _ARITY_ERROR.search(str(exc))):
        return "raise"  # Python's own argument binding: wrong arity or unknown keyword
    last = frames[-1]
    if last.filename.startswith((_NUMPY_DIR, _ML_DTYPES_DIR)):
        return "numpy"
    line = last.line or ""
    if re.search(r"\braise\b", line):
        return "raise"
    if re.search(r"\bnp\.|numpy|ml_dtypes", line):
        return "numpy"
    return "builtin"


def _holds_numpy_object(result):
    if isinstance(result, (np.ndarray, np.generic)):
        return True
    if isinstance(result, (tuple, list)):
        return any(isinstance(r, (np.ndarray, np.generic)) for r in result)
    return False


def describe_call(name, args, kwargs):
    def short(v):
        text = repr(v).replace("\n", " ")
        return text if len(text) <= 90 else text[:87] + "..."

    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


def finding_key(name, exc, reason):
    where = _where(exc) if exc is not None else ""
    return (name, reason.split(":")[0], type(exc).__name__ if exc is not None else "", where)


def format_finding(name, exc, reason, call):
    if exc is None:
        return f"- `{name}`: {reason}\n  - call: `{call}`"
    message = str(exc).replace("\n", " ")[:200]
    return (f"- `{name}`: {reason}\n  - call: `{call}`\n"
            f"  - raised: `{type(exc).__module__}.{type(exc).__name__}: {message}` at `{_where(exc)}`")


def record_findings(path, device_name, name, lines):
    if not path or not lines:
        return
    with open(path, "a") as fh:
        fh.write(f"\n### {name} (device {device_name})\n" + "\n".join(lines) + "\n")


def format_traceback(exc):
    return "".join(traceback.format_exception(exc)[-3:])
