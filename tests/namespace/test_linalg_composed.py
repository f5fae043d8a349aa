"""candlewick.linalg functions composed in the front end (cross, outer, diagonal, trace,
matrix_power, norms, pinv, matrix_rank) and main-namespace tensordot/vecdot, against
NumPy and array-api-strict."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _oracle import FLOAT_TOL, check, on, random_matrix, transposed

L = cw.linalg


def _linalg(device):
    if "linalg" not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional 'linalg' capability")


def test_extension_aliases_are_the_main_namespace_functions():
    assert L.matmul is cw.matmul and L.matrix_transpose is cw.matrix_transpose
    assert L.tensordot is cw.tensordot and L.vecdot is cw.vecdot


@pytest.mark.parametrize("shapes,axis", [
    (((3,), (3,)), -1), (((4, 3), (4, 3)), -1), (((3, 4), (3, 4)), -2), (((2, 1, 3), (5, 3)), -1),
    (((3,), (2, 3)), -1), (((0, 3), (0, 3)), -1),
])
@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_cross(device, shapes, axis, dtype):
    rng = np.random.default_rng(0)
    a, b = (random_matrix(rng, s, "float64").round(1).astype(dtype) if dtype != "complex64"
            else random_matrix(rng, s, dtype) for s in shapes)
    if dtype == "int32":
        a, b = (np.arange(np.prod(s), dtype=dtype).reshape(s) - 4 for s in shapes)
    check(L.cross(on(device, a), on(device, b), axis=axis), np.cross(a, b, axis=axis), rtol=1e-6)


def test_cross_rejects_bad_input(device):
    v = on(device, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="size 3"):
        L.cross(on(device, [1.0, 2.0]), on(device, [1.0, 2.0]))
    with pytest.raises(IndexError):
        L.cross(v, v, axis=0)
    with pytest.raises(IndexError):
        L.cross(v, v, axis=-2)
    with pytest.raises(TypeError):
        L.cross(on(device, [True, False, True]), on(device, [True, True, True]))


def test_outer(device):
    a, b = np.arange(3, dtype=np.float32), np.linspace(0, 1, 4)
    check(L.outer(on(device, a), on(device, b)), np.outer(a, b))
    i, j = np.arange(3, dtype=np.int16), np.arange(4, dtype=np.uint8)
    check(L.outer(on(device, i), on(device, j)), np.outer(i, j).astype(np.int16))
    check(L.outer(on(device, a[:0]), on(device, b)), np.outer(a[:0], b))
    with pytest.raises(ValueError, match="1-D"):
        L.outer(on(device, np.ones((2, 2))), on(device, b))
    with pytest.raises(TypeError):
        L.outer(on(device, [True]), on(device, [False]))


@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 2), (2, 0, 0)])
def test_diagonal_and_trace(device, shape):
    host = np.arange(np.prod(shape), dtype=np.int32).reshape(shape)
    for x in (on(device, host), transposed(device, host)):
        for offset in (-4, -1, 0, 1, 2, 5):
            check(L.diagonal(x, offset=offset), np.diagonal(host, offset, -2, -1))
            check(L.trace(x, offset=offset), np.asarray(xp.linalg.trace(xp.asarray(host), offset=offset)))
    check(L.trace(on(device, host), dtype=cw.float32), np.trace(host, axis1=-2, axis2=-1).astype(np.float32))


def test_diagonal_is_a_view(device):
    x = on(device, np.zeros((3, 3)))
    d = L.diagonal(x)
    d[1] = 5.0
    assert cw.to_numpy(x)[1, 1] == 5.0


def test_trace_and_diagonal_reject_bad_input(device):
    with pytest.raises(ValueError):
        L.diagonal(on(device, [1, 2]))
    with pytest.raises(TypeError):
        L.diagonal(on(device, np.eye(2)), offset=0.5)
    with pytest.raises(TypeError):
        L.trace(on(device, np.eye(2, dtype=bool)))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
def test_matrix_power(device, n):
    if n < 0:
        _linalg(device)
    a = np.array([[[1.0, 1.0], [0.5, 2.0]], [[2.0, 0.0], [1.0, 1.0]]])
    check(L.matrix_power(transposed(device, a), n), np.linalg.matrix_power(a, n), rtol=1e-12)
    ints = np.array([[1, 2], [3, 4]], dtype=np.int64)
    if n >= 0:
        check(L.matrix_power(on(device, ints), n), np.linalg.matrix_power(ints, n))


def test_matrix_power_returns_new_arrays_and_checks(device):
    x = on(device, np.eye(2))
    assert L.matrix_power(x, 1) is not x
    with pytest.raises(TypeError):
        L.matrix_power(x, 1.0)
    with pytest.raises(TypeError):
        L.matrix_power(on(device, np.eye(2, dtype=np.int32)), -1)
    with pytest.raises(ValueError, match="square"):
        L.matrix_power(on(device, np.ones((2, 3))), 2)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_matrix_norm(device, ord, dtype, keepdims):
    if ord in ("nuc", 2, -2):
        _linalg(device)
    a = random_matrix(np.random.default_rng(1), (2, 3, 4), dtype)
    want = np.linalg.norm(a, ord=ord, axis=(-2, -1), keepdims=keepdims)
    tol = FLOAT_TOL[dtype] * 10
    check(L.matrix_norm(on(device, a), ord=ord, keepdims=keepdims), want.astype(want.dtype), rtol=tol, atol=tol)


def test_matrix_norm_rejects_bad_input(device):
    with pytest.raises(ValueError, match="ord"):
        L.matrix_norm(on(device, np.eye(2)), ord=3)
    with pytest.raises(TypeError):
        L.matrix_norm(on(device, np.eye(2, dtype=np.int8)))
    with pytest.raises(ValueError):
        L.matrix_norm(on(device, np.ones(3)))


@pytest.mark.parametrize("ord", [2, 1, 0, np.inf, -np.inf, 3, 0.5, -1])
@pytest.mark.parametrize("axis", [None, -1, 0, (0, 2), (-1, -2)])
def test_vector_norm(device, ord, axis):
    a = random_matrix(np.random.default_rng(2), (2, 3, 4), "float64")
    a[0, 0, 0] = 0.0
    for keepdims in (False, True):
        with np.errstate(divide="ignore"):  # the oracle's 1/0 for a negative ord over a zero
            want = np.asarray(xp.linalg.vector_norm(xp.asarray(a), axis=axis, keepdims=keepdims, ord=ord))
        check(L.vector_norm(on(device, a), axis=axis, keepdims=keepdims, ord=ord), want, rtol=1e-12)


def test_vector_norm_dtypes_and_errors(device):
    z = np.array([3 + 4j, 0, 1j], dtype=np.complex64)
    check(L.vector_norm(on(device, z)), np.asarray(np.linalg.norm(z), dtype=np.float32), rtol=1e-6)
    check(L.vector_norm(on(device, np.float64(5.0) * np.ones(()))), np.asarray(5.0))
    with pytest.raises(TypeError):
        L.vector_norm(on(device, [1, 2]))
    with pytest.raises(TypeError, match="ord"):
        L.vector_norm(on(device, [1.0]), ord="fro")
    with pytest.raises(IndexError):
        L.vector_norm(on(device, [1.0]), axis=1)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 5), (2, 3, 3), (0, 3)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_pinv(device, shape, dtype):
    _linalg(device)
    a = random_matrix(np.random.default_rng(3), shape, dtype)
    if shape == (3, 3):
        a[2] = a[0] + a[1]  # rank deficient
    want = np.asarray(xp.linalg.pinv(xp.asarray(a)))
    tol = FLOAT_TOL[dtype] * 100
    check(L.pinv(on(device, a)), want, rtol=tol, atol=tol)
    check(L.pinv(on(device, a), rtol=0.5), np.asarray(xp.linalg.pinv(xp.asarray(a), rtol=0.5)), rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 3, 3), (3, 0)])
def test_matrix_rank(device, shape):
    _linalg(device)
    a = random_matrix(np.random.default_rng(4), shape, "float64")
    if 0 in shape:
        check(L.matrix_rank(on(device, a)), np.zeros(shape[:-2], np.int64))
        return
    if shape[-1] == 3 and shape[-2] == 3:
        a[..., 2, :] = a[..., 0, :] * 2
    check(L.matrix_rank(on(device, a)), np.asarray(xp.linalg.matrix_rank(xp.asarray(a))))
    rtol = np.full(shape[:-2], 0.9)
    check(L.matrix_rank(on(device, a), rtol=on(device, rtol)),
          np.asarray(xp.linalg.matrix_rank(xp.asarray(a), rtol=xp.asarray(rtol))))
    with pytest.raises(TypeError):
        L.matrix_rank(on(device, a), rtol="small")


# --- main namespace: tensordot and vecdot ----------------------------------------------

@pytest.mark.parametrize("shapes,axes", [
    (((3, 4), (4, 5)), 1), (((2, 3, 4), (3, 4, 5)), 2), (((2, 3), (4, 5)), 0),
    (((2, 3, 4), (4, 2, 3)), ((0, 1), (1, 2))), (((3, 0), (0, 2)), 1), (((2, 3), (3, 2)), ([-1], [0])),
    (((), ()), 0),
])
def test_tensordot(device, shapes, axes):
    a = np.arange(np.prod(shapes[0]), dtype=np.int64).reshape(shapes[0]) - 3
    b = np.arange(np.prod(shapes[1]), dtype=np.int64).reshape(shapes[1]) % 4
    check(cw.tensordot(on(device, a), on(device, b), axes=axes), np.tensordot(a, b, axes=axes))


def test_tensordot_promotes_and_checks(device):
    a, b = np.ones((2, 3), np.float32), np.ones((3, 2), np.complex128)
    check(cw.tensordot(on(device, a), on(device, b), axes=1), np.tensordot(a, b, axes=1))
    with pytest.raises(ValueError, match="size"):
        cw.tensordot(on(device, a), on(device, a), axes=1)
    with pytest.raises(ValueError):
        cw.tensordot(on(device, a), on(device, a), axes=3)
    with pytest.raises(TypeError):
        cw.tensordot(on(device, a), on(device, a), axes=1.0)
    with pytest.raises(TypeError):
        cw.tensordot(on(device, [True]), on(device, [True]), axes=1)


@pytest.mark.parametrize("shapes,axis", [
    (((3,), (3,)), -1), (((2, 3), (3,)), -1), (((4, 1, 3), (5, 3)), -1), (((3, 2), (3, 2)), -2),
    (((2, 0), (2, 0)), -1),
])
@pytest.mark.parametrize("dtype", ["int16", "float32", "complex128"])
def test_vecdot(device, shapes, axis, dtype):
    rng = np.random.default_rng(5)
    a, b = (random_matrix(rng, s, "complex128" if dtype == "complex128" else "float64") for s in shapes)
    if dtype == "int16":
        a, b = (x.real.round() * 3 for x in (a, b))
    a, b = a.astype(dtype), b.astype(dtype)
    want = np.asarray(xp.vecdot(xp.asarray(a), xp.asarray(b), axis=axis))
    check(cw.vecdot(on(device, a), on(device, b), axis=axis), want, rtol=1e-5)


def test_vecdot_rejects_bad_input(device):
    a = on(device, np.ones((2, 3)))
    with pytest.raises(IndexError):
        cw.vecdot(a, a, axis=0)
    with pytest.raises(IndexError):
        cw.vecdot(a, a, axis=-3)
    with pytest.raises(ValueError, match="size"):
        cw.vecdot(a, on(device, np.ones(2)))
    with pytest.raises(TypeError):
        cw.vecdot(on(device, [True]), on(device, [True]))
