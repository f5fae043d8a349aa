"""The optional "linalg" group: checked by the properties that define each result
(reconstruction, orthogonality, triangularity, ordering), not by exact factors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout

from .checks import Expected, eps_of, read_factor, read_result, require_capability
from .strategies import dtype_params, host_arrays, shapes, view_of

LINALG = dtype_params((dt.float32, dt.float64, dt.complex64, dt.complex128))


@pytest.fixture(scope="session")
def linalg_device(device):
    require_capability(device, "linalg")
    return device


def _h(m):
    """Conjugate transpose of the last two axes."""
    return np.conj(np.swapaxes(m, -1, -2))


def _upload_matrix(device, dtype, data, values, label):
    """Put host matrices ``values`` (batch..., m, n) into a drawn (non-broadcast) layout."""
    x = data.draw(host_arrays(dtype, values.shape, writable=True), label=label)
    view_of(x.flat, x.layout)[...] = values.astype(dtype.numpy)
    return x.upload(device), x.layout, x.value()


def _random(rng, dtype, shape):
    m = rng.standard_normal(shape)
    if dtype.is_complex:
        m = m + 1j * rng.standard_normal(shape)
    return m


def _tol(dtype, n, scale):
    return 64 * max(n, 1) * eps_of(dtype) * scale


def assert_close_matrix(actual, expected, dtype, n, scale=1.0, what=""):
    err = np.max(np.abs(actual - expected), initial=0.0)
    assert err <= _tol(dtype, n, scale), f"{what}: max error {err:g} > {_tol(dtype, n, scale):g}"


@st.composite
def matrix_case(draw, square=True):
    batch = draw(shapes(max_dims=2, max_side=2, allow_empty=False), label="batch")
    m = draw(st.integers(1, 4), label="m")
    n = m if square else draw(st.integers(1, 4), label="n")
    seed = draw(st.integers(0, 2**32 - 1))
    return batch, m, n, np.random.default_rng(seed)


@pytest.mark.parametrize("upper", [False, True], ids=["lower", "upper"])
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_cholesky(linalg_device, dtype, upper, data):
    batch, n, _, rng = data.draw(matrix_case())
    b = _random(rng, dtype, batch + (n, n))
    a_host = b @ _h(b) + n * np.eye(n)
    s, layout, a = _upload_matrix(linalg_device, dtype, data, a_host, "A")
    f = read_result(s.cholesky(layout, upper), dtype, a.shape).astype(np.complex128)
    tri = np.triu if upper else np.tril
    assert (tri(f) == f).all(), "the factor is not triangular"
    product = _h(f) @ f if upper else f @ _h(f)
    assert_close_matrix(product, a, dtype, n, np.abs(a).max(), "factor times its conjugate transpose")
    diag = np.diagonal(f, axis1=-2, axis2=-1)
    assert (diag.real > 0).all() and np.allclose(diag.imag, 0)


@pytest.mark.primitive("cholesky")
@pytest.mark.parametrize("dtype", LINALG)
def test_cholesky_not_positive_definite(linalg_device, dtype):
    a = linalg_device.storage_from_host(-np.eye(3, dtype=dtype.numpy).reshape(-1))
    with pytest.raises(LinAlgError):
        out = a.cholesky(Layout.contiguous((3, 3)), False)
        out.to_host(Layout.contiguous((3, 3)))


@pytest.mark.parametrize("complete", [False, True], ids=["reduced", "complete"])
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_qr(linalg_device, dtype, complete, data):
    batch, m, n, rng = data.draw(matrix_case(square=False))
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (m, n)), "A")
    k = m if complete else min(m, n)
    q_s, r_s = s.qr(layout, complete)
    q = read_factor(q_s, dtype, batch + (m, k)).astype(np.complex128)
    r = read_result(r_s, dtype, batch + (k, n)).astype(np.complex128)
    assert_close_matrix(_h(q) @ q, np.eye(k), dtype, m, 1.0, "Q^H Q")
    assert_close_matrix(np.tril(r, -1), 0 * r, dtype, m, np.abs(a).max(), "R below the diagonal")
    assert_close_matrix(q @ r, a, dtype, m, np.abs(a).max(), "Q R")


@pytest.mark.parametrize("full", [False, True], ids=["reduced", "full"])
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_svd(linalg_device, dtype, full, data):
    batch, m, n, rng = data.draw(matrix_case(square=False))
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (m, n)), "A")
    k = min(m, n)
    u_s, s_s, vh_s = s.svd(layout, full)
    real = dt.real_dtype_of(dtype)
    u = read_factor(u_s, dtype, batch + (m, m if full else k)).astype(np.complex128)
    sv = read_result(s_s, real, batch + (k,)).astype(np.float64)
    vh = read_factor(vh_s, dtype, batch + (n if full else k, n)).astype(np.complex128)
    scale = np.abs(a).max() * max(m, n)
    assert (sv >= 0).all() and (np.diff(sv, axis=-1) <= 0).all(), "S not descending"
    assert_close_matrix(sv, np.linalg.svd(a.astype(np.complex128), compute_uv=False), dtype, k,
                        scale, "singular values")
    assert_close_matrix(_h(u) @ u, np.eye(u.shape[-1]), dtype, m, 1.0, "U^H U")
    assert_close_matrix(vh @ _h(vh), np.eye(vh.shape[-2]), dtype, n, 1.0, "Vh Vh^H")
    recon = (u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :]
    assert_close_matrix(recon, a, dtype, max(m, n), scale, "U S Vh")


@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_eigh(linalg_device, dtype, data):
    batch, n, _, rng = data.draw(matrix_case())
    b = _random(rng, dtype, batch + (n, n))
    s, layout, a = _upload_matrix(linalg_device, dtype, data, (b + _h(b)) / 2, "A")
    a = (a + _h(a)) / 2  # what the backend sees, Hermitian after rounding too
    w_s, v_s = s.eigh(layout)
    w = read_result(w_s, dt.real_dtype_of(dtype), batch + (n,)).astype(np.float64)
    v = read_result(v_s, dtype, batch + (n, n)).astype(np.complex128)
    scale = np.abs(a).max() * n
    assert (np.diff(w, axis=-1) >= 0).all(), "eigenvalues not ascending"
    assert_close_matrix(w, np.linalg.eigvalsh(a.astype(np.complex128)), dtype, n, scale, "eigenvalues")
    assert_close_matrix(_h(v) @ v, np.eye(n), dtype, n, 1.0, "V^H V")
    assert_close_matrix(a @ v, v * w[..., None, :], dtype, n, scale, "A V = V diag(w)")


def _complex_of(dtype):
    return dtype if dtype.is_complex else dt.complex_dtype_of(dtype)


@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_eig(linalg_device, dtype, data):
    """General (non-Hermitian) matrices: complex values and right eigenvectors as
    columns, of unit 2-norm, with A V = V diag(w); the values are LAPACK geev's."""
    batch, n, _, rng = data.draw(matrix_case())
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (n, n)), "A")
    w_s, v_s = s.eig(layout)
    cdt = _complex_of(dtype)
    w = read_result(w_s, cdt, batch + (n,)).astype(np.complex128)
    v = read_result(v_s, cdt, batch + (n, n)).astype(np.complex128)
    scale = np.abs(a).max() * n
    assert_close_matrix(np.linalg.norm(v, axis=-2), np.ones(batch + (n,)), dtype, n, 1.0, "|v| = 1")
    assert_close_matrix(a @ v, v * w[..., None, :], dtype, n, scale, "A V = V diag(w)")
    want = np.sort_complex(np.linalg.eigvals(a.astype(np.complex128)).reshape(-1, n))
    got = np.sort_complex(w.reshape(-1, n))
    # sorting can pair a conjugate pair differently where real parts tie within rounding
    assert_close_matrix(np.abs(got), np.abs(want), dtype, n, scale * 16, "eigenvalue moduli")


