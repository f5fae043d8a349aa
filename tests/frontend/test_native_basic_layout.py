"""x[key] for a tuple key of slices, ints, None and `...` in C (candlewick._native.Item's
get through cw_basic_layout, where built): every Layout slot the Python method's
basic_layout makes, and every key it leaves (or that fails) the Python method's, with the
Python method's error."""

import random

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.array import Array

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

BASES = {
    "0-d": lambda: cw.asarray(np.float32(2)),
    "1-D": lambda: cw.asarray(np.arange(10, dtype=np.float32)),
    "2-D": lambda: cw.asarray(np.arange(24, dtype=np.float64).reshape(6, 4)),
    "offset": lambda: cw.asarray(np.arange(24, dtype=np.float64).reshape(6, 4))[1:],
    "transposed": lambda: cw.asarray(np.arange(24, dtype=np.int32).reshape(4, 6)).T,
    "3-D": lambda: cw.asarray(np.arange(60, dtype=np.int64).reshape(3, 4, 5))[:, ::2],
    "empty axis": lambda: cw.asarray(np.zeros((5, 0, 3), np.float32)),
    "length 1": lambda: cw.asarray(np.arange(8.0).reshape(1, 8))[:, 2:7],
}


def _slots(layout):
    return (layout.shape, layout.strides, layout.offset, layout._contig, layout.dense_size)


def _bound(rng):
    return rng.choice([None, None, 0, 1, 2, -1, -3, 7, 100, -100, 2**70, np.int64(2), np.int64(-2), True])


def _item(rng, n):
    kind = rng.randrange(10)
    if kind < 4:
        return slice(_bound(rng), _bound(rng), rng.choice([None, None, 1, 2, -1, -2, 3, np.int64(2), 2**70]))
    if kind < 6:
        return rng.randrange(-n - 1, n + 2)  # some out of range
    if kind < 8:
        return None
    if kind == 8:
        return Ellipsis
    return rng.choice([np.int64(1), 1.5, False, slice(0, 0, 0), slice(1.5, None), "a"])  # the Python method's


def _keys(ndim, count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        yield tuple(_item(rng, 4) for _ in range(rng.randrange(0, ndim + 3)))


def _outcome(get, x, key):
    try:
        view = get(x, key)
    except Exception as exc:  # noqa: BLE001 - the two paths' errors are compared
        return type(exc), str(exc)
    assert type(view) is Array and view._storage is x._storage
    return _slots(view._layout), cw.to_numpy(view).tolist()


@pytest.mark.parametrize("base", BASES)
def test_tuple_keys_give_the_python_methods_view_or_error(base):
    x = BASES[base]()
    general = Array.__getitem__.__wrapped__
    for key in _keys(x.ndim, 600, base):
        fast, python = _outcome(Array.__getitem__, x, key), _outcome(general, x, key)
        assert fast == python, (base, key)


def test_the_common_crops_are_views_as_numpy_makes_them():
    host = np.arange(78 * 80, dtype=np.float32).reshape(78, 80)
    x = cw.asarray(host)
    for key in [(slice(None), slice(8, 72)), (slice(np.int64(0), np.int64(78)), slice(np.int64(8), np.int64(72))),
                (3, 4), (-1, slice(None, None, -5)), (Ellipsis, None), (None, 2, Ellipsis, slice(1, 2))]:
        view = x[key]
        assert view._storage is x._storage
        assert np.array_equal(cw.to_numpy(view), host[key]), key


def test_the_python_method_takes_what_the_c_path_leaves():
    # a slice bound of a Python class (its __index__ runs Python code) and a NumPy bool key
    # item: never read in C, the Python method's answer
    calls = []

    class Counted:
        def __init__(self, i):
            self.i = i

        def __index__(self):
            calls.append(1)
            return self.i

    x = cw.asarray(np.arange(12.0).reshape(3, 4))
    assert cw.to_numpy(x[slice(Counted(1), None), 0]).tolist() == [4.0, 8.0]
    assert calls == [1]  # once: by the Python method's k.indices(n), not also by the C path
    with pytest.raises(Exception) as fast:
        x[np.bool_(True), 0]
    with pytest.raises(Exception) as python:
        Array.__getitem__.__wrapped__(x, (np.bool_(True), 0))
    assert (type(fast.value), str(fast.value)) == (type(python.value), str(python.value))
