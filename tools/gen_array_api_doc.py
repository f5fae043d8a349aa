#!/usr/bin/env python3
"""Generate docs/array_api.md (2025.12) and docs/array_api_2024_12.md: every name of each
revision of the Array API standard candlewick follows, whether the front end implements
it, which storage primitives it needs, and whether each registered backend provides them.

Nothing here is written by hand:

* the names come from the revision's checklist (``../shared/array_api_<rev>.md`` next to
  the repository, or ``--checklist``); without it, from the copy in
  ``tools/array_api_<rev>_names.txt`` (refreshed with ``--print-names``);
* "needs" is found by reading the front end's source: the storage/device primitives
  (the methods of ``candlewick.backend``'s protocols) each function calls, followed
  through the candlewick functions it calls, and the op enum members it names;
* each backend's column comes from its declarations, read without touching hardware:
  the methods of its storage and device classes, the ``capabilities`` and ``dtypes``
  its device class declares, and the (op, dtype) pairs of its op table
  (``<backend>.ops``). Capabilities a device only sets at run time are shown as such.

Usage: ``python tools/gen_array_api_doc.py`` (writes every revision's file), ``--revision
2024.12`` (one), ``--check`` (exit 1 if a committed file is stale), ``--print-names`` (the
embedded list of ``--revision``, from its checklist).
"""

import argparse
import ast
import enum
import importlib
import inspect
import re
import sys
import textwrap
import types
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import candlewick  # noqa: E402
from candlewick import backend as _protocol  # noqa: E402
from candlewick import dtypes as _dt  # noqa: E402
from candlewick import registry  # noqa: E402
from candlewick.opdefs import ALL_OP_ENUMS  # noqa: E402

REVISIONS = ("2025.12", "2024.12")
DEFAULT_REVISION = "2025.12"


def _stem(revision):
    return "array_api_" + revision.replace(".", "_")


def checklist_path(revision=DEFAULT_REVISION):
    return REPO.parent / "shared" / f"{_stem(revision)}.md"


def output_path(revision=DEFAULT_REVISION):
    """The default revision's document is docs/array_api.md; others carry their name."""
    return REPO / "docs" / ("array_api.md" if revision == DEFAULT_REVISION else f"{_stem(revision)}.md")


def embedded_names(revision=DEFAULT_REVISION):
    """Section headings and names of the checklist ('~' stands for a space inside a name)."""
    return (Path(__file__).with_name(f"{_stem(revision)}_names.txt")).read_text()


DEFAULT_CHECKLIST = checklist_path()
OUTPUT = output_path()
EMBEDDED_NAMES = embedded_names()


# --- the list of names ------------------------------------------------------------------

def parse_checklist(text):
    """[(section, [names])] from the checklist's '## section' headings and '- [ ] name' items."""
    sections = []
    for line in text.splitlines():
        heading = re.match(r"^#{2,3} (.*)", line)
        if heading:
            sections.append((heading.group(1).strip(), []))
            continue
        item = re.match(r"^- \[[ xX]\] (.*)", line)
        if item and sections:
            body = item.group(1)
            name = "default dtypes" if body.startswith("default dtypes") else re.match(r"[A-Za-z_][\w.]*", body).group(0)
            sections[-1][1].append(name)
    return [(s, names) for s, names in sections if names]


def parse_embedded(text=None, revision=DEFAULT_REVISION):
    text = embedded_names(revision) if text is None else text
    sections = []
    for line in text.splitlines():
        if line.startswith("## "):
            sections.append((line[3:], []))
        elif line.strip():
            sections[-1][1].extend(n.replace("~", " ") for n in line.split())
    return sections


def render_embedded(sections):
    lines = []
    for section, names in sections:
        lines.append(f"## {section}")
        lines += textwrap.wrap(" ".join(n.replace(" ", "~") for n in names), 88)
    return "\n".join(lines) + "\n"


def load_names(checklist=None, revision=DEFAULT_REVISION):
    path = Path(checklist) if checklist else checklist_path(revision)
    if path.is_file():
        return parse_checklist(path.read_text()), str(path.name)
    return parse_embedded(revision=revision), f"the copy in tools/{_stem(revision)}_names.txt"


# --- what the front end needs -------------------------------------------------------------

def _protocol_methods(cls):
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) and not n.startswith("_")}


STORAGE_PRIMS = _protocol_methods(_protocol.BackendStorage)
DEVICE_PRIMS = _protocol_methods(_protocol.BackendDevice)
HOOKS = {"dlpack": _protocol_methods(_protocol.DLPackStorage) | _protocol_methods(_protocol.DLPackDevice)}
GROUP_OF = {p: g for g, prims in _protocol.OPTIONAL_PRIMITIVES.items() for p in prims}
GROUP_OF.update({p: g for g, prims in HOOKS.items() for p in prims})
ALL_PRIMS = STORAGE_PRIMS | DEVICE_PRIMS | set(GROUP_OF) - {"same_device"}
# methods called by name on arrays (dunders run implicitly and would only add noise)
ARRAY_METHODS = {n for n, v in vars(candlewick.Array).items() if inspect.isfunction(v) and not n.startswith("__")}


def _is_frontend_function(obj):
    return inspect.isfunction(obj) and (obj.__module__ or "").startswith("candlewick")


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
        if not _is_frontend_function(obj):
            return set(), set()
        # a decorated function (api_version.requires) is read through to the one it wraps
        return self._function(inspect.unwrap(obj))

    def _function(self, fn):
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


