"""The Philox stream of a generator: counter reservation and the draws every other one is
composed of (``candlewick.backend.PHILOX``).

A ``Stream`` is a (seed, counter) pair. Each primitive call takes the next counter value
and advances it by the Philox blocks the call consumes, so successive draws never reuse
a word and the same seed gives the same sequence of draws on every backend. Two kinds of
values come from the device: floating uniforms and normals (``rand_uniform``,
``rand_normal``), and 64 random bits per element, made of three float32 uniforms over
``[0, 2**24)``: those are exactly the words' top 24 bits (PHILOX says so and the
conformance suite checks it), so the bits, and the integers and permutations made from
them, are identical on every backend.
"""

from __future__ import annotations

import os
import threading

from .. import dtypes as _dt
from .._core import check_dtype_on
from ..allocation import check_allocation
from ..array import wrap
from ..errors import ArgumentValueError, short_repr
from ..shapes import shape_size

#: the float32 draw over [0, WORD_SPAN) that gives each word's top 24 bits exactly
WORD_BITS = 24
WORD_SPAN = float(2**WORD_BITS)


def blocks_used(n, dtype, normal):
    """Philox blocks (four words each) a ``rand_uniform``/``rand_normal`` call of ``n``
    elements consumes: normal draws come in pairs."""
    elements = 2 * ((n + 1) // 2) if normal else n
    return (elements * (2 if dtype is _dt.float64 else 1) + 3) // 4  # float64: two words an element


class Stream:
    """The key and the next counter of one generator; thread-safe reservation."""

    def __init__(self, seed):
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ArgumentValueError(f"seed must be an int in [0, 2**64), got {short_repr(seed)}")
        self.seed = seed
        self.counter = 0
        self._lock = threading.Lock()

    def move_to(self, counter):
        if isinstance(counter, bool) or not isinstance(counter, int) or not 0 <= counter < 2**64:
            raise ArgumentValueError(f"counter must be an int in [0, 2**64), got {short_repr(counter)}")
        with self._lock:
            self.counter = counter

    def take(self, blocks):
        """The counter for a call consuming ``blocks`` blocks; the next call starts after them."""
        with self._lock:
            counter = self.counter
            self.counter = (counter + blocks) % 2**64
        return counter

    def floats(self, method, shape, dtype, device, a, b, fname):
        """``device.rand_uniform``/``rand_normal`` (``method``) of ``shape`` as an Array."""
        check_dtype_on(device, dtype, fname)
        # before the counter moves: a refused draw consumes nothing
        check_allocation(fname, shape, dtype, device)
        normal = method == "rand_normal"
        counter = self.take(blocks_used(shape_size(shape), dtype, normal))
        storage = getattr(device, method)(shape, dtype, self.seed, counter, float(a), float(b))
        return wrap(storage, shape, dtype, device)

    def bits64(self, shape, device, dtype, fname):
        """Arrays of ``shape`` and the integer ``dtype`` (int64 or uint64) holding 64 random
        bits each (wrapping into int64's range): three 24-bit words per element."""
        words = self.floats("rand_uniform", (3,) + tuple(shape), _dt.float32, device, 0.0, WORD_SPAN, fname)
        check_dtype_on(device, dtype, fname)
        w = words.astype(dtype)
        # the words at bits 40-63, 16-39 and 0-23: every bit of the 64 uniform
        return (w[0] << 40) ^ (w[1] << 16) ^ w[2]
