"""Error types raised by candlewick and its backends.

Every class derives from the built-in exception a NumPy user would catch
(TypeError, ValueError, IndexError, MemoryError, BufferError for DLPack, RuntimeError),
so code written against NumPy's exceptions keeps working, and ``except CandlewickError``
catches every error candlewick raises on bad input.
"""

from __future__ import annotations

import os
import reprlib
import sys

# bounded repr for messages: a huge or deeply nested argument must not make the message
# itself expensive or raise (RecursionError from a nested list's repr)
_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxstring, _SHORT.maxother = 3, 60, 60
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 6


def short_repr(value: object) -> str:
    """``repr(value)`` cut to a bounded length, safe for any object (used in messages)."""
    shape = getattr(value, "shape", None)
    if isinstance(shape, tuple) and shape and hasattr(value, "dtype"):  # an array: never its elements
        return f"<{type(value).__name__} of shape {_SHORT.repr(shape)} and dtype {getattr(value.dtype, 'name', value.dtype)}>"
    try:
        text = _SHORT.repr(value)
    except Exception:  # a user object whose __repr__ raises: its type is enough
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= 120 else text[:117] + "..."


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep
# the suite calls candlewick like a user; this module builds errors for its callers
_NOT_PUBLIC = (_PACKAGE + "conformance" + os.sep, os.path.abspath(__file__))
_SUBPACKAGES = {"linalg": "linalg.", "fft": "fft.", "nn": "nn.", "random": "random."}


def public_name(code):
    """The name a user calls a candlewick function by (``concat``, ``linalg.solve``,
    ``Array.__getitem__``), from its code object; None for a closure or private helper."""
    qualname = getattr(code, "co_qualname", code.co_name)
    if "<" in qualname or qualname.split(".")[-1].startswith("_") and not qualname.endswith("__"):
        return None
    module = code.co_filename[len(_PACKAGE):].split(os.sep)[0].removesuffix(".py")
    return (_SUBPACKAGES.get(module, "") if "." not in qualname else "") + qualname


def calling_public_function():
    """The public candlewick function the user's code called, found on the stack: the
    outermost candlewick frame whose caller is not candlewick's (backend frames in
    between are passed over). None when there is none (candlewick's own code raising
    outside a public call, a closure)."""
    frame, entry, depth = sys._getframe(1), None, 0
    while frame is not None and depth < 300:
        filename = frame.f_code.co_filename
        if filename.startswith(_PACKAGE) and not filename.startswith(_NOT_PUBLIC):
            caller = frame.f_back
            if caller is None or not caller.f_code.co_filename.startswith(_PACKAGE) \
                    or caller.f_code.co_filename.startswith(_NOT_PUBLIC):
                entry = frame
        frame, depth = frame.f_back, depth + 1
    return None if entry is None else public_name(entry.f_code)


def name_code(fn, qualname):
    """``fn`` (a generated function: a closure) with its code object named ``qualname``
    (``add``, ``Array.__add__``), so that an error raised inside it names it: the stack
    holds code objects, not functions."""
    names = {"co_name": qualname.rsplit(".", 1)[-1]}
    if hasattr(fn.__code__, "co_qualname"):  # Python 3.11+
        names["co_qualname"] = qualname
    fn.__code__ = fn.__code__.replace(**names)
    return fn


class CandlewickError(Exception):
    """Base of every error raised by candlewick itself.

    A message that does not name the public function it came from gets that name in
    front (``concat: axis must be an integer, got (-1,)``): the shared helpers that check
    axes, shapes, dtypes and devices raise for every function that calls them, and the
    one place that knows which function the user called is the stack when they raise
    (looked at only then: the successful path pays nothing)."""

    #: whether the message gets the calling function's name (runtime failures name their call)
    names_public_function = True

    def __init__(self, *args: object) -> None:
        if self.names_public_function and len(args) == 1 and isinstance(args[0], str):
            name = calling_public_function()
            if name is not None and name.split(".")[-1].strip("_") not in args[0]:
                args = (f"{name}: {args[0]}",)
        super().__init__(*args)


class DTypeError(CandlewickError, TypeError):
    """A dtype that the operation does not accept, or that cannot be promoted."""


class ArgumentTypeError(CandlewickError, TypeError):
    """An argument of a type the function does not accept (the message names both)."""


class ArgumentValueError(CandlewickError, ValueError):
    """An argument of the right type with a value the function does not accept."""


class OutOfRangeError(CandlewickError, ValueError, OverflowError):
    """A Python int that does not fit the dtype it meets (NumPy raises OverflowError; both
    ``except ValueError`` and ``except OverflowError`` catch it)."""


