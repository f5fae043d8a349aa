"""candlewick.linalg factorizations and solvers (the optional "linalg" primitives)
against numpy.linalg, with reconstruction checks where the factors are not unique."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import LinAlgError, UnsupportedOperation
from _oracle import FLOAT_TOL, check, hermitian_pd, on, random_matrix, transposed

L = cw.linalg
DTYPES = ["float32", "float64", "complex64", "complex128"]
SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3)]


@pytest.fixture(autouse=True)
def _needs_linalg(device):
    if "linalg" not in device.capabilities:
        pytest.skip(f"{device.name} does not declare the optional 'linalg' capability")


def _ct(a):
    return np.conj(np.swapaxes(a, -1, -2))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cholesky(device, dtype, shape):
    rng = np.random.default_rng(0)
    a = hermitian_pd(rng, shape, dtype)
    tol = FLOAT_TOL[dtype]
    lower = L.cholesky(on(device, a))
    check(lower, np.linalg.cholesky(a), rtol=tol, atol=tol)
    upper = L.cholesky(transposed(device, a), upper=True)
    u = cw.to_numpy(upper)
    np.testing.assert_allclose(_ct(u) @ u, a, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.tril(u, -1), 0)


def test_cholesky_of_indefinite_matrix_raises(device):
    with pytest.raises(LinAlgError):
        L.cholesky(on(device, [[1.0, 2.0], [2.0, 1.0]]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (0, 3), (2, 3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs(device, dtype, shape, mode):
    a = random_matrix(np.random.default_rng(1), shape, dtype)
    q, r = L.qr(on(device, a), mode=mode)
    wq, wr = np.linalg.qr(a, mode=mode)
    assert q.shape == wq.shape and r.shape == wr.shape
    assert q.dtype.name == dtype and r.dtype.name == dtype
    tol = FLOAT_TOL[dtype] * 10
    qh, rh = cw.to_numpy(q), cw.to_numpy(r)
    np.testing.assert_allclose(qh @ rh, a, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.triu(rh), rh, atol=0)
    k = qh.shape[-1]
    np.testing.assert_allclose(_ct(qh) @ qh, np.broadcast_to(np.eye(k), qh.shape[:-2] + (k, k)), atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_and_svdvals(device, dtype, shape, full):
    a = random_matrix(np.random.default_rng(2), shape, dtype)
    u, s, vh = L.svd(on(device, a), full_matrices=full)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    tol = FLOAT_TOL[dtype] * 10
    check(s, ws, rtol=tol, atol=tol)
    k = ws.shape[-1]
    uh, vhh = cw.to_numpy(u)[..., :k], cw.to_numpy(vh)[..., :k, :]
    np.testing.assert_allclose((uh * cw.to_numpy(s)[..., None, :]) @ vhh, a, rtol=tol, atol=tol)
    check(L.svdvals(transposed(device, a)), ws, rtol=tol, atol=tol)
    assert np.all(np.diff(cw.to_numpy(s), axis=-1) <= 0)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_eigh_and_eigvalsh(device, dtype, shape):
    a = hermitian_pd(np.random.default_rng(3), shape, dtype)
    w, v = L.eigh(on(device, a))
    tol = FLOAT_TOL[dtype] * 100
    check(w, np.linalg.eigvalsh(a), rtol=tol, atol=tol)
    vh, wh = cw.to_numpy(v), cw.to_numpy(w)
    np.testing.assert_allclose(a @ vh, vh * wh[..., None, :], rtol=tol, atol=tol)
    check(L.eigvalsh(on(device, a)), np.linalg.eigvalsh(a), rtol=tol, atol=tol)
    assert L.eigh(on(device, a)).eigenvalues.dtype.name == np.empty(0, dtype).real.dtype.name


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(0, 0), (3, 0, 0)])
def test_inv_det_slogdet(device, dtype, shape):
    a = hermitian_pd(np.random.default_rng(4), shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    tol = FLOAT_TOL[dtype] * 10
    check(L.inv(on(device, a)), np.linalg.inv(a), rtol=tol, atol=tol)
    check(L.det(transposed(device, a)), np.linalg.det(a), rtol=tol, atol=tol)
    sign, logabs = L.slogdet(on(device, a))
    wsign, wlog = np.linalg.slogdet(a)
    check(sign, wsign, rtol=tol, atol=tol)
    check(logabs, wlog, rtol=tol, atol=tol)
    assert L.slogdet(on(device, a)).logabsdet.dtype.name == np.empty(0, dtype).real.dtype.name


def test_singular_matrices(device):
    singular = on(device, [[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(LinAlgError):
        L.inv(singular)
    with pytest.raises(LinAlgError):
        L.solve(singular, on(device, [1.0, 1.0]))
    sign, logabs = L.slogdet(singular)
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    assert float(L.det(singular)) == 0.0


@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_shapes(device, dtype):
    rng = np.random.default_rng(5)
    tol = FLOAT_TOL[dtype] * 100
    a = hermitian_pd(rng, (2, 3, 3), dtype)
    b = random_matrix(rng, (2, 3, 4), dtype)
    check(L.solve(on(device, a), on(device, b)), np.linalg.solve(a, b), rtol=tol, atol=tol)
    # a 1-D right-hand side is one vector for every matrix
    v = random_matrix(rng, (3,), dtype)
    check(L.solve(on(device, a), on(device, v)), np.linalg.solve(a, v[:, None])[..., 0], rtol=tol, atol=tol)
    # batch dimensions broadcast
    b1 = random_matrix(rng, (4, 1, 3, 2), dtype)
    check(L.solve(transposed(device, a), on(device, b1)), np.linalg.solve(a, b1), rtol=tol, atol=tol)


def test_solve_promotes_and_checks(device):
    a = on(device, np.eye(2, dtype=np.float32) * 2)
    b = on(device, np.ones((2, 1)))
    check(L.solve(a, b), np.full((2, 1), 0.5))
    with pytest.raises(ValueError, match="rows"):
        L.solve(a, on(device, np.ones((3, 1))))
    with pytest.raises(ValueError, match="square"):
        L.solve(on(device, np.ones((2, 3))), b)
    with pytest.raises(TypeError):
        L.solve(on(device, np.eye(2, dtype=np.int64)), on(device, np.ones((2, 1), np.int64)))


@pytest.mark.parametrize("fname", ["cholesky", "inv", "det", "slogdet", "eigh", "eigvalsh"])
def test_square_only_functions_reject_bad_input(device, fname):
    fn = getattr(L, fname)
    with pytest.raises(ValueError, match="square"):
        fn(on(device, np.ones((2, 3))))
    with pytest.raises(ValueError, match="2 dimensions"):
        fn(on(device, np.ones(3)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(device, np.eye(2, dtype=np.int32)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(device, np.eye(2, dtype=np.float16)))


@pytest.mark.parametrize("fname", ["qr", "svd", "svdvals"])
def test_matrix_functions_reject_bad_input(device, fname):
    fn = getattr(L, fname)
    with pytest.raises(ValueError, match="2 dimensions"):
        fn(on(device, np.ones(3)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(device, np.ones((2, 2), dtype=bool)))
    if fname == "qr":
        with pytest.raises(ValueError, match="mode"):
            L.qr(on(device, np.eye(2)), mode="r")


def test_named_results(device):
    a = on(device, np.eye(2))
    assert L.qr(a)._fields == ("Q", "R")
    assert L.svd(a)._fields == ("U", "S", "Vh")
    assert L.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert L.slogdet(a)._fields == ("sign", "logabsdet")


@pytest.mark.parametrize("call", [
    lambda x: L.cholesky(x), lambda x: L.qr(x), lambda x: L.svd(x), lambda x: L.svdvals(x),
    lambda x: L.eigh(x), lambda x: L.inv(x), lambda x: L.det(x), lambda x: L.slogdet(x),
    lambda x: L.solve(x, x), lambda x: L.pinv(x), lambda x: L.matrix_rank(x),
    lambda x: L.matrix_norm(x, ord=2), lambda x: L.matrix_power(x, -1),
])
def test_missing_capability_is_unsupported(device, monkeypatch, call):
    x = on(device, np.eye(2) * 2)
    monkeypatch.setattr(device, "capabilities", frozenset(set(device.capabilities) - {"linalg"}), raising=False)
    with pytest.raises(UnsupportedOperation, match=f"{device.name}.*'linalg'"):
        call(x)
