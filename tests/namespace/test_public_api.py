"""The public API is typed and documented (issue 17, item 3).

Every public callable of the documented modules has annotations on every parameter and
its return, and a numpydoc docstring with Parameters (when it takes any), Returns,
Raises (where it raises) and Examples sections; ``__all__`` and ``dir()`` of each public
module hold public names only.
"""

import ast
import doctest
import inspect
import pathlib

import pytest

import candlewick as cw
from candlewick import elementwise

PUBLIC_MODULES = [cw, cw.linalg, cw.fft, cw.nn, cw.random]
# the draws: methods of cw.random.Generator and functions of cw.random
RANDOM_DRAWS = [n for n in cw.random.__all__ if inspect.isfunction(getattr(cw.random.Generator, n, None))]
# the modules whose every public callable is annotated and documented so far
DOCUMENTED = {
    "elementwise": [getattr(cw, name) for name in elementwise.__all__],
    "indexing and dtypes": [cw.take, cw.take_along_axis, cw.isdtype],
    "creation": [cw.asarray, cw.to_numpy, cw.zeros, cw.ones, cw.empty, cw.full, cw.zeros_like,
                 cw.ones_like, cw.empty_like, cw.full_like],
    "ranges and matrices": [cw.arange, cw.linspace, cw.meshgrid, cw.eye, cw.tril, cw.triu],
    "statistical": [cw.sum, cw.prod, cw.max, cw.min, cw.mean, cw.var, cw.std, cw.cumulative_sum,
                    cw.cumulative_prod],
    "utility": [cw.all, cw.any, cw.diff],
    "searching": [cw.argmax, cw.argmin, cw.count_nonzero, cw.nonzero, cw.searchsorted, cw.where],
    "sorting": [cw.sort, cw.argsort],
    "sets": [cw.unique_values, cw.unique_counts, cw.unique_inverse, cw.unique_all],
    "manipulation": [cw.reshape, cw.permute_dims, cw.expand_dims, cw.squeeze, cw.broadcast_to,
                     cw.broadcast_arrays, cw.flip, cw.moveaxis, cw.concat, cw.stack, cw.unstack,
                     cw.repeat, cw.tile, cw.roll],
    "data types": [cw.astype, cw.can_cast, cw.finfo, cw.iinfo, cw.result_type, cw.from_dlpack],
    "linear algebra": [cw.matmul, cw.matrix_transpose, cw.tensordot, cw.vecdot],
    "devices": [cw.backends, cw.get_device, cw.set_default_device, cw.default_device],
    "promotion": [cw.get_promotion_mode, cw.set_promotion_mode, cw.promotion_mode],
    "api version": [cw.array_api_version, cw.set_array_api_version, cw.broadcast_shapes, cw.isin],
    "linalg": [getattr(cw.linalg, name) for name in cw.linalg.__all__
               if not isinstance(getattr(cw.linalg, name), type)],
    "fft": [getattr(cw.fft, name) for name in cw.fft.__all__],
    "nn": [getattr(cw.nn, name) for name in cw.nn.__all__],
    "inspection": [getattr(cw.__array_namespace_info__, name)
                   for name in ("capabilities", "default_device", "default_dtypes", "devices", "dtypes")],
    "fusion": [cw.fuse, cw.lazy],
    "gpu": [cw.current_stream, cw.synchronize, cw.memory_stats, cw.reset_peak_memory_stats, cw.empty_cache,
            cw.set_memory_limit, cw.pinned_empty, cw.profile],
    "numpy names": [cw.cumsum, cw.cumprod, cw.transpose, cw.nansum, cw.nanprod, cw.nanmean, cw.nanvar, cw.nanstd,
                    cw.nanmax, cw.nanmin, cw.nanargmax, cw.nanargmin, cw.nancumsum, cw.nancumprod, cw.quantile,
                    cw.percentile, cw.median, cw.nanquantile, cw.nanpercentile, cw.nanmedian, cw.pad, cw.einsum,
                    cw.gradient, cw.lib.stride_tricks.sliding_window_view],
    "random": [cw.random.seed, cw.random.default_generator, cw.random.default_rng,
               *(getattr(cw.random, name) for name in RANDOM_DRAWS),
               *(getattr(cw.random.Generator, name) for name in RANDOM_DRAWS)],
}


def test_every_public_function_of_the_namespaces_is_covered():
    """The groups above hold every function the public modules export (a new one must be
    annotated and documented to join)."""
    covered = {fn for group in DOCUMENTED.values() for fn in group}
    for module in PUBLIC_MODULES:
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) or (callable(obj) and type(obj).__name__ == "function"):
                assert obj in covered, f"{module.__name__}.{name} is not annotated and documented"