# --- what each backend declares ---------------------------------------------------------------

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
            backend = registry._load(name)
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
        missing = sorted(p for p in prims if not self.has(p))
        if missing:
            problems.append("lacks " + ", ".join(missing))
        for group in sorted({GROUP_OF[p] for p in prims if p in GROUP_OF and GROUP_OF[p] in _protocol.OPTIONAL_CAPABILITIES}):
            if self.capabilities is None:
                notes.append(f"'{group}' per device")
            elif group not in self.capabilities:
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


def _op_table(module):
    """{op: {dtypes}} from the dicts of an op-table module: nested ``[op][dtype]`` (by
    member or by ``op.value`` / ``dtype.name``), or keyed by tuples holding an op and a
    dtype."""
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
                op = next((k for k in key if _op_member(k)), None)
                dtype = next((k for k in key if isinstance(k, _dt.DType)), None)
                if op is not None and dtype is not None:
                    found.setdefault(op, set()).add(dtype)
    return found or None


# --- rendering ------------------------------------------------------------------------------

def _needs_text(prims):
    groups = sorted({GROUP_OF[p] for p in prims if p in GROUP_OF})
    core = sorted(p for p in prims if p not in GROUP_OF)
    parts = [f"**{g}**: " + ", ".join(sorted(p for p in prims if GROUP_OF.get(p) == g)) for g in groups]
    if core:
        parts.append(", ".join(core))
    return "; ".join(parts) if parts else "—"


def generate(checklist=None, revision=DEFAULT_REVISION):
    sections, _ = load_names(checklist, revision)
    needs = Needs()
    facts = [BackendFacts(name) for name in sorted(registry._discover())]
    out = [
        f"# Array API {revision} coverage",
        "",
        "<!-- Generated by tools/gen_array_api_doc.py; do not edit by hand. -->",
        "",
        f"Names from the standard's checklist ({_stem(revision)}.md). For each: the front-end",
        "object that implements it; the storage/device primitives it reaches (read from the",
        "source, following the candlewick functions it calls; **bold** groups are optional",
        "capabilities or hooks); and, per backend, whether its classes implement those",
        "primitives, its device declares the capability, and its op table covers every dtype",
        "of the ops involved (read from the backend's declarations, no hardware needed).",
        "\"needs\" is the union over every code path: e.g. linalg.matrix_norm reaches svd only",
        "for ord 2, -2 and 'nuc', and linalg.matrix_power reaches inv only for n < 0, so a ✗",
        "there means that some arguments cannot run on that backend.",
        "",
        "## Backends",
        "",
        "| backend | storage class | device class | capabilities | op table |",
        "|---|---|---|---|---|",
    ]
    for f in facts:
        if f.error:
            out.append(f"| {f.name} | {f.error} | | | |")
            continue
        caps = "declared per device at run time" if f.capabilities is None else (", ".join(sorted(f.capabilities)) or "none")
        table = "not found" if f.op_dtypes is None else f"{sum(len(v) for v in f.op_dtypes.values())} (op, dtype) pairs"
        qual = lambda c: f"`{c.__module__}.{c.__qualname__}`" if c else "not found"  # noqa: E731
        out.append(f"| {f.name} | {qual(f.storage_cls)} | {qual(f.device_cls)} | {caps} | {table} |")
    total = implemented = 0
    body = []
    for section, names in sections:
        body += ["", f"## {section}", "", "| name | front end | needs | " + " | ".join(f.name for f in facts) + " |",
                 "|---|---|---|" + "---|" * len(facts)]
        for name in names:
            total += 1
            obj, where = resolve_name(name)
            if where is None:
                body.append(f"| `{name}` | ✗ missing | | " + " | ".join("" for _ in facts) + " |")
                continue
            implemented += 1
            dtype = obj if isinstance(obj, _dt.DType) else None
            prims, ops = (set(), set()) if dtype is not None else needs.of(obj)
            verdicts = [f.status(prims, ops, dtype) for f in facts]
            body.append(f"| `{name}` | ✓ `{where}` | {_needs_text(prims)} | " + " | ".join(verdicts) + " |")
    out += ["", f"Front end: {implemented} of {total} names implemented."] + body
    return "\n".join(out) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--revision", choices=REVISIONS, help="one revision (default: every one)")
    parser.add_argument("--checklist", help="path of the revision's checklist (default: ../shared/)")
    parser.add_argument("--output", help="output path (with --revision; default: docs/)")
    parser.add_argument("--check", action="store_true", help="exit 1 if an output file is stale")
    parser.add_argument("--print-names", action="store_true", help="print the embedded name list")
    args = parser.parse_args(argv)
    if (args.checklist or args.output or args.print_names) and not args.revision:
        parser.error("--checklist, --output and --print-names apply to one --revision")
    if args.print_names:
        sections, _ = load_names(args.checklist, args.revision)
        sys.stdout.write(render_embedded(sections))
        return 0
    status = 0
    for revision in [args.revision] if args.revision else REVISIONS:
        print(f"{revision}: names from {load_names(args.checklist, revision)[1]}", file=sys.stderr)
        text = generate(args.checklist, revision)
        path = Path(args.output) if args.output else output_path(revision)
        if args.check:
            current = path.read_text() if path.is_file() else ""
            if current != text:
                print(f"{path} is stale: run python tools/gen_array_api_doc.py", file=sys.stderr)
                status = 1
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
    return status


if __name__ == "__main__":
    sys.exit(main())
