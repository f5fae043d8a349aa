"""docs/architecture.md names every module of the packages it describes, in that
package's section, so that a new module cannot appear without a place in the layers."""

import pathlib
import re

import pytest

REPO = pathlib.Path(__file__).parents[1]
DOC = REPO / "docs" / "architecture.md"


def section(title):
    text = DOC.read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:] if end == -1 else text[start:end]


def module_names(package):
    """Each module as the doc writes it: ``name`` for a module, ``name/`` for a subpackage."""
    root = REPO / package
    names = set()
    for path in root.iterdir():
        if path.suffix == ".py":
            names.add(path.stem)
        elif (path / "__init__.py").exists():
            names.add(path.name + "/")
    return names


@pytest.mark.parametrize("package,title", [
    ("candlewick", "candlewick/ (front end)"),
    ("cpu_backend", "cpu_backend/"),
])
def test_every_module_has_a_layer(package, title):
    named = set(re.findall(r"`([\w/]+)`", section(title)))
    missing = sorted(module_names(package) - named)
    assert not missing, f"docs/architecture.md's '{title}' section does not place: {missing}"


def test_every_rocm_module_is_named():
    """rocm_backend/'s section names each module of the package, by its path in the
    package (`runtime/streams.py`) or by its file name in its folder's layer row, so a
    reader finds any module, and each of the card's top-level nouns, from the doc."""
    named = set(re.findall(r"`([\w/.]+)`", section("rocm_backend/")))
    root = REPO / "rocm_backend"
    missing = sorted(
        path.relative_to(root).as_posix() for path in root.rglob("*.py")
        if path.name != "__init__.py" and path.relative_to(root).as_posix() not in named
        and path.name not in named
    )
    assert not missing, f"docs/architecture.md's 'rocm_backend/' section does not name: {missing}"


def test_tests_section_names_every_test_folder():
    """The tests/ section places every folder of tests/ (and tests/rocm/'s four)."""
    named = set(re.findall(r"`(tests/[\w/]+)/`", section("tests/")))
    folders = {p.relative_to(REPO).as_posix() for p in (REPO / "tests").iterdir()
               if p.is_dir() and p.name != "rocm" and not p.name.startswith((".", "__"))}
    folders |= {p.relative_to(REPO).as_posix() for p in (REPO / "tests" / "rocm").iterdir()
                if p.is_dir() and not p.name.startswith((".", "__"))}
    missing = sorted(folders - named)
    assert not missing, f"docs/architecture.md's 'tests/' section does not place: {missing}"
