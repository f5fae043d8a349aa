"""What the op tables (``ops``, ``reduce_ops``) share: the NumPy dtypes their kernels
compute in, and the one generator that builds a table from an ``opdefs`` enum.

* ``compute_dtype``: float32 for float16/bfloat16 (computed wide, rounded once on
  store), else the dtype itself; ``accumulation_dtype``: what sums and products
  (reductions, scans) accumulate in.
* ``build_table(enum, impl_for, kernel_for, implemented)``: ``[op.value][dtype.name] ->
  (*kernel_for(op, dtype, impl_for(op, dtype)), result DType)`` for every op of ``enum``
  and every dtype of its domain, so the (op, dtype) pairs a table serves are exactly the
  ones ``opdefs`` declares. An op of ``enum`` outside ``implemented`` is an ImportError
  when the table's module is imported; ``missing_ops`` lists such ops.
"""

import numpy as np

from candlewick import dtypes as dt
from candlewick.opdefs import ALL_OP_ENUMS

F32 = np.dtype(np.float32)
I64 = np.dtype(np.int64)
F64 = np.dtype(np.float64)
C128 = np.dtype(np.complex128)
LOW_PRECISION = (dt.float16, dt.bfloat16)
LOW_PRECISION_NP = frozenset(d.numpy for d in LOW_PRECISION)
# run-time membership tests go by name: DType's __eq__/__hash__ are Python-level calls
LOW_PRECISION_NAMES = frozenset(d.name for d in LOW_PRECISION)


def compute_dtype(dtype):
    """The NumPy dtype arithmetic on ``dtype`` runs in (float32 for float16/bfloat16)."""
    return F32 if dtype.name in LOW_PRECISION_NAMES else dtype.numpy


def accumulation_dtype(dtype):
    """The dtype sums and products (reductions, scans) accumulate in: float32 for
    float16/bfloat16, complex128 for complex64 (a complex64 running product that
    overflows one part turns into inf - inf = NaN where the wider one stays finite)."""
    return C128 if dtype is dt.complex64 else compute_dtype(dtype)


# enum -> the ops its table has a kernel for, filled in as each table is built
_IMPLEMENTED = {}


def missing_ops(enums=ALL_OP_ENUMS):
    """Ops declared in ``opdefs`` (of ``enums``) that no table has an implementation for."""
    return sorted(
        (repr(op) for enum in enums for op in enum if op not in _IMPLEMENTED.get(enum, ())),
    )


def build_table(enum, impl_for, kernel_for, implemented):
    """The table of ``enum``: ``[op.value][dtype.name] -> (*kernel_for(op, dtype, impl),
    result DType)``, ``impl`` being ``impl_for(op, dtype)``; ``kernel_for`` returns a
    tuple (the kernel, then any flags the table's caller reads).

    ``implemented``: the ops ``impl_for`` has a kernel for; any other op of ``enum`` is
    an ImportError, raised before an ``impl_for`` could fail on it."""
    _IMPLEMENTED[enum] = frozenset(implemented)
    missing = missing_ops((enum,))
    if missing:
        raise ImportError(f"cpu_backend has no implementation for {', '.join(missing)}")
    # keyed by the op's value and the dtype's name: str hashes are cached, while Enum
    # and DType hash in Python (~130 ns each), too slow for the 1-element hot path
    return {op._value_: {d.name: (*kernel_for(op, d, impl_for(op, d)), op.result_dtype(d))
                         for d in op.dtypes()} for op in enum}
