"""The protocol's device: a HIP device (``runtime/hip_device.py``: properties, stream,
allocator, handles) with the protocol's creation and DLPack-import methods, whose
results are ``RocmStorage``."""

from candlewick import dtypes as _dt
from candlewick.named_device import NamedDevice

from .abi.sources import module_source
from .families import collectives, creation, dlpack
from .runtime.hip_device import HipDevice
from .storage import RocmStorage


class RocmDevice(HipDevice, NamedDevice):
    """One HIP device (``rocm:N``)."""

    storage_type = RocmStorage
    dtypes = _dt.ALL_DTYPES
    # the optional groups (hipSOLVER, hipFFT: storage.py routes them); class attributes so
    # tools (docs/array_api.md) can read them without a device
    capabilities = frozenset({"linalg", "fft"})

    def __init__(self, ordinal):
        super().__init__(ordinal, module_source)

    # --- DLPack import (optional hook candlewick.backend.DLPackDevice) ------------
    def storage_from_dlpack(self, obj, copy):
        return dlpack.storage_from_dlpack(self, obj, copy)

    # --- collectives over RCCL (optional hook candlewick.backend.CollectiveDevice) ----
    def collective_unique_id(self):
        return collectives.unique_id()

    def collective_group(self, devices):
        return collectives.group(devices)

    def collective_join(self, unique_id, size, rank):
        return collectives.join(self, unique_id, size, rank)

    # --- creation -------------------------------------------------------------
    def storage_from_host(self, array):
        return creation.from_host(self, array)

    def empty(self, shape, dtype):
        return creation.empty(self, shape, dtype)

    def zeros(self, shape, dtype):
        return creation.full(self, shape, dtype, 0)

    def ones(self, shape, dtype):
        return creation.full(self, shape, dtype, 1)

    def full(self, shape, dtype, value):
        return creation.full(self, shape, dtype, value)

    def arange(self, start, step, size, dtype):
        return creation.arange(self, start, step, size, dtype)

    def rand_uniform(self, shape, dtype, seed, counter, low, high):
        return creation.rand(self, "uniform", shape, dtype, seed, counter, low, high)

    def rand_normal(self, shape, dtype, seed, counter, mean, std):
        return creation.rand(self, "normal", shape, dtype, seed, counter, mean, std)
