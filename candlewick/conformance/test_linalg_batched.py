"""The optional "linalg" group on batches of larger matrices in drawn layouts: sizes around
32 (where cuSOLVER's batched Jacobi stops and the HIP-on-CUDA shim changes path) and
batches large enough for the backends' batched routines, checked by the same defining
properties as test_linalg.py."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt

from .checks import read_factor, read_result
from .test_linalg import (LINALG, _h, _random, _upload_matrix, _well_conditioned,  # noqa: F401
                          assert_close_matrix, linalg_device)


@st.composite
def batched_case(draw):
    batch = (draw(st.integers(2, 5), label="batch"),)
    n = draw(st.sampled_from([8, 31, 33, 40]), label="n")
    seed = draw(st.integers(0, 2**32 - 1))
    return batch, n, np.random.default_rng(seed)


@pytest.mark.primitive("eigh")
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_eigh_batched(linalg_device, dtype, data):
    batch, n, rng = data.draw(batched_case())
    b = _random(rng, dtype, batch + (n, n))
    s, layout, a = _upload_matrix(linalg_device, dtype, data, (b + _h(b)) / 2, "A")
    a = (a + _h(a)) / 2
    w_s, v_s = s.eigh(layout)
    w = read_result(w_s, dt.real_dtype_of(dtype), batch + (n,)).astype(np.float64)
    v = read_result(v_s, dtype, batch + (n, n)).astype(np.complex128)
    scale = np.abs(a).max() * n
    assert (np.diff(w, axis=-1) >= 0).all(), "eigenvalues not ascending"
    assert_close_matrix(_h(v) @ v, np.eye(n), dtype, n, 1.0, "V^H V")
    assert_close_matrix(a @ v, v * w[..., None, :], dtype, n, scale, "A V = V diag(w)")


@pytest.mark.primitive("svd")
@pytest.mark.parametrize("full", [False, True], ids=["reduced", "full"])
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_svd_batched(linalg_device, dtype, full, data):
    batch, n, rng = data.draw(batched_case())
    m = data.draw(st.sampled_from([n, n // 2 + 1, n + 3]), label="m")
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (m, n)), "A")
    k = min(m, n)
    u_s, s_s, vh_s = s.svd(layout, full)
    u = read_factor(u_s, dtype, batch + (m, m if full else k)).astype(np.complex128)
    sv = read_result(s_s, dt.real_dtype_of(dtype), batch + (k,)).astype(np.float64)
    vh = read_factor(vh_s, dtype, batch + (n if full else k, n)).astype(np.complex128)
    scale = np.abs(a).max() * max(m, n)
    assert (np.diff(sv, axis=-1) <= 0).all(), "S not descending"
    assert_close_matrix(_h(u) @ u, np.eye(u.shape[-1]), dtype, m, 1.0, "U^H U")
    assert_close_matrix(vh @ _h(vh), np.eye(vh.shape[-2]), dtype, n, 1.0, "Vh Vh^H")
    recon = (u[..., :, :k] * sv[..., None, :]) @ vh[..., :k, :]
    assert_close_matrix(recon, a, dtype, max(m, n), scale, "U S Vh")


@pytest.mark.primitive("solve", "inv", "cholesky")
@pytest.mark.parametrize("dtype", LINALG)
@given(data=st.data())
def test_solve_inv_cholesky_batched(linalg_device, dtype, data):
    batch, n, rng = data.draw(batched_case())
    s, layout, a = _upload_matrix(linalg_device, dtype, data, _well_conditioned(rng, dtype, batch + (n, n)), "A")
    r, r_layout, b = _upload_matrix(linalg_device, dtype, data, _random(rng, dtype, batch + (n, 2)), "B")
    x = read_result(s.solve(layout, r, r_layout), dtype, batch + (n, 2)).astype(np.complex128)
    assert_close_matrix(a @ x, b, dtype, n, np.abs(b).max() * n + 1, "A X")
    inv = read_result(s.inv(layout), dtype, batch + (n, n)).astype(np.complex128)
    assert_close_matrix(a @ inv, np.eye(n) + 0 * a, dtype, n, n, "A inv(A)")
    spd = a @ _h(a) + n * np.eye(n)
    p, p_layout, spd = _upload_matrix(linalg_device, dtype, data, spd, "SPD")
    f = read_result(p.cholesky(p_layout, False), dtype, batch + (n, n)).astype(np.complex128)
    assert (np.tril(f) == f).all(), "the factor is not lower triangular"
    assert_close_matrix(f @ _h(f), spd, dtype, n, np.abs(spd).max(), "L L^H")