class IndexKeyError(CandlewickError, IndexError):
    """An indexing key that is not a valid index (wrong type, zero slice step, too many indices)."""


class ReadOnlyError(CandlewickError, ValueError):
    """A write into memory that must not be written: a view aliasing one element several
    times (broadcast, stride 0), or memory imported read-only (NumPy raises ValueError)."""


class CopyRequiredError(CandlewickError, ValueError):
    """A request not to copy (``numpy.asarray(x, copy=False)``) that only a copy can meet:
    memory the host cannot read, or a dtype change (NumPy 2 raises ValueError)."""


class DLPackError(CandlewickError, BufferError):
    """A DLPack export or import that cannot be done (the DLPack protocol's BufferError)."""


class ShapeError(CandlewickError, ValueError):
    """Shapes that do not broadcast or do not fit the operation."""


class AxisError(CandlewickError, IndexError, ValueError):
    """An axis outside ``[-ndim, ndim)`` (IndexError and ValueError, like NumPy's)."""


class IndexOutOfBoundsError(CandlewickError, IndexError):
    """An index outside the dimension it indexes."""


class DeviceError(CandlewickError, ValueError):
    """A device string or object that names no device, or devices that are mixed."""


class DeviceMismatchError(DeviceError):
    """Operands on different devices: candlewick never copies between devices silently."""


class BackendUnavailableError(DeviceError, RuntimeError):
    """The backend is registered but cannot run here; the message says why."""

    names_public_function = False  # one wording, whichever function asked for the device

    @classmethod
    def of(cls, name: str, reason: str) -> BackendUnavailableError:
        """The error for backend ``name`` that cannot run, with its reason: one wording for
        the registry and for a backend's own entry points (``rocm_backend.precompile``)."""
        return cls(f"backend {name!r} is unavailable: {reason}")


class UnsupportedOperation(CandlewickError, NotImplementedError):
    """A backend lacks a primitive for this op/dtype; it never falls back to another device."""

    def __init__(self, op: object, dtype: object = None, backend: str | None = None,
                 detail: str = "") -> None:
        self.op, self.dtype, self.backend = op, dtype, backend
        where = f" on backend {backend!r}" if backend else ""
        of = f" for dtype {dtype}" if dtype is not None else ""
        msg = f"operation {op!r}{of} is not supported{where}"
        super().__init__(msg + (f": {detail}" if detail else ""))


class FusionTraceError(CandlewickError, TypeError):
    """A function given to ``candlewick.fuse`` does something tracing cannot record: an
    operation outside element-wise functions, reductions and views, or Python control flow
    that reads a traced value (``if x > 0``, ``float(x)``)."""


class KernelCompileError(CandlewickError, ValueError):
    """A custom kernel's source that does not compile (``candlewick.RawKernel``,
    ``ElementwiseKernel``, ``ReductionKernel``): the device compiler's log, or on a device
    that runs the C subset the reason, with the offending line of the user's source.
    ``log`` holds the compiler's whole log, ``line`` the line number in ``part`` (the
    source, body, preamble or expression the user wrote) or None."""

    names_public_function = False  # the message names the kernel and the compiler

    def __init__(self, message: str, log: str = "", part: str = "", line: int | None = None,
                 text: str = "") -> None:
        self.log, self.part, self.line, self.text = log, part, line, text
        where = f"\n  {part}, line {line}: {text.strip()}" if line is not None and text else ""
        super().__init__(message + where + (f"\n{log}" if log else ""))


class DeviceMemoryError(CandlewickError, MemoryError):
    """An allocation that cannot be made: checked before allocating on every backend, or
    failed even after the allocator released its cache."""

    def __init__(self, device: object, requested: int, free: int | None = None, detail: str = "") -> None:
        self.device, self.requested, self.free = device, requested, free
        free_s = f", {free} bytes free" if free is not None else ""
        super().__init__(
            f"out of memory on {device}: asked for {requested} bytes{free_s}"
            + (f" ({detail})" if detail else "")
        )


class LinAlgError(CandlewickError, ValueError):
    """A matrix for which the decomposition or solve does not exist (singular, not positive definite)."""


class BackendError(CandlewickError, RuntimeError):
    """A failure inside a backend's runtime (driver call, compiler, library)."""

    names_public_function = False  # the message names the runtime call that failed


class GraphCaptureError(CandlewickError, RuntimeError):
    """A call that a graph capture cannot hold (a host read, a host copy, random numbers), or
    a graph used against its rules (docs/graphs.md)."""


class ApiVersionError(CandlewickError, RuntimeError):
    """A function of a newer Array API revision than the one selected
    (``candlewick.set_array_api_version``, ``CANDLEWICK_ARRAY_API_VERSION``)."""
