"""``x[mask] = value`` for a 1-D mask over x's first axis and a value with a row per
selected element (``advanced_indexing._mask_rows_setitem``): NumPy's values, and for every
value the count decides against, the general path's error (the same key written
``(mask, ...)`` takes the general path)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import advanced_indexing

MASKS = [[1, 1, 1, 1, 1, 1], [0, 1, 0, 1, 1, 0], [0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0]]


def _values(count, rest, seed):
    rng = np.random.default_rng(seed)
    yield rng.standard_normal((count,) + rest)
    yield rng.integers(-5, 5, (count,) + rest)  # converted to x's dtype, as the general path does
    if rest:
        yield rng.standard_normal((count, 1))  # a row broadcast along the rest
    yield rng.standard_normal((count + 1,) + rest)  # the count decides against it: an error
    if count > 1:
        yield rng.standard_normal((count - 1,) + rest)


def _outcome(fn):
    try:
        return cw.to_numpy(fn())
    except Exception as exc:  # noqa: BLE001 - the two paths' errors are compared
        return type(exc), str(exc)


@pytest.mark.parametrize("rest", [(), (3,)])
@pytest.mark.parametrize("bits", MASKS)
def test_rows_under_a_mask_are_written_as_numpy_and_the_general_path_write_them(device, rest, bits):
    host = np.arange(6 * int(np.prod(rest)), dtype=np.float64).reshape((6,) + rest)
    mask_host = np.array(bits, dtype=bool)
    for value in _values(int(mask_host.sum()), rest, len(bits)):
        x, y = cw.asarray(host, device=device), cw.asarray(host, device=device)
        mask = cw.asarray(mask_host, device=device)
        v = cw.asarray(value, device=device)

        def fast():
            x[mask] = v
            return x

        def general():
            y[mask, ...] = v
            return y

        got, want = _outcome(fast), _outcome(general)
        if isinstance(want, np.ndarray):
            expected = host.copy()
            expected[mask_host] = value
            np.testing.assert_array_equal(got, expected)
            np.testing.assert_array_equal(want, expected)
        else:
            assert got == want, (bits, value.shape)


def test_the_rows_path_is_the_one_taken(device, monkeypatch):
    calls = []
    original = advanced_indexing._mask_rows_setitem
    monkeypatch.setattr(advanced_indexing, "_mask_rows_setitem", lambda *a: calls.append(1) or original(*a))
    x = cw.asarray(np.zeros(4), device=device)
    x[cw.asarray([True, False, True, False], device=device)] = cw.asarray([1.0, 2.0], device=device)
    assert calls == [1] and cw.to_numpy(x).tolist() == [1.0, 0.0, 2.0, 0.0]
    x[cw.asarray([True, False, True, False], device=device)] = 5.0  # a scalar: the where, not this path
    assert calls == [1]
