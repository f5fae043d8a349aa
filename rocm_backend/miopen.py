"""[families] Convolution and pooling through MIOpen: a device's handles (one per stream,
bound to it), its plan cache, its workspaces, and the decline rule (``DECLINED``: the statuses
that mean MIOpen cannot do a problem, which then runs on our kernels and is remembered).
The C calls are in ``bindings/miopen_c.py``; which problems go to MIOpen and which to our
im2col + GEMM fallback is ``families/nn.py``'s choice.

Convolution (forward cross-correlation and transposed): one *plan* per (mode, dtype,
shapes, stride, padding, dilation, groups, output padding) holds the tensor and
convolution descriptors and the algorithm ``miopenFindConvolutionForwardAlgorithm``
picked the first time (its workspace comes from the backend's caching allocator). Plans
are kept per device (LRU) and reused. Pooling is inference only.
"""

import collections
import threading
import time

from candlewick.errors import DeviceMemoryError

from .bindings import miopen_c
from .bindings.miopen_c import (CONVOLUTION, POOL_AVG, POOL_AVG_INCLUSIVE, POOL_MAX, TRANSPOSE,  # noqa: F401 (re-exported: nn.py names them as miopen.X)
                                ConvPlan, library, version)
from .error import MIOpenError
from .storage_slice import DeviceBuffer

#: miopenStatus_t values meaning "MIOpen cannot do this problem" (InvalidValue, BadParm,
#: NotImplemented, UnsupportedOp): the caller falls back to our kernels
DECLINED = (2, 3, 6, 8)
PLAN_CACHE_SIZE = 512
#: bytes: a convolution workspace up to this size stays with the handle between calls
#: (one block reused by every convolution on the handle's stream, instead of an
#: allocation and a release per call); larger ones are allocated per call
KEEP_WORKSPACE = 64 << 20


class _OnStream:
    """MIOpen's handle bound to one stream, and the workspace kept for it."""

    __slots__ = ("handle", "kept")

    def __init__(self, handle):
        self.handle, self.kept = handle, None


