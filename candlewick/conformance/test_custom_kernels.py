"""The optional "custom_kernels" group: ``device.raw_kernel``, ``elementwise_kernel`` and
``reduction_kernel`` (``candlewick.backend.CustomKernelDevice``), driven through
``candlewick.RawKernel``, ``ElementwiseKernel`` and ``ReductionKernel``. Element-wise and
reduction kernels are compared with the same kernels run in the C subset on the cpu
backend (the reference): bit for bit where every operation is exact, sums within a
reassociation's tolerance. The kernel texts are C++ that HIP and CUDA compilers both take."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.errors import KernelCompileError

from .checks import assert_bitwise_equal, require_capability
from .strategies import dtype_params


@pytest.fixture(scope="session")
def kernel_device(device):
    require_capability(device, "custom_kernels")
    return device


def _both(kernel, device, *host_args, **kwargs):
    """The kernel's outputs on ``device`` and on cpu (the C subset), as NumPy arrays."""
    out = []
    for dev in (device, cw.get_device("cpu")):
        args = [cw.asarray(a, device=dev) if isinstance(a, np.ndarray) else a for a in host_args]
        got = kernel(*args, **kwargs)
        out.append([cw.to_numpy(g) for g in (got if isinstance(got, tuple) else (got,))])
    return out


EXACT = cw.ElementwiseKernel("T x, T y, int32 k", "T z, int32 q, bool b", """
    T t = x > y ? x - y : y - x;     // a branch, a local
    z = t * 3 + (T)k;
    q = k / 3 + k % 3;               // truncating integer division
    b = x < y && k != 0;
""", "conformance_exact")


@pytest.mark.parametrize("dtype", dtype_params((dt.int16, dt.float16, dt.float32, dt.float64)))
def test_elementwise_kernel(kernel_device, dtype):
    rng = np.random.default_rng(3)
    x = rng.integers(-20, 20, (6, 33)).astype(dtype.numpy)
    y = rng.integers(-20, 20, (33,)).astype(dtype.numpy)  # broadcast
    k = rng.integers(-50, 50, (6, 1)).astype(np.int32)
    got, want = _both(EXACT, kernel_device, x, y, k)
    for g, w in zip(got, want):
        assert_bitwise_equal(g, w)


L2 = cw.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a);", "0", "conformance_l2")
ISUM = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "conformance_isum")


@pytest.mark.parametrize("axis", [0, 1, None])
def test_reduction_kernel(kernel_device, axis):
    rng = np.random.default_rng(4)
    ints = rng.integers(-2**30, 2**30, (40, 70)).astype(np.int32)
    got, want = _both(ISUM, kernel_device, ints, axis=axis)
    assert_bitwise_equal(got[0], want[0])  # integer sums wrap alike in every order
    floats = rng.standard_normal((40, 70)).astype(np.float32)
    got, want = _both(L2, kernel_device, floats, axis=axis)
    np.testing.assert_allclose(got[0], want[0], rtol=64 * np.finfo(np.float32).eps)


ADD = cw.RawKernel(r'''
extern "C" __global__ void conformance_add(const float* x, const float* y, float* z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}''', "conformance_add")


def test_raw_kernel(kernel_device):
    x = np.arange(1000, dtype=np.float32)
    y = np.arange(1000, dtype=np.float32)[::-1].copy()
    z = cw.zeros((1000,), dtype=cw.float32, device=kernel_device)
    ADD(4, 256, (cw.asarray(x, device=kernel_device), cw.asarray(y, device=kernel_device), z, 1000))
    assert_bitwise_equal(cw.to_numpy(z), x + y)


@pytest.mark.primitive("elementwise_kernel")
def test_compile_errors_name_the_line(kernel_device):
    broken = cw.ElementwiseKernel("T x", "T y", "T t = x;\ny = t * undefined_name;", "conformance_broken")
    with pytest.raises(KernelCompileError) as info:
        broken(cw.zeros((3,), dtype=cw.float32, device=kernel_device))
    assert info.value.part == "body" and info.value.line == 2
