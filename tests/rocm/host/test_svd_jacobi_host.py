"""The batched Jacobi SVD kernel (rocm_backend/hip/svd_jacobi.h / .hip) on the CPU, against
numpy.linalg.svd: singular values, U S V^T = A, orthonormal U and V.

Two ways: the algorithm's core compiled by g++ as plain C++ and run with one thread
(many matrices, up to 64 x 64, both precisions, rank-deficient and badly scaled ones);
and the kernel itself through tests/rocm/host/host_exec.py (every thread of a block a fiber,
real barriers) reached through the backend's own ``svd`` (the family's strides for tall
and wide matrices, the launch, the info check)."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.errors import LinAlgError
from candlewick.layout import Layout
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.families import svd_jacobi
from rocm_backend import kernels  # noqa: F401  (host_exec's factory patches it)

HIP_DIR = ops.__file__.rsplit("/", 1)[0] + "/hip"

_DRIVER = r"""
#include <math.h>
#define __device__
#define __syncthreads() ((void)0)
#include "svd_jacobi.h"
template <class T>
static int run(const T* a, int count, int R, int C, T* u, T* v, T* s, T* w, T* vs, T* part, T* norm, int* mark) {
    int bad = 0;
    for (int b = 0; b < count; b++) {
        int flag = 0, info = 0;
        cw_svd_scratch<T> sc = {w, vs, part, norm, mark, &flag};
        cw_svd_view<const T> src = {a + (long long)b * R * C, C, 1};  // row-major R x C
        cw_svd_view<T> du = {u + (long long)b * R * C, C, 1};        // row-major R x C
        cw_svd_view<T> dv = {v + (long long)b * C * C, C, 1};        // row-major C x C (V, not V^T)
        cw_svd_jacobi_core<T>(0, 1, R, C, src, du, dv, s + (long long)b * C, &info, 100, sc);
        bad += info;
    }
    return bad;
}
#define ENTRY(T, NAME)                                                                          \
    extern "C" int NAME(const T* a, int count, int R, int C, T* u, T* v, T* s) {                \
        static T w[65 * 64], vs[65 * 64], part[3 * 64], norm[64];                              \
        static int mark[64];                                                                    \
        return run<T>(a, count, R, C, u, v, s, w, vs, part, norm, mark);                       \
    }
ENTRY(float, svd_f32)
ENTRY(double, svd_f64)
"""


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: this test compiles rocm_backend/hip/svd_jacobi.h for the host")
    tmp = tmp_path_factory.mktemp("svd_core")
    src, out = tmp / "svd_core.cpp", tmp / "libsvd_core.so"
    src.write_text(_DRIVER)
    subprocess.run([gxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-Wno-unused-function",
                    "-I", HIP_DIR, str(src), "-o", str(out)], check=True)
    return ctypes.CDLL(str(out))


def _run_core(core, a):
    """(U, S, V, failures) of every R x C (R >= C) matrix of ``a`` (count, R, C)."""
    count, r, c = a.shape
    a = np.ascontiguousarray(a)
    u, v, s = np.empty_like(a), np.empty((count, c, c), a.dtype), np.empty((count, c), a.dtype)
    fn = core.svd_f32 if a.dtype == np.float32 else core.svd_f64
    ptr = ctypes.c_void_p
    bad = fn(ptr(a.ctypes.data), count, r, c, ptr(u.ctypes.data), ptr(v.ctypes.data), ptr(s.ctypes.data))
    return u, s, v, bad


def _check(a, u, s, v, tol):
    """Singular values as NumPy's, reconstruction and orthonormality, relative to |A|."""
    ref = np.linalg.svd(a.astype(np.float64), compute_uv=False)
    scale = max(np.abs(ref).max(), np.finfo(np.float64).tiny)
    np.testing.assert_allclose(s, ref, atol=tol * scale, rtol=0)
    assert (np.diff(s, axis=-1) <= 0).all(), "singular values must come out descending"
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), a, atol=tol * scale, rtol=0)
    k = s.shape[-1]
    eye = np.broadcast_to(np.eye(k), s.shape[:-1] + (k, k))
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, eye, atol=tol)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, eye, atol=tol)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-5), (np.float64, 1e-13)], ids=["float32", "float64"])
@pytest.mark.parametrize("rows, cols", [(64, 64), (64, 17), (9, 9), (5, 2), (3, 1), (2, 2)], ids=str)
def test_core_against_numpy(core, dtype, tol, rows, cols):
    rng = np.random.default_rng(rows * 100 + cols)
    a = rng.standard_normal((6, rows, cols)).astype(dtype)
    a[1] *= 1e30 if dtype == np.float64 else 1e18  # scaled first: no overflow in the sums of squares
    a[2] *= 1e-30 if dtype == np.float64 else 1e-18
    if cols > 1:  # rank 1, and an exact zero column
        a[3] = np.outer(rng.standard_normal(rows), rng.standard_normal(cols)).astype(dtype)
        a[4, :, 0] = 0
    a[5] = 0  # all zero: U must still be orthonormal
    u, s, v, bad = _run_core(core, a)
    assert bad == 0
    _check(a, u, s, v, tol)


