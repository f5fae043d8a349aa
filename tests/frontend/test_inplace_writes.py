"""Writes that land where the user wrote them (docs/inplace.md): every in-place operator and
``x[...] = value`` against NumPy doing the same on the same data, on each backend under
test through the optional "inplace" primitives, and on the same backend with the group
withheld (the tracing backend's ``hide``: the documented fallback). The tracing recorder
shows which primitives ran: one in-place primitive and no temporary where the group is
declared."""

import operator

import numpy as np
import pytest

import candlewick as cw
from candlewick.conformance.checks import TRANSCENDENTAL
from candlewick.errors import DeviceMismatchError, DTypeError, ReadOnlyError, ShapeError

OPERATORS = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand,
    "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift, ">>=": operator.irshift,
}
OUT_OF_PLACE = {
    "+=": operator.add, "-=": operator.sub, "*=": operator.mul, "/=": operator.truediv,
    "//=": operator.floordiv, "%=": operator.mod, "**=": operator.pow, "&=": operator.and_,
    "|=": operator.or_, "^=": operator.xor, "<<=": operator.lshift, ">>=": operator.rshift,
}
FLOAT_OPS = ("+=", "-=", "*=", "/=", "//=", "%=", "**=")
INT_OPS = ("+=", "-=", "*=", "//=", "%=", "**=", "&=", "|=", "^=", "<<=", ">>=")


WITHHELD_GROUP = "inplace"  # (the conftest's traced fixture withholds it)


def _calls(backend):
    return {(primitive, op): t.calls for primitive, op, _, t in backend.recorder.rows()}


def _operands(dtype, rng):
    if np.dtype(dtype).kind == "f":
        return rng.uniform(0.5, 3.0, (4, 6)).astype(dtype), rng.uniform(0.5, 2.0, (4, 6)).astype(dtype)
    return rng.integers(1, 9, (4, 6)).astype(dtype), rng.integers(1, 4, (4, 6)).astype(dtype)


CASES = [(sym, dt) for dt in ("float32", "float64") for sym in FLOAT_OPS] + [
    (sym, dt) for dt in ("int32", "int64", "uint8") for sym in INT_OPS]


@pytest.mark.parametrize("symbol,dtype", CASES, ids=[f"{s}-{d}" for s, d in CASES])
def test_operators_match_numpy_on_views_broadcasts_and_overlaps(traced, symbol, dtype):
    """The contract (rule inplace-overlap) is the out-of-place primitive's values, written where
    the user wrote: bit for bit against candlewick's own ``x[sel] op y`` on the same backend,
    and against NumPy bit for bit where the operation is exact, within the device math
    library's ulps for a float ``**`` (the GPU's pow may round differently from NumPy's)."""
    _, dev = traced
    iop, op = OPERATORS[symbol], OUT_OF_PLACE[symbol]
    a, b = _operands(dtype, np.random.default_rng(len(symbol) + len(dtype)))
    scalar = 2 if np.dtype(dtype).kind in "iu" else 1.5
    updates = [  # (the view written, the operand): both from the array x and the operand y
        (lambda x: x, lambda x, y: y),                             # same shape
        (lambda x: x, lambda x, y: y[1]),                          # a broadcast row
        (lambda x: x, lambda x, y: scalar),                        # a Python scalar
        (lambda x: x[:, ::2], lambda x, y: y[:, 1::2]),            # a stepped view of x
        (lambda x: x[1:], lambda x, y: x[:-1] % 3 + 1),            # x's own rows, shifted
    ]
    for target, operand in updates:
        x, y, h = cw.asarray(a, device=dev), cw.asarray(b, device=dev), a.copy()
        got = iop(target(x), operand(x, y))
        with np.errstate(all="ignore"):
            iop(target(h), operand(h, b))
        x0, y0, expected = cw.asarray(a, device=dev), cw.asarray(b, device=dev), a.copy()
        target(expected)[...] = cw.to_numpy(op(target(x0), operand(x0, y0)))
        np.testing.assert_array_equal(cw.to_numpy(x), expected)
        if symbol == "**=" and np.dtype(dtype).kind == "f":
            np.testing.assert_array_max_ulp(cw.to_numpy(x), h, maxulp=TRANSCENDENTAL)
        else:
            np.testing.assert_array_equal(cw.to_numpy(x), h)
        assert got is x or got.device == dev


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_the_operand_is_the_destination_read_whole_first(traced, dtype):
    _, dev = traced
    h = (np.arange(36) % 7 == 2) if dtype == "bool" else (np.arange(36) % 7).astype(dtype)
    spellings = [
        lambda x: x[1:].__ior__(x[:-1]) if dtype == "bool" else x[1:].__iadd__(x[:-1]),
        lambda x: x[:-1].__ior__(x[1:]) if dtype == "bool" else x[:-1].__iadd__(x[1:]),
        lambda x: x.__ixor__(x[::-1]) if dtype == "bool" else x.__isub__(x[::-1]),
    ]
    for spell in spellings:
        x, expected = cw.asarray(h, device=dev), h.copy()
        spell(x)
        spell(expected)
        np.testing.assert_array_equal(cw.to_numpy(x), expected)
    grid = cw.reshape(cw.asarray(h, device=dev), (6, 6))
    grid_h = h.reshape(6, 6).copy()
    if dtype == "bool":
        grid |= grid.T
        grid_h |= grid_h.T
    else:
        grid += grid.T
        grid_h += grid_h.T
    np.testing.assert_array_equal(cw.to_numpy(grid), grid_h)


