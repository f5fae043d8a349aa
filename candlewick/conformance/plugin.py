"""pytest plugin (entry point ``pytest11``): the conformance report and the run's stages.

Loaded in every pytest session where candlewick is installed (which imports candlewick
and NumPy), so it does nothing else unless conformance tests ran: it defines no fixture
(the suite's fixtures live in this package's conftest.py). Options:

* ``--conformance-markdown PATH`` / ``--conformance-json PATH``: write the report there
  while the run goes (at the end of each stage and every few seconds, marked partial),
  at its end, and on the first Ctrl-C (marked interrupted);
* ``--no-conformance-report``: do not print the matrix at the end of the run;
* ``--conformance-no-stages``: run every test even when an earlier stage failed
  (``stages.py``: by default a failed stage blocks the backend's later tests).

Each test's failure is kept as its assertion's text (pytest's crash message: the
exception and Hypothesis's falsifying example), and each warning the backend raised
during a test (not the suite's own or pytest's) is kept with it.
"""

import os
import signal
import threading
import time

import pytest

from candlewick import registry

from . import PROFILE_ENV
from . import report as matrix  # (pytest names logreport's argument "report")
from . import report_render, stages

#: the ``user_properties`` key under which conftest.py files a test's rows and dtypes
PROPERTY = "candlewick_conformance"
#: how often a running session rewrites its report files (seconds; also at each stage's end)
WRITE_EVERY_S = 5.0
# warnings raised in these are the test machinery's (the suite's own, pytest's,
# Hypothesis's), not the backend's
_MACHINERY = (os.path.dirname(os.path.abspath(__file__)) + os.sep,
              *(os.sep + name + os.sep for name in ("_pytest", "hypothesis", "pluggy")))
# warnings about a library's API or the interpreter (an import in a test's first call):
# not about the results a user gets
_NOT_RESULTS = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def pytest_addoption(parser):
    group = parser.getgroup("candlewick-conformance", "candlewick conformance report")
    group.addoption("--conformance-markdown", metavar="PATH", default=None,
                    help="write the primitive x dtype conformance report as Markdown")
    group.addoption("--conformance-json", metavar="PATH", default=None,
                    help="write the primitive x dtype conformance report as JSON")
    group.addoption("--no-conformance-report", action="store_true", default=False,
                    help="do not print the conformance report at the end of the run")
    group.addoption("--conformance-no-stages", action="store_true", default=False,
                    help="run every conformance test even when an earlier stage failed")


def pytest_configure(config):
    config.addinivalue_line("markers", "conformance: backend conformance suite (candlewick.conformance)")
    config.addinivalue_line(
        "markers",
        "primitive(*names, param=None): the protocol primitives a conformance test exercises "
        "(or the parameter that names it); default: the test's name without test_",
    )
    config.pluginmanager.register(ReportCollector(config), "candlewick-conformance-report")


def tags_of(item_or_report):
    """``(backend, rows, dtype columns)`` filed by conftest.py, or None (not a device test)."""
    return dict(item_or_report.user_properties).get(PROPERTY)