def test_core_reports_non_finite_input(core):
    a = np.ones((2, 3, 3))
    a[1, 1, 1] = np.nan
    assert _run_core(core, a)[3] == 1


# --- the kernel itself, through the backend's svd --------------------------------------

@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if s.key[0] in ("svd_jacobi", "copy")]
    return build(tmp_path_factory.mktemp("svd_exec"), ["svd_jacobi.h", "svd_jacobi.hip"], specs)


@pytest.fixture
def device(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)()[1]


@pytest.mark.parametrize("warp", [32, 64])
@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=str)
@pytest.mark.parametrize("shape", [(3, 5, 5), (2, 7, 4), (2, 4, 7), (2, 2, 1, 3)], ids=str)
def test_kernel_through_backend(lib, monkeypatch, tmp_path, dtype, shape, warp):
    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=warp)
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = rng.standard_normal(shape).astype(dtype.numpy)
    a[0] = 0  # a zero matrix in the batch
    # uploaded transposed with an offset: the family copies a strided view first
    t = np.ascontiguousarray(np.swapaxes(a, -1, -2))
    buf = np.concatenate([np.zeros(3, a.dtype), t.reshape(-1)])
    s = dev.storage_from_host(buf)
    strides = list(Layout.contiguous(t.shape).strides)
    strides[-1], strides[-2] = strides[-2], strides[-1]
    lay = Layout(shape, tuple(strides), 3)
    u_s, s_s, vh_s = s.svd(lay, False)
    assert any(name.startswith("svd_jacobi") for name, _, _ in rt.launches)
    m, n = shape[-2:]
    k = min(m, n)
    batch = shape[:-2]
    u = u_s.to_host(Layout.contiguous(batch + (m, k)))
    sv = s_s.to_host(Layout.contiguous(batch + (k,)))
    vh = vh_s.to_host(Layout.contiguous(batch + (k, n)))
    _check(a, u, sv, np.swapaxes(vh, -1, -2), 1e-5 if dtype is dt.float32 else 1e-12)


def test_kernel_raises_on_nan(device):
    a = np.ones((2, 3, 3))
    a[1, 0, 0] = np.nan
    s = device.storage_from_host(a.reshape(-1))
    with pytest.raises(LinAlgError, match="did not converge"):
        s.svd(Layout.contiguous((2, 3, 3)), False)


def test_routing():
    assert svd_jacobi.fits(1024, 64, 64, dt.float32, True)
    assert svd_jacobi.fits(2, 3, 64, dt.float64, False)
    assert not svd_jacobi.fits(1, 8, 8, dt.float32, False)  # one matrix: gesvd
    assert not svd_jacobi.fits(4, 65, 8, dt.float32, False)  # past the shared-memory tile
    assert not svd_jacobi.fits(4, 8, 4, dt.float32, True)  # full U of a tall matrix: the library
    assert not svd_jacobi.fits(4, 8, 8, dt.complex64, False)
    assert svd_jacobi.block_size(64, 64) == 256 and svd_jacobi.block_size(5, 5) == 64
