"""Which storage/device primitives and op enum members each front-end function needs,
found by reading candlewick's source: the methods of ``candlewick.backend``'s protocols a
function calls, followed through the candlewick functions it calls (``Needs``); and which
namespace object implements each checklist name (``resolve_name``).
"""

import ast
import enum
import importlib
import inspect
import textwrap
import types

import array_api_names  # noqa: F401  (puts this checkout on sys.path before candlewick is imported)
import candlewick
from candlewick import backend as _protocol
from candlewick import dtypes as _dt
from candlewick.opdefs import ALL_OP_ENUMS


# --- what the front end needs -------------------------------------------------------------

def _protocol_methods(cls):
    return set(_protocol.protocol_methods(cls))


STORAGE_PRIMS = _protocol_methods(_protocol.BackendStorage)
DEVICE_PRIMS = _protocol_methods(_protocol.BackendDevice)
HOOKS = {"dlpack": _protocol_methods(_protocol.DLPackStorage) | _protocol_methods(_protocol.DLPackDevice)}
GROUP_OF = {p: g for g, prims in _protocol.OPTIONAL_PRIMITIVES.items() for p in prims}
GROUP_OF.update({p: g for g, prims in HOOKS.items() for p in prims})
ALL_PRIMS = STORAGE_PRIMS | DEVICE_PRIMS | set(GROUP_OF) - {"same_device"}
# methods called by name on arrays (dunders run implicitly and would only add noise); not
# NumPy's methods (array_methods: NumPy's functions through a table filled on first use, so
# what they reach would depend on what ran before)
ARRAY_METHODS = {n for n, v in vars(candlewick.Array).items() if inspect.isfunction(v) and not n.startswith("__")
                 and v.__module__ != "candlewick.array_methods"}


# reached only with a destination array (NumPy's out=, the in-place operators, x[mask] = v),
# which no namespace function passes: followed, it would list assign for every element-wise
# function (candlewick.inplace.write's fallback)
_DESTINATION_ONLY = ("candlewick.inplace",)


def _is_frontend_function(obj):
    module = getattr(obj, "__module__", None) or ""
    return inspect.isfunction(obj) and module.startswith("candlewick") and module not in _DESTINATION_ONLY


def _is_frontend_class(obj):
    return (inspect.isclass(obj) and (obj.__module__ or "").startswith("candlewick")
            and obj is not candlewick.Array and not issubclass(obj, (enum.Enum, BaseException)))


def _op_member(obj):
    return isinstance(obj, enum.Enum) and type(obj) in ALL_OP_ENUMS


class Needs:
    """Primitives and ops a front-end function reaches, following candlewick calls."""

    def __init__(self):
        self._memo = {}

    def of(self, obj):
        """(primitives, ops) for a function, method, property or class (all its methods)."""
        if isinstance(obj, property):
            obj = obj.fget
        if inspect.isclass(obj):
            prims, ops = set(), set()
            for member in vars(obj).values():
                if inspect.isfunction(member) or isinstance(member, property):
                    p, o = self.of(member)
                    prims |= p
                    ops |= o
            return prims, ops
        general = getattr(obj, "general", None)
        if not inspect.isfunction(obj) and inspect.isfunction(general):
            # a C fast path standing in for a Python method (candlewick._native.Update, the
            # in-place operators): it calls the primitives its Python form calls
            obj = general
        if not _is_frontend_function(obj):
            return set(), set()
        return self._function(obj)

    def _function(self, fn):
        # a wrapper (api_version.requires, the element-wise functions' C fast path) is read
        # through to the function it wraps
        fn = inspect.unwrap(fn)
        if fn in self._memo:
            return self._memo[fn]
        prims, ops = set(), set()
        self._memo[fn] = (prims, ops)  # filled in place: recursion sees the partial sets
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        except (OSError, TypeError, SyntaxError):
            return prims, ops
        env = dict(fn.__globals__)
        closure = inspect.getclosurevars(fn).nonlocals
        env.update(closure)
        defaults = inspect.signature(fn).parameters
        env.update({n: p.default for n, p in defaults.items() if p.default is not inspect.Parameter.empty})
        env.update(_local_imports(tree, fn.__module__))
        for value in list(closure.values()) + [p.default for p in defaults.values()]:
            if _op_member(value):
                ops.add(value)
        called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            target = self._resolve(node, env)
            if _op_member(target):
                ops.add(target)
            elif _is_frontend_function(target) and target is not fn:
                self._merge(target, prims, ops)
            elif _is_frontend_class(target) and isinstance(node, (ast.Name, ast.Attribute)) and id(node) in called:
                # constructing a helper object: everything its methods reach
                for member in vars(target).values():
                    if _is_frontend_function(member):
                        self._merge(member, prims, ops)
            elif isinstance(node, ast.Attribute) and id(node) in called and target is None:
                if node.attr in ALL_PRIMS:
                    prims.add(node.attr)
                elif node.attr in ARRAY_METHODS:
                    self._merge(vars(candlewick.Array)[node.attr], prims, ops)
        return prims, ops

    def _merge(self, fn, prims, ops):
        p, o = self._function(fn)
        prims |= p
        ops |= o

    def _resolve(self, node, env):
        """The object a Name or dotted Attribute refers to, if it can be known statically."""
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            return env.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self._resolve(node.value, env)
            if isinstance(base, types.ModuleType) or (inspect.isclass(base) and issubclass(base, enum.Enum)):
                return getattr(base, node.attr, None)
        return None


def _local_imports(tree, module_name):
    """Names bound by ``import``/``from ... import`` statements inside a function body."""
    env = {}
    package = module_name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            try:
                module = importlib.import_module(base)
            except Exception:  # a module that does not import cannot be followed
                continue
            for alias in node.names:
                target = getattr(module, alias.name, None)
                if target is None:
                    try:
                        target = importlib.import_module(f"{base}.{alias.name}")
                    except Exception:
                        continue
                env[alias.asname or alias.name] = target
        elif isinstance(node, ast.Import):
            for alias in node.names:
                try:
                    env[alias.asname or alias.name.split(".")[0]] = importlib.import_module(alias.name)
                except Exception:
                    continue
    return env


# --- the namespace's objects for each checklist name ------------------------------------

def resolve_name(name):
    """(object, where) implementing a checklist name, or (None, None) if it is missing."""
    info_cls = getattr(candlewick, "__array_namespace_info__", None)
    if name == "default dtypes":
        return (getattr(info_cls, "default_dtypes", None), "__array_namespace_info__().default_dtypes()") if info_cls else (None, None)
    owner, _, attr = name.rpartition(".")
    if owner == "array":
        base, label = candlewick.Array, "Array"
    elif owner == "info":
        base, label = info_cls, "__array_namespace_info__()"
    elif owner == "dtype":
        base, label = _dt.DType, "DType"
    elif owner:
        base, label = getattr(candlewick, owner, None), f"candlewick.{owner}"
    else:
        base, label = candlewick, "candlewick"
    if base is None:
        return None, None
    if inspect.isclass(base):
        for klass in base.__mro__:
            if attr in vars(klass) and klass is not object:
                return vars(klass)[attr], f"{label}.{attr}"
        return None, None
    if not hasattr(base, attr):
        return None, None
    obj = getattr(base, attr)
    where = getattr(obj, "__module__", None) if callable(obj) and not isinstance(obj, _dt.DType) else None
    return obj, (f"{where}.{getattr(obj, '__qualname__', attr)}" if where else f"{label}.{attr}")

