"""candlewick.linalg factorizations and solvers (the optional "linalg" primitives),
both oracles: against NumPy's linalg on drawn matrices, then on fixed dtypes, shapes and
layouts against numpy.linalg. Factors that are not unique (qr, svd, eigh) are checked by
reconstruction and by their invariants. On a device without the "linalg" capability
these tests skip (the fuzz test checks the error class there)."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import candlewick as cw
from _oracle import FLOAT_TOL, check, hermitian_pd, on, random_matrix, transposed
from array_api_support import finite_arrays, to_np
from candlewick.errors import LinAlgError, UnsupportedOperation
from linalg_support import (
    assert_close, call_linalg, draw_matrices, hermitian_positive_definite, tolerance, well_conditioned,
)

L = cw.linalg

# === drawn matrices: NumPy's linalg =======================================================

@given(data=st.data())
def test_cholesky(data):
    name, a = draw_matrices(data)
    spd = hermitian_positive_definite(a)
    upper = data.draw(st.booleans(), label="upper")
    out = call_linalg(L.cholesky, spd, upper=upper)
    expected = np.linalg.cholesky(to_np(spd))
    if upper:
        expected = np.conj(np.swapaxes(expected, -1, -2))
    assert out.dtype == a.dtype
    assert_close(out, expected, name, "cholesky")


@given(data=st.data())
def test_inv_solve_det_slogdet(data):
    name, a = draw_matrices(data)
    m = well_conditioned(a)
    host = to_np(m)
    assert_close(call_linalg(L.inv, m), np.linalg.inv(host), name, "inv")
    assert_close(call_linalg(L.det, m), np.linalg.det(host), name, "det")
    sign, logabs = call_linalg(L.slogdet, m)
    ref_sign, ref_log = np.linalg.slogdet(host)
    assert_close(sign, ref_sign, name, "slogdet sign")
    assert_close(logabs, ref_log, name, "slogdet logabsdet")
    assert logabs.dtype == cw.finfo(m.dtype).dtype, "logabsdet is real-valued"
    k = data.draw(st.integers(1, 3), label="rhs_cols")
    b = data.draw(finite_arrays(name, m.shape[:-1] + (k,), magnitude=1.0), label="x2")
    assert_close(call_linalg(L.solve, m, b), np.linalg.solve(host, to_np(b)), name, "solve")


def test_solve_with_a_vector_right_hand_side():
    a = cw.asarray([[3.0, 1.0], [1.0, 2.0]])
    b = cw.asarray([9.0, 8.0])
    out = call_linalg(L.solve, a, b)
    assert out.shape == (2,)
    np.testing.assert_allclose(to_np(out), [2.0, 3.0])


def test_singular_matrices_raise():
    singular = cw.asarray([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError):
        call_linalg(L.inv, singular)
    with pytest.raises(ValueError):
        call_linalg(L.solve, singular, cw.asarray([1.0, 1.0]))
    with pytest.raises(ValueError):
        call_linalg(L.cholesky, cw.asarray([[1.0, 2.0], [2.0, 1.0]]))


@given(data=st.data())
def test_eigh_and_eigvalsh(data):
    name, a = draw_matrices(data)
    h = hermitian_positive_definite(a)
    w, v = call_linalg(L.eigh, h)
    ref_w = np.linalg.eigvalsh(to_np(h))
    assert w.dtype == cw.finfo(h.dtype).dtype and v.dtype == h.dtype
    assert_close(w, ref_w, name, "eigh eigenvalues (ascending)")
    assert_close(call_linalg(L.eigvalsh, h), ref_w, name, "eigvalsh")
    # h v = v diag(w)
    assert_close(h @ v, to_np(v) * to_np(w)[..., None, :], name, "eigh: h @ v == v * w")


@given(data=st.data())
def test_qr(data):
    name, a = draw_matrices(data, square=False)
    mode = data.draw(st.sampled_from(["reduced", "complete"]), label="mode")
    q, r = call_linalg(L.qr, a, mode=mode)
    m, n = a.shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    assert q.shape == a.shape[:-2] + (m, k) and r.shape == a.shape[:-2] + (k, n)
    assert_close(q @ r, to_np(a), name, "q @ r")
    assert_close(cw.conj(q.mT) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), name, "q orthonormal")
    np.testing.assert_allclose(np.tril(to_np(r), -1), 0, atol=tolerance(name)[1])


@given(data=st.data())
def test_svd_and_svdvals(data):
    name, a = draw_matrices(data, square=False)
    full = data.draw(st.booleans(), label="full_matrices")
    u, s, vh = call_linalg(L.svd, a, full_matrices=full)
    ref_s = np.linalg.svd(to_np(a), compute_uv=False)
    assert_close(s, ref_s, name, "singular values")
    assert_close(call_linalg(L.svdvals, a), ref_s, name, "svdvals")
    k = min(a.shape[-2:])
    rebuilt = to_np(u)[..., :, :k] * to_np(s)[..., None, :] @ to_np(vh)[..., :k, :]
    assert_close(cw.asarray(rebuilt), to_np(a), name, "u s vh")
    assert s.dtype == cw.finfo(a.dtype).dtype


@pytest.mark.parametrize("fn", ["cholesky", "det", "eigh", "eigvalsh", "inv", "slogdet", "svdvals",
                                "matrix_rank", "pinv"])
def test_decompositions_need_matrices(fn):
    with pytest.raises(ValueError):
        call_linalg(getattr(L, fn), cw.ones(3))
    if fn in ("cholesky", "det", "eigh", "eigvalsh", "inv", "slogdet"):
        with pytest.raises(ValueError):
            call_linalg(getattr(L, fn), cw.ones((2, 3)))


@pytest.mark.parametrize("fn", ["cholesky", "det", "inv", "eigh", "qr", "svd"])
def test_decompositions_reject_integer_input(fn):
    with pytest.raises(TypeError):
        call_linalg(getattr(L, fn), cw.asarray([[2, 1], [1, 2]]))


# === fixed dtypes, shapes and layouts: numpy.linalg =======================================

DTYPES = ["float32", "float64", "complex64", "complex128"]
SHAPES = [(3, 3), (2, 4, 4), (2, 1, 3, 3)]


@pytest.fixture
def _needs_linalg(dev):
    if "linalg" not in dev.capabilities:
        pytest.skip(f"{dev.name} does not declare the optional 'linalg' capability")


needs_linalg = pytest.mark.usefixtures("_needs_linalg")  # the tests below call the primitives directly


def _ct(a):
    return np.conj(np.swapaxes(a, -1, -2))


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_cholesky_fixed_cases(dev, dtype, shape):
    rng = np.random.default_rng(0)
    a = hermitian_pd(rng, shape, dtype)
    tol = FLOAT_TOL[dtype]
    lower = L.cholesky(on(dev, a))
    check(lower, np.linalg.cholesky(a), rtol=tol, atol=tol)
    upper = L.cholesky(transposed(dev, a), upper=True)
    u = cw.to_numpy(upper)
    np.testing.assert_allclose(_ct(u) @ u, a, rtol=tol * 10, atol=tol * 10)
    np.testing.assert_allclose(np.tril(u, -1), 0)


@needs_linalg
def test_cholesky_of_indefinite_matrix_raises(dev):
    with pytest.raises(LinAlgError):
        L.cholesky(on(dev, [[1.0, 2.0], [2.0, 1.0]]))


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (0, 3), (2, 3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs(dev, dtype, shape, mode):
    a = random_matrix(np.random.default_rng(1), shape, dtype)
    q, r = L.qr(on(dev, a), mode=mode)
    wq, wr = np.linalg.qr(a, mode=mode)
    assert q.shape == wq.shape and r.shape == wr.shape
    assert q.dtype.name == dtype and r.dtype.name == dtype
    tol = FLOAT_TOL[dtype] * 10
    qh, rh = cw.to_numpy(q), cw.to_numpy(r)
    np.testing.assert_allclose(qh @ rh, a, rtol=tol, atol=tol)
    np.testing.assert_allclose(np.triu(rh), rh, atol=0)
    k = qh.shape[-1]
    np.testing.assert_allclose(_ct(qh) @ qh, np.broadcast_to(np.eye(k), qh.shape[:-2] + (k, k)), atol=tol)


@needs_linalg
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ["random", "e1 first column", "strided"])
def test_qr_of_a_tall_matrix_is_numpys(dev, dtype, case):
    """Q and R of a tall matrix as NumPy's, values and signs (LAPACK's R_jj = -sign(alpha_j)
    * norm; alpha_j itself for a column already reduced), not only a factorization: rocm
    takes one tall matrix through a Cholesky QR, whose own R has a positive diagonal."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((65536, 16)).astype(dtype)
    if case == "e1 first column":
        a[:, 0] = 0
        a[0, 0] = -2.0
    x = on(dev, a)
    if case == "strided":  # every other column of a wider matrix
        wide = rng.standard_normal((65536, 32)).astype(dtype)
        a, x = wide[:, ::2], on(dev, wide)[:, ::2]
    q, r = L.qr(x)
    wq, wr = np.linalg.qr(a)
    tol = 1e-4 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(cw.to_numpy(q), wq, atol=tol)
    np.testing.assert_allclose(cw.to_numpy(r) / np.abs(wr).max(), wr / np.abs(wr).max(), atol=tol)


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
@pytest.mark.parametrize("full", [True, False])
def test_svd_and_svdvals_fixed_cases(dev, dtype, shape, full):
    a = random_matrix(np.random.default_rng(2), shape, dtype)
    u, s, vh = L.svd(on(dev, a), full_matrices=full)
    wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
    assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
    tol = FLOAT_TOL[dtype] * 10
    check(s, ws, rtol=tol, atol=tol)
    k = ws.shape[-1]
    uh, vhh = cw.to_numpy(u)[..., :k], cw.to_numpy(vh)[..., :k, :]
    np.testing.assert_allclose((uh * cw.to_numpy(s)[..., None, :]) @ vhh, a, rtol=tol, atol=tol)
    check(L.svdvals(transposed(dev, a)), ws, rtol=tol, atol=tol)
    assert np.all(np.diff(cw.to_numpy(s), axis=-1) <= 0)


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_eigh_and_eigvalsh_fixed_cases(dev, dtype, shape):
    a = hermitian_pd(np.random.default_rng(3), shape, dtype)
    w, v = L.eigh(on(dev, a))
    tol = FLOAT_TOL[dtype] * 100
    check(w, np.linalg.eigvalsh(a), rtol=tol, atol=tol)
    vh, wh = cw.to_numpy(v), cw.to_numpy(w)
    np.testing.assert_allclose(a @ vh, vh * wh[..., None, :], rtol=tol, atol=tol)
    check(L.eigvalsh(on(dev, a)), np.linalg.eigvalsh(a), rtol=tol, atol=tol)
    assert L.eigh(on(dev, a)).eigenvalues.dtype.name == np.empty(0, dtype).real.dtype.name


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(0, 0), (3, 0, 0)])
def test_inv_det_slogdet(dev, dtype, shape):
    a = hermitian_pd(np.random.default_rng(4), shape, dtype) if shape[-1] else np.zeros(shape, dtype)
    tol = FLOAT_TOL[dtype] * 10
    check(L.inv(on(dev, a)), np.linalg.inv(a), rtol=tol, atol=tol)
    check(L.det(transposed(dev, a)), np.linalg.det(a), rtol=tol, atol=tol)
    sign, logabs = L.slogdet(on(dev, a))
    wsign, wlog = np.linalg.slogdet(a)
    check(sign, wsign, rtol=tol, atol=tol)
    check(logabs, wlog, rtol=tol, atol=tol)
    assert L.slogdet(on(dev, a)).logabsdet.dtype.name == np.empty(0, dtype).real.dtype.name