def _well_conditioned(rng, dtype, shape):
    n = shape[-1]
    return _random(rng, dtype, shape) + 2 * n * np.eye(n)


@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_solve(linalg_device, dtype, data):
    batch, n, _, rng = data.draw(matrix_case())
    k = data.draw(st.integers(1, 3), label="k")
    s, layout, a = _upload_matrix(linalg_device, dtype, data,
                                   _well_conditioned(rng, dtype, batch + (n, n)), "A")
    r, r_layout, b = _upload_matrix(linalg_device, dtype, data,
                                    _random(rng, dtype, batch + (n, k)), "B")
    x = read_result(s.solve(layout, r, r_layout), dtype, batch + (n, k)).astype(np.complex128)
    assert_close_matrix(a @ x, b, dtype, n, np.abs(b).max() * n + 1, "A X")


@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_inv(linalg_device, dtype, data):
    batch, n, _, rng = data.draw(matrix_case())
    s, layout, a = _upload_matrix(linalg_device, dtype, data,
                                   _well_conditioned(rng, dtype, batch + (n, n)), "A")
    x = read_result(s.inv(layout), dtype, batch + (n, n)).astype(np.complex128)
    assert_close_matrix(a @ x, np.eye(n) + 0 * a, dtype, n, n, "A inv(A)")