def test_updates_make_no_temporary_where_declared(traced):
    """``x += y``, ``x *= 2.0``, ``x[::2] += 1`` and ``x[mask] = v`` are one in-place
    primitive each (the mask's scalar passed to where_into as it is: no ``full``);
    withheld, the fallback is the out-of-place primitive and ``assign``."""
    backend, dev = traced
    declared = "inplace" in dev.capabilities
    x = cw.ones(64, device=dev)
    y = cw.full(64, 2.0, device=dev)
    mask = x > 0.5
    backend.recorder.reset()
    x += y
    x *= 2.0
    x[::2] += 1.0
    x[mask] = 4.0
    calls = _calls(backend)
    if declared:
        assert calls == {("binary_into", "add"): 1, ("binary_scalar_into", "multiply"): 1,
                         ("binary_scalar_into", "add"): 1, ("where_into", ""): 1}
    else:
        assert calls[("binary", "add")] == 1 and calls[("assign", "")] == 4
        assert calls[("binary_scalar", "multiply")] == 1 and calls[("where", "")] == 1
    np.testing.assert_array_equal(cw.to_numpy(x), np.full(64, 4.0))


def test_storing_a_view_back_into_itself_writes_nothing(traced):
    backend, dev = traced
    x = cw.arange(10.0, device=dev)
    backend.recorder.reset()
    x[::2] = x[::2]
    x[2:5] = x[2:5]
    assert _calls(backend) == {}
    x[1:4] = x[0:3]  # an overlapping other view is still copied
    np.testing.assert_array_equal(cw.to_numpy(x), [0, 0, 1, 2, 4, 5, 6, 7, 8, 9])


def test_type_and_shape_rules_and_errors_are_unchanged(traced):
    _, dev = traced
    i = cw.arange(3, device=dev)
    with pytest.raises(DTypeError, match="keep the left operand's dtype"):
        i += 1.5
    with pytest.raises(DTypeError, match="from int64 to float64"):
        i /= 2
    f = cw.ones((2, 3), device=dev)
    with pytest.raises(ShapeError, match=r"from \(2, 3\) to \(3, 2, 3\)"):
        f += cw.ones((3, 2, 3), device=dev)
    with pytest.raises(ReadOnlyError, match="broadcast"):
        b = cw.broadcast_to(cw.ones(3, device=dev), (2, 3))
        b += 1.0
    f32 = cw.ones(3, dtype=cw.float32, device=dev)
    f32 += cw.ones(3, dtype=cw.int8, device=dev)  # promotes to float32: stays
    f32 *= 3  # a Python int keeps float32
    np.testing.assert_array_equal(cw.to_numpy(f32), np.full(3, 6.0, np.float32))
    np.testing.assert_array_equal(cw.to_numpy(i), [0, 1, 2])  # nothing written by the failures
    other = cw.ones(3, device="cpu")
    if dev.name != "cpu":
        with pytest.raises(DeviceMismatchError):
            f32 += other


def test_masked_assignment_writes_only_the_masked_elements(traced):
    _, dev = traced
    h = np.arange(12.0).reshape(3, 4)
    x = cw.asarray(h, device=dev)
    x[x > 6.0] = -1.0
    x[cw.asarray([True, False, True], device=dev)] = cw.asarray([9.0, 8.0, 7.0, 6.0], device=dev)
    h[h > 6.0] = -1.0
    h[np.array([True, False, True])] = [9.0, 8.0, 7.0, 6.0]
    np.testing.assert_array_equal(cw.to_numpy(x), h)
