"""real and imag on the rocm backend: ``RocmStorage.real_view`` (the optional hook
``candlewick.backend.ComplexViewStorage``) hands out the complex buffer as floats, and the
backend's strided kernels, compiled for the host (host_exec.py), read and write the parts
through the doubled layouts. The copying ``unary`` real/imag kernels stay, for the
protocol, and agree with the views."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.complex_parts import part_layout
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, UnaryOp
from host_exec import build, device_factory
from rocm_backend import ops

KEYS = {("copy", 4), ("copy", 8), ("fill", 4), ("fill", 8), ("transpose", 4), ("transpose", 8),
        ("unary", "real", "complex64"), ("unary", "imag", "complex64"), ("unary", "real", "complex128"),
        ("unary", "imag", "complex128"), ("binary", "add", "float32"), ("binary", "add", "float64")}
COMPLEX = [np.complex64, np.complex128]


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if tuple(s.key) in KEYS]
    return build(tmp_path_factory.mktemp("complex_views_host"), ["transpose.hip"], specs)


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)[1]


def _matrix(dtype, rows=20, cols=24):
    rng = np.random.default_rng(11)
    z = (rng.standard_normal((rows, cols)) + 1j * rng.standard_normal((rows, cols))).astype(dtype)
    z[0, 0] = complex(-0.0, np.nan)
    return z


def _views(x, z):
    """(name, candlewick view, NumPy view): transposed (a tiled transpose copy reads it),
    sliced, offset, negative strides, 0-d, empty, broadcast."""
    return [("contiguous", x, z), ("transposed", x.mT, z.T), ("sliced", x[3:, ::3], z[3:, ::3]),
            ("offset row", x[5], z[5]), ("negative strides", x[::-1, ::-2], z[::-1, ::-2]),
            ("0-d", x[2, 7], z[2, 7]), ("empty", x[:, 24:], z[:, 24:]),
            ("broadcast", cw.broadcast_to(x[:1], (4, 24)), np.broadcast_to(z[:1], (4, 24)))]


@pytest.mark.parametrize("dtype", COMPLEX)
def test_parts_are_views_of_the_device_buffer(dev, dtype):
    z = _matrix(dtype)
    x = cw.asarray(z, device=dev)
    for name, v, h in _views(x, z):
        for fn, want in ((cw.real, h.real), (cw.imag, h.imag)):
            got = fn(v)
            s = got._storage
            assert s.buffer is x._storage.buffer and s.ptr == x._storage.ptr, name  # no copy
            assert s.dtype is got.dtype and s.size == 2 * x._storage.size
            assert cw.to_numpy(got).tobytes() == np.array(want, order="C").tobytes(), (name, fn.__name__)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_the_copying_kernels_agree_with_the_views(dev, dtype):
    """What a backend without the hook runs (``unary`` real/imag), on the same layouts."""
    z = _matrix(dtype)
    x = cw.asarray(z, device=dev)
    for name, v, h in _views(x, z):
        for op, want in ((UnaryOp.REAL, h.real), (UnaryOp.IMAG, h.imag)):
            copied = v._storage.unary(op, v._layout)
            assert copied.buffer is not x._storage.buffer
            got = copied.to_host(Layout.contiguous(v.shape))
            assert got.tobytes() == np.array(want, order="C").tobytes(), (name, op)


@pytest.mark.parametrize("dtype", COMPLEX)
def test_writes_through_the_views_land_in_the_complex_array(dev, dtype):
    z = _matrix(dtype)
    x = cw.asarray(z, device=dev)
    version = x._storage.buffer.version
    cw.real(x.mT)[1] = 4.0                           # strided fill: x[:, 1].real
    cw.imag(x[::2])[...] = cw.real(x[::2])[:, ::-1]  # strided copy between the parts of one buffer
    cw.real(x)[...] = cw.real(x)[::-1, ::-1]         # overlapping, through two view storages
    want = z.copy()
    want.T.real[1] = 4.0
    want[::2].imag = want[::2].real[:, ::-1]
    want.real[...] = want.real[::-1, ::-1].copy()
    assert np.array_equal(cw.to_numpy(x), want, equal_nan=True)
    assert x._storage.buffer.version > version  # in-place writes void what caches learnt of the buffer


def test_a_kernel_reads_both_parts_of_one_storage(dev):
    z = _matrix(np.complex64)
    x = cw.asarray(z, device=dev)
    parts = x._storage.real_view()
    total = parts.binary(BinaryOp.ADD, part_layout(x.mT._layout, False), parts, part_layout(x.mT._layout, True))
    np.testing.assert_array_equal(total.to_host(Layout.contiguous((24, 20))), z.T.real + z.T.imag)
