"""rocm_backend is a one-way stack of layers (docs/architecture.md): every module imports
only modules of its own layer or below, and no import cycle exists. Imports are read
with ast at any depth (inside functions too), relative ones resolved."""

import ast
import functools
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / "rocm_backend"

#: bottom to top; a module's layer is the first whose prefix its dotted name starts with
#: (docs/architecture.md's table says what each holds; each module's docstring opens with
#: its layer's name in brackets, checked below)
LAYERS = (
    ("error", ("rocm_backend.error",)),
    ("abi", ("rocm_backend.abi",)),
    ("bindings", ("rocm_backend.bindings",)),
    ("ops", ("rocm_backend.ops",)),
    ("codegen", ("rocm_backend.codegen",)),
    ("runtime", ("rocm_backend.runtime", "rocm_backend.storage_slice")),
    ("kernels", ("rocm_backend.kernels",)),
    ("families", ("rocm_backend.families", "rocm_backend.rocblas", "rocm_backend.miopen")),
    ("storage", ("rocm_backend.storage",)),
    ("device", ("rocm_backend.device", "rocm_backend.backend")),
    ("shim", ("rocm_backend",)),
)


def layer_of(module):
    for rank, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise AssertionError(f"{module} belongs to no layer: add it to LAYERS and docs/architecture.md")


def module_name(path):
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.lru_cache(maxsize=1)
def modules():
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path, name):
    """(imported rocm_backend module, line, at module level?) of every import in the file."""
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top = {id(node) for node in tree.body}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from pkg import name`: the module pkg.name when there is one, else pkg (graph()
            # resolves an attribute to its module)
            targets = [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        for target in targets:
            if target == "rocm_backend" or target.startswith("rocm_backend."):
                found.append((target, node.lineno, id(node) in top))
    return found


@functools.lru_cache(maxsize=1)
def graph():
    """{module: {(imported module, line, at module level?)}} over the package."""
    mods = modules()
    edges = {}
    for name, path in mods.items():
        deps = set()
        for target, line, top_level in imports(path, name):
            while target not in mods:  # an attribute of a module: its module
                target = target.rpartition(".")[0]
            if target != name:
                deps.add((target, line, top_level))
        edges[name] = deps
    return edges


def test_every_module_has_a_layer():
    for name in modules():
        layer_of(name)


@pytest.mark.parametrize("name", sorted(modules()))
def test_docstring_names_the_layer(name):
    """The first line of every module's docstring opens with ``[layer]`` (the shim's with
    its package's description, its docstring being the module table)."""
    if name == "rocm_backend":
        return
    doc = ast.get_docstring(ast.parse(modules()[name].read_text()), clean=False) or ""
    layer = LAYERS[layer_of(name)][0]
    assert doc.startswith(f"[{layer}] "), f"{name}: docstring should open with [{layer}]"


@pytest.mark.parametrize("name", sorted(modules()))
def test_imports_go_down_the_stack_only(name):
    own = layer_of(name)
    for target, line, _ in graph()[name]:
        assert target != "rocm_backend", f"{name}:{line} imports the package's shim (__init__.py)"
        if name.startswith(target + "."):
            continue  # its own layer's package (a docstring-only __init__.py)
        assert layer_of(target) <= own, (
            f"{name} ({LAYERS[own][0]}) imports {target} ({LAYERS[layer_of(target)][0]}) at line {line}")


def test_no_function_level_import_inside_the_package():
    edges = graph()
    late = [(name, target, line) for name, deps in edges.items() for target, line, top in deps if not top]
    assert not late, f"function-level imports of the package's own modules: {late}"


def test_no_import_cycle():
    edges = graph()
    adjacency = {name: {t for t, _, _ in deps if t in edges} for name, deps in edges.items()}
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(adjacency[node]):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(adjacency):
        if node not in state:
            visit(node, [node])
