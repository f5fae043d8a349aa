"""Fuzz every public callable found from the package (the namespace with its device and
backend API, linalg, fft, nn, random, a Generator, every Array method and operator in
both orders and in place, the inspection object) with random bad arguments: wrong types
and dtypes, special values, views, foreign operands, huge and negative sizes, out-of-range
axes and indices, unknown keywords. Each call must either succeed or raise one of the
library's documented errors (see fuzz_outcomes for the rule), with no warning escaping
and no input changed.

This is the bounded profile CI runs (``CANDLEWICK_FUZZ_EXAMPLES`` calls per callable, 30
by default). The deep profile, ``python tools/reliability_fuzz.py --device cpu --calls
100000``, runs the same callables, arguments and rule in memory-capped subprocess
batches and writes ``bench/results/reliability_<device>.md``.

Every distinct finding of a function is collected over all its examples and reported
together; with CANDLEWICK_FUZZ_FINDINGS=<path> they are also appended to that file as
markdown, with a second kind of note that does not fail the test: a candlewick error
whose message does not name the function.
"""

import os

import pytest
from hypothesis import HealthCheck, given, settings

import numpy as np

from fuzz_arguments import call_arguments, keyword_pool
from fuzz_outcomes import (
    _ufunc_outputs, describe_call, finding_key, format_finding, invoke_checked, problem_with, record_findings,
    soft_problem_with,
)
from fuzz_targets import _numpy_function_call, _numpy_ufunc_call, public_targets

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
        exc, result, warned, changed = invoke_checked(name, fn, args, kwargs, sync=dev.synchronize)
        reason = problem_with(name, exc, result, on_reference, is_class=isinstance(fn, type),
                              warned=warned, changed=changed)
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


def _self_holding():
    seq = [1.0]
    seq.append(seq)
    return seq


# Calls the fuzzer once found wrong, kept as fixed examples so that the derandomized CI
# profile (few examples) checks them on every run.
def _known_calls():
    import candlewick as cw

    x = cw.asarray([[3, -1, 0], [3, 0, 3]], dtype=cw.int32)
    return [
        ("zeros", cw.zeros, ((1, 2**62, 1),), {}),
        ("ones", cw.ones, ((1, 2**62, 1),), {}),
        ("empty", cw.empty, ((1, 2**62, 1),), {}),
        ("arange", cw.arange, (1e300,), {}),
        ("arange", cw.arange, (-1.5, -1.5, -1), {"dtype": cw.bool}),
        ("linspace", cw.linspace, (float("-inf"), -3, 2**62), {}),
        ("repeat", cw.repeat, (x, 2**62), {}),
        ("asarray", cw.asarray, (1j,), {"dtype": cw.float16}),
        ("Array.__getitem__", lambda a, k: a[k], (cw.asarray(0, dtype=cw.int8), [cw.get_device("cpu"), True, complex]), {}),
        ("Array.__add__", lambda a, *rest: a.__add__(*rest), (cw.ones(2), 1, "ortho"), {}),
        ("Array.__lt__", lambda a, *rest: a.__lt__(*rest), (cw.ones(2), -3, 1), {}),
        ("Array.__dlpack__", lambda a, **kw: a.__dlpack__(**kw), (cw.ones(2),), {"stream": 1}),
        # the rocm deep fuzz (2026-11-27): a foreign ValueError; an out-of-bounds gather whose
        # error a GPU reports at the next synchronize (the harness now synchronizes in the call)
        ("Array.__format__", lambda a, spec: format(a, spec), (cw.asarray(0, dtype=cw.uint8), "float32"), {}),
        ("take", cw.take, (cw.asarray([0, 0], dtype=cw.int32), cw.asarray([-1, 1, 3])), {}),
        # the widened fuzz (issue 41): NumPy's broadcasting helpers stop at 32 dimensions; a
        # list holding itself as a NumPy function's operand; a dtype name NumPy deprecated
        ("logaddexp", cw.logaddexp, (cw.ones((1,) * 40, dtype=cw.bool),
                                     cw.asarray([[[-0.0, 3.0]], [[3e38, 0.0]]], dtype=cw.float32)), {}),
        ("floor_divide", cw.floor_divide, (cw.ones((1,) * 40, dtype=cw.float32), 0.0), {}),
        ("clip", cw.clip, (cw.asarray([[[[-1.0]]], [[[-1.0]]]], dtype=cw.float16), cw.ones((1,) * 64, dtype=cw.float16)),
         {}),
        ("matmul", cw.matmul, (cw.asarray([[[float("nan")]], [[1.0]], [[2.0]]], dtype=cw.complex128),
                               cw.zeros((1,) * 62 + (1, 1), dtype=cw.int8)), {}),
        ("numpy.function", _numpy_function_call, (np.may_share_memory, cw.ones(3), _self_holding()), {}),
        ("numpy.function", _numpy_function_call, (np.concatenate, [cw.ones(3), _self_holding()]), {}),
        ("astype", cw.astype, (cw.ones(2), "a"), {}),
        ("can_cast", cw.can_cast, ("a", cw.ones(2)), {}),
        # the fuzz of random's new module functions (--only '^(random|Generator)\.'): an
        # integer argument that was a NumPy array of several elements, or the class int
        ("random.permutation", cw.random.permutation, (np.ones((2, 2)),), {"axis": None}),
        ("Generator.shuffle", cw.random.Generator(0).shuffle, (cw.zeros((2, 2), dtype=cw.uint8), np.ones((2, 2))), {}),
        ("random.integers", cw.random.integers, (cw.asarray([[0]], dtype=cw.int32),), {"high": int}),
        # the fuzz of the API landed on 2026-11-29 (streams, custom kernels, NumPy's names):
        # an argument of another type met an attribute lookup; a list among np.atleast_3d's
        # operands; repeated coordinates' divisions by zero warned from NumPy
        ("Stream.record_event", lambda event: cw.Stream("cpu").record_event(event), (cw.asarray(True),), {}),
        ("Event.wait", lambda stream: cw.Event("cpu").wait(stream), ("nope",), {}),
        ("numpy.function", _numpy_function_call,
         (np.atleast_3d, [cw.ones(0, dtype=cw.int8), cw.asarray([1, 2], dtype=cw.int16)], cw.ones(0, dtype=cw.int32)),
         {}),
        ("numpy.function", _numpy_function_call, (np.result_type, cw.asarray(1j, dtype=cw.complex64), [], "bogus"), {}),
        ("gradient", cw.gradient, (cw.asarray([[3.0, 2.0, float("inf")], [0.0, 1.0, 1.0], [float("inf"), 1.0, 2.0]]),
                                   cw.asarray([0, 0, 2], dtype=cw.uint32), cw.asarray([0, 0, 2], dtype=cw.uint32)), {}),
        # the rocm deep fuzz on an H200 (5bf3006): a flag that was a NumPy array; ufunc.at on a
        # scalar; bfloat16 probabilities; quantiles of an empty axis (a gather from it failed
        # at the next sync, after out= was written); np.divide's positional out (written on purpose)
        ("cumulative_prod", cw.cumulative_prod, (cw.asarray([], dtype=cw.uint64),), {"include_initial": np.ones((2, 2))}),
        ("numpy.ufunc", _numpy_ufunc_call, (np.bitwise_and, "at", complex("nan+1j"), cw.ones((1, 1), dtype=cw.bool), -1.0),
         {}),
        ("Generator.choice", cw.random.Generator(0).choice, (cw.asarray([0], dtype=cw.bfloat16),),
         {"p": cw.asarray([9.18355e-41], dtype=cw.bfloat16)}),
        ("nanpercentile", cw.nanpercentile, (cw.asarray([], dtype=cw.uint64), cw.asarray(0, dtype=cw.int32)),
         {"out": cw.asarray(False), "keepdims": False}),
        ("quantile", cw.quantile, (cw.asarray([], dtype=cw.uint8), cw.asarray(0, dtype=cw.uint8)), {"out": cw.asarray([True])}),
        ("numpy.ufunc", _numpy_ufunc_call, (np.divide, "__call__", 1e300, -np.inf, cw.asarray([-0.0], dtype=cw.float32)), {}),
    ]


