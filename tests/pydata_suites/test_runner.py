"""tools/pydata_suites.py and its plugin, on their own: the twin of each candlewick test
is the strict test it stands beside, the comparison counts and lists exactly the tests
strict passes and candlewick does not (with the cause where one is known), and
tools/gen_ecosystem_doc.py writes docs/ecosystem.md's section from records of several
devices. The libraries' suites themselves run in .ci/run (the CI subset) and in
tools/gpu_run.sh's pydata steps."""

import importlib.util
import json
import pathlib
import sys
import warnings

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# the plugin imports its SciPy part from beside it, as tools/pydata_suites.py's PYTHONPATH has it
sys.path.insert(0, str(ROOT / "tests" / "pydata_suites"))
plugin = _load("candlewick_substitute", ROOT / "tests" / "pydata_suites" / "candlewick_substitute.py")
causes = _load("pydata_causes", ROOT / "tools" / "pydata_causes.py")


@pytest.mark.parametrize("nodeid,twin", [
    ("scipy/fft/tests/test_basic.py::test_fft[candlewick-float64]", "scipy/fft/tests/test_basic.py::test_fft[array_api_strict-float64]"),
    ("xarray/tests/test_array_api.py::test_where[candlewick]", "xarray/tests/test_array_api.py::test_where[array_api_strict]"),
    ("sklearn/utils/tests/test_array_api.py::test_x[candlewick-cpu-float64]",
     "sklearn/utils/tests/test_array_api.py::test_x[array_api_strict-CPU_DEVICE-float64]"),
    ("sklearn/utils/tests/test_array_api.py::test_x[candlewick-cpu-float32]",
     "sklearn/utils/tests/test_array_api.py::test_x[array_api_strict-device1-float32]"),
    ("sklearn/tests/test_common.py::test_estimators[PCA()-check_array_api_input(array_namespace=candlewick,"
     "device_name=cpu,dtype_name=float64)]",
     "sklearn/tests/test_common.py::test_estimators[PCA()-check_array_api_input(array_namespace=array_api_strict,"
     "device_name=CPU_DEVICE,dtype_name=float64)]"),
])
def test_each_candlewick_test_has_the_strict_test_beside_it_as_twin(nodeid, twin, monkeypatch):
    monkeypatch.setattr(plugin, "candlewick_devices", lambda: {"CPU_DEVICE": "cpu", "device1": "cpu"})
    assert plugin.twin_of(nodeid) == twin
    assert plugin.namespace_of(nodeid) == "candlewick" and plugin.namespace_of(twin) == "array_api_strict"
    assert plugin.namespace_of("scipy/x.py::test_y[numpy]") is None


def _entry(nodeid, outcome, error="", where=None):
    namespace = plugin.namespace_of(nodeid)
    return {"library": "scipy", "nodeid": nodeid, "namespace": namespace, "outcome": outcome, "error": error,
            "where": where, "twin": nodeid.replace("candlewick", "array_api_strict") if namespace == "candlewick"
            else None}


@pytest.fixture
def runner(monkeypatch):
    module = _load("pydata_suites", ROOT / "tools" / "pydata_suites.py")
    return module


def test_compare_lists_exactly_what_strict_passes_and_candlewick_does_not(runner):
    entries = {e["nodeid"]: e for e in [
        _entry("s/t.py::a[array_api_strict]", "passed"), _entry("s/t.py::a[candlewick]", "passed"),
        _entry("s/t.py::b[array_api_strict]", "passed"), _entry("s/t.py::b[candlewick]", "failed", "TypeError: x",
                                                                   "scipy/foo.py:3"),
        _entry("s/t.py::c[array_api_strict]", "failed"), _entry("s/t.py::c[candlewick]", "failed", "E"),
        _entry("s/t.py::d[array_api_strict]", "skipped"), _entry("s/t.py::d[candlewick]", "passed"),
        _entry("s/t.py::e[array_api_strict]", "passed"), _entry("s/t.py::e[candlewick]", "xfailed", "why"),
        _entry("s/t.py::f[array_api_strict]", "passed"),
    ]}
    table = runner.compare("scipy", {"targets": ["scipy"], "seconds": 1.0, "stopped": None, "entries": entries}, "cpu")
    assert table["strict_passed"] == 4 and table["candlewick_passed"] == 2
    assert [f["test"] for f in table["strict_passed_candlewick_failed"]] == ["s/t.py::b[candlewick]",
                                                                           "s/t.py::e[candlewick]"]
    assert table["strict_passed_without_candlewick_twin"] == ["s/t.py::f[array_api_strict]"]
    assert table["both_failed"] == 1