@needs_linalg
def test_singular_matrices(dev):
    singular = on(dev, [[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(LinAlgError):
        L.inv(singular)
    with pytest.raises(LinAlgError):
        L.solve(singular, on(dev, [1.0, 1.0]))
    sign, logabs = L.slogdet(singular)
    assert float(sign) == 0.0 and float(logabs) == -np.inf
    assert float(L.det(singular)) == 0.0


@needs_linalg
@pytest.mark.parametrize("dtype", DTYPES)
def test_solve_shapes(dev, dtype):
    rng = np.random.default_rng(5)
    tol = FLOAT_TOL[dtype] * 100
    a = hermitian_pd(rng, (2, 3, 3), dtype)
    b = random_matrix(rng, (2, 3, 4), dtype)
    check(L.solve(on(dev, a), on(dev, b)), np.linalg.solve(a, b), rtol=tol, atol=tol)
    # a 1-D right-hand side is one vector for every matrix
    v = random_matrix(rng, (3,), dtype)
    check(L.solve(on(dev, a), on(dev, v)), np.linalg.solve(a, v[:, None])[..., 0], rtol=tol, atol=tol)
    # batch dimensions broadcast
    b1 = random_matrix(rng, (4, 1, 3, 2), dtype)
    check(L.solve(transposed(dev, a), on(dev, b1)), np.linalg.solve(a, b1), rtol=tol, atol=tol)


@needs_linalg
def test_solve_promotes_and_checks(dev):
    a = on(dev, np.eye(2, dtype=np.float32) * 2)
    b = on(dev, np.ones((2, 1)))
    check(L.solve(a, b), np.full((2, 1), 0.5))
    with pytest.raises(ValueError, match="rows"):
        L.solve(a, on(dev, np.ones((3, 1))))
    with pytest.raises(ValueError, match="square"):
        L.solve(on(dev, np.ones((2, 3))), b)
    with pytest.raises(TypeError):
        L.solve(on(dev, np.eye(2, dtype=np.int64)), on(dev, np.ones((2, 1), np.int64)))


@needs_linalg
@pytest.mark.parametrize("fname", ["cholesky", "inv", "det", "slogdet", "eigh", "eigvalsh"])
def test_square_only_functions_reject_bad_input(dev, fname):
    fn = getattr(L, fname)
    with pytest.raises(ValueError, match="square"):
        fn(on(dev, np.ones((2, 3))))
    with pytest.raises(ValueError, match="2 dimensions"):
        fn(on(dev, np.ones(3)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(dev, np.eye(2, dtype=np.int32)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(dev, np.eye(2, dtype=np.float16)))


@needs_linalg
@pytest.mark.parametrize("fname", ["qr", "svd", "svdvals"])
def test_matrix_functions_reject_bad_input(dev, fname):
    fn = getattr(L, fname)
    with pytest.raises(ValueError, match="2 dimensions"):
        fn(on(dev, np.ones(3)))
    with pytest.raises(TypeError, match="floating"):
        fn(on(dev, np.ones((2, 2), dtype=bool)))
    if fname == "qr":
        with pytest.raises(ValueError, match="mode"):
            L.qr(on(dev, np.eye(2)), mode="r")


@needs_linalg
def test_named_results(dev):
    a = on(dev, np.eye(2))
    assert L.qr(a)._fields == ("Q", "R")
    assert L.svd(a)._fields == ("U", "S", "Vh")
    assert L.eigh(a)._fields == ("eigenvalues", "eigenvectors")
    assert L.slogdet(a)._fields == ("sign", "logabsdet")


@needs_linalg
@pytest.mark.parametrize("call", [
    lambda x: L.cholesky(x), lambda x: L.qr(x), lambda x: L.svd(x), lambda x: L.svdvals(x),
    lambda x: L.eigh(x), lambda x: L.inv(x), lambda x: L.det(x), lambda x: L.slogdet(x),
    lambda x: L.solve(x, x), lambda x: L.pinv(x), lambda x: L.matrix_rank(x),
    lambda x: L.matrix_norm(x, ord=2), lambda x: L.matrix_power(x, -1),
])
def test_missing_capability_is_unsupported(dev, monkeypatch, call):
    x = on(dev, np.eye(2) * 2)
    monkeypatch.setattr(dev, "capabilities", frozenset(set(dev.capabilities) - {"linalg"}), raising=False)
    with pytest.raises(UnsupportedOperation, match=f"{dev.name}.*'linalg'"):
        call(x)
