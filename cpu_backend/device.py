"""The CPU device (one, ordinal 0) and the backend object the registry loads.

The device creates storages: from host arrays, constant fills, ``arange`` and the
Philox random streams. Memory is the machine's RAM, as much of it as the process's
limits leave (``candlewick.host_memory``). Work is synchronous, so ``synchronize`` has nothing to wait for.
"""

from math import prod

import ml_dtypes
import numpy as np

from candlewick import dtypes as dt
from candlewick.backend_runtime import MEMORY_STAT_KEYS
from candlewick.host_memory import available_memory
from candlewick.errors import (DeviceError, DeviceMemoryError, DeviceMismatchError, DTypeError, ShapeError,
                               UnsupportedOperation, short_repr)
from candlewick.named_device import NamedDevice

from . import dlpack, random
from .error import QuietBlock, unsupported
from .storage import CpuStorage
from .storage_slice import new_storage
from .storage_groups import DTYPE_OF_NUMPY
from .streams import CpuEvent, CpuStream, HostStreams

# a Python float is a float64: filling these narrower types with one may overflow to inf
# (names: str hashes are cached, DType hashes run Python code)
_NARROW_FLOATS = frozenset(d.name for d in (dt.float16, dt.bfloat16, dt.float32, dt.complex64))


def _np_dtype(dtype, op):
    try:
        return dtype.numpy
    except AttributeError:
        raise DTypeError(f"{op}: dtype must be a candlewick dtype, got {short_repr(dtype)}") from None


# (min, max) of each signed integer NumPy dtype: where cpu arange may use np.arange
_SIGNED_BOUNDS = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
                  for t in (np.int8, np.int16, np.int32, np.int64)}
# the largest magnitude up to which every whole number is exact (2 ** mantissa bits)
_EXACT_INTEGERS = {np.dtype(np.float32): 2.0 ** 24, np.dtype(np.float64): 2.0 ** 53}


