"""The callables the fuzz test calls, one of its three building blocks (with
``fuzz_arguments``, the arguments, and ``fuzz_outcomes``, the rule): every public
callable found from the package itself (``public_targets``: the namespace, which holds
the device and backend API, with its settings outside ``__all__``; its public modules; a
Generator's methods; every Array method; the methods of instances of the namespace's
classes, ``INSTANCES``; the inspection object's methods), NumPy's entry points into
candlewick (``numpy_targets``: a NumPy call given candlewick arrays, through the
protocols ``__array_ufunc__``, ``__array_function__`` and ``__array__``, and NumPy's
creation functions with ``like=``), a callable's signature (``signature_of``) and the
function family a target belongs to in the reliability record (``family_of``).
"""

import inspect
import types

import numpy as np

import candlewick as cw
from candlewick import numpy_creation, numpy_functions


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
