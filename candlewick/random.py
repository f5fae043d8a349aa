"""Random numbers from a counter-based generator (Philox-4x32-10).

Every backend implements the same stream (see ``candlewick.backend.PHILOX``), so one
seed gives the same numbers on every device. A ``Generator`` is a (seed, counter)
pair: each draw advances the counter by the Philox blocks it consumed.
"""

import os
import threading

from . import dtypes as _dt
from ._core import as_shape, wrap
from .arguments import real_number
from .errors import ArgumentValueError, DTypeError, short_repr
from .layout import shape_size
from .registry import get_device


def _blocks_used(n, dtype, normal):
    elements = 2 * ((n + 1) // 2) if normal else n
    words = elements * (2 if dtype is _dt.float64 else 1)
    return (words + 3) // 4


class Generator:
    """A Philox-4x32-10 stream: ``Generator(seed)``; draws are reproducible on any device."""

    def __init__(self, seed=None):
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ArgumentValueError(f"seed must be an int in [0, 2**64), got {short_repr(seed)}")
        self.seed = seed
        self.counter = 0
        self._lock = threading.Lock()

    def _take(self, n, dtype, normal):
        with self._lock:
            counter = self.counter
            self.counter = (counter + _blocks_used(n, dtype, normal)) % 2**64
        return counter

    def _draw(self, method, shape, dtype, device, a, b, normal, fname):
        shape = as_shape(shape, fname)
        dtype = _dt.DEFAULT_FLOAT if dtype is None else _dt.as_dtype(dtype)
        if not dtype.is_floating:
            raise DTypeError(f"{fname}: dtype must be real floating, got {dtype.name}")
        device = get_device(device)
        counter = self._take(shape_size(shape), dtype, normal)
        storage = getattr(device, method)(shape, dtype, self.seed, counter, float(a), float(b))
        return wrap(storage, shape, dtype, device)

    def uniform(self, shape, *, low=0.0, high=1.0, dtype=None, device=None):
        """Uniform numbers in ``[low, high)``."""
        low = real_number(low, "uniform", "low")
        high = real_number(high, "uniform", "high")
        if not high >= low:
            raise ArgumentValueError(f"uniform: high ({high}) must be >= low ({low})")
        return self._draw("rand_uniform", shape, dtype, device, low, high, False, "uniform")

    def normal(self, shape, *, mean=0.0, std=1.0, dtype=None, device=None):
        """Normal numbers with the given mean and standard deviation."""
        mean = real_number(mean, "normal", "mean")
        std = real_number(std, "normal", "std", nonnegative=True)
        return self._draw("rand_normal", shape, dtype, device, mean, std, True, "normal")


_default = Generator(0)


def seed(value):
    """Reset the default generator to ``value``."""
    global _default
    _default = Generator(value)


def default_generator():
    return _default


def uniform(shape, *, low=0.0, high=1.0, dtype=None, device=None):
    return _default.uniform(shape, low=low, high=high, dtype=dtype, device=device)


def normal(shape, *, mean=0.0, std=1.0, dtype=None, device=None):
    return _default.normal(shape, mean=mean, std=std, dtype=dtype, device=device)


__all__ = ["Generator", "seed", "default_generator", "uniform", "normal"]
