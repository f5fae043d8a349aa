"""A pytest plugin that runs scikit-learn's, SciPy's and xarray's own Array API tests with
candlewick beside array-api-strict, in the same run (``tools/pydata_suites.py`` loads it
with ``-p candlewick_substitute``).

Each library's test for array-api-strict gets a twin for candlewick, whose node id is the
strict test's with ``array_api_strict`` replaced by ``candlewick`` (so the two pair up),
through the library's own backend selection where it has one:

- scikit-learn: ``sklearn.utils._array_api.yield_namespaces`` (and the namespace, device,
  dtype combinations built on it) yields ``"candlewick"`` right after
  ``"array_api_strict"``; where strict's rows name its devices ``"CPU_DEVICE"`` and
  ``"device1"``, candlewick's name its default device and a second device of the same
  backend (the default again where there is none). The estimator check pinned to strict
  (``check_array_api_same_namespace``) and the mixed-namespace checks get candlewick twins,
  and so does every parameter of a literal ``parametrize`` list that names strict.
- SciPy: its ``xp`` fixture (scipy/conftest.py) gets a ``candlewick`` parameter beside
  ``array_api_strict`` (the runner narrows ``SCIPY_ARRAY_API`` to strict, so NumPy and
  Dask do not run); candlewick follows the 2024.12 revision, to which the conftest pins
  strict; off host memory (rocm) candlewick joins the backends that its ``cpu_only``
  markers skip, as CuPy does, and SciPy's assertion helpers move candlewick's arrays to
  the host explicitly, as they move CuPy's and PyTorch's (nowhere else).
- xarray: ``tests/test_duck_array_wrapping.py``'s table (``NAMESPACE_ARRAYS``, where
  xarray lists CuPy, JAX, pint and sparse) gets ``array_api_strict`` and ``candlewick``
  rows with no expected failures; ``tests/test_array_api.py``, written against
  array-api-strict alone, runs each test twice (a ``[array_api_strict]`` and a
  ``[candlewick]`` parameter), the second with the module's ``xp`` and ``Array`` bound to
  candlewick's.

Only the tests holding one of the two namespaces are kept. With
``CANDLEWICK_PYDATA_RESULTS=<path>`` every kept test's outcome is appended to ``<path>``
as a JSON line (library, node id, namespace, outcome, the error, the innermost line of
the library or candlewick that raised it, and the innermost line of the library or its
test outside candlewick and NumPy: the call that led there). With
``CANDLEWICK_PYDATA_IMPLICIT_COPY=1`` implicit device-to-host copies are allowed for the
session (``candlewick.set_implicit_host_copy(True)``): the runner's second pass over the
tests that failed only on a refused copy.
"""

import functools
import json
import os
import re
import traceback

import pytest

import scipy_support  # the SciPy part, beside this file (tools/pydata_suites.py puts the folder on the path)

STRICT, CANDLEWICK = "array_api_strict", "candlewick"
RESULTS_ENV = "CANDLEWICK_PYDATA_RESULTS"
IMPLICIT_COPY_ENV = "CANDLEWICK_PYDATA_IMPLICIT_COPY"
LIBRARIES = {"sklearn": "scikit-learn", "scipy": "scipy", "xarray": "xarray"}


@functools.cache
def candlewick_devices():
    """The names of candlewick's devices in the rows of strict's ``CPU_DEVICE`` (the default
    device) and ``device1`` (another device of the same backend, else the default)."""
    import candlewick

    first = candlewick.get_device(None)
    same_backend = [d for d in candlewick.__array_namespace_info__().devices()
                    if d != first and type(d) is type(first)]
    return {"CPU_DEVICE": first.name, "device1": (same_backend[0] if same_backend else first).name}


def twin_of(nodeid):
    """The node id of the strict test a candlewick test is the twin of."""
    head, bracket, params = nodeid.partition("[")
    if "sklearn" in head:
        for strict_name, name in candlewick_devices().items():
            dtype = "float64" if strict_name == "CPU_DEVICE" else "float32"
            device = re.escape(name)
            params = re.sub(rf"candlewick(-|,device_name=){device}(-|,dtype_name=){dtype}",
                            rf"{STRICT}\g<1>{strict_name}\g<2>{dtype}", params)
        params = re.sub(rf"xp='candlewick', device='{re.escape(candlewick_devices()['device1'])}'",
                        f"xp='{STRICT}', device='device1'", params)
    return head + bracket + params.replace(CANDLEWICK, STRICT)


# --- scikit-learn ---------------------------------------------------------------------------