def _callables(group):
    return [pytest.param(fn, id=fn.__name__) for fn in DOCUMENTED[group]]


ALL_DOCUMENTED = [p for group in DOCUMENTED for p in _callables(group)]


@pytest.mark.parametrize("module", PUBLIC_MODULES, ids=lambda m: m.__name__)
def test_all_holds_only_public_names(module):
    allowed_dunders = {"__array_api_version__", "__array_namespace_info__"}
    for name in module.__all__:
        assert not name.startswith("_") or name in allowed_dunders, name
        assert hasattr(module, name), name
    extras = {"nn", "random", "errors", "graphs", "lib", "__version__"} if module is cw else set()
    assert dir(module) == sorted([*module.__all__, *extras])
    for name in extras:
        assert hasattr(module, name)
    # no helper or error class leaks in through an import
    for leaked in ("DTypeError", "UnaryOp", "require_array", "wrap", "ArrayBase"):
        assert leaked not in dir(module)


@pytest.mark.parametrize("fn", ALL_DOCUMENTED)
def test_docstring_examples_run(fn):
    _run_examples(fn)


@pytest.mark.parametrize("fn", ALL_DOCUMENTED)
def test_public_callable_is_annotated(fn):
    sig = inspect.signature(fn)
    missing = [p.name for p in sig.parameters.values()
               if p.annotation is inspect.Parameter.empty and p.name != "self"]
    assert not missing, f"{fn.__name__}: parameters without annotation: {missing}"
    assert sig.return_annotation is not inspect.Signature.empty, f"{fn.__name__}: no return annotation"


ARRAY_MEMBERS = sorted(name for name in dir(cw.Array) if not name.startswith("_") or (
    name.startswith("__") and getattr(cw.Array, name) is not getattr(object, name, None)
    and name not in {"__slots__", "__module__", "__doc__", "__hash__", "__array_priority__", "__init__",
                     "__repr__", "__str__", "__weakref__"}))


@pytest.mark.parametrize("name", ARRAY_MEMBERS)
def test_array_member_is_documented(name):
    member = getattr(cw.Array, name)
    fn = member.fget if isinstance(member, property) else member
    assert fn.__doc__, f"Array.{name} has no docstring"
    if not name.startswith("_"):  # the public methods and properties: the full numpydoc form
        assert {"Returns", "Examples"} <= _sections(fn.__doc__), name
        _run_examples(fn)


def _run_examples(fn):
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    tests = finder.find(fn, fn.__name__, globs={})
    assert tests and tests[0].examples, f"{fn.__name__}: no example"
    for test in tests:
        result = runner.run(test, out=lambda text: None)
        assert result.failed == 0, f"{fn.__name__}: {result.failed} example(s) failed"


def _sections(doc):
    lines = inspect.cleandoc(doc).splitlines()
    return {lines[i].strip() for i in range(len(lines) - 1) if set(lines[i + 1].strip()) == {"-"}}


@pytest.mark.parametrize("fn", ALL_DOCUMENTED)
def test_public_callable_has_numpydoc_sections(fn):
    doc = fn.__doc__
    assert doc, f"{fn.__name__} has no docstring"
    sections = _sections(doc)
    if set(inspect.signature(fn).parameters) - {"self"}:
        assert "Parameters" in sections, fn.__name__
    assert {"Returns", "Examples"} <= sections, f"{fn.__name__}: sections {sections}"
    # each parameter is described
    for param in inspect.signature(fn).parameters.values():
        if param.name == "self":
            continue
        name = ("*" if param.kind is param.VAR_POSITIONAL else "") + param.name
        assert f"\n{name} :" in "\n" + inspect.cleandoc(doc), f"{fn.__name__}: {name} undocumented"


def test_elementwise_type_declarations_match_the_generated_functions():
    """elementwise.py spells the generated functions out for type checkers under
    ``if TYPE_CHECKING:``; the spelled-out names are exactly the generated ones."""
    tree = ast.parse(pathlib.Path(elementwise.__file__).read_text())
    declared, exported = set(), set()
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            declared |= {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            exported |= {ast.literal_eval(n.value)[i] for n in node.body if isinstance(n, ast.AugAssign)
                         for i in range(len(n.value.elts))}
    generated = {op.value for op in elementwise._UNARY_NAMES + elementwise._BINARY_NAMES}
    generated |= {op.value for op in elementwise.CompareOp}
    assert exported == generated  # what type checkers see ``import *`` bring
    generated.discard("logical_not")  # defined by hand below the loops, annotated there
    assert declared == generated
