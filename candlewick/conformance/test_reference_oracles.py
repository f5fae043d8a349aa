"""The oracles themselves (no backend): where an oracle is computed in a wider format
than NumPy's own result, check that it is accurate enough to judge a correct
implementation, and that its tolerance still rejects wrong ones."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.opdefs import BinaryOp

from . import elementwise_reference as ref


def _cancelling_pairs(n=2000, seed=5):
    """a, b near -log 2, where log(exp(a) + exp(b)) cancels to ~0.006 and less."""
    rng = np.random.default_rng(seed)
    a = -np.log(2.0) + rng.normal(size=n) * 0.01
    b = a + rng.normal(size=n) * 0.01
    return a, b


def test_logaddexp_oracle_is_accurate_where_the_result_cancels():
    mpmath = pytest.importorskip("mpmath")
    a, b = _cancelling_pairs(200)
    got = ref._logaddexp_wide(a, b)
    with mpmath.workprec(200):
        truth = np.array([float(mpmath.log(mpmath.exp(x) + mpmath.exp(y))) for x, y in zip(a, b)])
    cond = ref.logaddexp_condition(a, b, got)
    # the oracle's error is a small fraction of the unit the check allows 4 of
    assert np.all(np.abs(got - truth) <= 0.1 * np.finfo(np.float64).eps * cond)


def test_logaddexp_float64_formula_passes_and_a_lost_result_fails():
    """NumPy's float64 logaddexp (the formula of both backends) is a correct float64
    implementation: it must pass against the wide oracle, also where its own result is
    16+ ulp from the true value (the failure a float64 oracle produced on the GPU)."""
    a, b = _cancelling_pairs()
    expected = ref.binary(BinaryOp.LOGADDEXP, dt.float64, a, b)
    expected.check(np.logaddexp(a, b))
    lost = ref.binary(BinaryOp.LOGADDEXP, dt.float64, np.array([0.0]), np.array([-40.0]))
    expected_value = float(np.asarray(lost.values)[0])
    assert expected_value == pytest.approx(4.248354255291589e-18, rel=1e-15)
    with pytest.raises(AssertionError):
        lost.check(np.array([0.0]))  # log(1 + exp(-40)) evaluated as log(1.0)