class DeviceMIOpen:
    """The MIOpen handles of one device (one per stream: a handle queues on the stream it
    was made with) and its plan cache (descriptors and algorithms, shared)."""

    def __init__(self, device, lib):
        self.device, self.lib = device, lib
        self.lock = threading.RLock()
        self.plans = collections.OrderedDict()  # key -> ConvPlan, or a MIOpenError (declined)
        self.stats = {"find": 0, "plan_hits": 0, "declined": 0, "declined_at_run": 0}
        self._forward = miopen_c.forward_function(lib)
        self._one, self._zero = miopen_c.ONE, miopen_c.ZERO
        self._on_stream()  # a handle now: MIOpenError here means MIOpen is unusable on the device

    def _on_stream(self):
        """The current stream's handle and kept workspace (made on first use there)."""
        self.device.make_current()
        return self.device.stream_state("miopen", self._new_on_stream)

    def _new_on_stream(self, device, record):
        return _OnStream(miopen_c.create_handle(self.lib, int(record.handle)))

    @property
    def handle(self):
        """The MIOpen handle of the current stream."""
        return self._on_stream().handle

    # --- convolution --------------------------------------------------------
    def _plan(self, key):
        plan = self.plans.get(key)
        if plan is not None:
            self.plans.move_to_end(key)
            self.stats["plan_hits"] += 1
            return plan
        try:
            plan = ConvPlan(self.lib, key)
        except MIOpenError as exc:
            if exc.status not in DECLINED:
                raise
            plan = exc
        self.plans[key] = plan
        while len(self.plans) > PLAN_CACHE_SIZE:
            _, old = self.plans.popitem(last=False)
            if isinstance(old, ConvPlan):
                old.release()
        return plan

    def _workspace(self, nbytes):
        return DeviceBuffer.allocate(self.device, nbytes) if nbytes else None

    def _find(self, plan, x_ptr, w_ptr, y_ptr):
        size = miopen_c.workspace_size(self.lib, self.handle, plan)
        try:
            ws = self._workspace(size)
        except DeviceMemoryError:
            ws = None  # Find then considers only algorithms that need no workspace
        t0 = time.perf_counter()
        try:
            plan.algo, plan.workspace = miopen_c.find_algorithm(self.lib, self.handle, plan, x_ptr, w_ptr, y_ptr,
                                                                ws.ptr if ws else 0, ws.nbytes if ws else 0)
        finally:
            plan.find_ms = (time.perf_counter() - t0) * 1e3
        self.stats["find"] += 1

    def convolution(self, mode, dtype, x_ptr, x_shape, w_ptr, w_shape, y_ptr, y_shape, stride,
                    padding, dilation, groups, out_pad=(0, 0), channels_last=False):
        """Queue ``y = conv(x, w)`` (``mode`` CONVOLUTION or TRANSPOSE); False when MIOpen
        declines the problem (the caller then uses the fallback). Shapes are (N, C, H, W)
        in every case; ``channels_last``: x, w and y are packed NHWC in memory."""
        plan = self.ready_plan(mode, dtype, x_shape, w_shape, y_shape, stride, padding, dilation, groups,
                               x_ptr, w_ptr, y_ptr, out_pad, channels_last)
        return plan is not None and self.run(plan, x_ptr, w_ptr, y_ptr)

    def ready_plan(self, mode, dtype, x_shape, w_shape, y_shape, stride, padding, dilation, groups,
                   x_ptr, w_ptr, y_ptr, out_pad=(0, 0), channels_last=False):
        """The problem's ConvPlan with its algorithm found (Find runs on the given
        buffers the first time); None when MIOpen declines the problem."""
        key = (mode, dtype, tuple(x_shape), tuple(w_shape), tuple(y_shape), tuple(stride),
               tuple(padding), tuple(dilation), int(groups), tuple(out_pad), bool(channels_last))
        with self.lock:
            self.device.make_current()
            plan = self._plan(key)
            if isinstance(plan, MIOpenError):
                self.stats["declined"] += 1
                return None
            if plan.algo is None:
                try:
                    self._find(plan, x_ptr, w_ptr, y_ptr)
                except MIOpenError as exc:
                    if exc.status not in DECLINED:
                        raise
                    self._decline(plan, exc, "declined")
                    return None
            return plan

    def run(self, plan, x_ptr, w_ptr, y_ptr):
        """Queue the convolution of a plan from ready_plan; False when the plan has been
        evicted from the cache since (its descriptors are gone), or when MIOpen declines
        to run it after all: its problem is then remembered as declined, and the caller
        takes our kernels, as for a problem Find declines."""
        need = plan.workspace
        with self.lock:
            if not plan.alive:
                return False
            on = self._on_stream()
            ws = on.kept
            if need and (ws is None or ws.nbytes < need):
                ws = self._workspace(need)
                if need <= KEEP_WORKSPACE:
                    # the smaller block goes back to the allocator, which hands it out on
                    # this stream only after the queued uses (runtime/allocator.py)
                    on.kept = ws
            status = self._forward(on.handle, self._one, plan.x, x_ptr, plan.w, w_ptr, plan.conv, plan.algo,
                                   self._zero, plan.y, y_ptr, ws.ptr if need else None, need)
            if status in DECLINED and plan.alive:
                # seen once through the shim: a bfloat16 transposed convolution whose found
                # algorithm ran once and then reported BadParm on a later call
                self._decline(plan, MIOpenError("miopenConvolutionForward", status), "declined_at_run")
                return False
        if status:
            raise MIOpenError("miopenConvolutionForward", status)
        return True

    def _decline(self, plan, exc, stat):
        """Remember the plan's problem as declined (``exc``) and release the plan (lock held)."""
        self.plans[plan.key] = exc
        plan.release()
        self.stats[stat] += 1

    # --- pooling ------------------------------------------------------------
    def pooling(self, mode, dtype, x_ptr, x_shape, y_ptr, y_shape, kernel, stride, padding):
        """Queue max/average pooling forward (inference: no index workspace)."""
        with self.lock:
            self.device.make_current()
            miopen_c.pooling_forward(self.lib, self.handle, mode, dtype, x_ptr, x_shape, y_ptr, y_shape, kernel,
                                     stride, padding)


def state_for(device):
    """What ``device.miopen`` holds, made once per device (``RocmDevice.family_state``): the
    device's DeviceMIOpen, or the reason MIOpen is unusable there (a string)."""
    lib, _, reason = library()
    if lib is None:
        return reason
    try:
        return DeviceMIOpen(device, lib)
    except MIOpenError as exc:
        return f"{exc}{miopen_c.shim_note(lib)}"