SINGULAR = np.array([[1.0, 2.0], [2.0, 4.0]])


@pytest.mark.primitive(param="op")
@pytest.mark.parametrize("op", ["solve", "inv"])
@pytest.mark.parametrize("dtype", LINALG)
def test_singular_raises(linalg_device, dtype, op):
    a = linalg_device.storage_from_host(SINGULAR.astype(dtype.numpy).reshape(-1))
    layout = Layout.contiguous((2, 2))
    with pytest.raises(LinAlgError):
        out = a.solve(layout, a, layout) if op == "solve" else a.inv(layout)
        out.to_host(layout)


@pytest.mark.primitive("det", "slogdet")
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_det_and_slogdet(linalg_device, dtype, data):
    batch, n, _, rng = data.draw(matrix_case())
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (n, n)), "A")
    exact = np.linalg.det(a.astype(np.complex128))
    # det's error is relative to the product of the row norms (Hadamard's bound)
    scale = np.prod(np.linalg.norm(a.astype(np.complex128), axis=-1), axis=-1)
    det = read_result(s.det(layout), dtype, batch).astype(np.complex128)
    assert (np.abs(det - exact) <= _tol(dtype, n, scale)).all(), f"det {det} != {exact}"
    sign_s, log_s = s.slogdet(layout)
    sign = read_result(sign_s, dtype, batch).astype(np.complex128)
    logabs = read_result(log_s, dt.real_dtype_of(dtype), batch).astype(np.float64)
    assert np.allclose(np.abs(sign), 1, atol=_tol(dtype, 1, 1)), f"|sign| != 1: {sign}"
    assert (np.abs(sign * np.exp(logabs) - exact) <= _tol(dtype, n, scale)).all()


@pytest.mark.primitive("slogdet")
@pytest.mark.parametrize("dtype", LINALG)
def test_slogdet_singular(linalg_device, dtype):
    a = linalg_device.storage_from_host(SINGULAR.astype(dtype.numpy).reshape(-1))
    sign_s, log_s = a.slogdet(Layout.contiguous((2, 2)))
    Expected(np.zeros((), dtype.numpy)).check(read_result(sign_s, dtype, ()))
    logabs = read_result(log_s, dt.real_dtype_of(dtype), ())
    assert logabs == -np.inf, f"logabsdet of a singular matrix is {logabs}, expected -inf"
    det = read_result(a.det(Layout.contiguous((2, 2))), dtype, ())
    assert det == 0
