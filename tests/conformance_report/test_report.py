"""The primitive x dtype matrix (candlewick/conformance/report.py), its renderings
(report_render.py) and the stages (stages.py), on synthetic outcomes."""

import json

import pytest

from candlewick import dtypes as dt
from candlewick.backend import OPTIONAL_PRIMITIVES, BackendDevice, BackendStorage
from candlewick.conformance import report, stages
from candlewick.conformance.report_render import render_json, render_markdown, render_text
from candlewick.opdefs import ReduceOp, UnaryOp

ALL = tuple(d.name for d in dt.ALL_DTYPES)


def test_rows_are_every_protocol_primitive_and_optional_group():
    rows = dict(report.ROWS)
    for protocol in (BackendDevice, BackendStorage):
        for name in report.protocol_methods(protocol):
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
    assert m.failures() == [("t::b", "AssertionError: 3 of 6 differ\nmore", [("unary", "float32")])]


def test_undeclared_group_and_dtype_are_not_declared_never_failures():
    m = _matrix(declared=tuple(n for n in ALL if n != "float64"), capabilities=("linalg",))
    # even a failing outcome filed there does not make an undeclared cell a failure
    m.add(["fft.fft"], ["complex64"], "t::fft", report.FAIL, "boom")
    m.add(["unary"], ["float64"], "t::f64", report.UNDECLARED, "not declared by the backend: ...")
    m.add(["linalg.qr"], ["float32"], "t::qr", report.FAIL, "bad Q")
    assert m.status("fft.fft", "fft", "complex64") == report.UNDECLARED
    assert m.status("unary", None, "float64") == report.UNDECLARED
    assert m.status("linalg.qr", "linalg", "float32") == report.FAIL
    assert [f[0] for f in m.failures()] == ["t::qr"]
    assert m.counts()[report.FAIL] == 1


def test_markdown_failure_cell_links_to_the_failing_test_and_shows_its_assertion():
    m = _matrix()
    message = "AssertionError: 1 of 3 elements differ\n  at (1,): got 2, expected 3\nFalsifying example: test_sort(...)"
    m.add(["sort"], ["int16"], "test_ordering.py::test_sort[cpu-int16]", report.FAIL, message)
    text = render_markdown([m])
    row = next(line for line in text.splitlines() if line.startswith("| sort |"))
    assert "**FAIL** [1](#fail-demo-1)" in row
    assert '1. <a id="fail-demo-1"></a>sort [int16]: `test_ordering.py::test_sort[cpu-int16]`' in text
    block = text.split("`test_ordering.py::test_sort[cpu-int16]`")[1]
    assert "   ```\n   AssertionError: 1 of 3 elements differ\n     at (1,): got 2, expected 3\n" in block
    assert "Falsifying example" in block


def test_a_test_under_several_cells_is_listed_once():
    m = _matrix()
    m.add(["linalg.det", "linalg.slogdet"], ["float32", "float64"], "t::both", report.FAIL, "boom")
    (failure,) = m.failures()
    assert failure[0] == "t::both" and len(failure[2]) == 4
    assert render_markdown([m]).count("`t::both`") == 1


def test_undeclared_cells_read_skipped_not_declared_by_the_backend():
    m = _matrix(declared=("bool", "int64"))
    m.add(["unary"], ["float64"], "t::f64", report.UNDECLARED, f"{report.NOT_DECLARED}: x does not declare float64")
    row = next(line for line in render_markdown([m]).splitlines() if line.startswith("| unary |"))
    assert "*skipped: not declared by the backend*" in row
    assert "skipped (not declared by the backend)" in render_text(m)


def test_warnings_of_the_backend_are_flagged_in_cells_and_listed():
    m = _matrix()
    m.add(["unary"], ["float32"], "t::log", report.PASS,
          warnings=["RuntimeWarning: divide by zero encountered in log (mine/storage.py:12)"])
    m.add(["unary"], ["float64"], "t::sin", report.PASS)
    assert m.warned("unary", "float32") and not m.warned("unary", "float64")
    md = render_markdown([m])
    row = next(line for line in md.splitlines() if line.startswith("| unary |"))
    assert "pass ⚠" in row and row.count("⚠") == 1
    assert "### warnings raised by the backend" in md and "divide by zero encountered in log" in md
    data = json.loads(render_json([m]))["backends"][0]
    assert data["rows"]["unary"]["cells"]["float32"] == {"status": "pass", "warnings": True}
    assert data["warnings"] == [{"warning": "RuntimeWarning: divide by zero encountered in log (mine/storage.py:12)",
                                 "tests": ["t::log"]}]
    assert " ok!" in render_text(m)