class CpuDevice(NamedDevice):
    backend = "cpu"
    ordinal = 0
    name = "cpu"
    dtypes = dt.ALL_DTYPES
    capabilities = frozenset({"linalg", "fft", "inplace", "reduce_dtype", "binary_dtype"})
    #: storages are NumPy buffers in RAM (candlewick.backend.HostMemoryDevice)
    host_memory = True
    #: the fft primitives take ``norm`` (pocketfft's; candlewick.backend.FFTNormDevice)
    fft_norm = True
    #: fft and rfft take ``n`` and zero-pad (fft.padded; candlewick.backend.FFTPadDevice)
    fft_pad = True
    #: sort_values of x read backwards costs no more than of x (ordering.py, candlewick._native's
    #: sort_rows): a descending sort is that, viewed reversed (candlewick.backend.DescendingSortViewDevice)
    descending_sort_view = True

    def __init__(self):
        self._streams = HostStreams(self)

    def __repr__(self):
        return "Device(cpu)"

    def same_device(self, other):
        return other is self

    # --- storage creation ----------------------------------------------------------------

    def storage_from_host(self, array):
        try:
            dtype = DTYPE_OF_NUMPY[array.dtype]
        except (KeyError, AttributeError, TypeError):
            got = getattr(array, "dtype", type(array).__name__)
            raise DTypeError(
                f"storage_from_host: array must be a NumPy array of a candlewick dtype's "
                f"host type, got {got}"
            ) from None
        return CpuStorage(array.flatten(), dtype)  # flatten: always a C-order copy

    def storage_from_dlpack(self, obj, copy):
        """The optional DLPack import hook: ``(storage, layout)`` sharing a host-memory
        producer's memory (unless ``copy``), or None for memory on another device."""
        array = dlpack.import_host_array(obj, copy)
        if array is None:
            return None
        try:
            dtype = DTYPE_OF_NUMPY[array.dtype]
        except KeyError:
            raise DTypeError(f"from_dlpack: dtype {array.dtype} has no candlewick equivalent") from None
        buf, layout = dlpack.flat_buffer_and_layout(array)
        return CpuStorage(buf, dtype), layout

    # The fills are the creation functions' whole device side, so they do little besides
    # NumPy's call: dtype.numpy is read inside the try (a non-dtype's AttributeError
    # becomes _fill_error's DTypeError), NumPy takes the shape as it is (a 1-D result
    # needs no product of it, others are flattened as views) and new_storage wraps it.

    def zeros(self, shape, dtype):
        try:
            buf = np.zeros(shape, dtype.numpy)
        except (MemoryError, ValueError, AttributeError) as exc:
            raise _fill_error("zeros", shape, dtype, exc) from exc
        return new_storage(CpuStorage, buf if buf.ndim == 1 else buf.reshape(-1), dtype)

    def ones(self, shape, dtype):
        try:
            buf = np.empty(shape, dtype.numpy)
        except (MemoryError, ValueError, AttributeError) as exc:
            raise _fill_error("ones", shape, dtype, exc) from exc
        buf.fill(1)  # (np.ones is a Python wrapper doing the same)
        return new_storage(CpuStorage, buf if buf.ndim == 1 else buf.reshape(-1), dtype)

    def empty(self, shape, dtype):
        try:
            buf = np.empty(shape, dtype.numpy)
        except (MemoryError, ValueError, AttributeError) as exc:
            raise _fill_error("empty", shape, dtype, exc) from exc
        return new_storage(CpuStorage, buf if buf.ndim == 1 else buf.reshape(-1), dtype)

    def full(self, shape, dtype, value):
        try:
            buf = np.empty(shape, dtype.numpy)
        except (MemoryError, ValueError, AttributeError) as exc:
            raise _fill_error("full", shape, dtype, exc) from exc
        if dtype.name in _NARROW_FLOATS:
            with QuietBlock():  # a finite value beyond the dtype's range becomes inf
                buf.fill(value)
        else:
            buf.fill(value)
        return new_storage(CpuStorage, buf if buf.ndim == 1 else buf.reshape(-1), dtype)

    def arange(self, start, step, size, dtype):
        np_dtype = _np_dtype(dtype, "arange")
        try:
            return CpuStorage(self._arange(start, step, size, dtype, np_dtype), dtype)
        except (MemoryError, ValueError) as exc:
            raise _allocation_error("arange", (size,), np_dtype, exc) from exc

    @staticmethod
    def _arange(start, step, size, dtype, np_dtype):
        if dtype.is_integer or dtype.is_bool:
            bounds = _SIGNED_BOUNDS.get(np_dtype)
            if bounds is not None and size and step:
                last = start + (size - 1) * step
                lo, hi = bounds
                if lo <= min(start, last, step) and max(start, last, step) <= hi:
                    # a signed dtype holding every value and the step: NumPy's integer
                    # arange gives exactly these values (its end point may lie past the
                    # dtype: NumPy takes it as a Python int)
                    return np.arange(start, start + size * step, step, dtype=np_dtype)
            # int64 arithmetic is arithmetic mod 2**64; uint64 words also admit uint64 starts
            i = np.arange(size, dtype=np.uint64)
            words = np.uint64(start % 2**64) + i * np.uint64(step % 2**64)
            buf = words.astype(np_dtype)
        else:
            limit = _EXACT_INTEGERS.get(np_dtype)
            if limit is not None and float(start).is_integer() and float(step).is_integer() \
                    and abs(start) + abs(step) * size <= limit:
                # whole numbers the dtype holds exactly: NumPy's arange (start + i * step in
                # the dtype itself) gives the same values as the rounded double below
                buf = np.arange(start, start + size * step, step, dtype=np_dtype) if step else None
                if buf is not None and buf.size == size:
                    return buf
            wide = np.complex128 if dtype.is_complex else np.float64
            with QuietBlock():
                buf = np.arange(size, dtype=wide)  # start + i * step in double, rounded once
                buf *= step
                buf += start
                buf = buf.astype(np_dtype, copy=False)
        return buf

    def _random_dtype(self, op, dtype):
        if not dtype.is_floating:
            raise unsupported(op, dtype, "random numbers are generated for floating dtypes")
        return dtype.numpy

    def rand_uniform(self, shape, dtype, seed, counter, low, high):
        np_dtype = self._random_dtype("rand_uniform", dtype)
        try:
            with QuietBlock():
                buf = random.uniform(prod(shape), np_dtype, seed, counter, low, high)
        except (MemoryError, ValueError) as exc:
            raise _allocation_error("rand_uniform", shape, np_dtype, exc) from exc
        return CpuStorage(buf, dtype)

    def rand_normal(self, shape, dtype, seed, counter, mean, std):
        np_dtype = self._random_dtype("rand_normal", dtype)
        try:
            with QuietBlock():
                buf = random.normal(prod(shape), np_dtype, seed, counter, mean, std)
        except (MemoryError, ValueError) as exc:
            raise _allocation_error("rand_normal", shape, np_dtype, exc) from exc
        return CpuStorage(buf, dtype)

    # --- device state ------------------------------------------------------------------------

    def synchronize(self):
        """Nothing is queued: every CPU primitive has finished when it returns."""

    def memory_info(self):
        """(free, total) bytes: the host memory this process may still take, under its
        address-space and cgroup limits too (candlewick.host_memory)."""
        return available_memory()

    # --- streams and events (optional hook candlewick.backend.StreamDevice; streams.py) ----
    def new_stream(self):
        return CpuStream(self)

    def current_stream(self):
        return self._streams.current()

    def set_current_stream(self, stream):
        if getattr(stream, "device", None) is not self:
            raise DeviceMismatchError(f"set_current_stream: {stream!r} does not belong to cpu")
        self._streams.use(stream)

    def new_event(self, timing):
        return CpuEvent(self, timing)

    # --- memory statistics (optional hook candlewick.backend.MemoryStatsDevice) ---------------
    # NumPy allocates through the C allocator and keeps no counts, so the cpu backend reports
    # what the machine says and None for what an allocator would count; it caches nothing.
    def memory_stats(self):
        stats = dict.fromkeys(MEMORY_STAT_KEYS)
        stats["cached_bytes"] = stats["pinned_bytes"] = 0
        stats["free_bytes"], stats["total_bytes"] = self.memory_info()
        return stats

    def reset_peak_memory_stats(self):
        pass  # no peak is counted

    def empty_cache(self):
        pass  # nothing is cached

    def set_memory_limit(self, nbytes):
        raise UnsupportedOperation("set_memory_limit", None, "cpu",
                                   "NumPy allocates the cpu device's memory and counts none of it, so no limit "
                                   "can be enforced (limit a process's memory with the operating system's "
                                   "tools: ulimit -v, cgroups)")


