"""The conformance report's renderings: fixed-width text for the terminal, Markdown and
JSON for files (``report.Matrix`` holds the data)."""

import json

from .report import (BLOCKED, DTYPE_COLUMNS, FAIL, NO_DTYPE, NOT_DECLARED, PASS, ROWS, SKIPPED, UNDECLARED)

#: lines of a failure's message shown in the Markdown report (the rest: pytest's output)
MESSAGE_LINES = 24
_SHORT = {PASS: "ok", FAIL: "FAIL", BLOCKED: "blkd", UNDECLARED: "n/d", SKIPPED: "skip", "": ""}
_ABBREV = {"bool": "bool", "bfloat16": "bf16", "complex64": "c64", "complex128": "c128", NO_DTYPE: "-"}
_COUNT_WORDS = {PASS: "pass", FAIL: "fail", BLOCKED: "blocked", UNDECLARED: f"skipped ({NOT_DECLARED})",
                SKIPPED: "skipped (other reasons)"}


def _abbrev(column):
    if column in _ABBREV:
        return _ABBREV[column]
    return column.replace("uint", "u").replace("int", "i").replace("float", "f")


def _counts_line(matrix):
    return ", ".join(f"{n} {_COUNT_WORDS[status]}" for status, n in matrix.counts().items()) + " cells"


def _stage_line(name, tally):
    parts = ", ".join(f"{n} {status}" for status, n in sorted(tally.items())) or "not run"
    return f"{name}: {parts}"


def render_text(matrix):
    """The matrix as fixed-width text for the terminal."""
    heads = [_abbrev(c) for c in DTYPE_COLUMNS]
    width = max(len(r) for r, _ in ROWS)
    colw = [max(len(h), 4) for h in heads]
    lines = [f"conformance report for backend {matrix.backend!r} (ok: pass, ok!: pass with warnings from the "
             f"backend, FAIL: fail, blkd: blocked by an earlier stage, n/d: skipped, {NOT_DECLARED}, "
             f"skip: skipped, blank: not asked)",
             " " * width + " " + " ".join(h.rjust(w) for h, w in zip(heads, colw))]
    for row, group in ROWS:
        cells = []
        for column, w in zip(DTYPE_COLUMNS, colw):
            status = matrix.status(row, group, column)
            mark = "!" if status == PASS and matrix.warned(row, column) else ""
            cells.append((_SHORT[status] + mark).rjust(w))
        lines.append(row.ljust(width) + " " + " ".join(cells))
    lines.append(_counts_line(matrix))
    lines += ["stage " + _stage_line(name, tally) for name, tally in matrix.stage_counts()]
    blocking = matrix.blocking_stage()
    if blocking:
        lines.append(f"stage {blocking!r} failed: the later stages wait for it (blocked), fix it first")
    for test, message, cells in matrix.failures():
        where = ", ".join(f"{row} [{column}]" for row, column in cells)
        first = message.strip().splitlines()[0] if message.strip() else ""
        lines.append(f"FAIL {where}: {test}" + (f"\n     {first}" if first else ""))
    if matrix.warnings:
        lines.append(f"{len(matrix.warnings)} test(s) saw warnings from the backend (listed in the "
                     f"Markdown and JSON reports)")
    return "\n".join(lines)


def _anchor(backend, index):
    return f"fail-{backend}-{index + 1}"


def _message_block(message):
    lines = message.strip().splitlines()
    if len(lines) > MESSAGE_LINES:
        lines = lines[:MESSAGE_LINES] + [f"... ({len(lines) - MESSAGE_LINES} more lines in pytest's output)"]
    return ["   ```", *("   " + line for line in lines), "   ```"]


def _warning_groups(matrix):
    """``{warning text: [test ids]}`` of the backend's warnings."""
    groups = {}
    for test, texts in matrix.warnings.items():
        for text in dict.fromkeys(texts):
            groups.setdefault(text, []).append(test)
    return groups


