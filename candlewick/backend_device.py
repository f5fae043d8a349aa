"""The backend protocol's device and backend objects (``candlewick.backend`` re-exports them):
``Backend``, the object an entry point resolves to, hands out ``BackendDevice`` objects, which
create storages; ``PHILOX`` is the random-number stream every device's ``rand_*`` draws from.
"""

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = ["Backend", "BackendDevice", "PHILOX"]

PHILOX = """
Random numbers: Philox-4x32-10 (Salmon et al., SC'11), identical on every backend.

key = (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF); constants M0=0xD2511F53,
M1=0xCD9E8D57, W0=0x9E3779B9, W1=0xBB67AE85. One block maps the 128-bit counter
(c0, c1, c2, c3) to four 32-bit words with 10 rounds of
  hi0,lo0 = mulhilo(M0, c0); hi1,lo1 = mulhilo(M1, c2)
  c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0); k0 += W0; k1 += W1
(the key is bumped after each round, the output is c after round 10).
The stream of 32-bit words for a call with ``counter`` is: block b (b = 0, 1, ...)
uses counter (lo32(counter + b), hi32(counter + b), 0, 0) and contributes words
4b .. 4b+3 in order. Element i of the output (C order) uses:
  float64:                 words 2i, 2i+1 -> u = ((w[2i] << 21) ^ (w[2i+1] >> 11)) * 2**-53
  float32/float16/bfloat16: word i        -> u = (w[i] >> 8) * 2**-24, computed in f32
``rand_uniform`` returns low + (high - low) * u, rounded once to the dtype.
``rand_normal`` (Box-Muller) pairs elements 2j, 2j+1 of the uniform stream above
(uniforms u1, u2 in the compute precision; float64 for float64, else float32):
  r = sqrt(-2 log(1 - u1)); out[2j] = mean + std * r cos(2 pi u2),
  out[2j+1] = mean + std * r sin(2 pi u2)   (an odd tail element uses the cos branch).
Uniform words are bit-identical across backends; transformed values agree within
rounding of the transcendental functions. A float32 ``rand_uniform`` over [0, 2**24) is
exactly ``w[i] >> 8`` (a whole number, whatever the order of the arithmetic):
``candlewick.random`` makes its integer draws, choices and permutations of three such
words an element, so they are the same numbers on every backend.
"""


@runtime_checkable
class BackendDevice(Protocol):
    """One device of a backend. candlewick keeps one instance per device (so identity
    is equality) and uses it as the ``device`` attribute of arrays.

    Attributes: ``backend`` (backend name, e.g. "rocm"), ``ordinal`` (int),
    ``name`` (``"cpu"`` or ``"rocm:0"``), ``dtypes`` (the DTypes it supports),
    ``capabilities`` (subset of ``OPTIONAL_CAPABILITIES``).
    """

    backend: str
    ordinal: int
    name: str
    dtypes: Any
    capabilities: Any

    def storage_from_host(self, array) -> "BackendStorage":
        """Copy a C-contiguous NumPy array (dtype ``DType.numpy``) into a new storage."""

    def zeros(self, shape, dtype) -> "BackendStorage": ...
    def ones(self, shape, dtype) -> "BackendStorage": ...

    def full(self, shape, dtype, value) -> "BackendStorage":
        """A contiguous storage of ``prod(shape)`` elements equal to ``value``."""

    def empty(self, shape, dtype) -> "BackendStorage":
        """Uninitialized contiguous storage (reading it gives arbitrary values)."""

    def arange(self, start, step, size, dtype) -> "BackendStorage":
        """``start + i * step`` for i in ``range(size)``, computed in float64 for floating
        dtypes (in int64 for integers) and cast once."""

    def rand_uniform(self, shape, dtype, seed, counter, low, high) -> "BackendStorage":
        """Philox-4x32-10 uniform numbers in [low, high) per ``PHILOX`` (floating dtypes)."""

    def rand_normal(self, shape, dtype, seed, counter, mean, std) -> "BackendStorage":
        """Philox-4x32-10 + Box-Muller normal numbers per ``PHILOX`` (floating dtypes)."""

    def synchronize(self) -> None:
        """Wait for all work queued on this device."""

    def memory_info(self) -> "tuple[int, int]":
        """(free bytes, total bytes) of the device memory; free includes what the
        backend's own allocator caches and would release before failing (candlewick's
        size check before allocating compares with it)."""

    def same_device(self, other) -> bool: ...


@runtime_checkable
class Backend(Protocol):
    """The object an entry point of group ``candlewick.backends`` resolves to.

    Importing the package that holds it must be cheap and must not fail when the
    hardware or runtime is missing: ``probe()`` says so instead.
    """

    name: str

    def probe(self) -> "tuple[bool, str]":
        """(available, reason): reason is '' when available, else the runtime's own words."""

    def device_count(self) -> int: ...

    def device(self, ordinal: int) -> BackendDevice:
        """The device with this ordinal (called once per ordinal; candlewick caches it)."""

    def details(self) -> "dict[str, str]":
        """Extra facts for ``candlewick.backends()`` (e.g. which nn path is active)."""
