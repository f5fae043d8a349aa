"""Type promotion between candlewick's dtypes (docs/promotion.md states the whole rule).

Promotion follows the Array API table; where the standard leaves kinds mixed (bool,
integer, real floating, complex), the operand of the higher kind gives the result dtype
(int32 + float32 -> float32, as in PyTorch and JAX), unless the promotion mode is
``"strict"`` (promotion_mode.py), which raises ``DTypeError``. Signed with uint64 raises
in both modes: no integer dtype holds both ranges.
"""

from .dtypes import (
    COMPLEX, REAL_FLOATING, SIGNED, UNSIGNED, bfloat16, bool_, complex64, complex128, float16, float32, float64,
    int16, int32, int64, uint8, uint16, uint32,
)
from .errors import DTypeError
from .promotion_mode import is_strict


def _same_kind_table():
    """Pairs that promote within the standard's lattice (plus f16/bf16 extras)."""
    table = {}
    for group in (SIGNED, UNSIGNED, COMPLEX):
        for a in group:
            for b in group:
                table[a, b] = a if a._rank >= b._rank else b
    floats = (float16, float32, float64)
    for a in floats:
        for b in floats:
            table[a, b] = a if a._rank >= b._rank else b
    for f in (float32, float64):
        table[bfloat16, f] = table[f, bfloat16] = f
    table[bfloat16, bfloat16] = bfloat16
    table[bfloat16, float16] = table[float16, bfloat16] = float32
    for u, s in ((uint8, int16), (uint16, int32), (uint32, int64)):
        for i in SIGNED:
            r = s if s._rank >= i._rank else i
            table[u, i] = table[i, u] = r
    real_of = {complex64: float32, complex128: float64}
    for c in COMPLEX:
        for f in REAL_FLOATING:
            wide = table.get((real_of[c], f), float32)
            table[c, f] = table[f, c] = complex128 if wide is float64 else c
    table[bool_, bool_] = bool_
    return table


_PROMOTE = _same_kind_table()


def standard_promotion(a, b):
    """The Array API table's result dtype of two dtypes, or None where it has none."""
    return a if a is b else _PROMOTE.get((a, b))


def promote_types(a, b):
    """The result dtype of an operation on ``a`` and ``b``: the Array API table, then
    (outside strict mode) the operand of the higher kind; DTypeError where neither applies."""
    if a is b:
        return a
    result = _PROMOTE.get((a, b))
    if result is not None:
        return result
    if a.level != b.level:
        if not is_strict():
            return promote_kinds(a, b)
        raise DTypeError(
            f"no promotion between {a.name} and {b.name} in strict promotion mode (the Array "
            f"API leaves mixed kinds undefined): cast one operand with astype, or use "
            f"candlewick.set_promotion_mode('default'), where {promote_kinds(a, b).name} results"
        )
    raise DTypeError(
        f"no promotion between {a.name} and {b.name}: no integer dtype holds both ranges; "
        f"cast one operand with astype (to int64 if the unsigned values fit, else to float64)"
    )


def promote_kinds(a, b):
    """The higher-kind operand's dtype: the default mode's rule for mixed kinds."""
    return a if a.level > b.level else b
