"""The binary kernels' one- and two-axes steps on a rocm device (hip/binary.hip) at scipy.fft's
spectrum size: NumPy's products, and complex64 operands at 4-byte-aligned bases (the steps
assume no 8-byte alignment: memory of another library may hold complex64 there) without a
misaligned-access fault."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.opdefs import BinaryOp
from rocm_backend.families.ew_launch import launch_ew

ROWS, COLS = 781, 2049  # scipy.fft's (781, 4096) signals' spectrum


def _complex(shape, seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


def test_spectrum_times_response(rocm):
    h, r = _complex((ROWS, COLS), 1), _complex(COLS, 2)
    x, row = cw.asarray(h, device=rocm), cw.asarray(r, device=rocm)
    np.testing.assert_allclose(cw.to_numpy(x * row), h * r, rtol=1e-6, atol=0)
    np.testing.assert_allclose(cw.to_numpy(x[:, ::-1] * row[::-1]), h[:, ::-1] * r[::-1], rtol=1e-6, atol=0)
    flat = _complex(2 * ROWS * COLS, 3)
    f = cw.asarray(flat, device=rocm)
    np.testing.assert_allclose(cw.to_numpy(f[::2] * f[1::2]), flat[::2] * flat[1::2], rtol=1e-6, atol=0)


@pytest.mark.parametrize("shift", [0, 4], ids=["aligned", "bases at 4 bytes"])
def test_complex64_bases_at_four_bytes(rocm, shift):
    h, r = _complex((ROWS, COLS), 4), _complex(COLS, 5)

    def padded(z):  # the complex64 data ``shift`` bytes past a float32 array's base
        return cw.asarray(np.concatenate([np.zeros(shift // 4, np.float32), z.view(np.float32).ravel()]),
                          device=rocm)

    x, row, out = padded(h), padded(r), padded(np.zeros_like(h))
    dev = x._storage.device
    launch_ew(dev, ("binary", BinaryOp.MULTIPLY, cw.complex64), (ROWS, COLS),
              [(out._storage.ptr + shift, 0, (COLS, 1)), (x._storage.ptr + shift, 0, (COLS, 1)),
               (row._storage.ptr + shift, 0, (0, 1))], name="multiply", dtype=cw.complex64)
    got = cw.to_numpy(out)[shift // 4:].view(np.complex64).reshape(ROWS, COLS)
    np.testing.assert_allclose(got, h * r, rtol=1e-6, atol=0)
