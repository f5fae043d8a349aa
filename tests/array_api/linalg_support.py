"""Hypothesis helpers of the linear algebra tests (test_linear_algebra,
test_linalg_composed, test_linalg_decompositions): drawn matrices, tolerances per dtype,
and a call that skips where the device lacks the optional "linalg" capability (the
fuzz test checks the error class there)."""

import numpy as np
import pytest
from hypothesis import strategies as st

import candlewick as cw
from array_api_support import FLOAT, finite_arrays, shapes, to_np
from candlewick.errors import UnsupportedOperation


def call_linalg(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except UnsupportedOperation as exc:
        pytest.skip(f"device lacks the linalg capability: {exc}")


def tolerance(name):
    return (2e-3, 2e-3) if name in ("float32", "complex64") else (1e-8, 1e-9)


def assert_close(got, expected, name, what=""):
    rtol, atol = tolerance(name)
    np.testing.assert_allclose(to_np(got), expected, rtol=rtol, atol=atol, err_msg=what)


def draw_matrices(data, names=FLOAT, *, square=True, min_n=1, max_n=4, batch=True):
    name = data.draw(st.sampled_from(names), label="dtype")
    n = data.draw(st.integers(min_n, max_n), label="n")
    m = n if square else data.draw(st.integers(min_n, max_n), label="m")
    lead = data.draw(shapes(max_dims=1, max_side=2), label="batch") if batch else ()
    a = data.draw(finite_arrays(name, lead + (m, n), magnitude=1.0), label="x")
    return name, a


def well_conditioned(a):
    """x + n*I: diagonally dominant, so inv/solve/det are well conditioned."""
    n = a.shape[-1]
    return a + cw.eye(n, dtype=a.dtype) * float(n + 1)


def hermitian_positive_definite(a):
    n = a.shape[-1]
    return a @ cw.conj(a.mT) + cw.eye(n, dtype=a.dtype) * float(n)
