"""Ecosystem tests: scikit-learn, SciPy, xarray, Dask and cubed running on candlewick
arrays, each result compared with the same call on NumPy arrays.

Needs the ``ecosystem`` extra (``pip install -e .[ecosystem]``); a module whose library is
missing is skipped. Backends come from ``CANDLEWICK_TEST_BACKENDS`` as in the rest of the
tests. With ``CANDLEWICK_ECOSYSTEM_RESULTS=<path>`` every case's outcome per backend is
appended to ``<path>`` as JSON lines; ``tools/gen_ecosystem_doc.py`` turns them into
docs/ecosystem.md.
"""

import gc
import json
import os
import traceback

import numpy as np
import pytest

import candlewick as cw
from candlewick.backend import holds_host_memory
from candlewick.errors import ArgumentTypeError

# SciPy and scikit-learn read this when they are first imported: it must be set before
os.environ.setdefault("SCIPY_ARRAY_API", "1")

RESULTS_ENV = "CANDLEWICK_ECOSYSTEM_RESULTS"
LIBRARIES = ("sklearn", "scipy", "xarray", "dask", "distributed", "cubed", "zarr", "numpy")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "ecosystem(library, variant=None): the library an ecosystem case exercises "
        "(variant: a label told apart in the table, e.g. 'NaN data')")
    config.addinivalue_line(
        "markers", "known_failure(reason): the test asserts a library's known failure; it is "
        "recorded as 'known' with that reason")
    # scikit-learn's metric test module (whose checker table we import) uses this mark
    config.addinivalue_line("markers", "thread_unsafe: scikit-learn's own test mark")


def _library_line(excinfo):
    """``path:line`` of the innermost frame inside a third-party library, or None."""
    return library_line_of(excinfo.tb)


def library_line_of(tb):
    """``path:line`` of the innermost frame of traceback ``tb`` inside a third-party
    library, or None."""
    for frame in reversed(traceback.extract_tb(tb)):
        marker = "site-packages/"
        if marker in frame.filename:
            path = frame.filename.split(marker, 1)[1]
            if path.split("/", 1)[0] in LIBRARIES:
                return f"{path}:{frame.lineno}"
    return None


def _case_name(item):
    """The case's id without the backend part (the same case on every backend)."""
    backend = item.callspec.params.get("device")
    parts = [p for p in item.callspec.id.split("-") if p != backend]
    return "-".join(parts) or item.originalname.removeprefix("test_")


def to_host(value):
    """NumPy copies of candlewick arrays (explicitly: to_numpy works on every device),
    recursively through tuples, lists and named results; other values unchanged."""
    if isinstance(value, cw.Array):
        return cw.to_numpy(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(to_host(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(to_host(v) for v in value)
    if hasattr(value, "__array_namespace__"):
        return np.asarray(value)
    return value


def assert_matches_numpy(got, expected, rtol=1e-10, atol=1e-12, candlewick_out=True):
    """``got`` (from candlewick inputs) equals ``expected`` (from NumPy inputs); with
    ``candlewick_out`` every array in ``got`` must be a candlewick array, not NumPy."""
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), (got, expected)
        for g, e in zip(got, expected):
            assert_matches_numpy(g, e, rtol, atol, candlewick_out)
        return
    if candlewick_out and isinstance(expected, np.ndarray) and expected.ndim:
        assert isinstance(got, cw.Array), f"expected a candlewick array, got {type(got).__name__}"
    np.testing.assert_allclose(np.asarray(to_host(got)), np.asarray(expected), rtol=rtol, atol=atol)


@pytest.fixture(scope="module", autouse=True)
def collect_garbage_after_module():
    # the same reason as in pytest_runtest_makereport: the next module's tests (and the
    # test folders after this one) must not inherit finalizer-carrying garbage
    yield
    gc.collect()


@pytest.fixture
def matches_numpy():
    return assert_matches_numpy


@pytest.fixture
def needs_host_data(device):
    """A context for a library call on ``device``: where the device's memory is not host
    memory and the library converts the array with NumPy (refused: candlewick copies to
    the host only when asked, as CuPy and PyTorch do), the case is recorded as the
    library's known failure, with the library's line, instead of failing."""
    return _NeedsHostData(cw.get_device(device))


class _NeedsHostData:
    def __init__(self, device):
        self.device = device

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if (kind is not None and issubclass(kind, ArgumentTypeError) and "implicit conversion" in str(exc)
                and not holds_host_memory(self.device)):
            pytest.xfail(f"theirs: {library_line_of(tb)} converts the array with NumPy: needs host data "
                         f"(implicit copies from {self.device.name} are refused)")
        return False


@pytest.fixture
def host():
    return to_host


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    if call.excinfo is not None:
        # pytest is about to format a traceback (ast.parse). Dask/distributed and cubed leave
        # cyclic garbage whose finalizers run Python code; collected in the middle of
        # ast.parse, they trip CPython 3.11's "AST constructor recursion depth mismatch"
        # SystemError, which ends the session. Collect it first.
        gc.collect()
    outcome = yield
    path = os.environ.get(RESULTS_ENV)
    marker = item.get_closest_marker("ecosystem")
    if not path or marker is None:
        return
    report = outcome.get_result()
    if report.when == "setup" and report.passed:
        return
    if report.when == "teardown" and not report.failed:
        return
    backend = item.callspec.params.get("device", "") if hasattr(item, "callspec") else ""
    if not backend:  # a check of the module itself (a list is not empty), not a case
        return
    case = _case_name(item)
    variant = marker.kwargs.get("variant")
    entry = {
        "library": marker.args[0],
        "case": f"{case} ({variant})" if variant else case,
        "backend": backend,
        "outcome": "xfailed" if hasattr(report, "wasxfail") and report.skipped else report.outcome,
        "reason": "",
        "where": None,
    }
    if hasattr(report, "wasxfail"):
        entry["reason"] = report.wasxfail
    known = item.get_closest_marker("known_failure")
    if known is not None and report.passed:
        entry["outcome"], entry["reason"] = "xfailed", known.args[0]
        entry["where"] = known.args[0].split(" ", 2)[1] if known.args[0].startswith("theirs: ") else None
    if call.excinfo is not None:
        exc = call.excinfo.value
        if entry["outcome"] == "skipped" and not hasattr(report, "wasxfail"):
            entry["reason"] = str(getattr(exc, "msg", exc))
        elif not entry["reason"]:
            entry["reason"] = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
        entry["where"] = _library_line(call.excinfo)
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")
