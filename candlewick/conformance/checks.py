"""Reading results back and comparing them with the oracle.

Comparison rules (from the conformance brief and backend.py): integers, bools, copies
and indexing are exact (copies bit for bit); floating results are compared in units in
the last place (ULPs) of the result dtype, with NaN positions matching exactly and
infinities matching exactly; complex results are compared by magnitude of the error
relative to the expected value, after checking that each element is in the same
class (finite / infinite / NaN, C99 Annex G: a value with an infinite part is infinite).
"""

import math
from dataclasses import dataclass

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout

from .report import NOT_DECLARED
from .strategies import finfo

#: tolerance classes, in ULPs of the result dtype
EXACT = 0
ROUNDED = 1  # one correctly rounded operation (or f32 compute rounded to f16/bf16)
TRANSCENDENTAL = 4  # a few ULPs, what good libm / device math libraries guarantee


def read_result(storage, dtype, shape):
    """Check a returned storage (dtype, exact element count) and read it back whole."""
    shape = tuple(shape)
    assert storage.dtype is dtype, f"result dtype is {storage.dtype}, expected {dtype}"
    assert storage.size == math.prod(shape), (
        f"result storage has {storage.size} elements, expected exactly {math.prod(shape)} "
        f"(a new contiguous storage of shape {shape})"
    )
    host = storage.to_host(Layout.contiguous(shape))
    assert isinstance(host, np.ndarray), f"to_host returned {type(host).__name__}"
    assert host.dtype == dtype.numpy, f"to_host dtype {host.dtype}, expected {dtype.numpy}"
    assert host.shape == shape, f"to_host shape {host.shape}, expected {shape}"
    assert host.flags.c_contiguous, "to_host must return a C-contiguous array"
    return host


def read_permuted_result(storage, layout, dtype, shape):
    """``read_result`` of a primitive that returns its result's layout (``rfftn``): a dense
    permutation of ``shape`` over exactly the storage's elements, read back in ``shape``'s order."""
    shape = tuple(shape)
    assert tuple(layout.shape) == shape, f"result layout shape {tuple(layout.shape)}, expected {shape}"
    assert layout.is_dense_permutation(), f"result layout {layout} is not a dense permutation of {shape}"
    read_result(storage, dtype, (math.prod(shape),))
    host = storage.to_host(layout)
    assert host.shape == shape and host.flags.c_contiguous, "to_host must return a C-contiguous array of the shape"
    return host


def read_factor(result, dtype, shape):
    """``read_result``, or ``read_permuted_result`` of a ``(storage, layout)`` pair: the
    factors the protocol lets come with their layout (qr's Q, svd's U and Vh)."""
    if isinstance(result, tuple):
        return read_permuted_result(*result, dtype, shape)
    return read_result(result, dtype, shape)


def read_flat(storage):
    """Every element of a storage, in buffer order."""
    return storage.to_host(Layout.contiguous((storage.size,)))


def _report(bad, actual, expected, note=""):
    where = np.argwhere(bad)[:6]
    lines = [f"{int(bad.sum())} of {bad.size} elements differ{note}"]
    for i in where:
        t = tuple(int(k) for k in i)
        lines.append(f"  at {t}: got {actual[t]!r}, expected {expected[t]!r}")
    return "\n".join(lines)


def _check_shapes(actual, expected):
    assert actual.shape == expected.shape, f"shape {actual.shape}, expected {expected.shape}"


def assert_bitwise_equal(actual, expected):
    """Exact bit patterns (NaN payloads and -0.0 included): for pure data movement."""
    _check_shapes(actual, expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype}, expected {expected.dtype}"
    if actual.dtype == np.bool_:
        bad = actual != expected
    else:
        item = actual.dtype.itemsize
        a = np.ascontiguousarray(actual).view(np.uint8).reshape(actual.shape + (item,))
        e = np.ascontiguousarray(expected).view(np.uint8).reshape(expected.shape + (item,))
        bad = (a != e).any(axis=-1)
    if bad.any():
        raise AssertionError(_report(bad, actual, expected, " (bitwise)"))


def _ulp(values, info):
    """Spacing of the result dtype at each (float64) value; subnormal spacing at 0."""
    sub = float(info.smallest_subnormal)
    _, exp = np.frexp(np.abs(values))
    spacing = np.ldexp(float(info.eps), exp - 1)
    return np.where(values == 0, sub, np.maximum(spacing, sub))


