"""The optional hook ``real_view`` (``candlewick.backend.ComplexViewStorage``): a complex
storage's memory as its real components, which ``candlewick.real``/``imag`` view through
the complex layout with strides and offset doubled (``complex_parts.part_layout``).

A backend that declares it is checked on every layout kind (transposed, stepped, offset,
negative strides, broadcast, 0-d, empty): the parts it reads, primitives run on the parts'
layouts, and writes through them landing in the complex storage (nowhere else). A backend
that does not declare it is checked on what the front end then calls: ``unary``'s
``real``/``imag``, copies of the parts, for the same layouts."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.complex_parts import part_layout
from candlewick.opdefs import BinaryOp, UnaryOp

from .checks import assert_bitwise_equal, read_flat, read_result
from .report import NOT_DECLARED
from .strategies import WRITABLE_KINDS, dtype_params, host_arrays, scalars, shapes, view_of

COMPLEX = dtype_params(dt.COMPLEX)
PARTS = [pytest.param(False, id="real"), pytest.param(True, id="imag")]


def _real_view(storage):
    """The storage's real_view, or None where its class does not declare one (or it
    declines this storage): the front end's own rule."""
    hook = getattr(type(storage), "real_view", None)
    return None if hook is None else hook(storage)


def _parts_of(x, imag):
    """The oracle: NumPy's real or imaginary parts of the viewed elements."""
    value = x.value()
    return np.array(value.imag if imag else value.real, order="C")  # (ascontiguousarray makes 0-d 1-d)


def _check_view(storage, parts, dtype):
    component = dt.real_dtype_of(dtype)
    assert parts.dtype is component, f"real_view dtype {parts.dtype}, expected {component}"
    assert parts.size == 2 * storage.size, f"real_view has {parts.size} elements, expected {2 * storage.size}"
    assert parts.device is storage.device, "real_view must stay on the storage's device"
    assert getattr(parts, "read_only", False) == getattr(storage, "read_only", False), (
        "real_view of a read-only storage must be read-only (and of a writable one writable)")


@pytest.mark.primitive("unary")
@pytest.mark.parametrize("imag", PARTS)
@pytest.mark.parametrize("dtype", COMPLEX)
@given(data=st.data())
def test_real_view_reads_the_parts(device, dtype, imag, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())), label="x")
    s = x.upload(device)
    shape = x.layout.shape
    expected = _parts_of(x, imag)
    parts = _real_view(s)
    if parts is None:  # not declared: the copies the front end takes instead
        op = UnaryOp.IMAG if imag else UnaryOp.REAL
        assert_bitwise_equal(read_result(s.unary(op, x.layout), dt.real_dtype_of(dtype), shape), expected)
        return
    _check_view(s, parts, dtype)
    layout = part_layout(x.layout, imag)
    assert_bitwise_equal(parts.to_host(layout), expected)
    assert_bitwise_equal(read_result(parts.copy(layout), parts.dtype, shape), expected)
    # a kernel reading both parts of each element from the one shared storage
    total = parts.binary(BinaryOp.ADD, part_layout(x.layout, False), parts, part_layout(x.layout, True))
    value = x.value()
    with np.errstate(all="ignore"):
        want = np.array(value.real + value.imag, order="C")
    got = read_result(total, parts.dtype, shape)
    assert np.array_equal(got, want, equal_nan=True), f"real + imag through the view: {got!r}, expected {want!r}"
    assert_bitwise_equal(read_flat(s), x.flat)  # reading wrote nothing


@pytest.mark.primitive("assign", "fill")
@pytest.mark.parametrize("imag", PARTS)
@pytest.mark.parametrize("dtype", COMPLEX)
@given(data=st.data())
def test_real_view_writes_land_in_the_complex_storage(device, dtype, imag, data):
    """Writes through the parts change exactly those components of the complex storage, as
    NumPy's ``z.real[...] = v`` does; a source in the same memory (the other part, or the
    parts reversed through a second ``real_view``) reads as if copied first."""
    shape = data.draw(shapes())
    x = data.draw(host_arrays(dtype, shape, kinds=WRITABLE_KINDS, writable=True), label="x")
    s = x.upload(device)
    parts = _real_view(s)
    if parts is None:
        pytest.skip(f"{NOT_DECLARED}: {device.name}'s storage does not declare real_view")
    component = dt.real_dtype_of(dtype)
    layout = part_layout(x.layout, imag)
    expected = x.flat.copy()
    components = expected.view(component.numpy)  # the oracle's parts, sharing its memory
    if not x.layout.size:  # (an empty view's offset may point past NumPy's buffer)
        components = np.empty(2 * (len(expected) + max(x.layout.offset, 0)) + 2, component.numpy)
    source = data.draw(st.sampled_from(["another storage", "the other part", "reversed", "fill"]), label="source")
    if source == "another storage":
        src = data.draw(host_arrays(component, shape), label="src")
        parts.assign(layout, src.upload(device), src.layout)
        view_of(components, layout)[...] = src.value()
    elif source == "fill":
        value = data.draw(scalars(component), label="value")
        parts.fill(layout, value)
        view_of(components, layout)[...] = value
    else:
        if source == "the other part":
            src_layout = part_layout(x.layout, not imag)
        else:
            src_layout = part_layout(x.layout.flip(range(len(shape))), imag)
        again = _real_view(s)  # one object or another sharing the memory: either must work
        parts.assign(layout, again, src_layout)
        view_of(components, layout)[...] = view_of(components, src_layout).copy()
    assert_bitwise_equal(read_flat(s), expected)
