"""The batched Householder QR kernel (rocm_backend/hip/qr_householder.h / .hip) on the CPU,
against NumPy: Q R = A, orthonormal Q, upper triangular R, |diag R| as numpy.linalg.qr's.

Two ways, as tests/rocm/host/test_svd_jacobi_host.py: the core compiled by g++ as plain C++
with one thread, and the kernel through tests/rocm/host/host_exec.py (a block of fibers with
real barriers) reached through the backend's own ``qr``."""

import ctypes
import shutil
import subprocess

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.families import qr_householder

HIP_DIR = ops.__file__.rsplit("/", 1)[0] + "/hip"

_DRIVER = r"""
#include <math.h>
#define __device__
#define __syncthreads() ((void)0)
#include "qr_householder.h"
#define ENTRY(T, NAME)                                                                          \
    extern "C" void NAME(const T* a, int count, int m, int n, int kq, int kr, T* q, T* r) {      \
        static T w[65 * 64], tau[64];                                                           \
        for (int b = 0; b < count; b++) {                                                       \
            cw_qr_view<const T> src = {a + (long long)b * m * n, n, 1};                         \
            cw_qr_view<T> dq = {q + (long long)b * m * kq, kq, 1};                              \
            cw_qr_view<T> dr = {r + (long long)b * kr * n, n, 1};                               \
            cw_qr_householder_core<T>(0, 1, m, n, kq, kr, src, dq, dr, w, tau);                 \
        }                                                                                       \
    }
ENTRY(float, qr_f32)
ENTRY(double, qr_f64)
"""


@pytest.fixture(scope="module")
def core(tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: this test compiles rocm_backend/hip/qr_householder.h for the host")
    tmp = tmp_path_factory.mktemp("qr_core")
    src, out = tmp / "qr_core.cpp", tmp / "libqr_core.so"
    src.write_text(_DRIVER)
    subprocess.run([gxx, "-std=c++17", "-O2", "-shared", "-fPIC", "-Wall", "-Werror", "-I", HIP_DIR, str(src),
                    "-o", str(out)], check=True)
    return ctypes.CDLL(str(out))


def _check(a, q, r, tol):
    scale = max(np.abs(a).max(), np.finfo(np.float64).tiny)
    np.testing.assert_allclose(q @ r, a, atol=tol * scale, rtol=0)
    kq = q.shape[-1]
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(kq), a.shape[:-2] + (kq, kq)),
                               atol=tol)
    assert (np.tril(r, -1) == 0).all()
    k = min(a.shape[-2:])
    ref = np.linalg.qr(a.astype(np.float64), mode="r")
    np.testing.assert_allclose(np.abs(np.diagonal(r[..., :k, :], axis1=-2, axis2=-1)),
                               np.abs(np.diagonal(ref[..., :k, :], axis1=-2, axis2=-1)), atol=tol * scale, rtol=0)


@pytest.mark.parametrize("complete", [False, True], ids=["reduced", "complete"])
@pytest.mark.parametrize("dtype, tol", [(np.float32, 2e-5), (np.float64, 1e-13)], ids=["float32", "float64"])
@pytest.mark.parametrize("m, n", [(64, 64), (64, 17), (17, 64), (5, 2), (1, 3), (3, 1)], ids=str)
def test_core_against_numpy(core, dtype, tol, m, n, complete):
    rng = np.random.default_rng(m * 100 + n)
    a = rng.standard_normal((5, m, n)).astype(dtype)
    a[1] *= 1e30 if dtype == np.float64 else 1e18
    a[2] = 0
    a[3, :, 0] = 0  # a zero column: a reflector that is the identity
    a[4, 1:, 0] = 0  # nothing below the first diagonal entry
    k = min(m, n)
    kq = kr = m if complete else k
    q, r = np.empty((5, m, kq), dtype), np.empty((5, kr, n), dtype)
    fn = core.qr_f32 if dtype == np.float32 else core.qr_f64
    p = ctypes.c_void_p
    fn(p(a.ctypes.data), 5, m, n, kq, kr, p(q.ctypes.data), p(r.ctypes.data))
    _check(a, q, r, tol)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if s.key[0] in ("qr_householder", "copy")]
    return build(tmp_path_factory.mktemp("qr_exec"), ["qr_householder.h", "qr_householder.hip"], specs)


@pytest.mark.parametrize("warp", [32, 64])
@pytest.mark.parametrize("complete", [False, True], ids=["reduced", "complete"])
@pytest.mark.parametrize("dtype", [dt.float32, dt.float64], ids=str)
@pytest.mark.parametrize("shape", [(3, 5, 5), (2, 7, 4), (2, 4, 7), (2, 2, 1, 3)], ids=str)
def test_kernel_through_backend(lib, monkeypatch, tmp_path, dtype, shape, complete, warp):
    rt, dev = device_factory(lib, monkeypatch, tmp_path)(warp=warp)
    rng = np.random.default_rng(len(shape) * 10 + shape[-1])
    a = rng.standard_normal(shape).astype(dtype.numpy)
    t = np.ascontiguousarray(np.swapaxes(a, -1, -2))  # a transposed view with an offset
    s = dev.storage_from_host(np.concatenate([np.zeros(3, a.dtype), t.reshape(-1)]))
    strides = list(Layout.contiguous(t.shape).strides)
    strides[-1], strides[-2] = strides[-2], strides[-1]
    q_s, r_s = s.qr(Layout(shape, tuple(strides), 3), complete)
    assert any(name.startswith("qr_householder") for name, _, _ in rt.launches)
    m, n = shape[-2:]
    kq = m if complete else min(m, n)
    batch = shape[:-2]
    q = q_s.to_host(Layout.contiguous(batch + (m, kq)))
    r = r_s.to_host(Layout.contiguous(batch + (kq, n)))
    _check(a, q, r, 1e-5 if dtype is dt.float32 else 1e-12)


def test_routing():
    assert qr_householder.fits(1024, 64, 64, dt.float32)
    assert qr_householder.fits(2, 3, 64, dt.float64)
    assert not qr_householder.fits(1, 8, 8, dt.float32)  # one matrix: geqrf + orgqr
    assert not qr_householder.fits(4, 65, 8, dt.float32)
    assert not qr_householder.fits(4, 8, 8, dt.complex128)
