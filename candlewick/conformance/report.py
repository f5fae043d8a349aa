"""The conformance report: one primitive x dtype matrix per backend.

Rows are every primitive of the protocol (``candlewick/backend.py``: the backend and
device objects, the device's creation methods, the storage's primitives, then each
optional group's primitives); columns are every dtype, plus one for checks that take no
dtype. Each test of the suite is filed under the primitives it exercises (its
``primitive`` marker, else its name: ``test_unary`` tests ``unary``) and the dtypes of
its parameters. A cell is

* ``pass``: every test there passed;
* ``fail``: a test there failed (the cell lists the failing test ids);
* ``not declared``: the backend does not declare the dtype (``BackendDevice.dtypes``) or
  the optional group (``BackendDevice.capabilities``): never a failure;
* ``skipped``: its tests were skipped for another reason (the reason is kept);
* empty: the protocol asks nothing of that primitive for that dtype.

This module is plain Python (no pytest) so the matrix can be built and rendered anywhere.
"""

import inspect
import json
from dataclasses import dataclass, field

from candlewick import dtypes as dt
from candlewick.backend import OPTIONAL_PRIMITIVES, Backend, BackendDevice, BackendStorage
from candlewick.opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

#: reason prefix of a skip for a dtype or optional group the backend does not declare
NOT_DECLARED = "not declared"
#: the column of checks that take no dtype (the device object, synchronize, ...)
NO_DTYPE = "no dtype"
DTYPE_COLUMNS = tuple(d.name for d in dt.ALL_DTYPES) + (NO_DTYPE,)

PASS, FAIL, UNDECLARED, SKIPPED = "pass", "fail", NOT_DECLARED, "skipped"
#: an op enum parameter names the primitive that runs it
OP_PRIMITIVE = {UnaryOp: "unary", BinaryOp: "binary", CompareOp: "compare",
                ReduceOp: "reduce", ScanOp: "scan"}


def status_of(outcome, message):
    """A cell status from a pytest outcome ("passed", "failed", "skipped") and its message."""
    if outcome == "passed":
        return PASS
    if outcome == "failed":
        return FAIL
    return UNDECLARED if message.startswith(NOT_DECLARED) else SKIPPED


def _methods(protocol):
    return [n for n, v in protocol.__dict__.items() if inspect.isfunction(v) and not n.startswith("_")]


def protocol_rows():
    """``(row, optional group or None)`` for every primitive, in the protocol's order."""
    optional = {name: group for group, names in OPTIONAL_PRIMITIVES.items() for name in names}
    rows = [("backend object", None), ("device object", None)]
    rows += [(name, None) for name in _methods(BackendDevice)]
    rows += [(name, None) for name in _methods(BackendStorage) if name not in optional]
    for group, names in OPTIONAL_PRIMITIVES.items():
        rows += [(f"{group}.{name}", group) for name in names]
    return rows


ROWS = protocol_rows()
_ROW_NAMES = {row for row, _ in ROWS}
_ROW_OF_PRIMITIVE = {row.split(".")[-1]: row for row, _ in ROWS}
assert not set(_methods(Backend)) & _ROW_NAMES, "backend object methods are one row"


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
        for status in (FAIL, PASS, SKIPPED, UNDECLARED):
            if status in found:
                return status
        return ""

    def failed(self):
        return [test for test, (outcome, _) in self.outcomes.items() if outcome == FAIL]


@dataclass
class Matrix:
    """The report of one backend: ``cells[row][dtype column]``."""

    backend: str
    declared_dtypes: tuple
    capabilities: tuple
    cells: dict = field(default_factory=dict)

    def add(self, rows, dtype_columns, test_id, outcome, message=""):
        for row in rows:
            for column in dtype_columns:
                cell = self.cells.setdefault(row, {}).setdefault(column, Cell())
                cell.outcomes[test_id] = (outcome, message)

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
        """``[(row, column, test id, message)]`` in report order."""
        out = []
        for row, group in ROWS:
            for column in DTYPE_COLUMNS:
                if self.status(row, group, column) == FAIL:
                    cell = self.cells[row][column]
                    out += [(row, column, t, cell.outcomes[t][1]) for t in cell.failed()]
        return out

    def counts(self):
        counts = {PASS: 0, FAIL: 0, UNDECLARED: 0, SKIPPED: 0}
        for row, group in ROWS:
            for column in DTYPE_COLUMNS:
                status = self.status(row, group, column)
                if status:
                    counts[status] += 1
        return counts

    def to_json(self):
        rows = {}
        for row, group in ROWS:
            cells = {}
            for column in DTYPE_COLUMNS:
                status = self.status(row, group, column)
                if status:
                    cell = {"status": status}
                    if status == FAIL:
                        cell["failed"] = self.cells[row][column].failed()
                    cells[column] = cell
            rows[row] = {"group": group, "cells": cells}
        return {"backend": self.backend, "declared_dtypes": list(self.declared_dtypes),
                "capabilities": list(self.capabilities), "columns": list(DTYPE_COLUMNS),
                "counts": self.counts(), "rows": rows}


