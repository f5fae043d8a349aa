"""What a fuzzed call did and whether the project allows it, one of the fuzz test's
three building blocks (with ``fuzz_targets``, the callables, and ``fuzz_arguments``, the
arguments): ``invoke_checked`` runs a call under a timeout (``CALL_TIMEOUT_S``),
recording its warnings and snapshotting its input arrays to compare them afterwards, and
restores the process-wide settings the call may change; ``problem_with`` is the rule
that sorts what the call did into documented outcomes and findings; ``outcome_class``,
``soft_problem_with``, ``finding_key``, ``describe_call``, ``format_finding`` and
``record_findings`` class and report them.

Documented errors: candlewick's own error classes (``candlewick.errors``), and the
TypeError Python itself raises when a call does not bind to the signature (wrong arity,
unknown keyword); UnsupportedOperation only where a backend lacks a capability (never on
the reference cpu backend except for float16/bfloat16, graph capture and ``CPU_LACKS``:
``set_memory_limit``, as NumPy's allocations cannot be limited, docs/gpu.md, and
RawKernel's calls). Anything else is a finding: a
built-in or NumPy exception (AttributeError, ZeroDivisionError, OverflowError, a plain
ValueError from a raise site or from NumPy...), a warning that escaped, an input array
changed by the call (a failed call changes nothing; a successful one changes only the
array it writes into), a NumPy object returned where an array belongs, a call that hangs.

NumPy's entry points (``numpy.ufunc``, ``numpy.function``, ``numpy.array``: a NumPy call
given candlewick arrays, through the protocols ``__array_ufunc__``, ``__array_function__``
and ``__array__``) may also answer as NumPy does: NumPy's own exceptions and warnings
where NumPy refused the call before asking candlewick or where candlewick handed it to
NumPy on host copies, and NumPy objects as results. Whatever candlewick's translation of
the call raises falls under the rule above.
"""

import inspect
import linecache
import os
import pathlib
import re
import signal
import sys
import traceback
import warnings

import ml_dtypes
import numpy as np

import candlewick as cw
from candlewick.errors import CandlewickError, UnsupportedOperation, short_repr
from fuzz_targets import _numpy_ufunc_call

DOCUMENTED = (CandlewickError,)
#: targets whose success writes into their first argument (self, or shuffle's array; the Array methods sort and fill)
WRITES_SELF = re.compile(r"^(Array\.(__setitem__|__i[a-z]+__|sort|fill)|(random|Generator)\.shuffle)$")
#: callables that may write any array argument: a custom kernel's outputs given as
#: arguments, a RawKernel's pointers
WRITES_ARGUMENTS = re.compile(r"^(ElementwiseKernel|ReductionKernel|RawKernel)\.__call__$")
CALL_TIMEOUT_S = 20.0
EXTRA_DTYPES = ("float16", "bfloat16")
#: functions the reference cpu backend documents as unsupported there
CPU_LACKS = ("set_memory_limit", "RawKernel.__call__", "RawKernel.compile")

_NUMPY_DIR = str(pathlib.Path(np.__file__).parent)
_PACKAGE_DIR = str(pathlib.Path(cw.__file__).parent) + os.sep
_ML_DTYPES_DIR = str(pathlib.Path(ml_dtypes.__file__).parent)
#: the harness's own files: this module (which makes the call) and fuzz_targets' (whose
#: NumPy entry points call NumPy as a user does)
_HARNESS_FILES = (__file__, _numpy_ufunc_call.__code__.co_filename)


class CallTimedOut(Exception):
    """A fuzzed call ran longer than CALL_TIMEOUT_S."""


def _on_alarm(signum, frame):
    raise CallTimedOut(f"the call ran for more than {CALL_TIMEOUT_S} s")


def invoke(name, fn, args, kwargs):
    """Run one fuzzed call; return (exception or None, result)."""
    return invoke_checked(name, fn, args, kwargs)[:2]


