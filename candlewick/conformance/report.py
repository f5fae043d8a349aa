"""The conformance report: one primitive x dtype matrix per backend.

Rows are every primitive of the protocol (``candlewick/backend.py``: the backend and
device objects, the device's creation methods, the storage's primitives, then each
optional group's primitives); columns are every dtype, plus one for checks that take no
dtype. Each test of the suite is filed under the primitives it exercises (its
``primitive`` marker, else its name: ``test_unary`` tests ``unary``) and the dtypes of
its parameters. A cell is

* ``pass``: every test there passed (marked when the backend raised warnings there);
* ``fail``: a test there failed (the report lists the failing tests and their assertions);
* ``blocked``: an earlier stage failed for this backend (``stages.py``), so its tests waited;
* ``not declared``: skipped, not declared by the backend (a dtype it leaves out of
  ``BackendDevice.dtypes``, or an optional group out of ``capabilities``): never a failure;
* ``skipped``: its tests were skipped for another reason (the reason is kept);
* empty: the protocol asks nothing of that primitive for that dtype.

This module is plain Python (no pytest) so the matrix can be built anywhere; the renderings
are ``report_render``'s.
"""

from dataclasses import dataclass, field

from candlewick import dtypes as dt
from candlewick.backend import OPTIONAL_PRIMITIVES, Backend, BackendDevice, BackendStorage, protocol_methods
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

from . import stages

#: reason prefix of a skip for a dtype or optional group the backend does not declare
NOT_DECLARED = "not declared by the backend"
#: the column of checks that take no dtype (the device object, synchronize, ...)
NO_DTYPE = "no dtype"
DTYPE_COLUMNS = tuple(d.name for d in dt.ALL_DTYPES) + (NO_DTYPE,)

#: the cell statuses (the JSON report's words); a cell shows the first that one of its tests has
PASS, FAIL, BLOCKED, UNDECLARED, SKIPPED = "pass", "fail", stages.BLOCKED, "not declared", "skipped"
PRECEDENCE = (FAIL, BLOCKED, PASS, SKIPPED, UNDECLARED)
#: an op enum parameter names the primitive that runs it
OP_PRIMITIVE = {UnaryOp: "unary", BinaryOp: "binary", CompareOp: "compare",
                ReduceOp: "reduce", ScanOp: "scan"}


def status_of(outcome, message):
    """A cell status from a pytest outcome ("passed", "failed", "skipped") and its message."""
    if outcome == "passed":
        return PASS
    if outcome == "failed":
        return FAIL
    if message.startswith(stages.BLOCKED):
        return BLOCKED
    return UNDECLARED if message.startswith(NOT_DECLARED) else SKIPPED


def protocol_rows():
    """``(row, optional group or None)`` for every primitive, in the protocol's order."""
    optional = {name: group for group, names in OPTIONAL_PRIMITIVES.items() for name in names}
    rows = [("backend object", None), ("device object", None)]
    rows += [(name, None) for name in protocol_methods(BackendDevice)]
    rows += [(name, None) for name in protocol_methods(BackendStorage) if name not in optional]
    for group, names in OPTIONAL_PRIMITIVES.items():
        rows += [(f"{group}.{name}", group) for name in names]
    return rows


ROWS = protocol_rows()
_ROW_NAMES = {row for row, _ in ROWS}
_ROW_OF_PRIMITIVE = {row.split(".")[-1]: row for row, _ in ROWS}
assert not set(protocol_methods(Backend)) & _ROW_NAMES, "backend object methods are one row"


def row_of(primitive):
    """The report row of a primitive name (``"cholesky"`` -> ``"linalg.cholesky"``)."""
    row = _ROW_OF_PRIMITIVE.get(primitive, primitive)
    if row not in _ROW_NAMES:
        raise ValueError(f"conformance: {primitive!r} is no primitive of candlewick/backend.py; "
                         f"known: {sorted(_ROW_OF_PRIMITIVE)}")
    return row


