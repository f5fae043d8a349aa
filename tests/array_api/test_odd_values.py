"""Every public callable, each of its parameters in turn given a value it cannot take (a
list nested deeper than Python's stack, a list holding itself, an object whose repr
raises, a two-element NumPy or candlewick array where one value is asked for, a huge
int, NaN, a string, bytes, a dict...), its other required parameters a small array
(and for some values a second of another shape and dtype, ``_OTHER_BASES``):
each call returns or raises one of the library's documented errors (fuzz_outcomes'
rule), with no warning escaping and no input changed.

The random fuzz (test_fuzz) draws such values too, but meets a given parameter with a
given value rarely: the deep fuzz of 2026-12-07 found one such case in 50,000 calls, and
this sweep failed 48 callables of the code as it then was (``x in ("a", "b")`` and
``bool(x)`` on an array, an error message quoting a value with ``repr``, a recursive walk
of a nest, an unchecked flag). NumPy's entry
points (``numpy.*`` targets) are left to test_fuzz: their parameters are NumPy's.
"""

import inspect

import numpy as np
import pytest

import candlewick as cw
from fuzz_arguments import HostileRepr, deep_list, holding_itself
from fuzz_outcomes import invoke_checked, problem_with
from fuzz_targets import public_targets

TARGETS = [(name, fn) for name, fn in public_targets() if not name.startswith("numpy.")]


def _odd_values(device):
    return [("a 5000-deep list", deep_list(5000)), ("a list holding itself", holding_itself()),
            ("an object whose repr raises", HostileRepr()), ("a 2-element ndarray", np.array([1, 1])),
            ("a 2-element array", cw.asarray([1, 1], device=device)), ("nan", float("nan")),
            ("inf", float("inf")), ("10**30", 10**30), ("-10**30", -(10**30)), ("-7", -7), ("1j", 1j),
            ("a string", "bogus"), ("bytes", b"ab"), ("a dict", {"a": 1}), ("a set", {1, 2}), ("None", None)]


def _plain_base(device):
    """a float64 matrix"""
    return cw.ones((2, 3), device=device)


def _square_complex(device):
    """a square complex64 matrix"""
    return cw.eye(2, dtype=cw.complex64, device=device)


def _int8_scalar(device):
    """a 0-d int8 array"""
    return cw.asarray(3, dtype=cw.int8, device=device)


def _float16_square(device):
    """a square float16 matrix"""
    return cw.ones((3, 3), dtype=cw.float16, device=device)


#: the other required parameters' array: a float64 matrix, and for the values whose
#: outcome hung on it (a bug hidden behind an earlier refusal of a shape or dtype) each of
#: these too: a square matrix for linalg, a 0-d integer, a narrow float
_OTHER_BASES = (_square_complex, _int8_scalar, _float16_square)
_BASE_SENSITIVE = ("a 2-element ndarray", "10**30", "-10**30")


def _call(fn, params, i, value, base, device):
    args, kwargs = [], {}
    for j, p in enumerate(params):
        if j != i and p.default is not p.empty:
            continue  # an optional parameter other than the one under test: its default
        v = value if j == i else base(device)
        if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty):
            args.append(v)
        else:
            kwargs[p.name] = v
    if getattr(fn, "_takes_self", False):  # an Array method: called on a small array
        args.insert(0, base(device))
    return args, kwargs


def _calls(fn, device):
    """(parameter, value's label, args, kwargs) for each parameter and odd value."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    params = [p for p in signature.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    for i, target in enumerate(params):
        for label, value in _odd_values(device):
            yield target.name, label, *_call(fn, params, i, value, _plain_base, device)
            if label in _BASE_SENSITIVE:
                for other in _OTHER_BASES:
                    yield target.name, f"{label} (other operands: {other.__doc__})", *_call(fn, params, i, value, other,
                                                                                         device)


@pytest.mark.parametrize("name,fn", TARGETS, ids=[name for name, _ in TARGETS])
def test_each_parameter_refuses_odd_values_with_a_candlewick_error(name, fn, dev):
    on_reference = dev.backend == "cpu"
    problems = []
    for pname, label, args, kwargs in _calls(fn, dev):
        exc, result, warned, changed = invoke_checked(name, fn, args, kwargs, sync=dev.synchronize)
        reason = problem_with(name, exc, result, on_reference, is_class=isinstance(fn, type), warned=warned,
                              changed=changed)
        if reason is not None:
            problems.append(f"{pname}={label}: {reason}")
    assert not problems, f"{name}:\n" + "\n".join(problems)
