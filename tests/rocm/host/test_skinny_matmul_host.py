"""The rocm backend's float32 products with one small edge (families/skinny_matmul.py,
hip/matmul.hip's narrow and long kernels), run on the CPU end to end through the backend's
host code and its real kernels compiled for the host (host_exec.py), against NumPy's
products: strided and transposed operands, both kernel widths and lane counts, ragged
edges, both warp widths, and a long product's partials summed over several chunks of K;
and the shapes and layouts that stay hipBLAS's."""

import numpy as np
import pytest

from candlewick.layout import Layout
from host_exec import build, device_factory
from rocm_backend import ops, rocblas
from rocm_backend.families import skinny_matmul


def _wanted(key):
    kind, rest = key[0], key[1:]
    if kind in ("matmul_narrow", "matmul_long"):
        return True
    if kind == "reduce":  # the long product's partials
        return rest[1] == "sum" and rest[-1] == "float32"
    return kind in ("copy", "fill")


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if _wanted(tuple(s.key))]
    return build(tmp_path_factory.mktemp("skinny_host"), ["reduce.hip", "matmul.hip"], specs)


@pytest.fixture(params=[64, 32], ids=["warp64", "warp32"])
def made(request, lib, monkeypatch, tmp_path):
    # the shapes here are small: the bounds on rows and K come down to them
    monkeypatch.setattr(skinny_matmul, "NARROW_MIN_ROWS", 1)
    monkeypatch.setattr(skinny_matmul, "LONG_MIN_K", 1)
    return device_factory(lib, monkeypatch, tmp_path)(warp=request.param)


def _layout(base, view):
    item = base.dtype.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return Layout(view.shape, tuple(st // item for st in view.strides), offset)


def _product(rt, dev, a_base, a_view, b_base, b_view):
    sa, sb = dev.storage_from_host(a_base), dev.storage_from_host(b_base)
    del rt.launches[:]
    out = sa.matmul(sb, _layout(a_base, a_view), _layout(b_base, b_view))
    got = out.to_host(Layout.contiguous((a_view.shape[0], b_view.shape[1])))
    return got, [name for name, *_ in rt.launches]


def _check(got, a, b):
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5 * (np.abs(want).max() + 1))


@pytest.mark.parametrize("m,k,n", [(300, 64, 8), (257, 256, 5), (513, 20, 2), (260, 300, 7), (100, 512, 3)])
def test_narrow_products_match_numpy(made, m, k, n):
    """A (m x k) read along its rows (a slice of a wider array: its own row stride, a
    multiple of 4) times a transposed B (KMeans' ``X @ centers.T``) and a contiguous one."""
    rt, dev = made
    rng = np.random.default_rng(m + k + n)
    a_base = rng.standard_normal((m, k + 8)).astype(np.float32)
    a = a_base[:, 4:k + 4]
    centers = rng.standard_normal((n, k)).astype(np.float32)
    for b_base, b in ((centers, centers.T), (np.ascontiguousarray(centers.T),) * 2):
        got, launched = _product(rt, dev, a_base, a, b_base, b)
        width, lanes = (4 if n <= 4 else 8), (8 if k >= 256 else 4)
        assert launched == [f"matmul_narrow_w{width}_g{lanes}"]
        _check(got, a, b)


@pytest.mark.parametrize("m,k,n", [(8, 1000, 256), (5, 700, 260), (6, 300, 512), (7, 100, 256)])
def test_long_products_match_numpy(made, m, k, n):
    """A transposed A (k x m stored: KMeans' ``onehot.T @ X``) times B (k x n) read along
    its rows, each its own stride; K long enough for several chunks but the last case's."""
    rt, dev = made
    rng = np.random.default_rng(m * k + n)
    onehot = rng.standard_normal((k, m)).astype(np.float32)
    b_base = rng.standard_normal((k, n + 4)).astype(np.float32)
    b = b_base[:, :n]
    got, launched = _product(rt, dev, onehot, onehot.T, b_base, b)
    assert launched[0] == "matmul_long_w8"
    assert len(launched) == (1 if k < 512 else 2)  # more than one chunk: their sum, one reduction
    _check(got, onehot.T, b)


def _other(case):
    """(A's base, A, B's base, B) of a product the skinny kernels leave to hipBLAS."""
    rng = np.random.default_rng(1)
    def mat(rows, cols, dtype=np.float32):
        return rng.standard_normal((rows, cols)).astype(dtype)
    if case == "one column":
        a, b = mat(300, 64), mat(64, 1)
    elif case == "nine columns":
        a, b = mat(300, 64), mat(64, 9)
    elif case == "A by columns":
        a, b = mat(64, 300), mat(64, 8)
        return a, a.T, b, b
    elif case == "A misaligned":
        a, b = mat(300, 65), mat(64, 8)
        return a, a[:, 1:], b, b
    elif case == "K not by 4":
        a, b = mat(300, 66), mat(66, 8)
    elif case == "float64":
        a, b = mat(300, 64, np.float64), mat(64, 8, np.float64)
    elif case in ("long of four rows", "long of nine rows"):
        a, b = mat(4 if "four" in case else 9, 1000), mat(1000, 256)
    elif case == "long B misaligned":
        a, b = mat(8, 1000), mat(1000, 257)
        return a, a, b, b[:, 1:]
    elif case == "long N not by 4":
        a, b = mat(8, 1000), mat(1000, 258)
    return a, a, b, b


@pytest.mark.parametrize("case", ["one column", "nine columns", "A by columns", "A misaligned", "K not by 4",
                                  "float64", "long of four rows", "long of nine rows", "long B misaligned",
                                  "long N not by 4"])
def test_other_products_stay_hipblas(made, monkeypatch, case):
    """Shapes the kernels are slower at, a dtype they are not built for, or layouts their
    16-byte reads cannot take: hipBLAS's GEMM (here a recorder: this runtime has no hipBLAS)."""
    rt, dev = made
    called = []
    monkeypatch.setattr(rocblas, "_blas_matmul", lambda *args: called.append(args))
    a_base, a, b_base, b = _other(case)
    del rt.launches[:]
    dev.storage_from_host(a_base).matmul(dev.storage_from_host(b_base), _layout(a_base, a), _layout(b_base, b))
    assert len(called) == 1 and rt.launches == []


def test_a_kept_gemm_does_not_keep_a_skinny_product_from_its_kernel(made):
    """The skinny kernels are asked before the GEMM arguments rocblas.matmul keeps by layout
    (not by address): a product of a layout hipBLAS once made (its A misaligned then) runs
    the kernel once A is aligned."""
    rt, dev = made
    rng = np.random.default_rng(2)
    a_base, centers = rng.standard_normal((300, 64)).astype(np.float32), rng.standard_normal((8, 64)).astype(np.float32)
    a_layout, b_layout = _layout(a_base, a_base), _layout(centers, centers.T)
    gemms = []
    dev.launches.keep(("gemm", "float32", a_layout.shape, a_layout.strides, b_layout.shape, b_layout.strides,
                       dev._current.stream.index), (300 * 8, lambda *args: gemms.append(args)))
    got, launched = _product(rt, dev, a_base, a_base, centers, centers.T)
    assert launched == ["matmul_narrow_w8_g4"] and gemms == []
    _check(got, a_base, centers.T)
