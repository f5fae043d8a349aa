"""The primitive x dtype matrix (candlewick/conformance/report.py), on synthetic outcomes."""

import json

import pytest

from candlewick import dtypes as dt
from candlewick.backend import OPTIONAL_PRIMITIVES, BackendDevice, BackendStorage
from candlewick.conformance import report
from candlewick.opdefs import ReduceOp, UnaryOp

ALL = tuple(d.name for d in dt.ALL_DTYPES)


def test_rows_are_every_protocol_primitive_and_optional_group():
    rows = dict(report.ROWS)
    for protocol in (BackendDevice, BackendStorage):
        for name in report._methods(protocol):
            assert report.row_of(name) in rows
    for group, names in OPTIONAL_PRIMITIVES.items():
        assert all(rows[f"{group}.{name}"] == group for name in names)
    assert rows["unary"] is None and "backend object" in rows


def test_rows_of_a_test_come_from_marker_parameter_or_name():
    assert report.rows_of_test("test_where", (), None, {}) == ["where"]
    assert report.rows_of_test("test_x", ("det", "slogdet"), None, {}) == ["linalg.det", "linalg.slogdet"]
    assert report.rows_of_test("test_x", (), "op", {"op": ReduceOp.SUM}) == ["reduce"]
    assert report.rows_of_test("test_x", (), "name", {"name": "gather"}) == ["gather"]
    with pytest.raises(ValueError, match="no primitive"):
        report.rows_of_test("test_something_else", (), None, {})


def test_dtype_columns_are_the_dtype_parameters():
    assert report.dtypes_of_params({"op": UnaryOp.SIN, "dtype": dt.float32}) == ["float32"]
    assert report.dtypes_of_params({"src": dt.int8, "dst": dt.float16}) == ["int8", "float16"]
    assert report.dtypes_of_params({"bad": 4}) == [report.NO_DTYPE]


def _matrix(declared=ALL, capabilities=("linalg",)):
    return report.Matrix("demo", declared, capabilities)


def test_cell_status_fail_wins_then_pass_then_skipped():
    m = _matrix()
    m.add(["unary"], ["float32"], "t::a", report.PASS)
    m.add(["unary"], ["float32"], "t::b", report.FAIL, "AssertionError: 3 of 6 differ\nmore")
    m.add(["unary"], ["int8"], "t::c", report.PASS)
    m.add(["unary"], ["int8"], "t::d", report.SKIPPED, "no reason")
    m.add(["binary"], ["int8"], "t::e", report.SKIPPED, "no reason")
    assert m.status("unary", None, "float32") == report.FAIL
    assert m.status("unary", None, "int8") == report.PASS
    assert m.status("binary", None, "int8") == report.SKIPPED
    assert m.status("binary", None, "float32") == ""  # nothing asked
    assert m.failures() == [("unary", "float32", "t::b", "AssertionError: 3 of 6 differ\nmore")]


def test_undeclared_group_and_dtype_are_not_declared_never_failures():
    m = _matrix(declared=tuple(n for n in ALL if n != "float64"), capabilities=("linalg",))
    # even a failing outcome filed there does not make an undeclared cell a failure
    m.add(["fft.fft"], ["complex64"], "t::fft", report.FAIL, "boom")
    m.add(["unary"], ["float64"], "t::f64", report.UNDECLARED, "not declared: ...")
    m.add(["linalg.qr"], ["float32"], "t::qr", report.FAIL, "bad Q")
    assert m.status("fft.fft", "fft", "complex64") == report.UNDECLARED
    assert m.status("unary", None, "float64") == report.UNDECLARED
    assert m.status("linalg.qr", "linalg", "float32") == report.FAIL
    assert [f[2] for f in m.failures()] == ["t::qr"]
    assert m.counts()[report.FAIL] == 1


def test_markdown_failure_cell_links_to_the_failing_test_id():
    m = _matrix()
    m.add(["sort"], ["int16"], "test_ordering.py::test_sort[cpu-int16]", report.FAIL, "E  wrong order")
    text = report.render_markdown([m])
    assert "| sort |" in text
    row = next(line for line in text.splitlines() if line.startswith("| sort |"))
    assert "**FAIL** [1](#fail-demo-1)" in row
    assert '<a id="fail-demo-1"></a>sort [int16]: `test_ordering.py::test_sort[cpu-int16]` — E  wrong order' in text


def test_json_lists_statuses_and_failed_ids():
    m = _matrix(capabilities=())
    m.add(["where"], ["bool"], "t::w", report.FAIL, "x")
    m.add(["where"], ["int8"], "t::w8", report.PASS)
    m.add(["linalg.qr"], ["float32"], "t::qr", report.UNDECLARED, "not declared: ...")
    data = json.loads(report.render_json([m]))["backends"][0]
    assert data["rows"]["where"]["cells"]["bool"] == {"status": "fail", "failed": ["t::w"]}
    assert data["rows"]["where"]["cells"]["int8"] == {"status": "pass"}
    assert data["rows"]["linalg.qr"]["cells"]["float32"] == {"status": "not declared"}
    assert "float64" not in data["rows"]["where"]["cells"]  # nothing asked there
    assert data["columns"][-1] == report.NO_DTYPE and data["counts"]["fail"] == 1


def test_text_report_shows_every_row():
    text = report.render_text(_matrix())
    assert all(row in text for row, _ in report.ROWS)


def test_status_of_pytest_outcomes():
    assert report.status_of("passed", "") == report.PASS
    assert report.status_of("failed", "AssertionError") == report.FAIL
    assert report.status_of("skipped", "not declared: rocm:0 does not declare dtype float64") == report.UNDECLARED
    assert report.status_of("skipped", "could not import 'mpmath'") == report.SKIPPED
