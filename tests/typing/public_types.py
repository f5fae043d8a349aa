"""Checked by mypy in CI (.ci/typecheck.sh), not run by pytest: user code as a type
checker sees candlewick's public API. Each ``assert_type`` fails the check if the
annotation it relies on is lost (generated functions, operators, extensions)."""

from typing_extensions import assert_type

import candlewick as cw
from candlewick import Array

x = cw.asarray([1.0, 2.0])
assert_type(x, Array)
assert_type(cw.sin(x), Array)  # generated element-wise function
assert_type(cw.logical_not(x), Array)
assert_type(cw.add(x, 1), Array)
assert_type(x + 1, Array)  # operators installed at import time
assert_type(x == 1, Array)
assert_type(x @ x, Array)
assert_type(x.shape, tuple[int, ...])
assert_type(x.item(), bool | int | float | complex)
assert_type(cw.unique_counts(x).counts, Array)
assert_type(cw.linalg.svd(cw.eye(2)).S, Array)
assert_type(cw.linalg.eigh(cw.eye(2)).eigenvectors, Array)
assert_type(cw.fft.rfft(x), Array)
assert_type(cw.nn.relu(x), Array)
assert_type(cw.nn.softmax(x), Array)
assert_type(cw.random.uniform(size=3), Array)
assert_type(cw.unstack(cw.eye(2)), tuple[Array, ...])
