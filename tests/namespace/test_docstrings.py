"""candlewick.docstrings: shared numpydoc entries filled into docstrings by one mechanism,
and no public docstring keeps an unfilled placeholder."""

import ast
import inspect
import pathlib
import re

import pytest

import candlewick as cw
from candlewick.docstrings import FRAGMENTS, fill, shared_doc


def test_fill_indents_each_line_of_an_entry_as_its_placeholder():
    template = "Summary.\n\n    Raises\n    ------\n    {own}\n    {raises_axes}\n"
    out = fill(template, {"own": "ValueError\n    If it is wrong."})
    assert out == ("Summary.\n\n    Raises\n    ------\n    ValueError\n        If it is wrong.\n"
                   "    AxisError\n        If an axis is outside ``[-ndim, ndim)`` or repeated.\n")


def test_a_family_table_comes_before_the_shared_one():
    assert fill("{param_x}", {"param_x": "x : Array\n    Mine."}) == "x : Array\n    Mine."
    assert fill("{param_x}") == FRAGMENTS["param_x"]


def test_text_that_is_not_a_whole_placeholder_line_is_kept():
    text = "Uses {braces} inline and a set {1, 2}.\n    {not a placeholder}\n"
    assert fill(text) == text


def test_an_unknown_placeholder_fails_loudly():
    with pytest.raises(KeyError, match="no_such_entry"):
        fill("    {no_such_entry}\n")


def test_shared_doc_fills_the_decorated_function():
    @shared_doc({"own_param": "y : int\n    A number."})
    def fn(y):
        """Doc.

        Parameters
        ----------
        {own_param}
        """

    assert "\n        y : int\n            A number.\n" in fn.__doc__


PUBLIC = [getattr(m, n) for m in (cw, cw.linalg, cw.fft, cw.nn, cw.random) for n in m.__all__]
PLACEHOLDER = re.compile(r"^\s*\{\w+\}\s*$", re.MULTILINE)


@pytest.mark.parametrize("obj", [o for o in PUBLIC if callable(o)], ids=lambda o: getattr(o, "__name__", "?"))
def test_no_public_docstring_keeps_a_placeholder(obj):
    members = [obj] + ([m for _, m in inspect.getmembers(obj, inspect.isfunction)] if inspect.isclass(obj) else [])
    for member in members:
        assert not PLACEHOLDER.search(member.__doc__ or ""), f"{member.__qualname__}: unfilled placeholder"



def test_every_shared_doc_decorator_has_something_to_fill():
    """A ``@shared_doc`` on a function whose docstring names no entry is a leftover."""
    root = pathlib.Path(cw.__file__).parent
    idle = []
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and any(
                    isinstance(d, ast.Call) and getattr(d.func, "id", None) == "shared_doc" for d in node.decorator_list):
                if not PLACEHOLDER.search(ast.get_docstring(node, clean=False) or ""):
                    idle.append(f"{path.relative_to(root)}:{node.lineno} {node.name}")
    assert not idle, idle
