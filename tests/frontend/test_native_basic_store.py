"""x[key] = value for a tuple key of slices, ints, None and `...` and an array value in C
(candlewick._native.Item's store through cw_store_basic, where built): every key and
value leaves x as the Python method leaves it, or fails with its error; the common case
never reaches the Python method."""

import random

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick import array as array_module
from candlewick.array import Array

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

BASES = {
    "2-D": lambda: np.arange(24, dtype=np.float64).reshape(6, 4),
    "3-D": lambda: np.arange(60, dtype=np.float32).reshape(3, 4, 5),
    "1-D": lambda: np.arange(10, dtype=np.int32),
}


def _item(rng, n):
    kind = rng.randrange(9)
    if kind < 5:
        return slice(rng.choice([None, 0, 1, -2, 9]), rng.choice([None, 2, -1, 100]), rng.choice([None, 1, 2, -1]))
    if kind < 7:
        return rng.randrange(-n - 1, n + 1)  # some out of range
    return None if kind == 7 else Ellipsis


def _values(rng, host, key, dtype):
    """Values for x[key]: its shape, a broadcast row, a 0-d, another dtype, a leading 1,
    a shape that does not broadcast."""
    try:
        shape = host[key].shape
    except (IndexError, TypeError):
        shape = (2,)
    full = (np.arange(int(np.prod(shape))) * 3 + 1).reshape(shape)
    yield full.astype(dtype)
    yield full.astype(dtype).reshape(-1)[: shape[-1]] if shape and full.size else full.astype(dtype)
    yield np.asarray(7, dtype)
    yield full.astype(np.float16)
    yield full.astype(dtype).reshape((1,) + shape)
    yield np.ones(shape + (3,), dtype)


def _outcome(store, host, key, value):
    x = cw.asarray(host)
    try:
        store(x, key, cw.asarray(value))
    except Exception as exc:  # noqa: BLE001 - the two paths' errors are compared
        return type(exc), str(exc)
    return cw.to_numpy(x).tobytes()


@pytest.mark.parametrize("base", BASES)
def test_stores_leave_what_the_python_method_leaves(base):
    host = BASES[base]()
    general = Array.__setitem__.__wrapped__
    rng = random.Random(base)
    for _ in range(300):
        key = tuple(_item(rng, 4) for _ in range(rng.randrange(1, host.ndim + 2)))
        for value in _values(rng, host, key, host.dtype):
            fast, python = _outcome(Array.__setitem__, host, key, value), _outcome(general, host, key, value)
            assert fast == python, (base, key, value.shape, value.dtype)


def test_the_common_case_never_reaches_the_python_method(monkeypatch):
    def refuse(*args):
        raise AssertionError("the Python method ran")

    x = cw.asarray(np.zeros((8, 6), np.float32))
    block = cw.asarray(np.arange(12, dtype=np.float32).reshape(3, 4))
    storage_class = type(x._storage)
    assign = storage_class.assign
    shapes = []

    def recorded(storage, dst, src, src_layout):  # the protocol's assign: layouts of one shape
        shapes.append((dst.shape, src_layout.shape))
        return assign.__get__(storage, storage_class)(dst, src, src_layout)

    monkeypatch.setattr(storage_class, "assign", recorded)
    monkeypatch.setattr(array_module._indexing, "setitem", refuse)
    x[1:4, 2:] = block  # scikit-learn's distances[i:j, k:l] = chunk
    x[5, ::2] = block[0, :3]
    x[None, 6:8, ..., 0] = block[:1, 0]  # broadcast onto the view
    want = np.zeros((8, 6), np.float32)
    want[1:4, 2:] = np.arange(12).reshape(3, 4)
    want[5, ::2] = [0, 1, 2]
    want[6:8, 0] = 0
    assert np.array_equal(cw.to_numpy(x), want)
    assert shapes == [((3, 4), (3, 4)), ((3,), (3,)), ((1, 2), (1, 2))]


def test_what_the_python_method_keeps():
    ro = np.zeros((3, 3), np.float32)
    ro.flags.writeable = False
    spread = cw.broadcast_to(cw.asarray(np.zeros((1, 3), np.float32)), (3, 3))
    value = cw.asarray(np.ones((2, 2), np.float32))
    for x in (cw.from_dlpack(ro), spread):
        with pytest.raises(cw.errors.ReadOnlyError):
            x[:2, :2] = value
    x = cw.asarray(np.arange(9, dtype=np.float32).reshape(3, 3))
    x[1:, :] = x[:2, :]  # overlapping: read out first, as the contract says
    assert cw.to_numpy(x).tolist() == [[0, 1, 2], [0, 1, 2], [3, 4, 5]]
    with cw.lazy():
        y = cw.asarray(np.zeros((4, 4)))
        z = cw.asarray(np.ones((4, 4))) * 2.0
        y[1:3, ::3] = z[:2, :2]
        assert cw.to_numpy(y).sum() == 8.0
