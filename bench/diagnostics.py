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
- the host path of one tiny op (``host_path_stages``): ``RocmDevice.storage_type.empty``,
  ``RocmDevice.launcher`` (``raw``, ``stream_arg``, ``launch_fields``),
  ``rocm_backend.families.ew_launch`` (``ew_kernel``, ``kernel``, ``launch_contiguous``),
  ``rocm_backend.families.reductions`` (``_flat``, ``_kernel``, and the plans of ``_flat``,
  ``RocmDevice.reduce_scratch.flat_plans``: the launch geometry), ``ew_launch.EW_CONTIG_BLOCK`` / ``_EW_ITEMS_PER_THREAD``, ``BoundKernel.fn_arg`` and
  the argument structs ``rocm_backend.abi.structs.EW_ARGS`` / ``REDUCE_ARGS`` (``extra_arg``).
"""

import os
import tempfile
import time

from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp
from rocm_backend.abi import ops
from rocm_backend.abi.structs import EW_ARGS, REDUCE_ARGS
from rocm_backend.abi.sources import module_source
from rocm_backend.bindings.miopen_c import ConvPlan
from rocm_backend.families import ew_launch, nn_paths, reductions
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


def host_path_stages(dev, x, y, cond):
    """{op: [(stage, prepare, call)]} for ``add`` (x + y), ``sum`` (all of x) and ``where``
    (cond, x, y) on the contiguous storages ``x``, ``y`` (float) and ``cond`` (bool) of
    ``dev``: the backend's primitive, the allocation of its result, its pack and launch
    into a preallocated result, and the bare launch call (ctypes ``hipModuleLaunchKernel``
    on arguments packed once by ``prepare``; None where the runtime's launch goes through
    hip-python instead). Time ``call`` after running ``prepare``."""
    launcher, n, dtype = dev.launcher, x.size, x.dtype
    out, out1 = dev.storage_type.empty(dev, dtype, n), dev.storage_type.empty(dev, dtype, 1)
    add_k, _ = ew_launch.ew_kernel(dev, "binary", BinaryOp.ADD, dtype)
    where_k = ew_launch.kernel(dev, ("where", dtype.itemsize))
    sum_k = reductions._kernel(dev, "rows_vec", ReduceOp.SUM, dtype)

    def add_launch():
        ew_launch.launch_contiguous(dev, add_k, n, out.ptr, 0, x.ptr, 0, y.ptr, 0)

    def where_launch():
        ew_launch.launch_contiguous(dev, where_k, n, out.ptr, 0, cond.ptr, 0, x.ptr, 0, y.ptr, 0)

    def sum_launch():
        reductions._flat(dev, ReduceOp.SUM, dtype, x, 0, out1, n)

    def bare(kernel, args, grid, block):
        if launcher.raw is None or kernel.fn_arg is None:
            return None
        raw, stream, extra, fn = launcher.raw, launcher.stream_arg, args.extra_arg, kernel.fn_arg

        def call():
            status = raw(fn, grid, 1, 1, block, 1, 1, 0, stream, None, extra)
            if status:
                raise RuntimeError(f"the bare hipModuleLaunchKernel({kernel.name}) returned status {status}")
        return call

    sum_launch()  # plans the reduction: the bare call takes its geometry
    plan = dev.reduce_scratch.flat_plans[(ReduceOp.SUM._value_, dtype.name, n)]
    ew_grid = -(-n // (ew_launch.EW_CONTIG_BLOCK * ew_launch._EW_ITEMS_PER_THREAD))
    ew_block = ew_launch.EW_CONTIG_BLOCK
    layout = Layout.contiguous((n,))
    alloc = ("allocate and free the result", None, lambda: dev.storage_type.empty(dev, dtype, n))
    return {
        "add": [("primitive", None, lambda: x.binary(BinaryOp.ADD, layout, y, layout)), alloc,
                ("pack and launch", None, add_launch), ("launch call", add_launch, bare(add_k, EW_ARGS, ew_grid, ew_block))],
        "sum": [("primitive", None, lambda: x.reduce(ReduceOp.SUM, layout, (0,))), alloc,
                ("pack and launch", None, sum_launch), ("launch call", sum_launch, bare(sum_k, REDUCE_ARGS, plan[3], plan[2]))],
        "where": [("primitive", None, lambda: cond.where(layout, x, layout, y, layout)), alloc,
                  ("pack and launch", None, where_launch), ("launch call", where_launch, bare(where_k, EW_ARGS, ew_grid, ew_block))],
    }
