"""Linear algebra functions of the main namespace, both oracles: matmul, tensordot and
vecdot against array-api-strict on drawn arrays (broadcast batches, vectors, mismatched
dimensions), then tensordot and vecdot on fixed shapes and layouts against NumPy."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _oracle import check, on, random_matrix
from array_api_support import (
    INTEGER, NUMERIC, assert_matches_strict, finite_arrays, int_arrays, quiet, to_strict,
)

L = cw.linalg

# === array-api-strict: drawn arrays =======================================================

@given(data=st.data())
def test_tensordot_and_vecdot(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    a = data.draw(finite_arrays(name, (2, 3, 4), magnitude=4.0), label="x1")
    b = data.draw(finite_arrays(name, (3, 4, 2), magnitude=4.0), label="x2")
    rtol = 1e-4 if name in ("float32", "complex64") else 1e-12
    for axes in (0, 2, ((1, 2), (0, 1)), ((2,), (1,)), ((0,), (2,))):
        assert_matches_strict(cw.tensordot(a, b, axes=axes), xs.tensordot(to_strict(a), to_strict(b), axes=axes),
                              rtol=rtol, what=f"tensordot(axes={axes}): ")
        assert_matches_strict(L.tensordot(a, b, axes=axes), xs.tensordot(to_strict(a), to_strict(b), axes=axes),
                              rtol=rtol)
    c = data.draw(finite_arrays(name, (3, 4), magnitude=4.0), label="x3")
    axis = data.draw(st.sampled_from([-1, -2]), label="axis")
    assert_matches_strict(cw.vecdot(a, c, axis=axis), xs.vecdot(to_strict(a), to_strict(c), axis=axis),
                          rtol=rtol, what=f"vecdot(axis={axis}): ")
    assert_matches_strict(L.vecdot(a, c, axis=axis), xs.linalg.vecdot(to_strict(a), to_strict(c), axis=axis),
                          rtol=rtol)


@given(data=st.data())
def test_matmul_with_broadcast_batches_and_vectors(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    k = data.draw(st.integers(1, 4), label="k")
    s1 = data.draw(st.sampled_from([(k,), (2, k), (3, 2, k), (1, 2, k)]), label="s1")
    s2 = data.draw(st.sampled_from([(k,), (k, 3), (3, k, 2), (1, k, 1)]), label="s2")
    x1 = data.draw(finite_arrays(name, s1, magnitude=4.0) if name not in INTEGER else int_arrays(name, s1, -4, 4), label="x1")
    x2 = data.draw(finite_arrays(name, s2, magnitude=4.0) if name not in INTEGER else int_arrays(name, s2, -4, 4), label="x2")
    try:
        np.broadcast_shapes(s1[:-2], s2[:-2])
    except ValueError:
        with pytest.raises(ValueError):
            cw.matmul(x1, x2)
        return
    rtol = 1e-4 if name in ("float32", "complex64") else 1e-12
    assert_matches_strict(cw.matmul(x1, x2), quiet(xs.matmul, to_strict(x1), to_strict(x2)), rtol=rtol)
    assert_matches_strict(L.matmul(x1, x2), quiet(xs.linalg.matmul, to_strict(x1), to_strict(x2)), rtol=rtol)


def test_matmul_rejects_mismatched_inner_dimensions_and_0d():
    with pytest.raises(ValueError):
        cw.matmul(cw.ones((2, 3)), cw.ones((2, 3)))
    with pytest.raises(ValueError):
        cw.matmul(cw.ones(()), cw.ones((2,)))


# === NumPy: fixed shapes and layouts ======================================================

@pytest.mark.parametrize("shapes,axes", [
    (((3, 4), (4, 5)), 1), (((2, 3, 4), (3, 4, 5)), 2), (((2, 3), (4, 5)), 0),
    (((2, 3, 4), (4, 2, 3)), ((0, 1), (1, 2))), (((3, 0), (0, 2)), 1), (((2, 3), (3, 2)), ([-1], [0])),
    (((), ()), 0),
])
def test_tensordot(dev, shapes, axes):
    a = np.arange(np.prod(shapes[0]), dtype=np.int64).reshape(shapes[0]) - 3
    b = np.arange(np.prod(shapes[1]), dtype=np.int64).reshape(shapes[1]) % 4
    check(cw.tensordot(on(dev, a), on(dev, b), axes=axes), np.tensordot(a, b, axes=axes))


def test_tensordot_promotes_and_checks(dev):
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.complex128)
    check(cw.tensordot(on(dev, a), on(dev, b), axes=1), np.tensordot(a, b, axes=1))
    with pytest.raises(ValueError, match="size"):
        cw.tensordot(on(dev, a), on(dev, a), axes=1)
    with pytest.raises(ValueError):
        cw.tensordot(on(dev, a), on(dev, a), axes=3)
    with pytest.raises(TypeError):
        cw.tensordot(on(dev, a), on(dev, a), axes=1.0)
    with pytest.raises(TypeError):
        cw.tensordot(on(dev, [True]), on(dev, [True]), axes=1)


@pytest.mark.parametrize("shapes,axis", [
    (((3,), (3,)), -1), (((2, 3), (3,)), -1), (((4, 1, 3), (5, 3)), -1), (((3, 2), (3, 2)), -2),
    (((2, 0), (2, 0)), -1),
])
@pytest.mark.parametrize("dtype", ["int16", "float32", "complex128"])
def test_vecdot(dev, shapes, axis, dtype):
    rng = np.random.default_rng(5)
    a, b = (random_matrix(rng, s, "complex128" if dtype == "complex128" else "float64") for s in shapes)
    if dtype == "int16":
        a, b = (x.real.round() * 3 for x in (a, b))
    a, b = a.astype(dtype), b.astype(dtype)
    want = np.asarray(xs.vecdot(xs.asarray(a), xs.asarray(b), axis=axis))
    check(cw.vecdot(on(dev, a), on(dev, b), axis=axis), want, rtol=1e-5)


@pytest.mark.parametrize("second", [(3,), (1,) * 62 + (2, 3)], ids=["1-D", "64-D"])
@pytest.mark.parametrize("dtype", ["int8", "float64", "complex64"])
def test_vecdot_of_64_dimensions(dev, second, dtype):
    """An array's most dimensions, where the batched matmul's (*B, 1, K) would have 65
    (NumPy's broadcasting, array-api-strict's oracle, stops at 32: the sum of products)."""
    rng = np.random.default_rng(6)
    a = random_matrix(rng, (1,) * 62 + (2, 3), "float64").round() + (1j if dtype == "complex64" else 0)
    b = random_matrix(rng, second, "float64").round()
    a, b = a.astype(dtype), b.astype(dtype)
    check(cw.vecdot(on(dev, a), on(dev, b)), (np.conj(a) * b).sum(axis=-1).astype(dtype), rtol=1e-5)


def test_vecdot_rejects_bad_input(dev):
    a = on(dev, np.ones((2, 3)))
    with pytest.raises(IndexError):
        cw.vecdot(a, a, axis=0)
    with pytest.raises(IndexError):
        cw.vecdot(a, a, axis=-3)
    with pytest.raises(ValueError, match="size"):
        cw.vecdot(a, on(dev, np.ones(2)))
    with pytest.raises(TypeError):
        cw.vecdot(on(dev, [True]), on(dev, [True]))