def invoke_checked(name, fn, args, kwargs, sync=None):
    """Run one fuzzed call, recording its warnings and comparing its inputs before and
    after: ``(exception or None, result, warning messages, descriptions of changed inputs)``.
    ``sync``: the device's synchronize, run as part of the call: a GPU reports some errors
    (an index out of bounds in a gather) at the next synchronization, and they belong to
    the call that queued the work, not to the snapshot that reads the inputs back."""
    before = _snapshot_inputs(args, kwargs)
    settings = _settings()
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.setitimer(signal.ITIMER_REAL, CALL_TIMEOUT_S)
    exc = result = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(*args, **kwargs)
            if sync is not None:
                sync()
            if name in ("default_device", "promotion_mode"):  # context managers: entered and left
                with result:
                    pass
        except BaseException as error:  # noqa: BLE001 - sorting every outcome is the point
            if isinstance(error, KeyboardInterrupt):
                raise
            exc = error
            if sync is not None:  # work the failed call queued: its late error is this call's
                try:
                    sync()
                except Exception as late:  # noqa: BLE001 - reported as the call's outcome
                    exc = late
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            if name == "set_default_device":
                cw.set_default_device(None)
            if name == "set_memory_limit":  # a limit left set would refuse the calls after it
                _lift_memory_limits()
            _restore_settings(settings)
    # NumPy's own warnings where candlewick handed a NumPy call to NumPy are NumPy's answer
    messages = [f"{w.category.__name__}: {w.message}" for w in caught
                if not (name.startswith("numpy.") and _numpy_answered(w.filename, w.lineno))]
    targets = [args[0]] if exc is None and WRITES_SELF.match(name) and args else []
    if exc is None and WRITES_ARGUMENTS.match(name):
        targets += list(_arrays_in(args))
    out = _out_argument(fn, args, kwargs) if exc is None else None
    if isinstance(out, cw.Array):  # NumPy's out= is written by design
        targets.append(out)
    if exc is None and fn is _numpy_ufunc_call:
        targets += _ufunc_outputs(args, kwargs)
    return exc, result, messages, _changed_inputs(before, targets)


#: a ufunc method's positional ``out`` (after ``(array, axis, dtype)``, reduceat's after its indices too)
_UFUNC_OUT_POSITION = {"reduce": 3, "accumulate": 3, "reduceat": 4}


def _ufunc_outputs(args, kwargs):
    """The candlewick arrays a ``ufunc.method(*inputs, **kwargs)`` call writes on purpose:
    ``out=`` (an array or a tuple), the positional outputs after a ``__call__``'s ``nin``
    inputs (``np.divide(a, b, o)``), the positional ``out`` of reduce, accumulate and
    reduceat, and ``at``'s first operand (written in place)."""
    ufunc, method, inputs = args[0], args[1], args[2:]
    out = kwargs.get("out")
    written = list(out) if isinstance(out, tuple) else [out]
    if method == "__call__":
        written += inputs[getattr(ufunc, "nin", len(inputs)):]
    elif method == "at":
        written += inputs[:1]
    elif method in _UFUNC_OUT_POSITION:
        written += inputs[_UFUNC_OUT_POSITION[method]:_UFUNC_OUT_POSITION[method] + 1]
    return [w for w in written if isinstance(w, cw.Array)]


def _lift_memory_limits():
    for backend in (b for b in cw.backends() if b.available):
        for index in range(backend.device_count):
            try:
                cw.set_memory_limit(None, f"{backend.name}:{index}")
            except CandlewickError:  # a device that takes no limit (cpu)
                pass


def _out_argument(fn, args, kwargs):
    """The array given as a callable's ``out`` parameter (by keyword or by position)."""
    if "out" in kwargs:
        return kwargs["out"]
    if getattr(fn, "_takes_self", False):  # an Array method: its signature leaves self out
        args = args[1:]
    try:
        return inspect.signature(fn).bind_partial(*args, **kwargs).arguments.get("out")
    except (TypeError, ValueError):
        return None


