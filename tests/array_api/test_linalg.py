"""The linalg extension (and tensordot/vecdot/matmul of the main namespace) against
NumPy's linalg on the same matrices. Decompositions whose factors are not unique
(qr, svd, eigh) are checked by reconstruction and by their invariants.

On a device without the optional "linalg" capability the decompositions raise
UnsupportedOperation; those tests skip there (the fuzz test checks the error class).
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import array_api_strict as xs
import candlewick as cw
from array_api_support import (
    FLOAT, INTEGER, NUMERIC, REAL_FLOAT, assert_matches_strict, finite_arrays, int_arrays,
    quiet, shapes, to_np, to_strict,
)
from candlewick.errors import UnsupportedOperation

la = cw.linalg


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except UnsupportedOperation as exc:
        pytest.skip(f"device lacks the linalg capability: {exc}")


def _tol(name):
    return (2e-3, 2e-3) if name in ("float32", "complex64") else (1e-8, 1e-9)


def _close(got, expected, name, what=""):
    rtol, atol = _tol(name)
    np.testing.assert_allclose(to_np(got), expected, rtol=rtol, atol=atol, err_msg=what)


def _matrices(data, names=FLOAT, *, square=True, min_n=1, max_n=4, batch=True):
    name = data.draw(st.sampled_from(names), label="dtype")
    n = data.draw(st.integers(min_n, max_n), label="n")
    m = n if square else data.draw(st.integers(min_n, max_n), label="m")
    lead = data.draw(shapes(max_dims=1, max_side=2), label="batch") if batch else ()
    a = data.draw(finite_arrays(name, lead + (m, n), magnitude=1.0), label="x")
    return name, a


def _well_conditioned(a):
    """x + n*I: diagonally dominant, so inv/solve/det are well conditioned."""
    n = a.shape[-1]
    return a + cw.eye(n, dtype=a.dtype) * float(n + 1)


def _hermitian_positive_definite(a):
    n = a.shape[-1]
    return a @ cw.conj(a.mT) + cw.eye(n, dtype=a.dtype) * float(n)


@given(data=st.data())
def test_cholesky(data):
    name, a = _matrices(data)
    spd = _hermitian_positive_definite(a)
    upper = data.draw(st.booleans(), label="upper")
    out = _call(la.cholesky, spd, upper=upper)
    expected = np.linalg.cholesky(to_np(spd))
    if upper:
        expected = np.conj(np.swapaxes(expected, -1, -2))
    assert out.dtype == a.dtype
    _close(out, expected, name, "cholesky")


@given(data=st.data())
def test_inv_solve_det_slogdet(data):
    name, a = _matrices(data)
    m = _well_conditioned(a)
    host = to_np(m)
    _close(_call(la.inv, m), np.linalg.inv(host), name, "inv")
    _close(_call(la.det, m), np.linalg.det(host), name, "det")
    sign, logabs = _call(la.slogdet, m)
    ref_sign, ref_log = np.linalg.slogdet(host)
    _close(sign, ref_sign, name, "slogdet sign")
    _close(logabs, ref_log, name, "slogdet logabsdet")
    assert logabs.dtype == cw.finfo(m.dtype).dtype, "logabsdet is real-valued"
    k = data.draw(st.integers(1, 3), label="rhs_cols")
    b = data.draw(finite_arrays(name, m.shape[:-1] + (k,), magnitude=1.0), label="x2")
    _close(_call(la.solve, m, b), np.linalg.solve(host, to_np(b)), name, "solve")


def test_solve_with_a_vector_right_hand_side():
    a = cw.asarray([[3.0, 1.0], [1.0, 2.0]])
    b = cw.asarray([9.0, 8.0])
    out = _call(la.solve, a, b)
    assert out.shape == (2,)
    np.testing.assert_allclose(to_np(out), [2.0, 3.0])


def test_singular_matrices_raise():
    singular = cw.asarray([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(ValueError):
        _call(la.inv, singular)
    with pytest.raises(ValueError):
        _call(la.solve, singular, cw.asarray([1.0, 1.0]))
    with pytest.raises(ValueError):
        _call(la.cholesky, cw.asarray([[1.0, 2.0], [2.0, 1.0]]))


@given(data=st.data())
def test_eigh_and_eigvalsh(data):
    name, a = _matrices(data)
    h = _hermitian_positive_definite(a)
    w, v = _call(la.eigh, h)
    ref_w = np.linalg.eigvalsh(to_np(h))
    assert w.dtype == cw.finfo(h.dtype).dtype and v.dtype == h.dtype
    _close(w, ref_w, name, "eigh eigenvalues (ascending)")
    _close(_call(la.eigvalsh, h), ref_w, name, "eigvalsh")
    # h v = v diag(w)
    _close(h @ v, to_np(v) * to_np(w)[..., None, :], name, "eigh: h @ v == v * w")


@given(data=st.data())
def test_qr(data):
    name, a = _matrices(data, square=False)
    mode = data.draw(st.sampled_from(["reduced", "complete"]), label="mode")
    q, r = _call(la.qr, a, mode=mode)
    m, n = a.shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    assert q.shape == a.shape[:-2] + (m, k) and r.shape == a.shape[:-2] + (k, n)
    _close(q @ r, to_np(a), name, "q @ r")
    _close(cw.conj(q.mT) @ q, np.broadcast_to(np.eye(k), q.shape[:-2] + (k, k)), name, "q orthonormal")
    np.testing.assert_allclose(np.tril(to_np(r), -1), 0, atol=_tol(name)[1])


@given(data=st.data())
def test_svd_and_svdvals(data):
    name, a = _matrices(data, square=False)
    full = data.draw(st.booleans(), label="full_matrices")
    u, s, vh = _call(la.svd, a, full_matrices=full)
    ref_s = np.linalg.svd(to_np(a), compute_uv=False)
    _close(s, ref_s, name, "singular values")
    _close(_call(la.svdvals, a), ref_s, name, "svdvals")
    k = min(a.shape[-2:])
    rebuilt = to_np(u)[..., :, :k] * to_np(s)[..., None, :] @ to_np(vh)[..., :k, :]
    _close(cw.asarray(rebuilt), to_np(a), name, "u s vh")
    assert s.dtype == cw.finfo(a.dtype).dtype


@given(data=st.data())
def test_matrix_and_vector_norms(data):
    name, a = _matrices(data, square=False)
    keepdims = data.draw(st.booleans(), label="keepdims")
    ord_ = data.draw(st.sampled_from(["fro", "nuc", 1, -1, 2, -2, float("inf"), -float("inf")]), label="ord")
    out = _call(la.matrix_norm, a, ord=ord_, keepdims=keepdims)
    expected = np.linalg.norm(to_np(a), ord=ord_, axis=(-2, -1), keepdims=keepdims)
    _close(out, expected, name, f"matrix_norm(ord={ord_})")
    vord = data.draw(st.sampled_from([1, 2, 3, 0, float("inf"), -float("inf"), -1]), label="vector ord")
    axis = data.draw(st.none() | st.integers(-a.ndim, a.ndim - 1), label="axis")
    try:
        vref = quiet(xs.linalg.vector_norm, to_strict(a), axis=axis, keepdims=keepdims, ord=vord)
    except ValueError:  # NumPy: the ±inf norms of nothing are max/min of nothing
        with pytest.raises(ValueError):
            la.vector_norm(a, axis=axis, keepdims=keepdims, ord=vord)
        return
    vout = la.vector_norm(a, axis=axis, keepdims=keepdims, ord=vord)
    assert vout.dtype == cw.finfo(a.dtype).dtype
    _close(vout, np.asarray(vref), name, f"vector_norm(ord={vord}, axis={axis})")


@given(data=st.data())
def test_matrix_power(data):
    name, a = _matrices(data)
    n = data.draw(st.integers(-2, 4), label="n")
    m = _well_conditioned(a) * (1.0 / (a.shape[-1] + 1))
    _close(_call(la.matrix_power, m, n), np.linalg.matrix_power(to_np(m), n), name, f"matrix_power(n={n})")


@given(data=st.data())
def test_matrix_power_of_integer_matrices(data):
    a = data.draw(int_arrays("int64", (3, 3), -3, 3), label="x")
    n = data.draw(st.integers(0, 4), label="n")
    np.testing.assert_array_equal(to_np(la.matrix_power(a, n)), np.linalg.matrix_power(to_np(a), n))


@given(data=st.data())
def test_matrix_rank_and_pinv(data):
    name, a = _matrices(data, square=False, names=REAL_FLOAT)
    host = to_np(a)
    # a low-rank product makes the rank interesting
    low = cw.asarray(host[..., :, :1] @ host[..., :1, :])
    for m in (a, low):
        got = _call(la.matrix_rank, m)
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
        _close(_call(la.pinv, a), np.linalg.pinv(host), name, "pinv")
    else:
        assume(not ((ratio > 1e-4) & (ratio < 1e-2)).any())
        _close(_call(la.pinv, a, rtol=1e-3), np.linalg.pinv(host, rtol=1e-3), name, "pinv(rtol=1e-3)")


@given(data=st.data())
def test_cross_outer_diagonal_trace(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    lead = data.draw(shapes(max_dims=2, max_side=3), label="lead")
    x1 = data.draw(finite_arrays(name, lead + (3,), magnitude=10.0), label="x1")
    x2 = data.draw(finite_arrays(name, lead + (3,), magnitude=10.0), label="x2")
    assert_matches_strict(la.cross(x1, x2), xs.linalg.cross(to_strict(x1), to_strict(x2)),
                          rtol=1e-5 if name in ("float32", "complex64") else 1e-12)
    v1 = data.draw(finite_arrays(name, (data.draw(st.integers(0, 4)),), magnitude=10.0), label="v1")
    v2 = data.draw(finite_arrays(name, (data.draw(st.integers(0, 4)),), magnitude=10.0), label="v2")
    assert_matches_strict(la.outer(v1, v2), xs.linalg.outer(to_strict(v1), to_strict(v2)))
    m = data.draw(finite_arrays(name, lead + (3, 4), magnitude=10.0), label="m")
    offset = data.draw(st.integers(-4, 5), label="offset")
    assert_matches_strict(la.diagonal(m, offset=offset), xs.linalg.diagonal(to_strict(m), offset=offset))
    assert_matches_strict(la.trace(m, offset=offset), xs.linalg.trace(to_strict(m), offset=offset),
                          rtol=1e-5 if name in ("float32", "complex64") else 1e-12)


def test_cross_rejects_vectors_that_are_not_3d():
    with pytest.raises(ValueError):
        la.cross(cw.ones(4), cw.ones(4))


@given(data=st.data())
def test_tensordot_and_vecdot(data):
    name = data.draw(st.sampled_from(NUMERIC), label="dtype")
    a = data.draw(finite_arrays(name, (2, 3, 4), magnitude=4.0), label="x1")
    b = data.draw(finite_arrays(name, (3, 4, 2), magnitude=4.0), label="x2")
    rtol = 1e-4 if name in ("float32", "complex64") else 1e-12
    for axes in (0, 2, ((1, 2), (0, 1)), ((2,), (1,)), ((0,), (2,))):
        assert_matches_strict(cw.tensordot(a, b, axes=axes), xs.tensordot(to_strict(a), to_strict(b), axes=axes),
                              rtol=rtol, what=f"tensordot(axes={axes}): ")
        assert_matches_strict(la.tensordot(a, b, axes=axes), xs.tensordot(to_strict(a), to_strict(b), axes=axes),
                              rtol=rtol)
    c = data.draw(finite_arrays(name, (3, 4), magnitude=4.0), label="x3")
    axis = data.draw(st.sampled_from([-1, -2]), label="axis")
    assert_matches_strict(cw.vecdot(a, c, axis=axis), xs.vecdot(to_strict(a), to_strict(c), axis=axis),
                          rtol=rtol, what=f"vecdot(axis={axis}): ")
    assert_matches_strict(la.vecdot(a, c, axis=axis), xs.linalg.vecdot(to_strict(a), to_strict(c), axis=axis),
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
    assert_matches_strict(la.matmul(x1, x2), quiet(xs.linalg.matmul, to_strict(x1), to_strict(x2)), rtol=rtol)


def test_matmul_rejects_mismatched_inner_dimensions_and_0d():
    with pytest.raises(ValueError):
        cw.matmul(cw.ones((2, 3)), cw.ones((2, 3)))
    with pytest.raises(ValueError):
        cw.matmul(cw.ones(()), cw.ones((2,)))


@pytest.mark.parametrize("fn", ["cholesky", "det", "eigh", "eigvalsh", "inv", "slogdet", "svdvals",
                                "matrix_rank", "pinv"])
def test_decompositions_need_matrices(fn):
    with pytest.raises(ValueError):
        _call(getattr(la, fn), cw.ones(3))
    if fn in ("cholesky", "det", "eigh", "eigvalsh", "inv", "slogdet"):
        with pytest.raises(ValueError):
            _call(getattr(la, fn), cw.ones((2, 3)))


@pytest.mark.parametrize("fn", ["cholesky", "det", "inv", "eigh", "qr", "svd"])
def test_decompositions_reject_integer_input(fn):
    with pytest.raises(TypeError):
        _call(getattr(la, fn), cw.asarray([[2, 1], [1, 2]]))


def test_diagonal_and_trace_of_an_empty_batch():
    m = cw.zeros((0, 3, 4), dtype=cw.int8)
    assert la.diagonal(m, offset=1).shape == (0, 3)
    assert to_np(la.trace(m, offset=1)).shape == (0,)


def test_infinity_norm_of_an_empty_vector_is_zero():
    """NumPy and array-api-strict give 0 (the largest of no magnitudes, with 0 as floor)."""
    empty = cw.zeros((0,), dtype=cw.float32)
    assert float(la.vector_norm(empty, ord=float("inf"))) == 0.0