def test_known_causes_of_theirs():
    entry = _entry("scipy/special/tests/test_support_alternative_backends.py::"
                   "test_support_alternative_backends_mismatched_dtypes[candlewick-xlogy]", "failed")
    assert causes.cause_of("scipy", entry, "cpu").startswith("theirs: scipy/_lib/_array_api.py:507")
    copy = _entry("scipy/x.py::t[candlewick]", "failed", "ArgumentTypeError: implicit conversion of a rocm:0 array",
                  "candlewick/array_interop.py:56")
    copy["caller"] = "scipy/ndimage/_filters.py:843"
    # a refused copy is theirs only once the second pass, with implicit copies allowed, passes
    assert causes.cause_of("scipy", copy, "rocm") is None
    copy["with_copies"] = "failed"
    assert causes.cause_of("scipy", copy, "rocm") is None
    copy["with_copies"] = "passed"
    assert causes.cause_of("scipy", copy, "rocm").startswith("theirs: scipy/ndimage/_filters.py:843 hands the array")
    assert causes.cause_of("scipy", copy, "cpu") is None
    for library, pattern, devices, cause in causes.KNOWN:
        assert cause.startswith("theirs: ") and library in ("sklearn", "scipy", "xarray") and devices


def _record(device, kind, failures):
    table = {"library": "scipy", "version": "1.17.1", "targets": ["scipy"], "seconds": 1.0, "stopped": None,
             "strict": {"passed": 10}, "candlewick": {"passed": 9}, "strict_passed": 10, "candlewick_passed": 9,
             "strict_passed_candlewick_failed": failures, "strict_passed_without_candlewick_twin": [],
             "without_twin": 0, "both_failed": 0, "duck_array_table": None}
    return {"benchmark": "pydata_suites", "device": device, "device_kind": kind, "date": "2026-11-29T00:00:00",
            "commit": "abc1234", "figures": {"device": device, "subset": "full", "libraries": [table]}}


def test_the_doc_section_merges_the_records_of_every_device(tmp_path):
    gen = _load("gen_ecosystem_doc", ROOT / "tools" / "gen_ecosystem_doc.py")
    cpu = tmp_path / "pydata_suites_cpu-x.json"
    rocm = tmp_path / "pydata_suites_nvidia-h200.json"
    cpu.write_text(json.dumps(_record("cpu", "cpu-x", [])))
    failure = {"test": "scipy/ndimage/tests/test_filters.py::T::test_gauss[candlewick]", "outcome": "failed",
               "error": "ArgumentTypeError: implicit conversion", "where": "candlewick/array_interop.py:56",
               "caller": "scipy/ndimage/_filters.py:843", "with_copies": "passed",
               "cause": "theirs: scipy/ndimage/_filters.py:843 hands the array to NumPy, which needs host data"}
    rocm.write_text(json.dumps(_record("rocm", "nvidia-h200", [failure])))
    doc = tmp_path / "ecosystem.md"
    doc.write_text("# title\n\n- passed: cpu 1 of 1\n\n| a | table |\n")
    gen.write_suites(doc, [str(cpu), str(rocm)])
    gen.write_suites(doc, [str(cpu), str(rocm)])  # again: the section is replaced, not repeated
    text = doc.read_text()
    assert text.count(gen.SUITES_BEGIN) == 1 and text.index(gen.SUITES_END) < text.index("| a | table |")
    assert "| scipy | 1.17.1 | cpu (cpu-x, full)" in text and "| scipy | 1.17.1 | rocm (nvidia-h200, full)" in text
    assert "`scipy/ndimage/_filters.py`: `T::test_gauss`" in text


