"""real and imag: views of a complex array's memory where the backend declares
``real_view`` (NumPy's, CuPy's and PyTorch's behaviour), copies where it does not;
what a write through them does; real of a real array; conj of a real array."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import DTypeError, ReadOnlyError
from cpu_backend import CpuStorage

COMPLEX = [np.complex64, np.complex128]


def _declares_views(x):
    return getattr(type(x._storage), "real_view", None) is not None


def _layouts(host, device):
    """(name, candlewick view, the same NumPy view) of one complex matrix, several layouts."""
    x = cw.asarray(host, device=device)
    return [
        ("contiguous", x, host),
        ("transposed", x.mT, host.T),
        ("sliced", x[1:, ::2], host[1:, ::2]),
        ("offset row", x[2], host[2]),
        ("negative strides", cw.flip(x), np.flip(host)),
        ("reversed columns of a transpose", x.mT[::-1, 1:], host.T[::-1, 1:]),
        ("0-d", x[1, 3], host[1, 3]),
        ("empty", x[:, 4:], host[:, 4:]),
        ("broadcast", cw.broadcast_to(x[:1], (3, 5)), np.broadcast_to(host[:1], (3, 5))),
    ]


def _matrix(dtype):
    rng = np.random.default_rng(7)
    z = (rng.standard_normal((4, 5)) + 1j * rng.standard_normal((4, 5))).astype(dtype)
    z[0, 0] = complex(-0.0, np.nan)
    z[3, 4] = complex(np.inf, -0.0)
    return z


@pytest.mark.parametrize("dtype", COMPLEX)
def test_real_and_imag_of_every_layout_equal_numpys(device, dtype):
    component = cw.float32 if dtype == np.complex64 else cw.float64
    for name, x, h in _layouts(_matrix(dtype), device):
        for fn, want in ((cw.real, np.real(h)), (cw.imag, np.imag(h))):
            got = fn(x)
            assert got.dtype == component and got.shape == want.shape and got.device == x.device
            g = cw.to_numpy(got)
            assert g.tobytes() == np.array(want, order="C").tobytes(), (name, fn.__name__)  # bit for bit


@pytest.mark.parametrize("dtype", COMPLEX)
def test_views_share_the_complex_memory_and_writes_land_in_it(device, dtype):
    """As NumPy's ``z.real[...] = v``: the parts of x change, nothing else does."""
    z = _matrix(dtype)
    x = cw.asarray(z, device=device)
    if not _declares_views(x):
        pytest.skip(f"{device.name} does not declare real_view: real/imag are copies there")
    re, im = cw.real(x.mT), cw.imag(x[1:, ::-2])
    assert re._storage.size == 2 * x._storage.size
    re[0] = 5.0                                  # x[:, 0].real
    im[...] = cw.real(x[1:, ::-2])               # the same elements' real parts
    re += 1.0                                    # in place, through the view
    want = z.copy()
    want.T.real[0] = 5.0
    want[1:, ::-2].imag = want[1:, ::-2].real
    want.T.real[...] += 1.0
    assert np.array_equal(cw.to_numpy(x), want, equal_nan=True)
    # a source overlapping the destination in the same memory reads as if copied first
    cw.real(x)[...] = cw.real(x)[::-1, ::-1]
    want.real[...] = want.real[::-1, ::-1].copy()
    assert np.array_equal(cw.to_numpy(x), want, equal_nan=True)


def test_writes_into_views_of_broadcast_or_read_only_memory_are_refused(device):
    x = cw.asarray(_matrix(np.complex64), device=device)
    with pytest.raises(ReadOnlyError):
        cw.real(cw.broadcast_to(x[:1], (3, 5)))[...] = 0.0
    frozen = _matrix(np.complex128)
    frozen.flags.writeable = False
    y = cw.from_dlpack(frozen, copy=False) if device.name == "cpu" else None
    if y is not None:
        with pytest.raises(ReadOnlyError):
            cw.imag(y)[0] = 1.0
        assert np.array_equal(frozen, _matrix(np.complex128), equal_nan=True)


class _NoViews(CpuStorage):
    """A cpu storage whose class declares no real_view: what a backend without the hook
    gives the front end."""

    real_view = None


def test_a_backend_without_the_hook_gets_copies():
    z = _matrix(np.complex64)
    x = cw.asarray(z)
    x._storage = _NoViews(x._storage.buf, x._storage.dtype)
    re, im = cw.real(x.mT[::-1]), cw.imag(x[1:, ::2])
    # a new, contiguous storage (of the class the primitives make: the operand's)
    assert isinstance(re._storage, CpuStorage) and re._storage is not x._storage and re._storage.size == 20
    assert np.array_equal(cw.to_numpy(re), z.T[::-1].real) and np.array_equal(cw.to_numpy(im), z[1:, ::2].imag)
    re[...] = 0.0
    im[...] = 0.0
    assert np.array_equal(cw.to_numpy(x), z, equal_nan=True)  # copies: x is untouched


def test_cpu_views_are_numpy_views_of_the_buffer():
    z = _matrix(np.complex64)
    x = cw.asarray(z)
    re, im = cw.real(x), cw.imag(x)
    assert re._storage is im._storage  # one parts storage per complex storage
    assert np.shares_memory(re._storage.buf, x._storage.buf)
    exported = np.from_dlpack(im)  # DLPack export of the strided view shares it too
    assert np.shares_memory(exported, x._storage.buf) and np.array_equal(exported, z.imag, equal_nan=True)
    assert np.array_equal(np.asarray(re), z.real, equal_nan=True)


def test_real_of_a_real_array_is_a_view_and_imag_new_zeros(device):
    x = cw.asarray(np.arange(6, dtype=np.float32).reshape(2, 3), device=device)
    re = cw.real(x.mT)
    assert re._storage is x._storage and re.dtype == cw.float32
    re[0, 1] = -1.0  # NumPy's np.real(x) is x itself: the write lands in x
    assert cw.to_numpy(x)[1, 0] == -1.0
    im = cw.imag(x)
    assert im._storage is not x._storage and not cw.to_numpy(im).any()
    ints = cw.asarray([1, 2, 3], device=device)
    assert cw.real(ints)._storage is ints._storage and cw.real(ints).dtype == cw.int64
    with pytest.raises(DTypeError):
        cw.real(cw.asarray([True], device=device))


def test_conj_of_a_real_array_stays_a_copy(device):
    """NumPy's conj is a ufunc: a new array even for real input, so a write into it
    leaves x alone (PyTorch would return x itself)."""
    x = cw.asarray([1.5, -2.0], device=device)
    c = cw.conj(x)
    assert c._storage is not x._storage
    c[0] = 9.0
    assert cw.to_numpy(x).tolist() == [1.5, -2.0]


def test_fused_real_and_imag_trace_as_copies():
    """A fused function's traced storages declare no real_view: real/imag are recorded as
    the unary primitive, and the results equal the eager ones."""
    z = cw.asarray(_matrix(np.complex64)[1:])

    @cw.fuse
    def parts(a):
        return cw.real(a) * 2.0 + cw.imag(a)

    want = cw.to_numpy(cw.real(z) * 2.0 + cw.imag(z))
    assert np.array_equal(cw.to_numpy(parts(z)), want, equal_nan=True)