@pytest.mark.parametrize("name,fn,args,kwargs", _known_calls(),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(_known_calls())])
def test_fuzz_findings_stay_fixed(name, fn, args, kwargs, dev):
    exc, result, warned, changed = invoke_checked(name, fn, list(args), kwargs, sync=dev.synchronize)
    reason = problem_with(name, exc, result, dev.backend == "cpu", warned=warned, changed=changed)
    assert reason is None, format_finding(name, exc, reason, describe_call(name, args, kwargs))


def test_a_ufuncs_out_is_written_on_purpose():
    """np.divide(a, b, o), out= (an array or a tuple), reduce's positional out and ufunc.at's
    array: the fuzz does not report them as changed inputs; another operand it does."""
    import candlewick as cw

    def call(ufunc, method, *inputs, **kwargs):
        return invoke_checked("numpy.ufunc", _numpy_ufunc_call, [ufunc, method, *inputs], kwargs)

    for ufunc, method, inputs, kwargs in [
        (np.divide, "__call__", (1.0, 4.0, cw.full(1, 5.0)), {}),
        (np.divide, "__call__", (1.0, 4.0), {"out": cw.full(1, 5.0)}),
        (np.divide, "__call__", (1.0, 4.0), {"out": (cw.full(1, 5.0),)}),
        (np.add, "reduce", (cw.ones(3), 0, None, cw.full((), 5.0)), {}),
        (np.add, "at", (cw.zeros(3), [0, 2], 1.0), {}),
    ]:
        exc, _, _, changed = call(ufunc, method, *inputs, **kwargs)
        assert exc is None and not changed, (ufunc, method, exc, changed)
    a, b, o = cw.ones(2), cw.ones(2), cw.ones(2)
    assert [id(w) for w in _ufunc_outputs([np.divide, "__call__", a, b, o], {})] == [id(o)]  # not the operands
    assert [id(w) for w in _ufunc_outputs([np.negative, "__call__", a], {"out": (o,)})] == [id(o)]