def _patch_sklearn():
    try:
        from sklearn.utils import _array_api, estimator_checks
    except ImportError:
        return
    namespaces = _array_api.yield_namespaces
    combinations = _array_api.yield_namespace_device_dtype_combinations

    @functools.wraps(namespaces)
    def yield_namespaces(include_numpy_namespaces=True):
        for name in namespaces(include_numpy_namespaces):
            yield name
            if name == STRICT:
                yield CANDLEWICK

    @functools.wraps(combinations)
    def yield_namespace_device_dtype_combinations(include_numpy_namespaces=True):
        for name, device, dtype in combinations(include_numpy_namespaces):
            if name == CANDLEWICK:  # the row the original makes of our name: replaced below
                continue
            yield name, device, dtype
            if name == STRICT:
                yield CANDLEWICK, candlewick_devices().get(device, device), dtype

    mixed = _array_api.yield_mixed_namespace_input_permutations

    @functools.wraps(mixed)
    def yield_mixed_namespace_input_permutations():
        for first, second, text in mixed():
            yield first, second, text
            if STRICT in (first.xp, second.xp):
                twin = [_array_api.NamespaceAndDevice(CANDLEWICK, candlewick_devices()["device1"])
                        if p.xp == STRICT else p for p in (first, second)]
                yield *twin, text.replace(STRICT, CANDLEWICK)

    yield_array_api_checks = estimator_checks._yield_array_api_checks

    @functools.wraps(yield_array_api_checks)
    def _yield_array_api_checks(estimator, only_numpy=False):
        for check in yield_array_api_checks(estimator, only_numpy=only_numpy):
            yield check
            # the one check sklearn runs with strict alone
            if (isinstance(check, functools.partial) and check.keywords.get("array_namespace") == STRICT
                    and check.func is estimator_checks.check_array_api_same_namespace):
                yield functools.partial(check.func, *check.args, **{**check.keywords, "array_namespace": CANDLEWICK})

    _array_api.yield_namespaces = yield_namespaces
    _array_api.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    _array_api.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations
    estimator_checks.yield_mixed_namespace_input_permutations = yield_mixed_namespace_input_permutations
    estimator_checks.yield_namespace_device_dtype_combinations = yield_namespace_device_dtype_combinations
    estimator_checks._yield_array_api_checks = _yield_array_api_checks


# scikit-learn's test modules import these names when collected: patched before that, at
# this plugin's import (``-p`` loads it before any conftest)
if os.environ.get("CANDLEWICK_PYDATA_LIBRARY") == "sklearn":
    _patch_sklearn()


# --- xarray --------------------------------------------------------------------------------

def _is_module(collector, tail):
    return isinstance(collector, pytest.Module) and str(collector.path).replace(os.sep, "/").endswith(tail)


def _patch_duck_array_table(module):
    """Rows for strict and candlewick in xarray's duck-array table, as it lists CuPy."""
    import array_api_strict
    from array_api_strict._array_object import Array

    if not hasattr(array_api_strict, "Array"):
        # the table names the array class by its attribute of the namespace; strict's
        # class is not one, so it gets that name here (for these tests only)
        array_api_strict.Array = Array
    for name in (STRICT, CANDLEWICK):
        if name not in module.NAMESPACE_ARRAYS:
            module.NAMESPACE_ARRAYS[name] = {"attrs": {"array": "Array", "constructor": "asarray"}, "xfails": {}}
            # the parametrize marks of the test classes hold this very list
            module.NAMESPACES.append(pytest.param(name, id=name))


@pytest.fixture(autouse=True)
def pydata_namespace(request, monkeypatch):
    """The namespace a test of xarray's tests/test_array_api.py runs with: its module
    binds ``xp`` and ``Array`` to array-api-strict's; the candlewick twin rebinds them."""
    name = getattr(request, "param", None)
    if name == CANDLEWICK:
        import candlewick

        monkeypatch.setattr(request.module, "xp", candlewick)
        monkeypatch.setattr(request.module, "Array", candlewick.Array)
    return name


def _twin_value(value):
    """A parameter value naming strict, with candlewick (and its devices) in its place."""
    def strict(v):
        return isinstance(v, str) and v == STRICT

    if strict(value):
        return CANDLEWICK
    if isinstance(value, tuple) and any(strict(v) for v in value):
        devices = candlewick_devices()
        return tuple(CANDLEWICK if strict(v) else devices.get(v, v) if isinstance(v, str) else v for v in value)
    return None


def _add_twins(values):
    """Twins for the parameters of a literal list that names strict (scikit-learn's
    ``@pytest.mark.parametrize("array_api", ["numpy", "array_api_strict"])``), once."""
    twins = []
    for value in values:
        if isinstance(value, type(pytest.param(None))):
            twin = _twin_value(value.values if len(value.values) > 1 else value.values[0])
            if twin is not None:
                twin_id = value.id.replace(STRICT, CANDLEWICK) if value.id else None
                twins.append(pytest.param(*(twin if isinstance(twin, tuple) else (twin,)), marks=value.marks,
                                          id=twin_id))
        else:
            twin = _twin_value(value)
            if twin is not None:
                twins.append(twin)
    present = {repr(v) for v in values}
    values.extend(t for t in twins if repr(t) not in present)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc):
    if metafunc.module.__name__.endswith("test_array_api") and "xarray" in str(metafunc.definition.path):
        metafunc.parametrize("pydata_namespace", [STRICT, CANDLEWICK], indirect=True)
    for mark in metafunc.definition.iter_markers("parametrize"):
        values = mark.args[1] if len(mark.args) > 1 else mark.kwargs.get("argvalues")
        if isinstance(values, list):
            _add_twins(values)


