"""The one place where bench/ reads rocm backend internals (figures no public API gives).

The benchmarks import this module and record an error for these figures, and go on,
when it cannot be imported (the backend's modules renamed) or a call fails.

rocm backend internals used here (keep this list and the imports below in step):
- ``rocm_backend.kernels``: ``code_object(module, source, arch)``, the in-memory
  code-object cache ``_code_memory``, the disk cache directory from ``$CANDLEWICK_KERNEL_CACHE``;
- ``rocm_backend.codegen.sources.module_source`` / ``kernel_source`` and ``rocm_backend.ops.MODULES``:
  each module's source and kernels, and one kernel's source alone (what a first launch
  compiles where the cache lacks its module);
- ``rocm_backend.families.nn_paths.path_counts``: calls per (op, nn path), to report the path
  a case took;
- ``rocm_backend.miopen.DeviceMIOpen`` (a device's MIOpen state, ``RocmDevice.family_state("miopen")``)
  and ``rocm_backend.bindings.miopen_c.ConvPlan.find_ms`` (the time of MIOpen's Find for a
  new convolution shape);
- ``RocmDevice.product_name`` and ``RocmDevice.arch``;
- candlewick's ``Array._storage`` and ``Array._layout`` (the protocol objects a primitive
  takes), for host_overhead's layer breakdown of a tiny op (``storage_of``).
- the host path of one tiny op (``host_path_stages``): ``RocmDevice.storage_type.empty``,
  ``RocmDevice.launcher`` (``raw``, ``launch_fields``), ``RocmDevice.streams.default`` (``arg``, ``ptr``),
  ``rocm_backend.kernels`` (``ew_kernel``, ``kernel``), ``RocmDevice.ew_contiguous`` (the
  contiguous element-wise launch),
  ``rocm_backend.families.reductions`` (``_flat``, ``_kernel``, and ``flat_plan``: the launch
  geometry, a ``PreparedLaunch``'s ``dims``), ``ew_launch.EW_CONTIG_BLOCK`` / ``BoundKernel.items``, ``BoundKernel.fn_arg`` / ``fn`` and
  the argument structs ``rocm_backend.abi.structs.EW_ARGS`` / ``REDUCE_ARGS`` (``extra_arg``,
  ``buffer``, ``size``), ``ew_launch.launch_contiguous_fields`` (the launch that packs into those
  buffers, which the bare calls read) and a ``PreparedLaunch``'s ``values``, ``slots``, ``packer``, ``args``, and
  ``reductions.scratch``; ``rocm_backend.bindings.hip`` (``module_load_data``,
  ``module_get_function``) and ``hip_ctypes`` (``loaded_runtime_path``, ``has_int``) and ``kernels.compile_source`` /
  ``COMPILE_OPTIONS`` for the launch floor (bench/launch_floor.py).
"""

import ctypes
import os
import tempfile
import time

from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp, ReduceOp
import launch_floor
from rocm_backend import kernels, ops
from rocm_backend.abi.structs import EW_ARGS, REDUCE_ARGS
from rocm_backend.bindings import hip, hip_ctypes
from rocm_backend.bindings.miopen_c import ConvPlan
from rocm_backend.codegen.sources import kernel_source, module_source
from rocm_backend.families import ew_launch, nn_paths, reductions
from rocm_backend.miopen import DeviceMIOpen


def storage_of(x):
    """(storage, layout) of a candlewick array: what its backend's primitives take."""
    return x._storage, x._layout


def device_facts(dev):
    """(product name, architecture) of a rocm device."""
    return dev.product_name, dev.arch


