"""candlewick.linalg functions composed in the front end, both oracles: norms,
matrix_power, matrix_rank, pinv, cross, outer, diagonal and trace against
array-api-strict and NumPy on drawn matrices, then on fixed cases, layouts and errors
against NumPy and array-api-strict."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from _oracle import FLOAT_TOL, check, on, random_matrix, transposed
from array_api_support import (
    NUMERIC, REAL_FLOAT, assert_matches_strict, finite_arrays, int_arrays, quiet, shapes, to_np,
    to_strict,
)
from linalg_support import assert_close, call_linalg, draw_matrices, well_conditioned

L = cw.linalg

# === drawn matrices: array-api-strict and NumPy ===========================================

@given(data=st.data())
def test_matrix_and_vector_norms(data):
    name, a = draw_matrices(data, square=False)
    keepdims = data.draw(st.booleans(), label="keepdims")
    ord_ = data.draw(st.sampled_from(["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]), label="ord")
    out = call_linalg(L.matrix_norm, a, ord=ord_, keepdims=keepdims)
    expected = np.linalg.norm(to_np(a), ord=ord_, axis=(-2, -1), keepdims=keepdims)
    assert_close(out, expected, name, f"matrix_norm(ord={ord_})")
    vord = data.draw(st.sampled_from([1, 2, 3, 0, float("inf"), -float("inf"), -1]), label="vector ord")
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), label="axis")
    try:
        vref = quiet(xs.linalg.vector_norm, to_strict(a), axis=axis, keepdims=keepdims, ord=vord)
    except ValueError:  # NumPy: the ±inf norms of nothing are max/min of nothing
        with pytest.raises(ValueError):
            L.vector_norm(a, axis=axis, keepdims=keepdims, ord=vord)
        return
    vout = L.vector_norm(a, axis=axis, keepdims=keepdims, ord=vord)
    assert vout.dtype == cw.finfo(a.dtype).dtype
    assert_close(vout, np.asarray(vref), name, f"vector_norm(ord={vord}, axis={axis})")


@given(data=st.data())
def test_matrix_power(data):
    name, a = draw_matrices(data)
    n = data.draw(st.integers(-2, 4), label="n")
    m = well_conditioned(a) * (1.0 / (a.shape[-1] + 1))
    assert_close(call_linalg(L.matrix_power, m, n), np.linalg.matrix_power(to_np(m), n), name, f"matrix_power(n={n})")


@given(data=st.data())
def test_matrix_power_of_integer_matrices(data):
    a = data.draw(int_arrays("int64", (3, 3), -3, 3), label="x")
    n = data.draw(st.integers(0, 4), label="n")
    np.testing.assert_array_equal(to_np(L.matrix_power(a, n)), np.linalg.matrix_power(to_np(a), n))


@given(data=st.data())
def test_matrix_rank_and_pinv(data):
    name, a = draw_matrices(data, square=False, names=REAL_FLOAT)
    host = to_np(a)
    # a low-rank product makes the rank interesting
    low = cw.asarray(host[..., :, :1] @ host[..., :1, :])
    for m in (a, low):
        got = call_linalg(L.matrix_rank, m)
        expected = np.linalg.matrix_rank(to_np(m))
        np.testing.assert_array_equal(to_np(got), expected)
    # pinv inverts every singular value above the cutoff, so it is a function of the
    # matrix only where none lies near the cutoff: a numerically rank-deficient float32
    # matrix has rounding-noise singular values (about eps * max(S)) on either side of
    # the default cutoff max(M, N) * eps * max(S) depending on the SVD routine, and
    # inverting one gives entries of 1 / noise (on rocm, off in 2 of 6 elements against
    # NumPy, whose default rcond=1e-15 inverts the noise too). So: the default cutoff on
    # well-conditioned matrices, and rtol=1e-3 (both sides cut the noise) on the others
    # when their singular values keep clear of it.
    s64 = np.linalg.svd(host.astype(np.float64), compute_uv=False)
    largest = s64.max(axis=-1, keepdims=True)
    ratio = np.divide(s64, largest, out=np.zeros_like(s64), where=largest > 0)
    if (ratio >= 1e-2).all():
        assert_close(call_linalg(L.pinv, a), np.linalg.pinv(host), name, "pinv")
    else:
        assume(not ((ratio > 1e-4) & (ratio < 1e-2)).any())
        assert_close(call_linalg(L.pinv, a, rtol=1e-3), np.linalg.pinv(host, rtol=1e-3), name, "pinv(rtol=1e-3)")


@given(data=st.data())
def test_cross_outer_diagonal_trace(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    lead = data.draw(shapes(max_dims=2, max_side=3), label="lead")
    x1 = data.draw(finite_arrays(name, lead + (3,), magnitude=10.0), label="x1")
    x2 = data.draw(finite_arrays(name, lead + (3,), magnitude=10.0), label="x2")
    assert_matches_strict(L.cross(x1, x2), xs.linalg.cross(to_strict(x1), to_strict(x2)),
                          rtol=1e-5 if name in ("float32", "complex64") else 1e-12)
    v1 = data.draw(finite_arrays(name, (data.draw(st.integers(0, 4)),), magnitude=10.0), label="v1")
    v2 = data.draw(finite_arrays(name, (data.draw(st.integers(0, 4)),), magnitude=10.0), label="v2")
    assert_matches_strict(L.outer(v1, v2), xs.linalg.outer(to_strict(v1), to_strict(v2)))
    m = data.draw(finite_arrays(name, lead + (3, 4), magnitude=10.0), label="m")
    offset = data.draw(st.integers(-4, 5), label="offset")
    assert_matches_strict(L.diagonal(m, offset=offset), xs.linalg.diagonal(to_strict(m), offset=offset))
    assert_matches_strict(L.trace(m, offset=offset), xs.linalg.trace(to_strict(m), offset=offset),
                          rtol=1e-5 if name in ("float32", "complex64") else 1e-12)


def test_cross_rejects_vectors_that_are_not_3d():
    with pytest.raises(ValueError):
        L.cross(cw.ones(4), cw.ones(4))


def test_diagonal_and_trace_of_an_empty_batch():
    m = cw.zeros((0, 3, 4), dtype=cw.int8)
    assert L.diagonal(m, offset=1).shape == (0, 3)
    assert to_np(L.trace(m, offset=1)).shape == (0,)


def test_infinity_norm_of_an_empty_vector_is_zero():
    """NumPy and array-api-strict give 0 (the largest of no magnitudes, with 0 as floor)."""
    empty = cw.zeros((0,), dtype=cw.float32)
    assert float(L.vector_norm(empty, ord=float("inf"))) == 0.0


# === fixed cases and layouts: NumPy and array-api-strict ==================================

def _linalg(dev):
    if "linalg" not in dev.capabilities:
        pytest.skip(f"{dev.name} does not declare the optional 'linalg' capability")


def test_extension_aliases_are_the_main_namespace_functions():
    assert L.matmul is cw.matmul and L.matrix_transpose is cw.matrix_transpose
    assert L.tensordot is cw.tensordot and L.vecdot is cw.vecdot


@pytest.mark.parametrize("shapes,axis", [
    (((3,), (3,)), -1), (((4, 3), (4, 3)), -1), (((3, 4), (3, 4)), -2), (((2, 1, 3), (5, 3)), -1),
    (((3,), (2, 3)), -1), (((0, 3), (0, 3)), -1),
])
@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_cross(dev, shapes, axis, dtype):
    rng = np.random.default_rng(0)
    a, b = (random_matrix(rng, s, "float64").round(1).astype(dtype) if dtype != "complex64"
            else random_matrix(rng, s, dtype) for s in shapes)
    if dtype == "int32":
        a, b = (np.arange(np.prod(s), dtype=dtype).reshape(s) - 4 for s in shapes)
    check(L.cross(on(dev, a), on(dev, b), axis=axis), np.cross(a, b, axis=axis), rtol=1e-6)


def test_cross_rejects_bad_input(dev):
    v = on(dev, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="size 3"):
        L.cross(on(dev, [1.0, 2.0]), on(dev, [1.0, 2.0]))
    with pytest.raises(IndexError):
        L.cross(v, v, axis=0)
    with pytest.raises(IndexError):
        L.cross(v, v, axis=-2)
    with pytest.raises(TypeError):
        L.cross(on(dev, [True, False, True]), on(dev, [True, True, True]))


def test_outer(dev):
    a, b = np.arange(3, dtype=np.float32), np.linspace(0, 1, 4)
    check(L.outer(on(dev, a), on(dev, b)), np.outer(a, b))
    i, j = np.arange(3, dtype=np.int16), np.arange(4, dtype=np.uint8)
    check(L.outer(on(dev, i), on(dev, j)), np.outer(i, j).astype(np.int16))
    check(L.outer(on(dev, a[:0]), on(dev, b)), np.outer(a[:0], b))
    with pytest.raises(ValueError, match="1-D"):
        L.outer(on(dev, np.ones((2, 2))), on(dev, b))
    with pytest.raises(TypeError):
        L.outer(on(dev, [True]), on(dev, [False]))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 2), (2, 0, 0)])
def test_diagonal_and_trace(dev, shape):
    host = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    for x in (on(dev, host), transposed(dev, host)):
        for offset in (-4, -1, 0, 1, 2, 5):
            check(L.diagonal(x, offset=offset), np.diagonal(host, offset, -2, -1))
            check(L.trace(x, offset=offset), np.asarray(xs.linalg.trace(xs.asarray(host), offset=offset)))
    check(L.trace(on(dev, host), dtype=cw.float32), np.trace(host, axis1=-2, axis2=-1).astype(np.float32))


def test_diagonal_is_a_view(dev):
    x = on(dev, np.zeros((3, 3)))
    d = L.diagonal(x)
    d[1] = 5.0
    assert cw.to_numpy(x)[1, 1] == 5.0


def test_trace_and_diagonal_reject_bad_input(dev):
    with pytest.raises(ValueError):
        L.diagonal(on(dev, [1, 2]))
    with pytest.raises(TypeError):
        L.diagonal(on(dev, np.eye(2)), offset=0.5)
    with pytest.raises(TypeError):
        L.trace(on(dev, np.eye(2, dtype=bool)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power_fixed_cases(dev, n):
    if n < 0:
        _linalg(dev)
    a = np.array([[[1.0, 1.0], [0.5, 2.0]], [[2.0, 0.0], [1.0, 1.0]]])
    check(L.matrix_power(transposed(dev, a), n), np.linalg.matrix_power(a, n), rtol=1e-12)
    ints = np.array([[1, 2], [3, 4]], dtype=np.int64)
    if n >= 0:
        check(L.matrix_power(on(dev, ints), n), np.linalg.matrix_power(ints, n))


def test_matrix_power_returns_new_arrays_and_checks(dev):
    x = on(dev, np.eye(2))
    assert L.matrix_power(x, 1) is not x
    with pytest.raises(TypeError):
        L.matrix_power(x, 1.0)
    with pytest.raises(TypeError):
        L.matrix_power(on(dev, np.eye(2, dtype=np.int32)), -1)
    with pytest.raises(ValueError, match="square"):
        L.matrix_power(on(dev, np.ones((2, 3))), 2)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(dev, ord, dtype, keepdims):
    if ord in ("nuc", 2, -2):
        _linalg(dev)
    a = random_matrix(np.random.default_rng(1), (2, 3, 4), dtype)
    want = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
    tol = FLOAT_TOL[dtype] * 10
    check(L.matrix_norm(on(dev, a), ord=ord, keepdims=keepdims), want.astype(want.dtype), rtol=tol, atol=tol)


def test_matrix_norm_rejects_bad_input(dev):
    with pytest.raises(ValueError, match="ord"):
        L.matrix_norm(on(dev, np.eye(2)), ord=3)
    with pytest.raises(TypeError):
        L.matrix_norm(on(dev, np.eye(2, dtype=np.int8)))
    with pytest.raises(ValueError):
        L.matrix_norm(on(dev, np.ones(3)))


@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, 3, 0.5, -1])
@pytest.mark.parametrize("axis", [None, -1, 0, (0, 2), (-1, -2)])
def test_vector_norm(dev, ord, axis):
    a = random_matrix(np.random.default_rng(2), (2, 3, 4), "float64")
    a[0, 0, 0] = 0.0
    for keepdims in (False, True):
        with np.errstate(divide="ignore"):  # the oracle's 1/0 for a negative ord over a zero
            want = np.asarray(xs.linalg.vector_norm(xs.asarray(a), axis=axis, keepdims=keepdims, ord=ord))
        check(L.vector_norm(on(dev, a), axis=axis, keepdims=keepdims, ord=ord), want, rtol=1e-12)


def test_vector_norm_dtypes_and_errors(dev):
    z = np.array([3 + 4j, 0, 1j], dtype=np.complex64)
    check(L.vector_norm(on(dev, z)), np.asarray(np.linalg.norm(z), dtype=np.float32), rtol=1e-6)
    check(L.vector_norm(on(dev, np.float64(5.0) * np.ones(()))), np.asarray(5.0))
    with pytest.raises(TypeError):
        L.vector_norm(on(dev, [1, 2]))
    with pytest.raises(TypeError, match="ord"):
        L.vector_norm(on(dev, [1.0]), ord="fro")
    with pytest.raises(IndexError):
        L.vector_norm(on(dev, [1.0]), axis=1)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_pinv(dev, shape, dtype):
    _linalg(dev)
    a = random_matrix(np.random.default_rng(3), shape, dtype)
    if shape == (3, 3):
        a[2] = a[0] + a[1]  # rank deficient
    want = np.asarray(xs.linalg.pinv(xs.asarray(a)))
    tol = FLOAT_TOL[dtype] * 100
    check(L.pinv(on(dev, a)), want, rtol=tol, atol=tol)
    check(L.pinv(on(dev, a), rtol=0.5), np.asarray(xs.linalg.pinv(xs.asarray(a), rtol=0.5)), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 3), (3, 0)])
def test_matrix_rank(dev, shape):
    _linalg(dev)
    a = random_matrix(np.random.default_rng(4), shape, "float64")
    if 0 in shape:
        check(L.matrix_rank(on(dev, a)), np.zeros(shape[:-2], np.int64))
        return
    if shape[-1] == 3 and shape[-2] == 3:
        a[..., 2, :] = a[..., 0, :] * 2
    check(L.matrix_rank(on(dev, a)), np.asarray(xs.linalg.matrix_rank(xs.asarray(a))))
    rtol = np.full(shape[:-2], 0.9)
    check(L.matrix_rank(on(dev, a), rtol=on(dev, rtol)),
          np.asarray(xs.linalg.matrix_rank(xs.asarray(a), rtol=xs.asarray(rtol))))
    with pytest.raises(TypeError):
        L.matrix_rank(on(dev, a), rtol="small")