# --- hooks ---------------------------------------------------------------------------------

def pytest_collectstart(collector):
    # SciPy's conftest (with its fixtures) is loaded while its package is collected
    if os.environ.get("CANDLEWICK_PYDATA_LIBRARY") == "scipy":
        scipy_support.patch_xp_fixture(collector.session)
    if _is_module(collector, "xarray/tests/test_duck_array_wrapping.py"):
        _patch_duck_array_table(collector.obj)


def namespace_of(nodeid):
    """``"candlewick"``, ``"array_api_strict"`` or None: which of the two a test runs."""
    params = nodeid.partition("[")[2]
    return CANDLEWICK if CANDLEWICK in params else STRICT if STRICT in params else None


#: candlewick test's node id -> its strict twin's, decided at collection
TWINS = {}


def _same_parameters(item, strict_item):
    """Whether strict_item's parameters, with candlewick in strict's place, are item's."""
    mine, theirs = getattr(item, "callspec", None), getattr(strict_item, "callspec", None)
    if mine is None or theirs is None or set(mine.params) != set(theirs.params):
        return False
    for name, value in theirs.params.items():
        twin = _twin_value(value)
        expected = value if twin is None else twin
        if expected is not mine.params[name] and repr(expected) != repr(mine.params[name]):
            return False
    return True


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        (kept if namespace_of(item.nodeid) else dropped).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    # the twin by name (the usual case), else by parameters: pytest numbers the ids of
    # values it cannot print (``expected_types1``) by their place in the list
    by_id = {item.nodeid: item for item in kept}
    strict_of = {}
    for item in kept:
        if namespace_of(item.nodeid) == STRICT:
            strict_of.setdefault(item.nodeid.partition("[")[0], []).append(item)
    for item in kept:
        if namespace_of(item.nodeid) != CANDLEWICK:
            continue
        twin = twin_of(item.nodeid)
        if twin not in by_id:
            found = [s for s in strict_of.get(item.nodeid.partition("[")[0], []) if _same_parameters(item, s)]
            twin = found[0].nodeid if len(found) == 1 else twin
        TWINS[item.nodeid] = twin


def _library_of(path):
    parts = str(path).replace(os.sep, "/").split("/site-packages/")[-1].split("/")
    return LIBRARIES.get(parts[0], parts[0])


def pytest_configure(config):
    if os.environ.get(IMPLICIT_COPY_ENV) == "1":
        import candlewick  # loaded here: the plugin is imported before the library's conftest

        candlewick.set_implicit_host_copy(True)


def _calling_line(tb):
    """``path:line`` of the innermost frame of the library or its tests that is neither
    candlewick's nor NumPy's: where a library handed candlewick's array to NumPy."""
    for frame in reversed(traceback.extract_tb(tb)):
        name = frame.filename.replace(os.sep, "/")
        if "site-packages/" not in name:
            continue
        tail = name.split("site-packages/", 1)[1]
        if not tail.startswith(("_pytest/", "pluggy/", "numpy/", "candlewick", "cpu_backend/", "rocm_backend/")):
            return f"{tail}:{frame.lineno}"
    return None


def _raising_line(tb):
    """``path:line`` of the innermost frame in a library or in candlewick."""
    for frame in reversed(traceback.extract_tb(tb)):
        name = frame.filename.replace(os.sep, "/")
        for root in ("site-packages/", "/candlewick/", "/cpu_backend/", "/rocm_backend/"):
            if root in name:
                tail = name.split(root, 1)[1]
                prefix = "" if root == "site-packages/" else root.strip("/") + "/"
                if not tail.startswith(("_pytest/", "pluggy/")):
                    return f"{prefix}{tail}:{frame.lineno}"
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    path = os.environ.get(RESULTS_ENV)
    if not path:
        return
    report = outcome.get_result()
    if report.when == "setup" and report.passed or report.when == "teardown" and not report.failed:
        return
    if report.when == "call" or report.failed or report.skipped:
        state = report.outcome
        if hasattr(report, "wasxfail"):
            state = "xfailed" if report.skipped else "xpassed"
        if report.failed and report.when != "call":
            state = "error"
        namespace = namespace_of(item.nodeid)
        entry = {"library": _library_of(item.path), "nodeid": item.nodeid, "namespace": namespace,
                 "twin": TWINS.get(item.nodeid, twin_of(item.nodeid)) if namespace == CANDLEWICK else None,
                 "outcome": state, "error": "", "where": None, "duration": round(report.duration, 4)}
        if call.excinfo is not None:
            exc = call.excinfo.value
            text = str(getattr(exc, "msg", None) or exc).strip()
            entry["error"] = (f"{type(exc).__name__}: " if state != "skipped" else "") + (text.splitlines()[0] if text else "")
            entry["where"] = _raising_line(call.excinfo.tb)
            entry["caller"] = _calling_line(call.excinfo.tb)
        if hasattr(report, "wasxfail") and not entry["error"]:
            entry["error"] = report.wasxfail
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