def compile_times(dev, modules=("binary_float32", "reduce_float32")):
    """{module: {kernels, compile_s, disk_hit_ms, kernel_alone_s}}: the hipRTC compile of
    each whole module into an empty disk cache (``backend.precompile``'s unit), the same
    module read back from that cache, and the compile of its first kernel alone (what a
    first launch compiles where the cache lacks the module: kernels.KernelRuntime)."""
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
                first = ops.MODULES[module][0]
                t0 = time.perf_counter()
                kernels.code_object(f"{module}.{first.name}", kernel_source(first), dev.arch)
                alone = time.perf_counter() - t0
                results[module] = {"kernels": len(ops.MODULES[module]), "compile_s": compiled,
                                   "disk_hit_ms": hit * 1e3, "kernel_alone_s": alone, "kernel_alone": first.name}
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
    state = dev.family_state("miopen")  # as made so far (None: never made)
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
    hip-python instead), and that launch from C (``launch_floor.LOOP`` launches per call)
    through HIP and, under tools/hip_on_cuda, the CUDA driver. Time ``call`` after running
    ``prepare``. Returns (stages, why the launches from C are missing or None)."""
    launcher, n, dtype = dev.launcher, x.size, x.dtype
    out, out1 = dev.storage_type.empty(dev, dtype, n), dev.storage_type.empty(dev, dtype, 1)
    add_k, _ = kernels.ew_kernel(dev, "binary", BinaryOp.ADD, dtype)
    where_k = kernels.kernel(dev, ("where", dtype.itemsize))
    sum_k = reductions._kernel(dev, "rows_vec", ReduceOp.SUM, dtype)

    def add_launch():
        dev.ew_contiguous(add_k, n, (out.ptr, 0, x.ptr, 0, y.ptr, 0))

    def where_launch():
        dev.ew_contiguous(where_k, n, (out.ptr, 0, cond.ptr, 0, x.ptr, 0, y.ptr, 0))

    def sum_launch():
        reductions._flat(dev, ReduceOp.SUM, dtype, x, 0, out1, n)

    def bare(kernel, args, grid, block):
        if launcher.raw is None or kernel.fn_arg is None:
            return None
        raw, stream, extra, fn = launcher.raw, dev.streams.default.arg, args.extra_arg, kernel.fn_arg

        def call():
            status = raw(fn, grid, 1, 1, block, 1, 1, 0, stream, None, extra)
            if status:
                raise RuntimeError(f"the bare hipModuleLaunchKernel({kernel.name}) returned status {status}")
        return call

    def bare_c(kernel, args, grid, block):
        if launcher.c_launch is None or kernel.fn_int is None:
            return None
        c_launch, address, stream = launcher.c_launch, launcher.raw_address, dev.streams.default.ptr

        def call():
            status = c_launch(address, kernel.fn_int, grid, 1, 1, block, 1, 1, 0, stream, args.extra_address)
            if status:
                raise RuntimeError(f"candlewick._native.launch({kernel.name}) returned status {status}")
        return call

    floor = _FromC(dev)

    def launch_stages(prepare, kernel, args, grid, block):
        from_c = bare_c(kernel, args, grid, block)  # the call the launcher makes, where _native was built
        return [("launch call", prepare, from_c or bare(kernel, args, grid, block)),
                ("launch call through ctypes", prepare, bare(kernel, args, grid, block)),
                ("HIP launch from C", prepare, floor.hip(kernel.fn, args, grid, block)),
                ("CUDA launch from C", prepare, floor.cuda(kernel.fn, args, grid, block))]

    sum_plan, sum_splits, _ = reductions.flat_plan(dev, ReduceOp.SUM, dtype, n)  # the bare call takes its geometry

    def add_packed():  # the packed launch: the struct in its launch buffer, which the bare calls read
        ew_launch.launch_contiguous_fields(dev, add_k, n, [out.ptr, 0, x.ptr, 0, y.ptr, 0])

    def where_packed():
        ew_launch.launch_contiguous_fields(dev, where_k, n, [out.ptr, 0, cond.ptr, 0, x.ptr, 0, y.ptr, 0])

    def sum_packed():
        values = list(sum_plan.values)
        fills = (x.ptr, 0, out1.ptr, 0 if sum_splits == 1 else reductions.scratch(dev).partials)
        for slot, value in zip(sum_plan.slots, fills):
            values[slot] = value
        sum_plan.packer.pack_into(sum_plan.args.buffer, 0, *values)
    def ew_grid(k):  # the contiguous launch's grid for kernel k (its elements a thread a step)
        return -(-n // (ew_launch.EW_CONTIG_BLOCK * k.items))

    ew_block = ew_launch.EW_CONTIG_BLOCK
    layout = Layout.contiguous((n,))
    alloc = ("allocate and free the result", None, lambda: dev.storage_type.empty(dev, dtype, n))
    return {
        "add": [("primitive", None, lambda: x.binary(BinaryOp.ADD, layout, y, layout)), alloc,
                ("pack and launch", None, add_launch)] + launch_stages(add_packed, add_k, EW_ARGS, ew_grid(add_k),
                                                                       ew_block),
        "sum": [("primitive", None, lambda: x.reduce(ReduceOp.SUM, layout, (0,))), alloc,
                ("pack and launch", None, sum_launch)] + launch_stages(sum_packed, sum_k, REDUCE_ARGS,
                                                                       sum_plan.dims[0], sum_plan.dims[3]),
        "where": [("primitive", None, lambda: cond.where(layout, x, layout, y, layout)), alloc,
                  ("pack and launch", None, where_launch)] + launch_stages(where_packed, where_k, EW_ARGS,
                                                                           ew_grid(where_k), ew_block),
    }, floor.error


class _FromC:
    """Calls that queue ``launch_floor.LOOP`` launches from C (bench/launch_floor.py): through
    the HIP runtime the backend loaded, and through the CUDA driver when that runtime is
    tools/hip_on_cuda. A method returns None where that way is not available (``error``
    says why, for the HIP one)."""

    def __init__(self, dev):
        self.loop, self.error = launch_floor.build()
        launcher = dev.launcher
        self.stream = dev.streams.default.ptr  # the device's own stream (None: handles are no addresses)
        self.hip_launch = launch_floor.address(launcher.raw) if launcher.raw is not None else None
        if self.loop is not None and self.hip_launch is None:
            self.error = "the runtime's launch goes through hip-python (no ctypes hipModuleLaunchKernel)"
        self.cuda_launch = launch_floor.cuda_launch_address(hip_ctypes.loaded_runtime_path())

    def _call(self, launch, end_tag, fn, args, grid, block):
        if self.loop is None or launch is None or not hip_ctypes.has_int(fn):
            return None
        return launch_floor.batch(self.loop, launch, int(fn), grid, block, self.stream,
                                  ctypes.addressof(args.buffer), args.size, end_tag)

    def hip(self, fn, args, grid, block):
        return self._call(self.hip_launch, 3, fn, args, grid, block)  # HIP_LAUNCH_PARAM_END

    def cuda(self, fn, args, grid, block):
        return self._call(self.cuda_launch, 0, fn, args, grid, block)  # CU_LAUNCH_PARAM_END


class _ProbeArgs:
    """An argument buffer of ``size`` zero bytes (what ``_FromC`` reads of a struct)."""

    def __init__(self, size):
        self.size = size
        self.buffer = ctypes.create_string_buffer(size)


def launch_floor_by_struct_size(dev):
    """({struct bytes: {"HIP launch from C": call, "CUDA launch from C": call or None}}, error):
    empty kernels (launch_floor.PROBE_SOURCE) taking a struct of 16, 128 or 432 bytes, each
    call queueing ``launch_floor.LOOP`` launches of one block of 64 threads."""
    floor = _FromC(dev)
    if floor.error:
        return {}, floor.error
    dev.make_current()
    module = hip.module_load_data(kernels.compile_source("cw_launch_probe", launch_floor.PROBE_SOURCE,
                                                          list(kernels.COMPILE_OPTIONS), dev.arch))
    calls = {}
    for size in launch_floor.PROBE_SIZES:
        fn, args = hip.module_get_function(module, f"cw_probe_{size}"), _ProbeArgs(size)
        calls[size] = {"HIP launch from C": floor.hip(fn, args, 1, 64),
                       "CUDA launch from C": floor.cuda(fn, args, 1, 64)}
    calls["module"] = module  # kept alive by the caller while the calls run
    return calls, None
