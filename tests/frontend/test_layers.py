"""candlewick/'s "may import" rule, read from docs/architecture.md's front-end table: a
module imports only modules of the lower layers its row may import (``MAY_IMPORT``) and,
inside its own row, only modules the row lists before it; imports under ``if
TYPE_CHECKING:`` do not count (they never run). Also: the front end imports no backend
and, outside the conformance suite, nothing imports the suite; a backend imports only the
front end's vocabulary and protocol. Imports are read with ast at any depth
(tests/test_import_cycles.py's graph)."""

import re

import pytest

from tests.test_import_cycles import REPO, import_graph, package_modules

DOC = REPO / "docs" / "architecture.md"
CONFORMANCE = "conformance"
_BELOW_ARRAY = ("NumPy's protocols", "array operations", "dispatch core", "protocol, registry", "vocabulary")
#: each row of the table (by the start of its first cell, bottom to top) and the lower
#: rows it may import (its "may import" cell)
MAY_IMPORT = {
    "vocabulary": (),
    "protocol, registry": ("vocabulary",),
    "dispatch core": ("vocabulary",),
    "array operations": ("dispatch core", "vocabulary"),
    "NumPy's protocols": ("dispatch core", "vocabulary"),
    "the array": _BELOW_ARRAY,
    "namespace functions": ("the array",) + _BELOW_ARRAY,
    "conformance suite": None,  # everything; nothing imports it
    "collectives": ("namespace functions", "the array") + _BELOW_ARRAY,
    "namespace": ("namespace functions", "the array") + _BELOW_ARRAY,
}
#: what a row names beside its layers (the dispatch core's "`_core` also `backend` and
#: `_native`": _native sits beside _core, listed after it)
ALSO = {"_core": {"backend", "_native"}}


def unit(module):
    """The table's name of a candlewick module: ``nn`` for candlewick.nn.convolution,
    ``__init__`` for the package itself."""
    parts = module.split(".")[1:]
    return parts[0] if parts else "__init__"


def read_table(text=None):
    """[(row name, [its modules in the order it names them])] of the front-end table: a
    module belongs to the first row that names it (backticked; a subpackage as ``name/``)."""
    text = DOC.read_text() if text is None else text
    start = text.index("\n## candlewick/ (front end)\n")
    section = text[start:text.index("\n## ", start + 1)]
    units = {unit(m) for m in package_modules("candlewick")}
    rows, placed = [], set()
    for line in section.splitlines():
        if not line.startswith("|"):
            if rows:
                break  # the end of the layer table (the section's later tables are others)
            continue
        cells = line.split(" | ")
        if len(cells) < 3 or set(cells[1]) <= {"-"}:
            continue
        row = cells[0].lstrip("| ").strip()
        if row == "layer":  # the header
            continue
        layer = next((name for name in MAY_IMPORT if row.startswith(name)), row)
        names = []
        for name in re.findall(r"`(\w+)/?`", cells[1]):
            if name in units and name not in placed:
                placed.add(name)
                names.append(name)
        rows.append((layer, names))
    return rows


TABLE = read_table()
LAYER = {name: (rank, layer) for rank, (layer, names) in enumerate(TABLE) for name in names}
GRAPH = {m: deps for m, deps in import_graph("candlewick").items() if unit(m) != CONFORMANCE}


def check_imports(module, graph, table=TABLE):
    """Assert that ``module``'s imports in ``graph`` follow ``table``."""
    layer_of = {name: (rank, layer) for rank, (layer, names) in enumerate(table) for name in names}
    own = unit(module)
    assert own in layer_of, f"docs/architecture.md's front-end table does not place {module}"
    rank, layer = layer_of[own]
    names = table[rank][1]
    for target in sorted(graph[module]):
        other = unit(target)
        if other == own:
            continue  # a subpackage's own modules (their cycles: tests/test_import_cycles.py)
        assert other != CONFORMANCE, f"{module} imports the conformance suite"
        other_rank, other_layer = layer_of[other]
        if other in ALSO.get(own, ()):
            continue
        if other_rank == rank:
            assert names.index(other) < names.index(own), (
                f"{module} imports {target}, which its row ({layer!r}) lists after it")
        else:
            assert other_layer in MAY_IMPORT[layer], (
                f"{module} ({layer}) imports {target} ({other_layer}): a row may import only the "
                f"layers of its 'may import' cell")


def test_the_table_has_the_rows_this_test_knows():
    assert [layer for layer, _ in TABLE] == list(MAY_IMPORT), (
        "a row of the front-end table is new or renamed: give it its MAY_IMPORT entry here")


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_imports_follow_the_table(module):
    check_imports(module, GRAPH)


def test_the_front_end_imports_no_backend():
    for module, path in package_modules("candlewick").items():
        text = path.read_text(errors="replace")
        for backend in ("cpu_backend", "rocm_backend"):
            assert not re.search(rf"^\s*(from|import) {backend}\b", text, re.M), f"{module} imports {backend}"


@pytest.mark.parametrize("backend", ["cpu_backend", "rocm_backend"])
def test_a_backend_imports_only_the_vocabulary_and_the_protocol(backend):
    allowed = {"vocabulary", "protocol, registry"}
    for path in sorted((REPO / backend).rglob("*.py")):
        for name in re.findall(r"^\s*(?:from|import) candlewick\.(\w+)", path.read_text(), re.M):
            if name == "_native":  # imports nothing of ours; its launch() serves GPU backends' launchers
                continue
            assert LAYER[name][1] in allowed, f"{path.relative_to(REPO)} imports candlewick.{name} ({LAYER[name][1]})"


def test_the_check_refuses_what_the_table_does_not_allow():
    """An import from a higher layer, one of a module its row lists later, one of a layer
    the row may not import, and a module the table does not place are each refused."""
    cases = [("candlewick.errors", "candlewick.array", "imports candlewick.array"),
             ("candlewick.shapes", "candlewick.layout", "lists after it"),
             ("candlewick.creation", "candlewick.sorting", "lists after it"),
             ("candlewick.scalars", "candlewick.registry", "may import only")]
    for module, target, message in cases:
        with pytest.raises(AssertionError, match=re.escape(message)):
            check_imports(module, {module: {target}})
    with pytest.raises(AssertionError, match="does not place candlewick.shapes"):
        check_imports("candlewick.shapes", {"candlewick.shapes": set()}, [(layer, [n for n in names if n != "shapes"])
                                                                          for layer, names in TABLE])
