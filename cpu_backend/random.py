"""Philox-4x32-10 random numbers, exactly as ``candlewick.backend.PHILOX`` specifies.

Vectorized over blocks: the 32-bit words live in uint64 arrays so that the 32x32->64
bit products of ``mulhilo`` are exact. Word streams are bit-identical to every other
backend's; uniform and normal values follow the spec's formulas in the compute
precision (float64 for float64, float32 otherwise) and are rounded once to the dtype.
"""

import numpy as np

_M0, _M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = 0xFFFFFFFF
_LOW32 = np.uint64(_MASK32)
_U32 = np.uint64(32)
_ROUNDS = 10
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def philox4x32_10(c0, c1, c2, c3, k0, k1):
    """One Philox-4x32-10 block per element of the counter word arrays ``c0..c3``
    (any integer arrays holding 32-bit values) under key ``(k0, k1)`` (Python ints).
    Returns the four output words as uint64 arrays."""
    c0, c1, c2, c3 = (np.asarray(c, dtype=np.uint64) for c in (c0, c1, c2, c3))
    k0, k1 = k0 & _MASK32, k1 & _MASK32
    for _ in range(_ROUNDS):
        p0 = c0 * _M0  # < 2**64: exact
        p1 = c2 * _M1
        c0, c1, c2, c3 = (
            (p1 >> _U32) ^ c1 ^ np.uint64(k0),
            p1 & _LOW32,
            (p0 >> _U32) ^ c3 ^ np.uint64(k1),
            p0 & _LOW32,
        )
        k0 = (k0 + _W0) & _MASK32
        k1 = (k1 + _W1) & _MASK32
    return c0, c1, c2, c3


def words(seed, counter, count):
    """The first ``count`` 32-bit words (uint64 array) of the stream for (seed, counter)."""
    blocks = -(-count // 4)
    ctr = np.arange(blocks, dtype=np.uint64) + np.uint64(counter % 2**64)  # wraps mod 2**64
    zeros = np.zeros(blocks, np.uint64)
    out = philox4x32_10(ctr & _LOW32, ctr >> _U32, zeros, zeros, seed & _MASK32, (seed >> 32) & _MASK32)
    return np.stack(out, axis=-1).reshape(-1)[:count]


def unit_uniform(size, np_dtype, seed, counter):
    """``size`` uniforms in [0, 1) in the compute precision of ``np_dtype``."""
    if np_dtype == _F64:
        w = words(seed, counter, 2 * size)
        bits = (w[0::2] << np.uint64(21)) ^ (w[1::2] >> np.uint64(11))
        return bits.astype(_F64) * 2.0**-53
    w = words(seed, counter, size)
    return (w >> np.uint64(8)).astype(_F32) * _F32.type(2.0**-24)


def _compute_type(np_dtype):
    return _F64.type if np_dtype == _F64 else _F32.type


def uniform(size, np_dtype, seed, counter, low, high):
    u = unit_uniform(size, np_dtype, seed, counter)
    ct = _compute_type(np_dtype)
    lo, hi = ct(low), ct(high)
    return (lo + (hi - lo) * u).astype(np_dtype, copy=False)


def normal(size, np_dtype, seed, counter, mean, std):
    """Box-Muller on pairs (2j, 2j+1) of the uniform stream; an odd tail element takes
    the cos branch of the pair (size+1 uniforms are drawn)."""
    pairs = -(-size // 2)
    u = unit_uniform(2 * pairs, np_dtype, seed, counter)
    ct = _compute_type(np_dtype)
    u1, u2 = u[0::2], u[1::2]
    radius = np.sqrt(ct(-2) * np.log(ct(1) - u1))
    angle = ct(2 * np.pi) * u2
    out = np.empty(2 * pairs, u.dtype)
    out[0::2] = radius * np.cos(angle)
    out[1::2] = radius * np.sin(angle)
    out = ct(mean) + ct(std) * out[:size]
    return out.astype(np_dtype, copy=False)
