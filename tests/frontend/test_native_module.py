"""candlewick._native, the optional C module: CI builds it, candlewick binds it to Array
at import, and a class it cannot bind leaves the Python paths running (its parts:
test_native_rows.py, test_native_elementwise.py)."""

import os

import numpy as np
import pytest

import candlewick as cw
from candlewick import _core
from candlewick.array import Array
from candlewick.layout import Layout

needs_c = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here (no C compiler)")


def test_ci_built_the_extension():
    if os.environ.get("CANDLEWICK_REQUIRE_NATIVE") != "1":
        pytest.skip("only where the build is required to compile candlewick/_native*.c (CI)")
    assert _core._native is not None, "candlewick._native was not built: setup.py's optional extension failed"


@needs_c
def test_bound_to_array_at_import():
    assert _core._native.bound_class() is Array


@pytest.fixture
def rebind():
    yield _core._native
    _core.bind_native(Array)
    assert _core._native.bound_class() is Array


@needs_c
def test_bind_refuses_what_it_cannot_fill(rebind):
    class NoSlots:
        pass

    with pytest.raises(TypeError, match="NoSlots._storage is not an object slot"):
        rebind.bind(Layout, NoSlots, {}, _core.contiguous_layout)
    with pytest.raises(TypeError, match="contiguous_layout must be callable"):
        rebind.bind(Layout, Array, {}, None)
    with pytest.raises(TypeError):
        rebind.bind(Layout, Array, [], _core.contiguous_layout)
    # each failed bind left the previous one whole
    assert rebind.bound_class() is Array
    x = cw.asarray(np.ones((2, 2), np.float32))
    assert len(cw.unstack(x)) == 2
    assert cw.add(x, x).tolist() == [[2.0, 2.0], [2.0, 2.0]]


@needs_c
def test_bind_refuses_a_slot_of_an_unrelated_class(rebind):
    """A member descriptor of an unrelated class set on the array class reads another
    layout's offset: getattr on an instance refuses it, and so does bind (it read there)."""
    class Foreign:
        __slots__ = ("_storage",)

    class Stranger:
        __slots__ = ("_layout", "_dtype", "_device", "spare")

    Stranger._storage = Foreign.__dict__["_storage"]
    with pytest.raises(TypeError, match="_storage"):
        Stranger()._storage
    with pytest.raises(TypeError, match="Stranger._storage is not an object slot"):
        rebind.bind(Layout, Stranger, {}, _core.contiguous_layout)
    assert rebind.bound_class() is Array


@needs_c
def test_python_paths_after_a_class_it_cannot_bind(rebind):
    class NoSlots:
        pass

    _core.bind_native(NoSlots)  # as bind_native answers a class whose slots it cannot fill
    assert rebind.bound_class() is None
    x = cw.asarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert [r.tolist() for r in cw.unstack(x)] == [[0, 1, 2], [3, 4, 5]]
    assert cw.multiply(x, x).tolist() == [[0, 1, 4], [9, 16, 25]]
    assert cw.negative(x).tolist() == [[0, -1, -2], [-3, -4, -5]]