def _settings():
    """The process-wide settings a fuzzed setter may change (restored after each call)."""
    return (cw.array_api_version(), sys.modules["candlewick.promotion_mode"]._process_mode,
            cw.get_implicit_host_copy())


def _restore_settings(settings):
    version, mode, host_copy = settings
    cw.set_array_api_version(version)
    cw.set_promotion_mode(mode)
    cw.set_implicit_host_copy(host_copy)


# the lines where candlewick hands a NumPy call to NumPy: numpy_protocols on host copies,
# numpy_out on host memory shared with the arrays it writes
_HANDOFFS = {str(pathlib.Path(cw.__file__).parent / "numpy_protocols.py"): ("_to_host(", "._implementation("),
             str(pathlib.Path(cw.__file__).parent / "numpy_out.py"): ("(*on_host(",)}


def _numpy_answered(filename, lineno):
    """Whether code at ``filename:lineno`` is NumPy answering a NumPy call: NumPy's own
    code, this harness calling NumPy (``_HARNESS_FILES``: NumPy refused the call before
    asking candlewick), or candlewick handing the call to NumPy (``_HANDOFFS``)."""
    if filename.startswith(_NUMPY_DIR) or filename in _HARNESS_FILES:
        return True
    line = linecache.getline(filename, lineno)
    return any(marker in line for marker in _HANDOFFS.get(filename, ()))


def _numpy_refusal(exc):
    """An exception of a NumPy entry point that is NumPy's own answer: raised where
    ``_numpy_answered`` says NumPy answered (the innermost frame of candlewick's, or
    none), not in candlewick's translation of the call."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f.filename.startswith(_PACKAGE_DIR)]
    if not ours:
        return True
    last = ours[-1]
    return _numpy_answered(last.filename, last.lineno) and not isinstance(exc, CandlewickError)


def _arrays_in(value, depth=0):
    if isinstance(value, (cw.Array, np.ndarray)):
        yield value
    elif depth < 3 and isinstance(value, (list, tuple)):
        for item in value[:16]:
            yield from _arrays_in(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in list(value.values())[:16]:
            yield from _arrays_in(item, depth + 1)


def _bytes_of(array):
    host = cw.to_numpy(array) if isinstance(array, cw.Array) else np.array(array, copy=True)
    return host.shape, np.ascontiguousarray(host).view(np.uint8).tobytes()


def _snapshot_inputs(args, kwargs):
    seen = {}
    for value in list(args) + list(kwargs.values()):
        for array in _arrays_in(value):
            if id(array) not in seen:
                seen[id(array)] = (array, _bytes_of(array))
    return list(seen.values())


def _changed_inputs(before, written):
    """Inputs whose elements differ from their snapshot (bit for bit, so NaN and -0.0
    count), leaving out the arrays a successful write targets and views sharing their memory."""
    changed = []
    for array, snapshot in before:
        if isinstance(array, cw.Array) and any(array._storage is w._storage for w in written):
            continue
        if _bytes_of(array) != snapshot:
            changed.append(f"{type(array).__name__} of shape {snapshot[0]}")
    return changed


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


def problem_with(name, exc, result, on_reference_backend, *, is_class=False, warned=(), changed=()):
    """None if the outcome is acceptable, else a one-line reason (the finding).
    ``is_class``: the target is a class (a result tuple type), which holds what it is given;
    ``warned``/``changed``: what ``invoke_checked`` recorded."""
    if warned:
        return f"a warning escaped: {warned[0][:120]}"
    if changed:
        return f"an input changed: {changed[0]}"
    numpy_call = name.startswith("numpy.")
    if exc is None:
        if not is_class and not numpy_call and name not in ("to_numpy", "Array.__array__") \
                and _holds_numpy_object(result):
            return f"returned a NumPy object ({type(result).__name__}) where a candlewick array belongs"
        return None
    if isinstance(exc, CallTimedOut):
        return str(exc)
    if numpy_call and _numpy_refusal(exc):
        return None  # NumPy's own answer to its own call (before dispatch, or on host copies)
    if isinstance(exc, UnsupportedOperation):
        # graph capture is an optional capability of a device (the cpu one has none)
        if not on_reference_backend or name.startswith("graphs."):
            return None
        dtype = getattr(exc, "dtype", None)
        if dtype is not None and getattr(dtype, "name", str(dtype)) in EXTRA_DTYPES:
            return None
        if name in CPU_LACKS:
            return None
        return "UnsupportedOperation on the reference cpu backend"
    module = type(exc).__module__ or ""
    if module.startswith(("numpy", "ml_dtypes")):
        return f"a NumPy exception class leaked: {module}.{type(exc).__name__}"
    if isinstance(exc, DOCUMENTED):
        return None
    if type(exc) is TypeError and is_binding_error(exc):
        return None
    if origin_of(exc) == "numpy":
        return f"{type(exc).__name__} raised inside NumPy (the input was not validated before the call)"
    return f"foreign exception {type(exc).__name__} (not a candlewick.errors class)"


def is_binding_error(exc):
    """A TypeError Python raised while binding the call to the signature (wrong arity,
    unknown keyword): the call never reached candlewick's code."""
    if not _ARITY_ERROR.search(str(exc)):
        return False
    frames = traceback.extract_tb(exc.__traceback__)
    return not any(f"{os.sep}candlewick{os.sep}" in f.filename or f"{os.sep}cpu_backend{os.sep}" in f.filename
                   for f in frames[1:])


