"""Loaded kernel modules of one device and their launch-ready kernel handles.

A kernel is named by its op-table spec (name, module, block); the module's source comes
from the ``module_source`` function the device was made with (``abi/sources.py``), so
this layer knows nothing of the op table.
"""

import threading

from ..bindings import hip
from ..error import RocmError
from . import kernels
from .launcher import BoundKernel


class KernelRuntime:
    """Loaded modules and kernel handles of one device. ``cache`` is the op families' memo
    of BoundKernels by op-table key, ``ew_cache`` of (BoundKernel, result dtype) of the
    element-wise ops by the same keys (one dict hit per launch after the first)."""

    def __init__(self, device, module_source):
        self.device = device
        self.module_source = module_source
        self._modules = {}
        self._functions = {}
        self._kernels = {}  # kernel name -> BoundKernel
        self.cache = {}
        self.ew_cache = {}
        self.ew_plans = {}  # families/ew_launch.py: element-wise launch plans by layout
        self._resident = {}
        self._lock = threading.Lock()

    def function(self, spec, source=None, options=()):
        """hip-python's handle of the kernel ``spec`` (module loaded on first use), from
        ``source`` when given (generated code: the kernels of a fused graph, compiled with
        the extra ``options``), else from the op table's module source."""
        fn = self._functions.get(spec.name)
        if fn is not None:
            return fn
        with self._lock:
            module = self._modules.get(spec.module)
            if module is None:
                self.device.make_current()  # the module loads on the current device (hipRTC may target it too)
                try:
                    if source is None:
                        source = self.module_source(spec.module)
                    code = kernels.code_object(spec.module, source, self.device.arch, options)
                except RocmError as exc:  # the log names the line; say which kernel was wanted
                    if hasattr(exc, "add_note"):
                        exc.add_note(f"(loading kernel {spec.name!r} of module {spec.module!r})")
                    raise
                module = hip.module_load_data(code)
                self._modules[spec.module] = module
            fn = hip.module_get_function(module, spec.name)
            self._functions[spec.name] = fn
        return fn

    def kernel(self, spec, source=None, options=()):
        """The launch-ready ``BoundKernel`` of ``spec`` (cached: one dict hit per launch);
        ``source`` and ``options`` as for ``function`` (a generated kernel's name is its
        source's digest, so one name is one kernel)."""
        k = self._kernels.get(spec.name)
        if k is None:
            k = self._kernels[spec.name] = BoundKernel(spec, self.function(spec, source, options))
        return k

    def resident_blocks(self, kernel, block):
        """Blocks of ``block`` threads of ``kernel`` resident on the whole device at once
        (the runtime's occupancy query, cached; 2048 threads per multiprocessor without one)."""
        key = (kernel.name, block)
        n = self._resident.get(key)
        if n is None:
            per_sm = hip.occupancy_blocks_per_multiprocessor(kernel.fn, block)
            if per_sm <= 0:
                per_sm = max(1, 2048 // block)
            n = self._resident[key] = per_sm * self.device.multiprocessors
        return n
