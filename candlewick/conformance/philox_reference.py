"""Pure-NumPy Philox-4x32-10 and the uniform/normal transforms, from ``backend.PHILOX``.

Written from the contract text (not from any backend) so that it can serve as the
oracle every backend's random numbers are compared with, bit for bit.
"""

import numpy as np

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
ROUNDS = 10
_MASK32 = np.uint64(0xFFFFFFFF)


def _mulhilo(m, x):
    """(hi, lo) 32-bit halves of the 64-bit product of the constant ``m`` and ``x``."""
    product = np.uint64(m) * x.astype(np.uint64)
    return product >> np.uint64(32), product & _MASK32


def philox4x32_10(counters, key):
    """Apply the block function to counters of shape ``(n, 4)`` (uint32) with a key
    ``(k0, k1)``; returns the ``(n, 4)`` uint32 output words."""
    c = np.asarray(counters, dtype=np.uint64).reshape(-1, 4)
    c0, c1, c2, c3 = (c[:, i].copy() for i in range(4))
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(ROUNDS):
        hi0, lo0 = _mulhilo(M0, c0)
        hi1, lo1 = _mulhilo(M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
        # the key schedule wraps at 32 bits
        k0 = (k0 + np.uint64(W0)) & _MASK32
        k1 = (k1 + np.uint64(W1)) & _MASK32
    return np.stack([c0, c1, c2, c3], axis=1).astype(np.uint32)


def key_of(seed):
    return (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF)


def words(seed, counter, count):
    """The first ``count`` 32-bit words of the stream for ``(seed, counter)``."""
    blocks = (count + 3) // 4
    b = np.arange(blocks, dtype=np.uint64)
    # counter + b is a 64-bit quantity split across the first two counter words
    full = (np.uint64(counter % 2**64) + b) if blocks else b
    counters = np.zeros((blocks, 4), dtype=np.uint64)
    counters[:, 0] = full & _MASK32
    counters[:, 1] = full >> np.uint64(32)
    return philox4x32_10(counters, key_of(seed)).reshape(-1)[:count]


def unit_uniforms(seed, counter, count, dtype):
    """The ``u`` values in [0, 1) of the first ``count`` elements for a (host) dtype:
    float64 for float64 outputs, float32 otherwise (the compute precision)."""
    if np.dtype(dtype) == np.float64:
        w = words(seed, counter, 2 * count).astype(np.uint64)
        bits53 = (w[0::2] << np.uint64(21)) ^ (w[1::2] >> np.uint64(11))
        return bits53.astype(np.float64) * 2.0**-53
    w = words(seed, counter, count)
    return (w >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)


def uniform(shape, dtype, seed, counter, low, high):
    """``rand_uniform``: low + (high - low) * u, in the compute precision, rounded once."""
    count = int(np.prod(shape, dtype=np.int64))
    u = unit_uniforms(seed, counter, count, dtype)
    ct = u.dtype.type
    out = ct(low) + (ct(high) - ct(low)) * u
    return out.astype(dtype).reshape(shape)


def normal_float64(shape, dtype, seed, counter, mean, std):
    """``rand_normal`` computed in float64 from the compute-precision uniforms; the
    caller rounds and compares with a tolerance (the transcendental functions of a
    backend are not bit-exact). Returns (values, radius r per element)."""
    count = int(np.prod(shape, dtype=np.int64))
    pairs = (count + 1) // 2
    u = unit_uniforms(seed, counter, 2 * pairs, dtype).astype(np.float64)
    u1, u2 = u[0::2], u[1::2]
    r = np.sqrt(-2.0 * np.log1p(-u1))
    theta = 2.0 * np.pi * u2
    out = np.empty(2 * pairs, dtype=np.float64)
    out[0::2] = mean + std * r * np.cos(theta)
    out[1::2] = mean + std * r * np.sin(theta)
    return out[:count].reshape(shape), np.repeat(r, 2)[:count].reshape(shape)
