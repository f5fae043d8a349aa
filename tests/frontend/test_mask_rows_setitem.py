"""``x[mask] = value`` for a 1-D mask over x's first axis and a value with a row per
selected element (``advanced_indexing._mask_rows_setitem``, from ``__setitem__``'s short
path ``mask_rows`` or, for a value to convert or broadcast, from the general one): NumPy's
values, and for every value the count decides against, the general path's error (the same
key written ``(mask, ...)`` takes the general path)."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import advanced_indexing, indexing
from candlewick.errors import ShapeError

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


def test_the_rows_paths_are_the_ones_taken(device, monkeypatch):
    short, rows = [], []
    original_short, original_rows = indexing.mask_rows, advanced_indexing._mask_rows_setitem
    monkeypatch.setattr(indexing, "mask_rows", lambda *a: short.append(original_short(*a)) or short[-1])
    monkeypatch.setattr(advanced_indexing, "_mask_rows_setitem", lambda *a: rows.append(1) or original_rows(*a))
    x = cw.asarray(np.zeros(4), device=device)
    mask = cw.asarray([True, False, True, False], device=device)
    x[mask] = cw.asarray([1.0, 2.0], device=device)  # x's dtype: the short path's rows, no general path
    assert short == [True] and rows == [1] and cw.to_numpy(x).tolist() == [1.0, 0.0, 2.0, 0.0]
    x[mask] = cw.asarray([3, 4], device=device)  # to convert: the general path's rows
    assert short == [True, False] and rows == [1, 1] and cw.to_numpy(x).tolist() == [3.0, 0.0, 4.0, 0.0]
    x[mask] = 5.0  # a scalar: the where, neither rows path
    assert short == [True, False] and rows == [1, 1] and cw.to_numpy(x).tolist() == [5.0, 0.0, 5.0, 0.0]


@pytest.mark.parametrize("shape", [(0,), (0, 3), (5, 2)])
def test_the_short_path_on_empty_and_unselected_rows(device, shape):
    host = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    x = cw.asarray(host, device=device)
    x[cw.asarray(np.zeros(shape[0], dtype=bool), device=device)] = cw.asarray(np.zeros((0,) + shape[1:], np.float32),
                                                                             device=device)
    np.testing.assert_array_equal(cw.to_numpy(x), host)  # nothing selected: nothing written
    with pytest.raises(ShapeError):
        x[cw.asarray(np.zeros(shape[0], dtype=bool), device=device)] = cw.asarray(
            np.zeros((2,) + shape[1:], np.float32), device=device)
    np.testing.assert_array_equal(cw.to_numpy(x), host)  # the refused write left x as it was
