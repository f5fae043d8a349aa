"""Fuzz every public function of the namespace (and linalg/fft, the Array methods, the
inspection object) with random bad arguments: wrong types and dtypes, bad shapes,
out-of-range axes and indices, unknown keywords. Each call must either succeed or raise
one of the library's documented errors (see fuzz_support for the rule).

Every distinct finding of a function is collected over all its examples and reported
together; with CANDLEWICK_FUZZ_FINDINGS=<path> they are also appended to that file as
markdown, with a second kind of note that does not fail the test: a documented error
class raised by a Python builtin on unvalidated input (its message names no argument).
"""

import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings

from fuzz_support import (
    call_arguments, describe_call, finding_key, format_finding, invoke, keyword_pool,
    problem_with, public_targets, record_findings, soft_problem_with,
)

TARGETS = public_targets()
KEYWORDS = keyword_pool(TARGETS)
FINDINGS_FILE = os.environ.get("CANDLEWICK_FUZZ_FINDINGS")
# at least this many calls per function, whatever the profile says (more for a deep run:
# CANDLEWICK_FUZZ_EXAMPLES=1000)
MIN_EXAMPLES = int(os.environ.get("CANDLEWICK_FUZZ_EXAMPLES", "30"))


@pytest.mark.parametrize("name,fn", TARGETS, ids=[name for name, _ in TARGETS])
def test_fuzz_public_callable(name, fn, dev):
    findings = {}
    on_reference = dev.backend == "cpu"
    base = settings.default

    @settings(base, max_examples=max(base.max_examples, MIN_EXAMPLES), database=None,
              suppress_health_check=list(HealthCheck))
    @given(call=call_arguments(fn, KEYWORDS))
    def run(call):
        args, kwargs = call
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exc, result = invoke(name, fn, args, kwargs)
        reason = problem_with(name, exc, result, on_reference, is_class=isinstance(fn, type))
        if reason is not None:
            key = finding_key(name, exc, reason)
            if key not in findings:
                findings[key] = format_finding(name, exc, reason, describe_call(name, args, kwargs))
        soft = soft_problem_with(name, exc)
        if soft is not None:
            key = finding_key(name, exc, soft)
            if key not in notes:
                notes[key] = format_finding(name, exc, soft, describe_call(name, args, kwargs))

    notes = {}
    run()
    lines = list(findings.values())
    record_findings(FINDINGS_FILE, dev.name, name, lines)
    record_findings(FINDINGS_FILE, dev.name, f"{name} (message quality only)", list(notes.values()))
    assert not lines, f"{name}: {len(lines)} undocumented outcome(s):\n" + "\n".join(lines)