def test_stages_order_tests_and_a_failed_stage_blocks_the_later_ones():
    assert stages.stage_of(["to_host"]) == 0 and stages.stage_of(["storage_from_host", "to_host"]) == 0
    assert stages.stage_of(["zeros", "ones", "empty"]) == 1 and stages.stage_of(["to_host", "arange"]) == 1
    assert stages.stage_of(["unary"]) == 2 and stages.stage_of(["to_host", "unary"]) == 2
    tracker = stages.StageTracker()
    tracker.record("mine", 0, "t::ok", failed=False)
    assert tracker.blocking("mine", 2) is None
    tracker.record("mine", 0, "t::to_host[mine-int8]", failed=True)
    tracker.record("mine", 0, "t::to_host[mine-int16]", failed=True)
    reason = tracker.blocking("mine", 1)
    assert reason.startswith("blocked: stage 'device and host transfer' failed") and "t::to_host[mine-int8]" in reason
    assert "(and 1 more)" in reason and tracker.blocking("mine", 2) == reason
    assert tracker.blocking("mine", 0) is None and tracker.blocking("other", 2) is None  # per backend
    tracker.record("other", 2, "t::unary", failed=True)
    assert tracker.blocking("other", 2) is None  # the last stage blocks nothing
    assert report.status_of("skipped", reason) == report.BLOCKED


def test_report_shows_the_blocking_stage_and_blocked_cells():
    m = _matrix()
    m.add(["to_host"], ["int8"], "t::to_host", report.FAIL, "AssertionError: to_host returned int8")
    m.add(["unary"], ["int8"], "t::unary", report.BLOCKED, "blocked: stage ...")
    assert m.blocking_stage() == "device and host transfer"
    assert m.stage_counts()[0] == ("device and host transfer", {report.FAIL: 1})
    assert m.stage_counts()[2] == ("primitives", {report.BLOCKED: 1})
    md = render_markdown([m])
    assert "**Stage 'device and host transfer' failed**" in md and "| unary |" in md
    assert "*blocked*" in next(line for line in md.splitlines() if line.startswith("| unary |"))
    data = json.loads(render_json([m]))["backends"][0]
    assert data["blocked_by"] == "device and host transfer" and data["counts"]["blocked"] == 1
    assert data["failures"][0]["message"] == "AssertionError: to_host returned int8"


def test_a_partial_report_says_how_far_the_run_got():
    m = report.Matrix("demo", ALL, (), state="interrupted (Ctrl-C) after 3 of 10 tests")
    m.add(["unary"], ["int8"], "t::a", report.PASS)
    assert "**This report is partial: interrupted (Ctrl-C) after 3 of 10 tests.**" in render_markdown([m])
    assert json.loads(render_json([m]))["backends"][0]["state"].startswith("interrupted")


def test_json_lists_statuses_and_failed_ids():
    m = _matrix(capabilities=())
    m.add(["where"], ["bool"], "t::w", report.FAIL, "x")
    m.add(["where"], ["int8"], "t::w8", report.PASS)
    m.add(["linalg.qr"], ["float32"], "t::qr", report.UNDECLARED, "not declared by the backend: ...")
    data = json.loads(render_json([m]))["backends"][0]
    assert data["rows"]["where"]["cells"]["bool"] == {"status": "fail", "failed": ["t::w"]}
    assert data["rows"]["where"]["cells"]["int8"] == {"status": "pass"}
    assert data["rows"]["linalg.qr"]["cells"]["float32"] == {"status": "not declared"}
    assert "float64" not in data["rows"]["where"]["cells"]  # nothing asked there
    assert data["columns"][-1] == report.NO_DTYPE and data["counts"]["fail"] == 1


def test_text_report_shows_every_row():
    text = render_text(_matrix())
    assert all(row in text for row, _ in report.ROWS)


def test_status_of_pytest_outcomes():
    assert report.status_of("passed", "") == report.PASS
    assert report.status_of("failed", "AssertionError") == report.FAIL
    assert report.status_of("skipped", "not declared by the backend: rocm:0 does not declare dtype float64") \
        == report.UNDECLARED
    assert report.status_of("skipped", "could not import 'mpmath'") == report.SKIPPED
