"""cpu_backend.reduce_ops.all_finite (the SVD's refusal of NaN and infinity, complex
matmul's IEEE re-check): NumPy's ``isfinite(v).all()`` for every float and complex view,
including finite arrays whose sum overflows (the sum alone would call them non-finite)."""

import numpy as np
import pytest

import candlewick as cw
from cpu_backend.reduce_ops import all_finite

BIG32 = np.finfo(np.float32).max
CASES = {
    "finite": np.arange(12, dtype=np.float32).reshape(3, 4),
    "empty": np.zeros((0, 3)),
    "nan": np.array([1.0, np.nan, 2.0]),
    "inf": np.array([[1.0, np.inf], [0.0, 2.0]], np.float32),
    "-inf": np.array([-np.inf, 1.0]),
    "inf and -inf": np.array([np.inf, -np.inf]),
    "sum overflows to inf": np.full(8, BIG32, np.float32),
    "sum overflows both ways": np.array([BIG32, BIG32, -BIG32, -BIG32, BIG32, BIG32], np.float32),
    "complex finite": np.array([1 + 2j, 3 - 4j], np.complex64),
    "complex inf imaginary": np.array([1 + 2j, complex(0, np.inf)], np.complex128),
    "complex nan real": np.array([complex(np.nan, 0)], np.complex64),
    "complex sum overflows": np.full(4, complex(BIG32, -BIG32), np.complex64),
    "float16 sum overflows": np.full(4, 60000, np.float16),
}


@pytest.mark.parametrize("name", CASES)
def test_all_finite_is_numpys_answer(name):
    v = CASES[name]
    assert all_finite(v) is bool(np.isfinite(v).all())


@pytest.mark.parametrize("name", ["finite", "inf", "sum overflows to inf"])
def test_all_finite_on_strided_views(name):
    v = np.repeat(CASES[name].reshape(-1)[:, None], 3, axis=1)[::2, ::-1]
    assert all_finite(v) is bool(np.isfinite(v).all())


def test_svd_takes_finite_values_whose_sum_overflows():
    a = np.diag(np.array([0.6, 0.5, 0.4, 0.3], np.float32) * BIG32)  # (its sum: 1.8x float32's largest)
    s = cw.linalg.svdvals(cw.asarray(a, device="cpu"))
    np.testing.assert_allclose(np.asarray(s), np.linalg.svd(a.astype(np.float64), compute_uv=False), rtol=1e-6)