_SHORT = {PASS: "ok", FAIL: "FAIL", UNDECLARED: "n/d", SKIPPED: "skip", "": ""}
_ABBREV = {"bool": "bool", "bfloat16": "bf16", "complex64": "c64", "complex128": "c128", NO_DTYPE: "-"}


def _abbrev(column):
    if column in _ABBREV:
        return _ABBREV[column]
    return column.replace("uint", "u").replace("int", "i").replace("float", "f")


def render_text(matrix):
    """The matrix as fixed-width text for the terminal (ok, FAIL, n/d = not declared)."""
    heads = [_abbrev(c) for c in DTYPE_COLUMNS]
    width = max(len(r) for r, _ in ROWS)
    colw = [max(len(h), 4) for h in heads]
    lines = [f"conformance report for backend {matrix.backend!r} "
             f"(ok: pass, FAIL: fail, n/d: not declared, skip: skipped, blank: not asked)",
             " " * width + " " + " ".join(h.rjust(w) for h, w in zip(heads, colw))]
    for row, group in ROWS:
        cells = [_SHORT[matrix.status(row, group, c)].rjust(w) for c, w in zip(DTYPE_COLUMNS, colw)]
        lines.append(row.ljust(width) + " " + " ".join(cells))
    counts = matrix.counts()
    lines.append(", ".join(f"{n} {status}" for status, n in counts.items()) + " cells")
    for row, column, test, _ in matrix.failures():
        lines.append(f"FAIL {row} [{column}]: {test}")
    return "\n".join(lines)


def _anchor(backend, index):
    return f"fail-{backend}-{index + 1}"


def render_markdown(matrices):
    """Every backend's matrix as Markdown; a failing cell links to its failing test ids."""
    parts = ["# candlewick conformance report", "",
             "Cells: **pass**, **FAIL** (links to the failing tests), *not declared* (a dtype "
             "or optional group the backend does not declare: not a failure), skipped, or "
             "empty where the protocol asks nothing of that primitive for that dtype.", ""]
    for matrix in matrices:
        failures = matrix.failures()
        index = {(row, column): [] for row, column, _, _ in failures}
        for i, (row, column, _, _) in enumerate(failures):
            index[(row, column)].append(i)
        parts += [f"## backend `{matrix.backend}`", "",
                  "declared dtypes: " + ", ".join(matrix.declared_dtypes) + "; optional groups: "
                  + (", ".join(matrix.capabilities) or "none"), ""]
        parts.append("| primitive | " + " | ".join(DTYPE_COLUMNS) + " |")
        parts.append("|---" * (len(DTYPE_COLUMNS) + 1) + "|")
        for row, group in ROWS:
            cells = []
            for column in DTYPE_COLUMNS:
                status = matrix.status(row, group, column)
                if status == FAIL:
                    links = ", ".join(f"[{i + 1}](#{_anchor(matrix.backend, i)})" for i in index[(row, column)])
                    cells.append(f"**FAIL** {links}")
                elif status == UNDECLARED:
                    cells.append("*not declared*")
                else:
                    cells.append(status)
            parts.append(f"| {row} | " + " | ".join(cells) + " |")
        counts = matrix.counts()
        parts += ["", ", ".join(f"{n} {status}" for status, n in counts.items()) + " cells", ""]
        if failures:
            parts += ["### failing tests", ""]
            for i, (row, column, test, message) in enumerate(failures):
                first = message.strip().splitlines()[0] if message.strip() else ""
                parts.append(f'{i + 1}. <a id="{_anchor(matrix.backend, i)}"></a>{row} [{column}]: `{test}`'
                             + (f" — {first}" if first else ""))
            parts.append("")
    return "\n".join(parts)


def render_json(matrices):
    return json.dumps({"backends": [m.to_json() for m in matrices]}, indent=1)