def _outcome(rep):
    """``(pytest outcome, message)``: the failure's assertion text, or the skip reason."""
    if rep.skipped:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        return "skipped", reason.removeprefix("Skipped: ")
    if not rep.failed:
        return rep.outcome, ""
    crash = getattr(rep.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else rep.longreprtext
    return "failed", text if rep.when == "call" else f"(in the test's {rep.when}) {text}"


def _warning_text(message):
    where = os.sep.join(os.path.normpath(message.filename).split(os.sep)[-2:])
    return f"{message.category.__name__}: {message.message} ({where}:{message.lineno})"


class ReportCollector:
    """Files each conformance test's outcome under its rows and dtypes, blocks the tests
    of a stage after a failed one, and writes the report as the run goes."""

    def __init__(self, config):
        self.config = config
        self.results = {}  # test id -> ((backend, rows, dtype columns), status, message)
        self.warnings = {}  # test id -> [warning text], the backend's
        self.tracker = stages.StageTracker()
        self.staged = not config.getoption("conformance_no_stages")
        self.total = 0  # conformance tests this session runs
        self.last_write = time.monotonic()
        self.stage_now = {}  # backend -> stage of its last test (a change ends a stage)
        self.interrupted = False

    def pytest_collection_finish(self, session):
        self.total = sum(1 for item in session.items if tags_of(item) is not None)
        if self.total and threading.current_thread() is threading.main_thread() \
                and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, self._on_sigint)

    def _on_sigint(self, signum, frame):
        # Python's own behaviour (KeyboardInterrupt), remembered: an interrupt that lands
        # in a __del__ or a callback is printed and dropped there, and the run would go on
        # until a second Ctrl-C; the next test's setup raises it again instead
        self.sigint = True
        raise KeyboardInterrupt

    def pytest_unconfigure(self, config):
        if signal.getsignal(signal.SIGINT) == self._on_sigint:
            signal.signal(signal.SIGINT, signal.default_int_handler)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        if getattr(self, "sigint", False):
            raise KeyboardInterrupt
        tags = tags_of(item)
        if tags is not None and self.staged:
            backend, rows, _ = tags
            reason = self.tracker.blocking(backend, stages.stage_of(rows))
            if reason is not None:
                pytest.skip(reason)

    def pytest_runtest_logreport(self, report):
        tags = tags_of(report)
        if tags is None:
            return
        # the call phase decides, unless setup did not get there or teardown failed
        if not (report.when == "call" or (report.when == "setup" and not report.passed) or (
                report.when == "teardown" and report.failed)):
            return
        outcome, message = _outcome(report)
        status = matrix.status_of(outcome, message)
        self.results[report.nodeid] = (tags, status, message)
        backend, rows, _ = tags
        stage = stages.stage_of(rows)
        if status != matrix.BLOCKED:
            self.tracker.record(backend, stage, report.nodeid, status == matrix.FAIL)
        stage_ended = self.stage_now.get(backend, stage) != stage
        self.stage_now[backend] = stage
        if stage_ended or time.monotonic() - self.last_write >= WRITE_EVERY_S:
            self.write_files(f"in progress: {len(self.results)} of {self.total} tests run")

    def pytest_warning_recorded(self, warning_message, when, nodeid, location):
        filename = os.path.abspath(warning_message.filename)
        if when == "runtest" and nodeid and not issubclass(warning_message.category, _NOT_RESULTS) \
                and not filename.startswith(_MACHINERY[0]) and not any(part in filename for part in _MACHINERY[1:]):
            self.warnings.setdefault(nodeid, []).append(_warning_text(warning_message))

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True
        self.write_files(f"interrupted (Ctrl-C) after {len(self.results)} of {self.total} tests")

    def state(self, session):
        if self.interrupted:
            return f"interrupted (Ctrl-C) after {len(self.results)} of {self.total} tests"
        if session.shouldstop or session.shouldfail:
            return f"stopped after {len(self.results)} of {self.total} tests (-x or --maxfail)"
        return "complete"

    def matrices(self, state="complete"):
        out = {}
        for test_id, ((backend, rows, columns), status, message) in self.results.items():
            if backend not in out:
                device = registry.get_device(backend)
                out[backend] = matrix.Matrix(
                    backend, tuple(d.name for d in device.dtypes), tuple(sorted(device.capabilities)), state=state,
                    staged=self.staged)
            out[backend].add(rows, columns, test_id, status, message, warnings=self.warnings.get(test_id, ()))
        return list(out.values())

    def write_files(self, state):
        """Write the Markdown and JSON reports asked for (each whole, then renamed into place)."""
        self.last_write = time.monotonic()
        if hasattr(self.config, "workerinput"):  # a pytest-xdist worker: its controller writes
            return []
        wanted = [(self.config.getoption(option), render) for option, render in (
            ("conformance_markdown", report_render.render_markdown), ("conformance_json", report_render.render_json))]
        wanted = [(path, render) for path, render in wanted if path]
        if not wanted or not self.results:
            return []
        matrices = self.matrices(state)
        for path, render in wanted:
            partial = f"{path}.partial"
            with open(partial, "w", encoding="utf-8") as f:
                f.write(render(matrices))
            os.replace(partial, path)
        return [path for path, _ in wanted]

    def pytest_sessionfinish(self, session, exitstatus):
        if self.results:
            self.written = self.write_files(self.state(session))

    def pytest_terminal_summary(self, terminalreporter):
        if not self.results:
            return
        matrices = self.matrices()
        if not self.config.getoption("no_conformance_report"):
            for m in matrices:
                terminalreporter.write_sep("=", f"conformance: {m.backend}")
                terminalreporter.write_line(report_render.render_text(m))
        failed = sum(1 for _, status, _ in self.results.values() if status == matrix.FAIL)
        if failed >= 10 and os.environ.get(PROFILE_ENV) != "fast":
            terminalreporter.write_line(f"{failed} tests failed: each spent its time shrinking the failure; "
                                        f"--fast (python -m candlewick.conformance) reports without shrinking")
        for path in getattr(self, "written", []):
            terminalreporter.write_line(f"conformance report written to {path}")
