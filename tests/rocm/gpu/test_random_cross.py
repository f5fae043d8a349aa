"""Same seed, same numbers on cpu and rocm (Philox-4x32-10, candlewick.backend.PHILOX):
uniform bit for bit; normal within the rounding of the transcendental functions."""

import numpy as np
import pytest

import candlewick as cw
from candlewick import dtypes as dt
from candlewick.layout import Layout

from .gpu_helpers import eps

FLOATING = [dt.float16, dt.bfloat16, dt.float32, dt.float64]
CASES = [((1,), 0, 0), ((7,), 123, 5), ((33, 31), 2**63 + 11, 2**32 - 1), ((4097,), 2**64 - 1, 2**64 - 3)]


def _draw(device, kind, shape, dtype, seed, counter, a, b):
    st = getattr(device, f"rand_{kind}")(shape, dtype, seed, counter, a, b)
    return st.to_host(Layout.contiguous(shape))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-seed{c[1]}-ctr{c[2]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=lambda d: d.name)
def test_uniform_bit_identical(rocm, cpu, dtype, case):
    shape, seed, counter = case
    for low, high in ((0.0, 1.0), (-3.0, 5.5)):
        a = _draw(cpu, "uniform", shape, dtype, seed, counter, low, high)
        b = _draw(rocm, "uniform", shape, dtype, seed, counter, low, high)
        assert a.tobytes() == b.tobytes(), f"{int((a != b).sum())} of {a.size} differ"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-seed{c[1]}-ctr{c[2]}")
@pytest.mark.parametrize("dtype", FLOATING, ids=lambda d: d.name)
def test_normal_within_rounding(rocm, cpu, dtype, case):
    shape, seed, counter = case
    a = _draw(cpu, "normal", shape, dtype, seed, counter, 1.5, 2.0).astype(np.float64)
    b = _draw(rocm, "normal", shape, dtype, seed, counter, 1.5, 2.0).astype(np.float64)
    # a few ulps of the compute precision, plus one rounding to the storage dtype
    compute = 2.0**-52 if dtype is dt.float64 else 2.0**-23
    tol = (eps(dtype) + 16 * compute) * (np.abs(a) + 2.0)
    assert (np.abs(a - b) <= tol).all(), np.abs(a - b).max()


def test_front_end_generator_same_stream(rocm):
    g1, g2 = cw.random.Generator(42), cw.random.Generator(42)
    for _ in range(3):
        u_cpu = cw.to_numpy(g1.uniform(size=(5, 3), dtype=cw.float32))
        u_gpu = cw.to_numpy(g2.uniform(size=(5, 3), dtype=cw.float32, device=rocm))
        assert u_cpu.tobytes() == u_gpu.tobytes()
    assert g1.counter == g2.counter
