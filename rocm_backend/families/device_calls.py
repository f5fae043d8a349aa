"""[families] ``RocmDevice``'s protocol methods that are one op family's call on the
device: creation and Philox draws (``creation.py``), host uploads and pinned arrays
(``host_copies.py``), DLPack import (``dlpack.py``), fused graphs (``fusion.py``), users'
kernels (``custom_kernels.py``) and RCCL groups (``collectives.py``). A mixin of
``RocmDevice``, which holds the state they use (``device.py``)."""

from . import collectives, creation, custom_kernels, dlpack, fft_scratch, fusion, host_copies


class FamilyCalls:
    """The device's calls into its op families (mixed into ``RocmDevice``)."""

    # --- pinned host memory (optional hook candlewick.backend.PinnedMemoryDevice) ----------
    def pinned_empty(self, shape, dtype):
        return host_copies.pinned_empty(self, shape, dtype)

    def storage_from_host_async(self, producer):
        return host_copies.storage_from_host_async(self, producer)

    # --- DLPack import (optional hook candlewick.backend.DLPackDevice) ------------
    def storage_from_dlpack(self, obj, copy):
        return dlpack.storage_from_dlpack(self, obj, copy)

    # --- fusion (optional capability candlewick.backend.FusionDevice) -------------
    def compile_fused(self, graph):
        return fusion.compile_fused(self, graph)

    # --- irfft of an input the caller makes (optional hook candlewick.backend.IrfftScratchDevice)
    def irfft_scratch_factor(self, dtype, shape, axis, n, norm=None):
        return fft_scratch.scratch_factor(dtype, shape, axis, n, norm)

    # --- users' kernels (optional capability candlewick.backend.CustomKernelDevice) ------
    def raw_kernel(self, source, name, params, options):
        return custom_kernels.raw_kernel(self, source, name, params, options)

    def elementwise_kernel(self, kernel):
        return custom_kernels.elementwise_kernel(self, kernel)

    def reduction_kernel(self, kernel):
        return custom_kernels.reduction_kernel(self, kernel)

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
