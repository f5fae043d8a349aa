"""Building blocks of the fuzz test: the public callables (found from the package
itself), a strategy of bad (and some good) arguments, and the rule that sorts what a
call did into documented outcomes and findings.

Documented errors: candlewick's own error classes (``candlewick.errors``), and the
TypeError Python itself raises when a call does not bind to the signature (wrong arity,
unknown keyword); UnsupportedOperation only where a backend lacks a capability (never on
the reference cpu backend except for float16/bfloat16 and ``set_memory_limit``: NumPy's
allocations cannot be limited, docs/gpu.md). Anything else is a finding: a
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
import math
import os
import pathlib
import re
import signal
import sys
import traceback
import types
import warnings

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import candlewick as cw
from candlewick import numpy_creation, numpy_functions
from candlewick.errors import CandlewickError, UnsupportedOperation, short_repr

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
ALL_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")

_NUMPY_DIR = str(pathlib.Path(np.__file__).parent)
_PACKAGE_DIR = str(pathlib.Path(cw.__file__).parent) + os.sep
_ML_DTYPES_DIR = str(pathlib.Path(ml_dtypes.__file__).parent)


# --- the callables under test ----------------------------------------------------------

#: Array attributes that are not methods a user calls (NumPy's protocol hooks, Python's
#: object machinery)
_NOT_USER_METHODS = {"__array_function__", "__array_ufunc__", "__init_subclass__", "__subclasshook__",
                     "__class_getitem__", "__getattribute__", "__setattr__", "__delattr__",
                     "__reduce__", "__reduce_ex__", "__sizeof__", "__dir__", "__getstate__", "__new__"}


def array_method_names():
    """Every method of ``candlewick.Array``: its public methods, operators (forward,
    reflected, in-place, comparisons), conversions and protocol methods."""
    names = set()
    # Array and the candlewick base classes it inherits methods from (array_scalars,
    # array_interop), not object's
    for cls in (c for c in cw.Array.__mro__ if c.__module__.startswith("candlewick")):
        for name, value in vars(cls).items():
            if name in _NOT_USER_METHODS or not callable(value):
                continue
            if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
                continue
            names.add(name)
    return sorted(names)


def _module_functions(module, prefix):
    """The callables a module lists in ``__all__``, and those of the modules it lists
    (``lib.stride_tricks``), or those it defines itself when it has no ``__all__``."""
    if not hasattr(module, "__all__"):
        return _defined_functions(module, prefix)
    found = []
    for name in module.__all__:
        value = getattr(module, name)
        if isinstance(value, types.ModuleType):
            found += _module_functions(value, f"{prefix}{name}.")
        elif callable(value):
            found.append((f"{prefix}{name}", value))
    return found


def _defined_functions(module, prefix):
    """The public functions and classes a module without ``__all__`` defines itself."""
    return [(f"{prefix}{name}", value) for name, value in sorted(vars(module).items())
            if not name.startswith("_") and callable(value) and getattr(value, "__module__", None) == module.__name__]


#: the namespace's modules of public functions that ``dir(candlewick)`` does not list:
#: NumPy's nan* reductions (which NumPy's protocols reach)
EXTRA_MODULES = ("nan_reductions",)


def public_modules():
    """The namespace's public modules, by name: the standard's extensions, those
    ``dir(candlewick)`` lists (a module added there is fuzzed without a change here) and
    the ``EXTRA_MODULES``; not ``errors`` (its classes are what the calls raise)."""
    listed = [n for n in dir(cw) if isinstance(getattr(cw, n, None), types.ModuleType) and n != "errors"]
    return tuple(dict.fromkeys(["linalg", "fft", "nn", "random", *listed, *EXTRA_MODULES]))


def public_targets():
    """``(qualified name, callable)`` for every public callable found from the package:
    the namespace (which holds the device and backend API) with its callables outside
    ``__all__`` (the settings), its public modules (``public_modules``), a Generator's methods, every Array method, the inspection
    object's methods, and NumPy's entry points into candlewick (``numpy_targets``)."""
    targets = []
    for name in cw.__all__:
        obj = getattr(cw, name)
        if callable(obj) and not isinstance(obj, cw.Array):
            targets.append((name, obj))
    for name, obj in sorted(vars(cw).items()):
        if (not name.startswith("_") and name not in cw.__all__ and callable(obj)
                and not isinstance(obj, (types.ModuleType, cw.Array))):
            targets.append((name, obj))
    for ext in public_modules():
        targets += _module_functions(getattr(cw, ext), f"{ext}.")
    generator = cw.random.Generator(0)
    for name in (n for n in cw.random.__all__ if inspect.isfunction(getattr(cw.random.Generator, n, None))):
        targets.append((f"Generator.{name}", getattr(generator, name)))
    for name in array_method_names():
        targets.append((f"Array.{name}", _array_method(name)))
    for cls_name, (_, family) in INSTANCES.items():
        cls = getattr(cw, cls_name)
        for method in sorted(n for n, v in vars(cls).items() if callable(v) and (n == "__call__" or not n.startswith("_"))):
            targets.append((f"{cls_name}.{method}", _instance_method(cls_name, method)))
    info = cw.__array_namespace_info__()
    for name in sorted(n for n in dir(info) if not n.startswith("_") and callable(getattr(info, n))):
        targets.append((f"info.{name}", getattr(info, name)))
    return targets + numpy_targets()


def family_of(name):
    """The function family a target belongs to, for the reliability record."""
    head = name.split(".", 1)[0]
    if head in ("info",) + public_modules():
        return head
    if head == "numpy":
        return "NumPy protocols"
    if name in _SETTINGS:
        return "settings"
    if head == "Generator":
        return "random"
    if head in INSTANCES and "." in name:
        return INSTANCES[head][1]
    if head == "Array" and "." in name:
        method = name.split(".", 1)[1]
        if method in ("__getitem__", "__setitem__"):
            return "Array indexing"
        if method.startswith("__i") and method not in ("__int__", "__index__", "__invert__", "__iter__"):
            return "Array in-place operators"
        if method.startswith("__r") and method not in ("__repr__", "__round__"):
            return "Array reflected operators"
        if "dlpack" in method:
            return "DLPack"
        return "Array methods and operators"
    if "dlpack" in name:
        return "DLPack"
    if name in _DEVICE_API:
        return "devices and backends"
    return "namespace"


_DEVICE_API = {"backends", "get_device", "set_default_device", "default_device", "devices",
               "to_device", "__array_namespace_info__"}
_SETTINGS = {"array_api_version", "set_array_api_version", "get_promotion_mode", "set_promotion_mode",
             "promotion_mode", "get_implicit_host_copy", "set_implicit_host_copy"}


# --- NumPy's entry points: its ufuncs, functions and conversions given candlewick arrays ---

#: ufuncs of every arity and output count, and every ufunc method
NUMPY_UFUNCS = (np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.power, np.maximum,
                np.minimum, np.negative, np.sin, np.exp, np.sqrt, np.isnan, np.logical_and, np.bitwise_and,
                np.left_shift, np.equal, np.less, np.matmul, np.divmod, np.frexp, np.modf, np.ldexp,
                np.arctan2, np.hypot, np.invert, np.absolute, np.rint, np.conjugate, np.remainder)
UFUNC_METHODS = ("__call__", "__call__", "__call__", "reduce", "reduce", "accumulate", "reduceat", "outer", "at")
#: NumPy functions: every one candlewick answers itself (numpy_functions' table, read so
#: that an entry added there is fuzzed without an edit here) and others that NumPy runs on
#: host copies
NUMPY_FUNCTIONS = tuple(dict.fromkeys(
    (np.concatenate, np.stack, np.unique, np.allclose, np.array_equal, np.may_share_memory, np.histogram,
     np.average, np.median, np.pad, np.einsum, np.dot, np.isin, np.diff, np.tile, np.repeat)
    + tuple(sorted(numpy_functions.FUNCTIONS, key=lambda f: getattr(f, "__name__", repr(f))))))
#: NumPy's creation functions with ``like=`` a candlewick array (NEP 35, numpy_creation's
#: table), without the file readers (the fuzz reads no files)
NUMPY_CREATION = tuple(sorted((f for f in numpy_creation.CREATION if f not in (np.fromfile, np.loadtxt, np.genfromtxt)),
                              key=lambda f: f.__name__))


def _numpy_ufunc_call(ufunc, method, *inputs, **kwargs):
    """``ufunc.method(*inputs, **kwargs)`` as a user calls it (NumPy then asks the
    candlewick operands' ``__array_ufunc__``)."""
    return getattr(ufunc, method)(*inputs, **kwargs)


def _numpy_function_call(func, *args, **kwargs):
    """``func(*args, **kwargs)``: NumPy asks the candlewick operands' ``__array_function__``."""
    return func(*args, **kwargs)


def _numpy_array_call(obj, *args, **kwargs):
    """``numpy.array(obj, ...)``: NumPy asks ``obj.__array__(dtype, copy)``."""
    return np.array(obj, *args, **kwargs)


def _numpy_creation_call(func, *args, **kwargs):
    """``func(*args, like=array, ...)``: NumPy asks ``like``'s ``__array_function__``."""
    return func(*args, **kwargs)


def numpy_targets():
    """NumPy's entry points with candlewick arrays among the operands: a ufunc through any
    method (``__array_ufunc__``), a NumPy function (``__array_function__``), a creation
    function with ``like=`` (NEP 35), and ``numpy.array``/``numpy.asarray`` (``__array__``,
    with dtype and copy)."""
    kinds = {"numpy.ufunc": (_numpy_ufunc_call, "ufunc"), "numpy.function": (_numpy_function_call, "function"),
             "numpy.creation": (_numpy_creation_call, "creation"), "numpy.array": (_numpy_array_call, "array")}
    for fn, kind in kinds.values():
        fn._numpy_kind = kind
    return [(name, fn) for name, (fn, _) in kinds.items()]


#: the namespace's classes whose instances' methods are fuzzed too: class name -> (a
#: factory of a working instance, its family in the record). A class of the namespace
#: (in ``__all__``) is fuzzed as a constructor anyway; this reaches what its objects do.
INSTANCES = {
    "Stream": (lambda: cw.Stream(), "streams and events"),
    "Event": (lambda: cw.Event(), "streams and events"),
    "ElementwiseKernel": (lambda: cw.ElementwiseKernel("T x, T y", "T z", "z = x * y + 1;", "fuzz_fma"),
                          "custom kernels"),
    "ReductionKernel": (lambda: cw.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a;", "0", "fuzz_sumsq"),
                        "custom kernels"),
    "RawKernel": (lambda: cw.RawKernel('extern "C" __global__ void fuzz_one(float* x) { x[0] = 1.0f; }', "fuzz_one"),
                  "custom kernels"),
}
_INSTANCES: dict = {}


def _instance_method(cls_name, method):
    """A callable calling ``method`` of one instance of ``cls_name`` made on the default
    device of the call (kept per device: calls on it meet what earlier calls left)."""
    def call(*args, **kwargs):
        device = cw.get_device(None)
        key = (cls_name, str(device))
        if key not in _INSTANCES:
            _INSTANCES[key] = INSTANCES[cls_name][0]()
        target = _INSTANCES[key]
        return target(*args, **kwargs) if method == "__call__" else getattr(target, method)(*args, **kwargs)

    call.__name__ = method
    try:  # the method's own parameters, without self
        params = list(inspect.signature(getattr(getattr(cw, cls_name), method)).parameters.values())[1:]
        call.__signature__ = inspect.Signature(params)
    except (TypeError, ValueError):
        pass
    return call


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
# shape must fail at once or be tiny, not make a CI machine allocate gigabytes. A run
# under a tight memory limit (tools/reliability_fuzz.py --tight-memory) sets MID_SIZES:
# sizes whose results fit no more than a few times in what the limit leaves, so that the
# kernels' own allocations fail there and must be reported as DeviceMemoryError.
_INT_VALUES = (0, 1, 2, 3, 7, -1, -2, -3, -7, 2**62, 2**63, 2**64, -(2**63) - 1, 10**30)
_MID_SIZE_VALUES = (2**22, 2**24, 2**25, 3 * 2**23)
MID_SIZES = False
INTS = st.deferred(lambda: st.sampled_from(_INT_VALUES + (_MID_SIZE_VALUES if MID_SIZES else ())))
FLOATS = st.sampled_from([0.0, -0.0, 0.5, -2.5, 3.0, float("nan"), float("inf"), float("-inf"), 1e300])
COMPLEXES = st.sampled_from([1j, complex(float("nan"), 1.0), 2.5 - 1j])
STRINGS = st.sampled_from(["", "a", "cpu", "rocm:99", "nope", "cpu:1", "float32", "int8", "xy",
                           "ij", "left", "right", "ortho", "forward", "fro", "nuc", "reduced",
                           "complete", "numeric", "integral", "2024.12", "backward"])


#: element values: ordinary, signed zeros, NaN, infinities, subnormals, and the dtype's
#: own extremes (LOWEST/HIGHEST, replaced per dtype)
_VALUES = [0, 1, -1, 2, 3, 0.5, -0.0, float("nan"), float("inf"), float("-inf"), 5e-324, 1e-40,
           "LOWEST", "HIGHEST"]
VIEW_KINDS = ("plain", "plain", "flip", "transpose", "offset", "strided", "broadcast", "0-d", "empty")


def small_arrays(draw_dtype=st.sampled_from(ALL_DTYPE_NAMES)):
    """Small arrays of every dtype (float16/bfloat16 included), holding special values,
    often as views: reversed (negative strides), transposed, offset, strided, broadcast
    (stride 0), 0-d and empty."""
    @st.composite
    def build(draw):
        name = draw(draw_dtype)
        view = draw(st.sampled_from(VIEW_KINDS))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        if view in ("offset", "strided"):
            shape = (draw(st.integers(2, 5)),) + shape[1:]
        elif view == "0-d":
            shape = ()
        elif view == "empty":
            shape = shape[:1] + (0,) + shape[1:]
        size = math.prod(shape)
        # one draw seeds the elements: a draw per element would make the data, not the
        # call, the cost of a fuzzed call
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        values = [_VALUES[i] for i in rng.integers(0, len(_VALUES), size)]
        host = _host_of_dtype(values, shape, name)
        x = cw.asarray(host)
        if view == "flip" and x.ndim:
            x = x[::-1]
        elif view == "transpose" and x.ndim >= 2:
            x = x.mT
        elif view == "offset":
            x = x[1:]
        elif view == "strided":
            x = x[::2]
        elif view == "broadcast":
            x = cw.broadcast_to(x, (2,) + x.shape)
        return x

    return build()


def _extremes(name):
    if name == "bool":
        return False, True
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return int(info.min), int(info.max)
    info = ml_dtypes.finfo(ml_dtypes.bfloat16) if name == "bfloat16" else np.finfo(
        name.replace("complex64", "float32").replace("complex128", "float64"))
    return float(info.min), float(info.max)


def _host_of_dtype(values, shape, name):
    lowest, highest = _extremes(name)
    if name.startswith(("int", "uint")):
        ints = [lowest if v == "LOWEST" else highest if v == "HIGHEST" else
                (0 if v != v or v in (float("inf"), float("-inf")) else int(v)) for v in values]
        ints = [min(max(v, lowest), highest) for v in ints]
        return np.array(ints, dtype=name).reshape(shape)
    floats = [lowest if v == "LOWEST" else highest if v == "HIGHEST" else v for v in values]
    host = np.array(floats, dtype=np.float64).reshape(shape)
    with np.errstate(all="ignore"):
        if name == "bool":
            return host != 0
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


class IndexLike:
    """An object with ``__index__`` (the standard takes it wherever an int goes)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value

    def __repr__(self):
        return f"IndexLike({self.value!r})"


def _deep_list(depth, leaf=1):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _self_referencing():
    seq = [1.0, 2.0]
    seq.append(seq)
    mapping = {"axis": 0}
    mapping["self"] = mapping
    return [seq, mapping]


#: sequences no array or argument is made of: a 5000-deep list (a recursive walk or repr
#: of it overflows the stack), lists and dicts holding themselves, a 70-deep one-element nest
ODD_SEQUENCES = [_deep_list(5000), _deep_list(70), tuple(_deep_list(300))] + _self_referencing()
#: keys and shapes past the 64-dimension limit, slices whose step no stride can hold
HUGE_KEYS = [(None,) * 70, (slice(None),) * 65, (1,) * 65, (0,) * 70, slice(None, None, 2**62),
             slice(None, None, -(2**63)), slice(2**62, None, 2**62), (Ellipsis, slice(None, None, 2**64)),
             (slice(None), slice(None, None, 2**62)), IndexLike(1), IndexLike(2**63), IndexLike(TypeError("no"))]
#: Python numbers no integer dtype holds, in the shapes asarray and setitem take
UNSTORABLE_NUMBERS = [[float("nan")], [1.0, float("inf")], [[float("-inf")]], [1e300], [-1], [2**64], 3e9, -0.5]


def _high_dimensional():
    """Arrays at the dimension limit and near it (every later call must stay within it)."""
    return [cw.ones((1,) * 64), cw.zeros((1,) * 63 + (2,), dtype=cw.int8), cw.ones((1,) * 40, dtype=cw.bool)]


def bad_values():
    scalars = st.one_of(st.booleans(), INTS, FLOATS, COMPLEXES)
    leaves = st.one_of(
        small_arrays(), small_arrays(), scalars, STRINGS, dtype_objects(),
        st.sampled_from([None, Ellipsis, b"x", object(), lambda x: x, np.float32(1.5), np.int64(3),
                         np.ones((2, 2)), np.ones(3, dtype=np.int8)[::-1], [1.0, 2.0, 3.0], memoryview(b"ab"),
                         slice(1, None, -1), slice(None), slice(0, 2**63), slice(None, None, 0),
                         slice("a", None), cw.newaxis, int, float("nan"), 2**63 - 1, -(2**63)]),
        st.builds(lambda: cw.get_device("cpu")),
        st.sampled_from(ODD_SEQUENCES + HUGE_KEYS + UNSTORABLE_NUMBERS),
        st.builds(_high_dimensional).flatmap(st.sampled_from),
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
                         st.lists(st.one_of(ints, st.just(slice(1, None)), st.none()), max_size=3).map(tuple),
                         st.sampled_from(HUGE_KEYS)),
        "obj": st.one_of(arrays, scalars, st.lists(FLOATS, max_size=3), st.sampled_from(UNSTORABLE_NUMBERS)),
        "value": st.one_of(scalars, arrays), "other": st.one_of(scalars, arrays, arrays),
    }
    return by_name, arrays


def call_arguments(fn, keyword_pool):
    """(args, kwargs) for ``fn``: plausible values with one or two bad ones, usually in an
    arity the signature accepts; now and then a wrong arity or an unknown keyword."""
    if getattr(fn, "_numpy_kind", None):
        return numpy_call_arguments(fn._numpy_kind)
    takes_self = getattr(fn, "_takes_self", False)
    try:
        params = list(inspect.signature(fn).parameters.values())
        known = True
    except (TypeError, ValueError):
        params, known = [], False
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
        if not known:
            args = [draw(bad) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.integers(0, 19)) == 19:
            args.append(draw(bad))  # one positional too many
        if draw(st.integers(0, 19)) == 19:
            kwargs[draw(st.sampled_from(sorted(keyword_pool) + ["bogus"]))] = draw(bad)
        if takes_self:
            args = [draw(small_arrays())] + args
        return args, kwargs

    return build()


#: keywords NumPy's ufuncs and functions take, and one they do not
_NUMPY_KEYWORDS = ("out", "dtype", "where", "axis", "keepdims", "casting", "initial", "order", "ddof", "shape",
                   "fill_value", "copy", "kind", "weights", "correction", "mean", "subok", "bogus")


def numpy_call_arguments(kind):
    """(args, kwargs) of a NumPy entry point (``numpy_targets``) holding candlewick arrays:
    the ufunc or function and its operands, at least one a candlewick array, among
    plausible and bad values, with NumPy's keywords (``out=``, ``where=``, ``dtype=``...)."""
    good_by_name, arrays = _good_values()
    bad = bad_values()
    operand = st.one_of(arrays, arrays, st.integers(-3, 3), st.sampled_from([0.5, -1.0]), bad)

    def keyword_value(name, draw):
        if name == "out":
            return draw(st.one_of(arrays, st.lists(arrays, min_size=1, max_size=2).map(tuple),
                                  st.builds(lambda: np.empty(3)), bad))
        if name == "where":
            return draw(st.one_of(st.booleans(), small_arrays(st.just("bool")), bad))
        good = good_by_name.get(name)
        return draw(bad) if good is None or draw(st.integers(0, 3)) == 3 else draw(good)

    @st.composite
    def build(draw):
        kwargs = {}
        for name in draw(st.lists(st.sampled_from(_NUMPY_KEYWORDS), max_size=2, unique=True)):
            kwargs[name] = keyword_value(name, draw)
        if kind == "array":
            args = [draw(arrays)]
            if draw(st.booleans()):
                kwargs["dtype"] = draw(st.one_of(dtype_objects(), bad))
            if draw(st.booleans()):
                kwargs["copy"] = draw(st.one_of(st.sampled_from([None, True, False]), bad))
            return args, kwargs
        if kind == "ufunc":
            ufunc = draw(st.sampled_from(NUMPY_UFUNCS))
            method = draw(st.sampled_from(UFUNC_METHODS))
            count = {"reduce": 1, "accumulate": 1, "reduceat": 2, "at": 3}.get(method, ufunc.nin)
            count = max(0, count + draw(st.sampled_from([0, 0, 0, 0, -1, 1])))
            inputs = [draw(operand) for _ in range(count)]
            if not any(isinstance(v, cw.Array) for v in inputs):
                inputs.insert(draw(st.integers(0, len(inputs))), draw(arrays))
            return [ufunc, method] + inputs, kwargs
        if kind == "creation":
            func = draw(st.sampled_from(NUMPY_CREATION))
            kwargs["like"] = draw(st.one_of(arrays, arrays, arrays, bad))
            shape_like = st.one_of(st.integers(-1, 4), st.tuples(st.integers(0, 3), st.integers(0, 3)), INTS)
            args = [draw(st.one_of(shape_like, arrays, st.lists(st.integers(-3, 3), max_size=4), bad))]
            return args + [draw(operand) for _ in range(draw(st.integers(0, 2)))], kwargs
        func = draw(st.sampled_from(NUMPY_FUNCTIONS))
        first = draw(st.one_of(arrays, st.lists(arrays, min_size=1, max_size=3)))
        rest = [draw(operand) for _ in range(draw(st.integers(0, 2)))]
        return [func, first] + rest, kwargs

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
    code, this harness calling NumPy (NumPy refused the call before asking candlewick),
    or candlewick handing the call to NumPy (``_HANDOFFS``)."""
    if filename.startswith(_NUMPY_DIR) or filename == __file__:
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
    named as the user wrote it (``x += y``, or ``+=`` opening the message)."""
    if exc is None or not isinstance(exc, CandlewickError) or isinstance(exc, UnsupportedOperation):
        return None
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
