"""x[a:b:c] and its store back in C (candlewick._native.Item, Array.__getitem__ /
__setitem__ where built): the view the Python method makes (every Layout slot, before
anything reads it), the store back a no-op only where the Python method's is, every other
key and value the Python method's; x[i, j] = v of a 0-d v of x's dtype (a loop's store) the
storage's assign into the element, its errors the Python method's."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core, indexing
from candlewick.array import Array
from candlewick.errors import IndexKeyError, ReadOnlyError
from candlewick.layout import Layout

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

KEYS = [slice(None), slice(None, None, 2), slice(1, None, 3), slice(None, None, -1), slice(-3, None),
        slice(5, 2), slice(None, None, -3), slice(100, None), slice(-100, 3), slice(2, 3), slice(0, 1, 5),
        slice(3, None, 1), slice(None, 0, -1), slice(2**70, None), slice(-(2**70), 2**70, 2)]
BASES = {
    "1-D": lambda: cw.asarray(np.arange(10, dtype=np.float32)),
    "2-D": lambda: cw.asarray(np.arange(24, dtype=np.float64).reshape(6, 4)),
    "offset": lambda: cw.asarray(np.arange(24, dtype=np.float64).reshape(6, 4))[1:],
    "transposed": lambda: cw.asarray(np.arange(24, dtype=np.int32).reshape(4, 6)).T,
    "stepped": lambda: cw.asarray(np.arange(30, dtype=np.int64))[::3],
    "empty axis": lambda: cw.asarray(np.zeros((5, 0), np.float32)),
}


def _slots(layout):
    return (layout.shape, layout.strides, layout.offset, layout._contig, layout.dense_size)


@pytest.mark.parametrize("base", BASES)
def test_the_view_is_the_python_methods(base):
    x = BASES[base]()
    general = Array.__getitem__.__wrapped__
    for key in KEYS:
        fast, python = x[key], general(x, key)
        assert type(fast) is Array and fast._storage is x._storage
        assert _slots(fast._layout) == _slots(python._layout), (base, key)
        assert np.array_equal(cw.to_numpy(fast), cw.to_numpy(x)[key])


def _expand_keys(ndim):
    """Keys of one `:` per axis with Nones placed before, between and after them."""
    full = (slice(None),) * ndim
    return [full[:i] + (None,) * k + full[i:] for i in range(ndim + 1) for k in (1, 2)] + [
        (None,) + full + (None,), tuple(x for a in full for x in (a, None))]


@pytest.mark.parametrize("base", [*BASES, "length 1", "0-d"])
def test_new_axes_view_is_the_python_methods(base):
    # x[:, None] in C (a KMeans-like loop's nearest[:, None]): every slot as basic_layout's
    x = {"length 1": lambda: cw.asarray(np.arange(4.0).reshape(1, 4))[:, 1:3],
         "0-d": lambda: cw.asarray(np.float32(2))}.get(base, BASES.get(base))()
    general = Array.__getitem__.__wrapped__
    for key in _expand_keys(x.ndim):
        fast, python = x[key], general(x, key)
        assert type(fast) is Array and fast._storage is x._storage
        assert _slots(fast._layout) == _slots(python._layout), (base, key)
        assert np.array_equal(cw.to_numpy(fast), cw.to_numpy(x)[key])


def test_new_axes_keys_the_fast_path_leaves_to_the_python_method():
    x = cw.asarray(np.arange(6.0).reshape(2, 3))
    assert x[:, None].shape == (2, 1, 3)  # fewer `:` than axes
    assert x[::2, None, :].shape == (1, 1, 3) and x[1:, :, None].shape == (1, 3, 1)  # bounded slices
    assert x[..., None].shape == (2, 3, 1) and x[0, None].shape == (1, 3)
    with pytest.raises(IndexKeyError):
        x[:, :, :, None]  # too many indices: the Python method's error
    with pytest.raises(Exception):
        x[(slice(None),) * 2 + (None,) * 70]  # past 64 axes


@pytest.mark.parametrize("base", BASES)
def test_the_store_back_is_a_no_op_where_the_python_methods_is(base):
    x = BASES[base]()
    host = cw.to_numpy(x).copy()
    for key in KEYS:
        x[key] = x[key]  # its own place: nothing written
        v = x[key]
        v += 1
        x[key] = v  # (x[key] += 1)
        host[key] += 1
        assert np.array_equal(cw.to_numpy(x), host), (base, key)
    if x.shape[0] > 2:
        x[1:] = x[:-1]  # another place: written (NumPy's overlap rule)
        host[1:] = host[:-1].copy()
        assert np.array_equal(cw.to_numpy(x), host)


def test_other_keys_values_and_errors_are_the_python_methods():
    x = cw.asarray(np.arange(10, dtype=np.float32))
    assert x[2] == 2 and x[(slice(1, 3),)].shape == (2,) and x[..., ::2].shape == (5,)
    assert x[np.int64(1):np.int64(3)].shape == (2,)  # (NumPy integer bounds: the Python method)
    with pytest.raises(IndexKeyError, match="step must not be zero"):
        x[::0]
    with pytest.raises(IndexKeyError, match="integers or None"):
        x[1.5:]
    with pytest.raises(IndexKeyError, match="step must not be zero"):
        x[::0] = x[::1]
    x[::2] = 7.0
    assert cw.to_numpy(x)[::2].tolist() == [7.0] * 5
    zero_d = cw.asarray(np.float32(1))
    with pytest.raises(Exception):
        zero_d[::2]
    ro = np.arange(4, dtype=np.float32)
    ro.flags.writeable = False
    r = cw.from_dlpack(ro)
    with pytest.raises(ReadOnlyError, match="read-only"):
        r[::2] = r[::2]
    b = cw.broadcast_to(cw.asarray(np.ones(1, np.float32)), (4,))
    with pytest.raises(ReadOnlyError, match="broadcast"):
        b[::2] = b[::2]


def test_lazy_mode_and_the_unbound_module_take_the_python_method():
    x = cw.asarray(np.arange(6, dtype=np.float32))
    with cw.lazy():
        x[::2] += 1.0
    assert cw.to_numpy(x).tolist() == [1, 1, 3, 3, 5, 5]
    _core._native.unbind()
    try:
        x[1::2] += 1.0
        assert x[::3].shape == (2,)
    finally:
        _core.bind_native(Array)
    assert cw.to_numpy(x).tolist() == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("base", BASES)
def test_an_element_store_of_a_0d_value_is_the_storages_assign(base, monkeypatch):
    x = BASES[base]()
    if 0 in x.shape:
        return
    host = cw.to_numpy(x).copy()
    assigned = []
    cls = type(x._storage)
    real_assign = cls.assign

    def spy(storage, dst, src, src_layout):
        assigned.append(_slots(dst))
        return real_assign(storage, dst, src, src_layout)

    def not_reached(*args):
        raise AssertionError("the Python method ran")

    monkeypatch.setattr(cls, "assign", spy)
    monkeypatch.setattr(indexing, "element_layout", not_reached)
    rng = np.random.default_rng(0)
    for _ in range(20):
        key = tuple(int(rng.integers(-n, n)) for n in x.shape)
        value = cw.asarray(rng.integers(0, 100), dtype=x.dtype)
        x[key] = value
        host[key] = cw.to_numpy(value)
        layout = x._layout
        offset = layout.offset + sum((k % n) * s for k, n, s in zip(key, layout.shape, layout.strides))
        assert assigned[-1] == _slots(Layout((), (), offset))
    assert len(assigned) == 20
    assert np.array_equal(cw.to_numpy(x), host)


@pytest.mark.parametrize("base", BASES)
def test_an_element_store_copies_through_element_assign_directly(base, monkeypatch):
    """With the storage class's own assign (an ElementAssign), the store copies the element
    from C without calling it: NumPy's values, every other element untouched, a value
    that is itself a view of another array read at its offset."""
    x = BASES[base]()
    if 0 in x.shape:
        return
    assert type(type(x._storage).__dict__["assign"]) is _core._native.ElementAssign

    def not_reached(*args):
        raise AssertionError("the Python method ran")

    monkeypatch.setattr(indexing, "element_layout", not_reached)
    host = cw.to_numpy(x).copy()
    source = cw.asarray(np.arange(50, 150).astype(host.dtype))
    rng = np.random.default_rng(1)
    for _ in range(20):
        key = tuple(int(rng.integers(-n, n)) for n in x.shape)
        at = int(rng.integers(0, 100))
        x[key] = source[at]  # a 0-d view at an offset of another storage
        host[key] = 50 + at
    assert np.array_equal(cw.to_numpy(x), host)


def test_an_element_store_asks_read_only_where_a_subclass_defines_its_own():
    # the C store lets the writable buffer export answer read_only only for the storage
    # class whose read_only is the buffer's writability (CpuStorage's)
    x = cw.asarray(np.zeros((2, 2), np.float32))
    base = type(x._storage)

    class Frozen(base):
        __slots__ = ()
        read_only = property(lambda self: True)

    x._storage.__class__ = Frozen
    with pytest.raises(ReadOnlyError, match="read-only"):
        x[0, 1] = cw.asarray(np.float32(1))
    assert cw.to_numpy(x).sum() == 0
    x._storage.__class__ = base
    x[0, 1] = cw.asarray(np.float32(1))
    assert cw.to_numpy(x)[0, 1] == 1



def test_an_element_store_asks_again_once_the_storage_class_changes():
    # the C store keeps its answer for the last storage class it asked while the class's
    # type version tag stands: a read_only given to that class after stores that kept
    # the answer (the buffer's writability) is asked from then on
    x = cw.asarray(np.zeros((2, 2), np.float32))
    base = type(x._storage)

    class Later(base):
        __slots__ = ()

    one = cw.asarray(np.float32(1))
    x._storage.__class__ = one._storage.__class__ = Later  # (the copy takes one storage class)
    for _ in range(3):
        x[0, 0] = one
    Later.read_only = property(lambda self: True)
    with pytest.raises(ReadOnlyError, match="read-only"):
        x[0, 1] = one
    x._storage.__class__ = base
    x[0, 1] = cw.asarray(np.float32(2))
    assert cw.to_numpy(x).tolist() == [[1, 2], [0, 0]]


def test_element_stores_the_c_path_leaves_to_the_python_method():
    x = cw.asarray(np.zeros((3, 4), np.float32))
    with pytest.raises(IndexError, match="out of bounds"):
        x[3, 0] = cw.asarray(np.float32(1))
    with pytest.raises(IndexError, match="out of bounds"):
        x[0, -5] = cw.asarray(np.float32(1))
    x[1, 2] = cw.asarray(np.float64(2.5))  # another dtype: converted
    x[2, 3] = cw.asarray(np.ones((1, 1), np.float32))  # not 0-d: broadcast
    with pytest.raises(IndexKeyError, match="bool is not a valid index"):
        x[True, 1] = cw.asarray(np.float32(4))  # (not an int: the Python method's rule)
    assert cw.to_numpy(x)[1, 2] == 2.5 and cw.to_numpy(x)[2, 3] == 1 and cw.to_numpy(x).sum() == 3.5
    ro = np.zeros((2, 2), np.float32)
    ro.flags.writeable = False
    r = cw.from_dlpack(ro)
    with pytest.raises(ReadOnlyError, match="read-only"):
        r[0, 1] = cw.asarray(np.float32(1))
    b = cw.broadcast_to(cw.asarray(np.ones((1, 2), np.float32)), (3, 2))
    with pytest.raises(ReadOnlyError, match="broadcast"):
        b[0, 1] = cw.asarray(np.float32(1))