@pytest.mark.parametrize("host_memory", [True, False])
def test_scipy_xp_fixture_gets_candlewick_known_to_its_markers(host_memory, monkeypatch):
    # scipy/conftest.py keys its skip/xfail reasons by xp_known_backends: candlewick among
    # the cpu_only backends (a device without host memory) but unknown there is a KeyError
    # in every test with a cpu_only marker (seen on an H200 with SciPy 1.18.1)
    import types

    import array_api_strict
    import candlewick
    import candlewick.backend

    conftest = {"xp_known_backends": {"numpy", "array_api_strict", "cupy"}, "xp_skip_cpu_only_backends": {"cupy"}}
    fixturedef = types.SimpleNamespace(params=(pytest.param(array_api_strict, id="array_api_strict"),),
                                       func=types.FunctionType((lambda: None).__code__, conftest))
    session = types.SimpleNamespace(_fixturemanager=types.SimpleNamespace(_arg2fixturedefs={"xp": [fixturedef]}))
    monkeypatch.setattr(candlewick.backend, "holds_host_memory", lambda device: host_memory)
    helpers = pytest.importorskip("scipy._lib._array_api")
    # restored after the test: the patch below rebinds them
    monkeypatch.setattr(helpers, "np", helpers.np)
    monkeypatch.setattr(helpers, "_xp_copy_to_numpy", helpers._xp_copy_to_numpy)
    from candlewick.api_version import array_api_version

    version = array_api_version()
    strict_version = array_api_strict.get_array_api_strict_flags()["api_version"]
    # SciPy's conftest pins strict's revision; candlewick follows whichever strict follows
    array_api_strict.set_array_api_strict_flags(api_version="2024.12")
    try:
        with warnings.catch_warnings():  # SciPy's conftest registers the mark; not loaded here
            warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
            plugin.scipy_support.patch_xp_fixture(session)
        assert array_api_version() == "2024.12"
    finally:
        candlewick.set_array_api_version(version)
        array_api_strict.set_array_api_strict_flags(api_version=strict_version)
    assert [p.id for p in fixturedef.params] == ["array_api_strict", "candlewick"]
    assert "candlewick" in conftest["xp_known_backends"]
    assert ("candlewick" in conftest["xp_skip_cpu_only_backends"]) is (not host_memory)
    reasons = {backend: [] for backend in conftest["xp_known_backends"]}
    for backend in conftest["xp_skip_cpu_only_backends"]:  # what the conftest's marker helper does
        reasons[backend].append("cpu only")
    # off host memory SciPy's assertion helpers move candlewick's arrays explicitly, as CuPy's
    moved = []
    to_numpy = candlewick.to_numpy
    monkeypatch.setattr(candlewick, "to_numpy", lambda x: moved.append(x) or to_numpy(x))
    x = candlewick.asarray([1.0, 2.0])
    helpers.xp_assert_close(x, candlewick.asarray([1.0, 2.0 + 1e-12]), xp=candlewick, check_namespace=False)
    if not host_memory:
        copied = helpers._xp_copy_to_numpy(x)
        assert isinstance(copied, np.ndarray) and copied.tolist() == [1.0, 2.0]
    assert len(moved) == (0 if host_memory else 3)
    assert helpers.np.float64 is np.float64
    with pytest.raises(AssertionError):
        helpers.xp_assert_close(x, candlewick.asarray([1.0, 3.0]), xp=candlewick, check_namespace=False)


def test_skips_by_the_librarys_own_markers_off_the_cpu_are_counted_apart(runner):
    entries = {e["nodeid"]: e for e in [
        _entry("scipy/t.py::a[array_api_strict]", "passed"),
        _entry("scipy/t.py::a[candlewick]", "skipped", "no array-agnostic implementation", "scipy/conftest.py:507"),
        _entry("scipy/t.py::b[array_api_strict]", "passed"),
        _entry("scipy/t.py::b[candlewick]", "skipped", "a skip of the test's own", "scipy/stats/tests/t.py:9"),
    ]}
    run = {"targets": ["scipy"], "seconds": 1.0, "stopped": None, "entries": entries}
    rocm = runner.compare("scipy", run, "rocm")
    assert rocm["skipped_by_library_off_cpu"] == {"no array-agnostic implementation": 1}
    assert [f["test"] for f in rocm["strict_passed_candlewick_failed"]] == ["scipy/t.py::b[candlewick]"]
    cpu = runner.compare("scipy", run, "cpu")  # on the CPU no marker of that kind applies: both listed
    assert cpu["skipped_by_library_off_cpu"] == {} and len(cpu["strict_passed_candlewick_failed"]) == 2
    assert any("skipped for candlewick on rocm" in line for line in runner.markdown([rocm], "rocm", "full"))