def rows_of_test(test_name, marker_args, marker_param, params):
    """The rows a test exercises: the ``primitive`` marker's names, or the primitive named
    by its ``marker_param`` parameter (a name or an op enum member), else its own name."""
    if marker_param is not None:
        value = params[marker_param]
        return [row_of(OP_PRIMITIVE.get(type(value), value))]
    if marker_args:
        return [row_of(name) for name in marker_args]
    return [row_of(test_name.removeprefix("test_"))]


def dtypes_of_params(params):
    """The dtype columns of a test: every DType among its parameters (or the no-dtype column)."""
    names = [v.name for v in params.values() if isinstance(v, dt.DType)]
    return list(dict.fromkeys(names)) or [NO_DTYPE]


@dataclass
class Cell:
    outcomes: dict = field(default_factory=dict)  # test id -> (outcome, message)

    @property
    def status(self):
        found = {outcome for outcome, _ in self.outcomes.values()}
        return next((status for status in PRECEDENCE if status in found), "")

    def failed(self):
        return [test for test, (outcome, _) in self.outcomes.items() if outcome == FAIL]


@dataclass
class Matrix:
    """The report of one backend: ``cells[row][dtype column]``."""

    backend: str
    declared_dtypes: tuple
    capabilities: tuple
    cells: dict = field(default_factory=dict)
    tests: dict = field(default_factory=dict)  # test id -> (status, stage index)
    warnings: dict = field(default_factory=dict)  # test id -> [warning text], the backend's
    #: "complete", or what the run had reached ("in progress: ...", "interrupted: ...")
    state: str = "complete"
    #: whether a failed stage blocked the later ones (False: --no-stages)
    staged: bool = True

    def add(self, rows, dtype_columns, test_id, outcome, message="", stage=None, warnings=()):
        for row in rows:
            for column in dtype_columns:
                cell = self.cells.setdefault(row, {}).setdefault(column, Cell())
                cell.outcomes[test_id] = (outcome, message)
        self.tests[test_id] = (outcome, stages.stage_of(rows) if stage is None else stage)
        if warnings:
            self.warnings[test_id] = list(warnings)

    def warned(self, row, column):
        """Whether the backend raised a warning in a test of this cell."""
        cell = self.cells.get(row, {}).get(column)
        return cell is not None and any(test in self.warnings for test in cell.outcomes)

    def stage_counts(self):
        """``[(stage name, {status: tests})]`` in run order (tests, not cells)."""
        counts = [(name, {}) for name, _ in stages.STAGES]
        for status, stage in self.tests.values():
            tally = counts[stage][1]
            tally[status] = tally.get(status, 0) + 1
        return counts

    def blocking_stage(self):
        """The first stage with a failure that blocked later ones, or None."""
        if not self.staged:
            return None
        for name, tally in self.stage_counts()[:len(stages.BLOCKING)]:
            if tally.get(FAIL):
                return name
        return None

    def status(self, row, group, column):
        cell = self.cells.get(row, {}).get(column)
        if cell is None:
            return ""  # nothing asked of this primitive for this dtype (in this run)
        if group is not None and group not in self.capabilities:
            return UNDECLARED
        if column != NO_DTYPE and column not in self.declared_dtypes:
            return UNDECLARED
        return cell.status

    def failures(self):
        """``[(test id, message, [(row, column), ...])]``: each failing test once, in report
        order, with the failing cells it is filed under."""
        found = {}
        for row, group in ROWS:
            for column in DTYPE_COLUMNS:
                if self.status(row, group, column) == FAIL:
                    cell = self.cells[row][column]
                    for test in cell.failed():
                        found.setdefault(test, (cell.outcomes[test][1], []))[1].append((row, column))
        return [(test, message, cells) for test, (message, cells) in found.items()]

    def counts(self):
        counts = {PASS: 0, FAIL: 0, BLOCKED: 0, UNDECLARED: 0, SKIPPED: 0}
        for row, group in ROWS:
            for column in DTYPE_COLUMNS:
                status = self.status(row, group, column)
                if status:
                    counts[status] += 1
        return counts
