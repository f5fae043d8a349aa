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
