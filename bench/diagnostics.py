"""The one place where bench/ reads rocm backend internals (figures no public API gives).

The benchmarks import this module and record an error for these figures, and go on,
when it cannot be imported (the backend's modules renamed) or a call fails.

rocm backend internals used here (keep this list and the imports below in step):
- ``rocm_backend.runtime.kernels``: ``code_object(module, source, arch)``, the in-memory
  code-object cache ``_code_memory``, the disk cache directory from ``$CANDLEWICK_KERNEL_CACHE``;
- ``rocm_backend.abi.sources.module_source`` and ``rocm_backend.abi.ops.MODULES``: each
  module's source and kernels;
- ``rocm_backend.families.nn_paths.path_counts``: calls per (op, nn path), to report the path
  a case took;
- ``rocm_backend.families.miopen.DeviceMIOpen`` (a device's MIOpen state, ``RocmDevice.miopen``)
  and ``rocm_backend.bindings.miopen_c.ConvPlan.find_ms`` (the time of MIOpen's Find for a
  new convolution shape);
- ``RocmDevice.product_name`` and ``RocmDevice.arch``;
- candlewick's ``Array._storage`` and ``Array._layout`` (the protocol objects a primitive
  takes), for host_overhead's layer breakdown of a tiny op (``storage_of``).
"""

import os
import tempfile
import time

from rocm_backend.abi import ops
from rocm_backend.abi.sources import module_source
from rocm_backend.bindings.miopen_c import ConvPlan
from rocm_backend.families import nn_paths
from rocm_backend.families.miopen import DeviceMIOpen
from rocm_backend.runtime import kernels


def storage_of(x):
    """(storage, layout) of a candlewick array: what its backend's primitives take."""
    return x._storage, x._layout


def device_facts(dev):
    """(product name, architecture) of a rocm device."""
    return dev.product_name, dev.arch


def compile_times(dev, modules=("binary_float32", "reduce_float32")):
    """{module: {kernels, compile_s, disk_hit_ms}}: the first-use hipRTC compile of each
    module into an empty disk cache, then the same module read back from that cache."""
    results = {}
    old = os.environ.get("CANDLEWICK_KERNEL_CACHE")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["CANDLEWICK_KERNEL_CACHE"] = tmp
        try:
            for module in modules:
                kernels._code_memory.clear()
                t0 = time.perf_counter()
                kernels.code_object(module, module_source(module), dev.arch)
                compiled = time.perf_counter() - t0
                kernels._code_memory.clear()
                t0 = time.perf_counter()
                kernels.code_object(module, module_source(module), dev.arch)
                hit = time.perf_counter() - t0
                results[module] = {"kernels": len(ops.MODULES[module]), "compile_s": compiled,
                                   "disk_hit_ms": hit * 1e3}
        finally:
            if old is None:
                os.environ.pop("CANDLEWICK_KERNEL_CACHE", None)
            else:
                os.environ["CANDLEWICK_KERNEL_CACHE"] = old
    return results


def nn_path_counts():
    """A snapshot of the calls per (op, nn path) so far; compare two with :func:`paths_between`."""
    return dict(nn_paths.path_counts)


def paths_between(before, after):
    """The nn paths ("miopen", "fallback"...) that calls took between two snapshots."""
    return sorted({path for (op, path), count in after.items() if count != before.get((op, path), 0)})


def last_find_ms(dev):
    """MIOpen's Find time (ms) for the newest convolution plan of ``dev``; None if none."""
    state = getattr(dev, "miopen", None)
    if not isinstance(state, DeviceMIOpen):
        return None
    plans = [plan for plan in state.plans.values() if isinstance(plan, ConvPlan)]
    return plans[-1].find_ms if plans else None
