"""What each registered backend declares, read without touching hardware
(``BackendFacts``): its storage and device classes and their methods, the ``capabilities``
and ``dtypes`` its device class declares, and the (op, dtype) pairs of its op table
(``<backend>.ops``); and the verdict of whether it provides what a name needs.
"""

import importlib
import inspect

from array_api_needs import DEVICE_PRIMS, GROUP_OF, _op_member
from candlewick import backend as _protocol
from candlewick import dtypes as _dt
from candlewick import backend_discovery
from candlewick.opdefs import ALL_OP_ENUMS


class BackendFacts:
    """Static declarations of one registered backend (no device is created)."""

    def __init__(self, name):
        self.name = name
        self.error = None
        self.storage_cls = self.device_cls = None
        self.capabilities = None  # None: set per device at run time
        self.dtypes = None
        self.op_dtypes = None  # {op: set(dtypes)} or None when no op table was found
        try:
            backend = backend_discovery._load(name)
        except Exception as exc:
            self.error = f"not loadable: {exc}"
            return
        package = type(backend).__module__.split(".")[0]
        modules = [importlib.import_module(package)]
        for sub in ("storage", "device", "ops"):
            try:
                modules.append(importlib.import_module(f"{package}.{sub}"))
            except ImportError:
                pass
        for module in modules:
            for obj in vars(module).values():
                if inspect.isclass(obj) and obj.__module__ == module.__name__:
                    if self.storage_cls is None and "to_host" in dir(obj):
                        self.storage_cls = obj
                    if self.device_cls is None and "storage_from_host" in dir(obj):
                        self.device_cls = obj
        if self.device_cls is not None:
            self.capabilities = _class_attr(self.device_cls, "capabilities")
            self.dtypes = _class_attr(self.device_cls, "dtypes")
        ops = next((m for m in modules if m.__name__ == f"{package}.ops"), None)
        self.op_dtypes = _op_table(ops) if ops else None

    def has(self, prim):
        cls = self.device_cls if prim in DEVICE_PRIMS or prim == "storage_from_dlpack" else self.storage_cls
        return cls is not None and callable(getattr(cls, prim, None))

    def status(self, prims, ops, dtype=None):
        """A short verdict for one checklist name."""
        if self.error:
            return "—"
        problems, notes = [], []
        if dtype is not None:
            if self.dtypes is None:
                return "run time"
            return "✓" if dtype in self.dtypes else "✗ dtype not declared"
        fallback = _protocol.GROUPS_WITH_FALLBACK
        missing = sorted(p for p in prims if not self.has(p) and GROUP_OF.get(p) not in fallback)
        if missing:
            problems.append("lacks " + ", ".join(missing))
        for group in sorted({GROUP_OF[p] for p in prims if p in GROUP_OF and GROUP_OF[p] in _protocol.OPTIONAL_CAPABILITIES}):
            if self.capabilities is None:
                notes.append(f"'{group}' per device")
            elif group not in self.capabilities:
                if group in fallback:  # the front end's documented path runs instead
                    notes.append(f"'{group}' not declared: fallback")
                else:
                    problems.append(f"'{group}' not declared")
        if self.op_dtypes is not None:
            for op in sorted(ops, key=repr):
                have = self.op_dtypes.get(op, set())
                absent = [d.name for d in op.dtypes() if d not in have]
                if absent:
                    problems.append(f"{op.value} lacks {'all dtypes' if not have else ', '.join(absent)}")
        if problems:
            return "✗ " + "; ".join(problems)
        return "✓" + (f" ({'; '.join(notes)})" if notes else "")


def _class_attr(cls, name):
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return None


def _enum_named_by(keys):
    """The op enum whose values are exactly ``keys`` (strings), else the smallest one
    holding them all, else None."""
    keys = set(keys)
    if not keys or not all(isinstance(k, str) for k in keys):
        return None
    fits = [e for e in ALL_OP_ENUMS if keys <= {op.value for op in e}]
    exact = [e for e in fits if keys == {op.value for op in e}]
    fits = exact or sorted(fits, key=len)
    return fits[0] if fits else None


def _as_dtype(key):
    if isinstance(key, _dt.DType):
        return key
    if isinstance(key, str) and key in {d.name for d in _dt.ALL_DTYPES}:
        return _dt.from_name(key)
    return None


#: an op enum by the family name that leads a table key of plain strings ("unary" -> UnaryOp)
_FAMILY_ENUM = {e.__name__.removesuffix("Op").lower(): e for e in ALL_OP_ENUMS}


def _tuple_op_dtype(key):
    """(op, dtype) of a table key tuple: members (an op enum member and a DType), or plain
    strings led by the op's family, as ``rocm_backend.ops.kernel_key`` writes them
    (``("binary", "add", "float32")``, ``("reduce", "rows", "sum", "float64")``)."""
    op = next((k for k in key if _op_member(k)), None)
    dtype = next((k for k in key if isinstance(k, _dt.DType)), None)
    if op is None and key and key[0] in _FAMILY_ENUM and isinstance(key[-1], str):
        values = {member.value: member for member in _FAMILY_ENUM[key[0]]}
        op = next((values[k] for k in key[1:-1] if isinstance(k, str) and k in values), None)
        dtype = _as_dtype(key[-1])
    return op, dtype


def _op_table(module):
    """{op: {dtypes}} from the dicts of an op-table module: nested ``[op][dtype]`` (by
    member or by ``op.value`` / ``dtype.name``), or keyed by tuples holding an op and a
    dtype (members, or strings led by the op's family)."""
    found = {}
    for table in vars(module).values():
        if not isinstance(table, dict):
            continue
        named = _enum_named_by(table)
        for key, value in table.items():
            op = named(key) if named is not None else key
            if _op_member(op) and isinstance(value, dict):
                found.setdefault(op, set()).update(d for d in map(_as_dtype, value) if d is not None)
            elif isinstance(key, tuple):
                op, dtype = _tuple_op_dtype(key)
                if op is not None and dtype is not None:
                    found.setdefault(op, set()).add(dtype)
    return found or None