def _fill_error(op, shape, dtype, exc):
    """The error for a fill that failed: DTypeError for a dtype that is not a candlewick
    dtype, else _allocation_error's."""
    return _allocation_error(op, shape, _np_dtype(dtype, op), exc)  # (_np_dtype raises the DTypeError)


def _allocation_error(op, shape, np_dtype, exc):
    """The error for NumPy failing to create ``shape`` elements: a bad shape is a
    ShapeError, anything else (MemoryError, "array is too big") a DeviceMemoryError
    saying how much was asked and how much is free."""
    size = prod(shape)
    if size < 0 or any(n < 0 for n in shape):
        return ShapeError(f"{op}: shape {tuple(shape)} has a negative dimension")
    try:
        free = CPU_DEVICE.memory_info()[0]
    except OSError:
        free = None
    return DeviceMemoryError("cpu", size * np_dtype.itemsize, free, f"{op} of {size} {np_dtype} elements: {exc}")


CPU_DEVICE = CpuDevice()
CpuStorage.device = CPU_DEVICE


class CpuBackend:
    """The object of entry point ``cpu = cpu_backend:BACKEND``."""

    name = "cpu"

    def probe(self):
        return True, ""

    def device_count(self):
        return 1

    def device(self, ordinal):
        if ordinal != 0:
            raise DeviceError(f"the cpu backend has one device (ordinal 0), got ordinal {short_repr(ordinal)}")
        return CPU_DEVICE

    def details(self):
        return {"numpy": np.__version__, "ml_dtypes": ml_dtypes.__version__}

    def __repr__(self):
        return "CpuBackend()"