def outcome_class(exc, reason):
    """The outcome's class for the reliability record."""
    if reason is not None:
        return "finding"
    if exc is None:
        return "returned"
    if type(exc) is TypeError:
        return "TypeError (call does not bind)"
    return type(exc).__name__


_IN_PLACE_SYMBOLS = {"iadd": "+=", "isub": "-=", "imul": "*=", "itruediv": "/=", "ifloordiv": "//=", "imod": "%=",
                     "ipow": "**=", "imatmul": "@=", "iand": "&=", "ior": "|=", "ixor": "^=", "ilshift": "<<=",
                     "irshift": ">>="}


def soft_problem_with(name, exc):
    """A candlewick error whose message does not name the function it came from (the
    project's rule is that it should): reported, not failed. An in-place operator is
    named as the user wrote it (``x += y``, or ``+=`` opening the message); a call of an
    instance (``ElementwiseKernel.__call__``) by its class."""
    if exc is None or not isinstance(exc, CandlewickError) or isinstance(exc, UnsupportedOperation):
        return None
    if name.endswith(".__call__"):
        name = name[: -len(".__call__")]
    short = name.rsplit(".", 1)[-1].strip("_")
    message = str(exc)
    symbol = _IN_PLACE_SYMBOLS.get(short) if name.startswith("Array.") else None
    if symbol and (f"x {symbol} y" in message or message.startswith(f"{symbol} ")):
        return None
    if short and short not in message:
        return "the message does not name the function"
    return None


_ARITY_ERROR = re.compile(r"positional argument|unexpected keyword argument|required (positional|keyword)"
                          r"|takes no arguments|multiple values for argument"
                          r"|positional-only arguments passed as keyword arguments")


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
        # an array's own repr shows its elements; anything else is cut by short_repr (a
        # deep or self-holding list's repr would overflow the stack)
        try:  # (an array's repr reads it back: a device's failure there must not end the run)
            text = repr(v) if isinstance(v, (cw.Array, np.ndarray)) and v.size <= 16 else short_repr(v)
        except Exception as exc:  # noqa: BLE001
            text = f"<{type(v).__name__} whose repr raised {type(exc).__name__}>"
        text = text.replace("\n", " ")
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