def _complex_class(z):
    inf = np.isinf(z.real) | np.isinf(z.imag)
    nan = np.isnan(z.real) | np.isnan(z.imag)
    return np.where(inf, 2, np.where(nan, 1, 0))


@dataclass
class Expected:
    """An oracle result and how closely the backend must match it.

    ``ulps``: tolerance in ULPs of the result dtype (0: exact); ``atol``: an extra
    absolute tolerance (array or scalar) for ops whose error scales with something
    other than the result (sums, products of matrices); ``mask``: elements whose
    value the contract defines (others are only required not to fault);
    ``zero_sign``: -0.0 and +0.0 must match too.
    """

    values: np.ndarray
    ulps: float = EXACT
    atol: object = 0.0
    mask: object = None
    zero_sign: bool = False

    def check(self, actual):
        expected = np.asarray(self.values)
        _check_shapes(actual, expected)
        keep = np.ones(expected.shape, bool) if self.mask is None else np.asarray(self.mask)
        kind = actual.dtype.kind
        if actual.dtype == np.bool_ or kind in "iu":
            bad = keep & (actual != expected.astype(actual.dtype))
            if bad.any():
                raise AssertionError(_report(bad, actual, expected))
            return
        info = finfo(actual.dtype if kind != "c" else actual.real.dtype)
        if kind == "c":
            bad = self._complex_bad(actual.astype(np.complex128), expected.astype(np.complex128), info)
        else:
            bad = self._real_bad(actual.astype(np.float64), expected.astype(np.float64), info)
        bad &= keep
        if bad.any():
            raise AssertionError(_report(bad, actual, expected, f" (tolerance {self.ulps} ulp)"))

    def _real_bad(self, a, e, info):
        nan_a, nan_e = np.isnan(a), np.isnan(e)
        bad = nan_a != nan_e
        both = ~nan_a & ~nan_e
        special = both & (np.isinf(a) | np.isinf(e))
        bad |= special & (a != e)
        finite = both & ~special
        with np.errstate(invalid="ignore", over="ignore"):
            tol = self.ulps * _ulp(e, info) + self.atol
            bad |= finite & ~(np.abs(a - e) <= tol)
        if self.zero_sign:
            bad |= both & (a == 0) & (e == 0) & (np.signbit(a) != np.signbit(e))
        return bad

    def _complex_bad(self, a, e, info):
        ca, ce = _complex_class(a), _complex_class(e)
        bad = ca != ce
        finite = (ca == 0) & (ce == 0)
        if self.ulps == 0 and np.all(self.atol == 0):
            return bad | (finite & (a != e))
        with np.errstate(invalid="ignore", over="ignore"):
            rtol = self.ulps * float(info.eps)
            tol = rtol * np.abs(e) + self.ulps * float(info.smallest_subnormal) + self.atol
            bad |= finite & ~(np.abs(a - e) <= tol)
        return bad


def round_to(values, dtype):
    """Round float64/complex128 oracle values once to the result dtype (host repr)."""
    with np.errstate(all="ignore"):
        return np.asarray(values).astype(dtype.numpy)


def eps_of(dtype):
    """Machine epsilon of a floating or complex DType (of its real part)."""
    return float(finfo(dt.real_dtype_of(dtype).numpy).eps)


def accumulation_dtype(dtype):
    """float16/bfloat16 accumulate in float32 (backend.py); others in their own dtype."""
    return dt.float32 if dtype in (dt.float16, dt.bfloat16) else dtype


def sum_tolerance(abs_terms_sum, count, dtype):
    """Absolute tolerance for a sum of ``count`` terms whose magnitudes add up to
    ``abs_terms_sum``, accumulated in ``accumulation_dtype(dtype)``: the classic
    bound ``count * eps * sum|terms|`` (the final rounding is the caller's ulps)."""
    acc = accumulation_dtype(dtype)
    info = finfo(dt.real_dtype_of(acc).numpy)
    terms = max(count, 1) + 1
    # products that land among the subnormals carry an absolute, not relative, error
    return (np.asarray(abs_terms_sum, dtype=np.float64) * float(info.eps) * terms
            + float(info.smallest_subnormal) * terms)


def require_capability(device, group):
    """Optional groups (backend.OPTIONAL_CAPABILITIES) are tested only where declared."""
    if group not in device.capabilities:
        pytest.skip(f"{NOT_DECLARED}: {device.name} does not declare the optional {group!r} group")