def render_markdown(matrices):
    """Every backend's matrix as Markdown: the stages, the table (a failing cell links to
    its failing tests), each failure with its assertion, the backend's warnings."""
    parts = ["# candlewick conformance report", "",
             "Cells: **pass** (⚠: the backend raised warnings there, listed below), **FAIL** (links to "
             "the failing tests and their assertions), *blocked* (an earlier stage failed for this "
             f"backend: its tests wait for it), *skipped: {NOT_DECLARED}* (a dtype or optional group "
             "the backend does not declare: not a failure), skipped (another reason), or empty where "
             "the protocol asks nothing of that primitive for that dtype.", ""]
    for matrix in matrices:
        failures = matrix.failures()
        links = {}
        for i, (_, _, cells) in enumerate(failures):
            for cell in cells:
                links.setdefault(cell, []).append(i)
        parts += [f"## backend `{matrix.backend}`", ""]
        if matrix.state != "complete":
            parts += [f"**This report is partial: {matrix.state}.**", ""]
        parts += ["declared dtypes: " + ", ".join(matrix.declared_dtypes) + "; optional groups: "
                  + (", ".join(matrix.capabilities) or "none"), "",
                  "Stages (run in this order; a failure in one of the first two blocks the later ones):", ""]
        parts += [f"- {_stage_line(name, tally)}" for name, tally in matrix.stage_counts()]
        blocking = matrix.blocking_stage()
        if blocking:
            parts += ["", f"**Stage '{blocking}' failed**: every later test reads its results through it, "
                          "so they are blocked until it passes (`--no-stages` runs them anyway)."]
        parts += ["", "| primitive | " + " | ".join(DTYPE_COLUMNS) + " |", "|---" * (len(DTYPE_COLUMNS) + 1) + "|"]
        for row, group in ROWS:
            cells = []
            for column in DTYPE_COLUMNS:
                status = matrix.status(row, group, column)
                if status == FAIL:
                    refs = ", ".join(f"[{i + 1}](#{_anchor(matrix.backend, i)})" for i in links[(row, column)])
                    cells.append(f"**FAIL** {refs}")
                elif status == UNDECLARED:
                    cells.append(f"*skipped: {NOT_DECLARED}*")
                elif status == BLOCKED:
                    cells.append("*blocked*")
                else:
                    cells.append(status + (" ⚠" if status == PASS and matrix.warned(row, column) else ""))
            parts.append(f"| {row} | " + " | ".join(cells) + " |")
        parts += ["", _counts_line(matrix), ""]
        if failures:
            parts += ["### failing tests", ""]
            for i, (test, message, cells) in enumerate(failures):
                where = ", ".join(f"{row} [{column}]" for row, column in cells)
                parts.append(f'{i + 1}. <a id="{_anchor(matrix.backend, i)}"></a>{where}: `{test}`')
                parts += _message_block(message) if message.strip() else []
            parts.append("")
        groups = _warning_groups(matrix)
        if groups:
            parts += ["### warnings raised by the backend", "",
                      "Warnings are no failures, but a user sees them: a NumPy RuntimeWarning usually means "
                      "an IEEE result (inf, NaN) the contract expects silently (`np.errstate`).", ""]
            for text, tests in groups.items():
                shown = ", ".join(f"`{t}`" for t in tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
                parts.append(f"- `{text}` in {len(tests)} test(s): {shown}")
            parts.append("")
    return "\n".join(parts)


def _json_of(matrix):
    rows = {}
    for row, group in ROWS:
        cells = {}
        for column in DTYPE_COLUMNS:
            status = matrix.status(row, group, column)
            if status:
                cell = {"status": status}
                if status == FAIL:
                    cell["failed"] = matrix.cells[row][column].failed()
                if matrix.warned(row, column):
                    cell["warnings"] = True
                cells[column] = cell
        rows[row] = {"group": group, "cells": cells}
    return {"backend": matrix.backend, "state": matrix.state, "declared_dtypes": list(matrix.declared_dtypes),
            "capabilities": list(matrix.capabilities), "columns": list(DTYPE_COLUMNS),
            "counts": matrix.counts(), "stages": dict(matrix.stage_counts()),
            "blocked_by": matrix.blocking_stage(), "rows": rows,
            "failures": [{"test": test, "message": message, "cells": [list(c) for c in cells]}
                         for test, message, cells in matrix.failures()],
            "warnings": [{"warning": text, "tests": tests} for text, tests in _warning_groups(matrix).items()]}


def render_json(matrices):
    return json.dumps({"backends": [_json_of(m) for m in matrices]}, indent=1)

