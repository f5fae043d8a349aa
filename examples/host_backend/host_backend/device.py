"""``HostDevice`` and ``HostBackend``: devices ``host:0``, ``host:1``, ... whose storages
are NumPy buffers in the host's memory.

A host-memory device says so (``host_memory = True``), so candlewick lets NumPy read its
arrays without an explicit copy (``np.asarray(x)``, ``np.save``, ``np.median``), and it
takes DLPack producers in host memory without a copy (``storage_from_dlpack``). It
compares equal to its name (``NamedDevice``: ``x.device == "host:0"``; candlewick gives
that equality to a device class that does not define it, this one declares it itself).
"""

import os

import numpy as np

from candlewick import dtypes as dt
from candlewick.named_device import NamedDevice

from cpu_backend import CPU_DEVICE
from cpu_backend.dlpack import flat_buffer_and_layout, import_host_array

from .storage import HostStorage, ours

NAME = "host"
#: how many devices the backend shows (``host:0`` ... ``host:N-1``; default 1)
DEVICES_ENV = "CANDLEWICK_HOST_DEVICES"


class HostDevice(NamedDevice):
    backend = NAME
    storage_type = HostStorage
    dtypes = dt.ALL_DTYPES
    capabilities = ("linalg", "fft")
    #: storages live in host memory (candlewick.backend.HostMemoryDevice)
    host_memory = True

    def __init__(self, ordinal):
        self.ordinal = ordinal
        self.name = f"{self.backend}:{ordinal}"

    def __repr__(self):
        return f"HostDevice({self.name})"

    def same_device(self, other):
        return other is self

    # --- storages from the host and from nothing -------------------------------------------

    def storage_from_host(self, array):
        return self.storage_type(np.array(array, order="C").reshape(-1), dt.from_numpy(array.dtype), self)

    def storage_from_dlpack(self, obj, copy):
        """DLPack import (``candlewick.backend.DLPackDevice``): a host producer's memory,
        shared unless ``copy``, as (flat buffer, layout); None for memory elsewhere."""
        array = import_host_array(obj, copy)
        if array is None:
            return None
        buf, layout = flat_buffer_and_layout(array)
        return self.storage_type(buf, dt.from_numpy(array.dtype), self), layout

    def zeros(self, shape, dtype):
        return self.storage_type(np.zeros(shape, dtype.numpy).reshape(-1), dtype, self)

    def ones(self, shape, dtype):
        return self.storage_type(np.ones(shape, dtype.numpy).reshape(-1), dtype, self)

    def empty(self, shape, dtype):
        return self.storage_type(np.empty(shape, dtype.numpy).reshape(-1), dtype, self)

    def full(self, shape, dtype, value):
        with np.errstate(all="ignore"):  # a float past float16's range is inf, silently (IEEE)
            return self.storage_type(np.full(shape, value, dtype.numpy).reshape(-1), dtype, self)

    # arange's rounding rule and the Philox streams are the reference backend's (the
    # example's shortcut, as for the arithmetic primitives)
    def arange(self, start, step, size, dtype):
        return ours(CPU_DEVICE.arange(start, step, size, dtype), self)

    def rand_uniform(self, shape, dtype, seed, counter, low, high):
        return ours(CPU_DEVICE.rand_uniform(shape, dtype, seed, counter, low, high), self)

    def rand_normal(self, shape, dtype, seed, counter, mean, std):
        return ours(CPU_DEVICE.rand_normal(shape, dtype, seed, counter, mean, std), self)

    # --- device state ----------------------------------------------------------------------

    def synchronize(self):
        """Nothing is queued: every primitive has finished when it returns."""

    def memory_info(self):
        return CPU_DEVICE.memory_info()  # the host's RAM


class HostBackend:
    """The object of the entry point ``host = host_backend:BACKEND``."""

    name = NAME
    device_type = HostDevice

    def probe(self):
        return True, ""

    def device_count(self):
        return int(os.environ.get(DEVICES_ENV, "1"))

    def device(self, ordinal):
        return self.device_type(ordinal)

    def details(self):
        return {"memory": "host (NumPy buffers)"}
