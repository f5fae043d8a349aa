"""pytest plugin (entry point ``pytest11``): the conformance report.

Loaded in every pytest session where candlewick is installed (which imports candlewick
and NumPy), so it does nothing else unless conformance tests ran: it defines no fixture
(the suite's fixtures live in this package's conftest.py). Options:

* ``--conformance-markdown PATH`` / ``--conformance-json PATH``: write the report there.
* ``--no-conformance-report``: do not print the matrix at the end of the run.
"""

from candlewick import registry

from . import report as matrix  # (pytest names logreport's argument "report")

#: the ``user_properties`` key under which conftest.py files a test's rows and dtypes
PROPERTY = "candlewick_conformance"


def pytest_addoption(parser):
    group = parser.getgroup("candlewick-conformance", "candlewick conformance report")
    group.addoption("--conformance-markdown", metavar="PATH", default=None,
                    help="write the primitive x dtype conformance report as Markdown")
    group.addoption("--conformance-json", metavar="PATH", default=None,
                    help="write the primitive x dtype conformance report as JSON")
    group.addoption("--no-conformance-report", action="store_true", default=False,
                    help="do not print the conformance report at the end of the run")


def pytest_configure(config):
    config.addinivalue_line("markers", "conformance: backend conformance suite (candlewick.conformance)")
    config.addinivalue_line(
        "markers",
        "primitive(*names, param=None): the protocol primitives a conformance test exercises "
        "(or the parameter that names it); default: the test's name without test_",
    )
    config.pluginmanager.register(ReportCollector(config), "candlewick-conformance-report")


def _outcome(rep):
    """``(pytest outcome, message)``: the failure text, or the skip reason."""
    if rep.skipped:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        return "skipped", reason.removeprefix("Skipped: ")
    return rep.outcome, rep.longreprtext if rep.failed else ""


class ReportCollector:
    """Files each conformance test's outcome under its rows and dtypes; renders at the end."""

    def __init__(self, config):
        self.config = config
        self.results = {}  # test id -> ((backend, rows, dtype columns), outcome, message)

    def pytest_runtest_logreport(self, report):
        tags = dict(report.user_properties).get(PROPERTY)
        if tags is None:
            return
        # the call phase decides, unless setup did not get there or teardown failed
        if report.when == "call" or (report.when == "setup" and not report.passed) or (
                report.when == "teardown" and report.failed):
            self.results[report.nodeid] = (tags, *_outcome(report))

    def matrices(self):
        out = {}
        for test_id, ((backend, rows, columns), outcome, message) in self.results.items():
            if backend not in out:
                device = registry.get_device(backend)
                out[backend] = matrix.Matrix(
                    backend, tuple(d.name for d in device.dtypes), tuple(device.capabilities))
            out[backend].add(rows, columns, test_id, matrix.status_of(outcome, message), message)
        return list(out.values())

    def pytest_terminal_summary(self, terminalreporter):
        if not self.results:
            return
        matrices = self.matrices()
        if not self.config.getoption("no_conformance_report"):
            for m in matrices:
                terminalreporter.write_sep("=", f"conformance: {m.backend}")
                terminalreporter.write_line(matrix.render_text(m))
        for option, render in (("conformance_markdown", matrix.render_markdown),
                               ("conformance_json", matrix.render_json)):
            path = self.config.getoption(option)
            if path:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(render(matrices))
                terminalreporter.write_line(f"conformance report written to {path}")
