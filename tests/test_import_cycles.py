"""No import cycles inside candlewick/, cpu_backend/ or rocm_backend/ (issue 16).

Every module is parsed with ``ast`` and every import counts, at any depth (module level,
inside functions, classes or ``if`` blocks), so the layering in docs/architecture.md
cannot be worked around by moving an import into a function. Relative imports are
resolved; ``from . import x`` names the module ``x`` when x is one, else the package.
"""

import ast
import pathlib

import pytest

REPO = pathlib.Path(__file__).parents[1]


def package_modules(package, root=REPO):
    """``{module name: path}`` for every .py file of ``package`` (a folder of ``root``),
    and every .pyi stub without one: a compiled module (candlewick._native) is known by
    its stub, so ``from . import _native`` names it rather than the package."""
    modules = {}
    for path in sorted((root / package).rglob("*.py")) + sorted((root / package).rglob("*.pyi")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules.setdefault(".".join(parts), path)
    return modules


def _resolve_relative(module, is_package, level, target):
    base = module.split(".") if is_package else module.split(".")[:-1]
    if level > 1:
        base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _is_type_checking_block(node):
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): its imports never run, they
    only name types for annotations, so they make no import cycle."""
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree):
    """Every node of ``tree`` except the bodies of ``if TYPE_CHECKING:`` blocks (their
    ``else:`` branch runs and is kept)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        yield node
        if _is_type_checking_block(node):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def imported_modules(module, path, known):
    """The modules of ``known`` that ``module`` imports anywhere in its source."""
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    found = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = _resolve_relative(module, is_package, node.level, node.module)
            names = []
            for alias in node.names:
                submodule = f"{base}.{alias.name}"
                names.append(submodule if submodule in known else base)
        else:
            continue
        for name in names:
            # ``import a.b.c`` loads a.b.c; keep the longest prefix that is one of ours
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != module:
                found.add(name)
    return found


def import_graph(package, root=REPO):
    modules = package_modules(package, root)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def find_cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state = {}  # module -> "open" while on the current path, "done" after

    def visit(node, path):
        state[node] = "open"
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt, path)
                if cycle:
                    return cycle
        path.pop()
        state[node] = "done"
        return None

    for start in sorted(graph):
        if start not in state:
            cycle = visit(start, [])
            if cycle:
                return cycle
    return None


def test_cycle_finder_sees_function_level_and_relative_imports(tmp_path):
    pkg = tmp_path / "layered_probe"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .a import f\n")
    (pkg / "a.py").write_text("from .sub import b\n\ndef f():\n    return b.g()\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("def g():\n    from .. import a\n    return a\n")
    graph = import_graph("layered_probe", tmp_path)
    assert graph["layered_probe.a"] == {"layered_probe.sub.b"}
    assert graph["layered_probe.sub.b"] == {"layered_probe.a"}
    assert find_cycle(graph) in (
        ["layered_probe.a", "layered_probe.sub.b", "layered_probe.a"],
        ["layered_probe.sub.b", "layered_probe.a", "layered_probe.sub.b"],
    )
    (pkg / "c.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import f\nelse:\n    from .sub import b\n")
    assert import_graph("layered_probe", tmp_path)["layered_probe.c"] == {"layered_probe.sub.b"}
    del graph["layered_probe.sub.b"]
    graph["layered_probe.a"] = set()
    assert find_cycle(graph) is None


@pytest.mark.parametrize("package", [
    "candlewick",
    "cpu_backend",
    "rocm_backend",
])
def test_no_import_cycle(package):
    graph = import_graph(package)
    assert len(graph) > 1
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in {package}/: " + " -> ".join(cycle)
