"""The protocol's device: a HIP device (``runtime/hip_device.py``: properties, stream,
allocator, handles) with the protocol's creation and DLPack-import methods, whose
results are ``RocmStorage``."""

from candlewick import dtypes as _dt
from candlewick.named_device import NamedDevice

from .abi.sources import module_source
from .families import collectives, creation, dlpack, fusion, reductions
from .runtime.hip_device import HipDevice
from .storage import RocmStorage


class RocmDevice(HipDevice, NamedDevice):
    """One HIP device (``rocm:N``)."""

    storage_type = RocmStorage
    dtypes = _dt.ALL_DTYPES
    # the optional groups (hipSOLVER, hipFFT: storage.py routes them; graphs: stream capture;
    # fusion: generated kernels, families/fusion.py); class attributes so tools
    # (docs/array_api.md) can read them without a device
    capabilities = frozenset({"linalg", "fft", "graphs", "fusion"})

    def __init__(self, ordinal):
        super().__init__(ordinal, module_source)

    # --- graph capture (optional group "graphs": runtime/capture.py) ----------------
    def begin_capture(self):
        # per-device state that is made (and zeroed) lazily must exist before: its
        # zeroing would be recorded into the graph instead of running now
        reductions.scratch(self)
        super().begin_capture()

    # --- DLPack import (optional hook candlewick.backend.DLPackDevice) ------------
    def storage_from_dlpack(self, obj, copy):
        return dlpack.storage_from_dlpack(self, obj, copy)

    # --- fusion (optional capability candlewick.backend.FusionDevice) -------------
    def compile_fused(self, graph):
        return fusion.compile_fused(self, graph)

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

    def _refuse_random(self):
        if self.capture is not None:
            self.capture.refuse("drawing random numbers (the seed would be frozen into the graph, so every "
                                "replay would draw the same numbers)")

    def rand_uniform(self, shape, dtype, seed, counter, low, high):
        self._refuse_random()
        return creation.rand(self, "uniform", shape, dtype, seed, counter, low, high)

    def rand_normal(self, shape, dtype, seed, counter, mean, std):
        self._refuse_random()
        return creation.rand(self, "normal", shape, dtype, seed, counter, mean, std)
