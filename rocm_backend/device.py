"""[device] The protocol's device: one HIP device (``rocm:N``) with its properties, its
stream, the caching allocator, the loaded kernels and the launcher, the library handles
and the per-device state of the op families. The protocol's creation, DLPack-import,
fusion, custom-kernel and collective methods, whose results are ``RocmStorage``, are each
one op family's call: ``families/device_calls.py`` (``FamilyCalls``, mixed in).

Every device owns one non-blocking stream, and users make more (``new_stream``,
``runtime/streams.py``): each host thread queues its work on its current stream
(``device.stream``), its device's own unless it entered ``with stream:``; only host reads
(``to_host``: the current stream; ``synchronize``: every stream) wait for it.

Per-device state: every library handle (hipBLAS, hipSOLVER, MIOpen, hipFFT's plans) and
every cache or scratch area an op family keeps (reductions' tickets, the weight checks'
flags, linalg's constants, peer access) is made on first use through one helper,
``family_state(name, make)``, under one lock; what work on one stream uses alone (the
library handles bound to a stream, hipFFT's plans, reductions' tickets) is per stream,
through ``stream_state(name, make)``, kept with the stream's record. The families' prepared
launches live in one bounded ``LaunchMemo`` (``launches``).

Several devices: each ``rocm:N`` has its own stream, allocator, loaded kernel modules and
library handles, and every call that acts on the current device (allocation, copies,
launches, handles) first makes its device current (``make_current``: one thread-local
check when it already is), so work on one device never lands on or waits for another.
"""

import threading

from candlewick import dtypes as _dt
from candlewick.errors import DeviceMismatchError, GraphCaptureError
from candlewick.named_device import NamedDevice

from . import miopen
from .bindings import hip, hipblas, hipsolver, roctx
from .codegen.sources import kernel_source, module_source
from .families import ew_launch, fft, reductions
from .families.device_calls import FamilyCalls
from .kernels import KernelRuntime
from .runtime import capture as _capture
from .runtime.allocator import CachingAllocator
from .runtime.events import RocmEvent, RocmStream
from .runtime.host_reads import HostReads
from .runtime.index_checks import IndexChecks
from .runtime.launcher import LaunchMemo, Launcher
from .runtime.pinned import PinnedPool
from .runtime.streams import DeviceStreams
from .storage import RocmStorage


def _blas_handle(device, record):
    device.make_current()
    return hipblas.create_handle(record.handle)


def _solver_handle(device, record):
    device.make_current()
    return hipsolver.create_handle(record.handle)


def _text(value):
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value).split("\0", 1)[0]


class RocmDevice(FamilyCalls, NamedDevice):
    """One HIP device (``rocm:N``); its calls into the op families are ``FamilyCalls``'."""

    backend = "rocm"
    #: the class the op families make their results with: the protocol's storage
    storage_type = RocmStorage
    dtypes = _dt.ALL_DTYPES
    # the optional groups (hipSOLVER, hipFFT: storage.py routes them; graphs: stream capture;
    # fusion: generated kernels, families/fusion.py; custom_kernels: users' kernels,
    # families/custom_kernels.py; inplace: families/inplace.py); class attributes so tools
    # (docs/array_api.md) can read them without a device
    capabilities = frozenset({"linalg", "fft", "graphs", "fusion", "custom_kernels", "inplace", "reduce_dtype"})
    #: the fft primitives take NumPy's ``norm`` and scale in the transform's own passes
    #: (families/fft.py): irfft's input copy multiplies, no pass of the front end's
    fft_norm = True
    #: fft and rfft take ``n`` and pad in the copy the transform reads (families/fft.py;
    #: candlewick.backend.FFTPadDevice): one launch where the front end's padding is two
    fft_pad = True

    def __init__(self, ordinal):
        self.ordinal = ordinal
        self.name = f"rocm:{ordinal}"
        hip.set_device(ordinal)
        props = hip.device_properties(ordinal)
        self.product_name = _text(props.name)
        self.arch = _text(props.gcnArchName) or f"sm_{props.major}{props.minor}"
        self.warp_size = int(props.warpSize)
        self.multiprocessors = int(props.multiProcessorCount)
        self.max_threads_per_block = int(props.maxThreadsPerBlock)
        self.shared_mem_per_block = int(props.sharedMemPerBlock)
        self.total_memory = int(props.totalGlobalMem)
        # contiguous element-wise grids: one block per 2048 elements, no device-filling
        # cap (a grid-stride loop over a capped grid measured 81-88% of copy bandwidth for
        # exp at 2^26-2^28 on an H200, uncapped 99%: bench/results/rocm_probe_*); the
        # bound keeps gridDim.x * blockDim.x below 2^32, AMD's limit on work-items
        self.ew_grid_cap = (1 << 32) // 256 - 1
        self.allocator = CachingAllocator(self)
        self.streams = DeviceStreams(self, self.allocator._free)  # the device's own stream and users'
        self._current = self.streams.current  # per thread: the stream its work goes to
        self._own_stream = RocmStream(self, self.streams.default)
        self.pinned = PinnedPool(self)  # page-locked host blocks: pinned_empty, non-blocking copies
        self.index_checks = IndexChecks(self)
        self.host_reads = HostReads(self)  # reads that wait only for the work before them
        self._keep_alive = []  # (stream record, host array) of queued host->device copies
        self._keep_alive_lock = threading.Lock()
        self.capture = None  # the graph capture running on the stream (runtime/capture.py), else None
        # bumped by every graph replay, which writes memory without bumping buffer versions:
        # what an op family learnt of memory contents before it is void (pad_fixup_cache.py)
        self.replay_epoch = 0
        # kernel handles, the launcher and its prepared launches (compiles nothing yet)
        self.kernels = KernelRuntime(self, module_source, kernel_source)
        self.launcher = Launcher(self.streams, ordinal)
        self.launches = LaunchMemo()
        # the contiguous element-wise launch, (kernel, n, fields[, scalar[, flags]]): the
        # host path of every small op (families/ew_launch.py)
        self.ew_contiguous = ew_launch.contiguous_launch(self)
        # the library handles and the op families' state, by name: family_state
        self._families = {}
        self._family_lock = threading.RLock()

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, {self.product_name!r}, arch={self.arch!r})"

    # --- identity -----------------------------------------------------------
    def same_device(self, other):
        return other is self or (
            getattr(other, "backend", None) == "rocm" and getattr(other, "ordinal", None) == self.ordinal
        )

    def make_current(self):
        """Make this device the calling thread's current HIP device (a no-op when it is)."""
        hip.use_device(self.ordinal)

    # --- synchronization and memory ----------------------------------------
    def host_mapped(self, nbytes):
        """(host address, device address) of ``nbytes`` of pinned host memory that kernels
        on this device can write and the host reads with plain loads; never freed (the
        device keeps such buffers for its lifetime)."""
        self.make_current()
        return hip.host_malloc_mapped(nbytes)

    def keep_alive(self, host_array):
        """Hold a host array until the copy queued from it (on the current stream) has surely run."""
        self._keep_alive.append((self._current.stream, host_array))
        if len(self._keep_alive) > 64:
            self.synchronize(check_errors=False)

    @property
    def stream(self):
        """The calling thread's current stream (hip-python's handle), marked used: work
        is queued on what this returns (runtime/streams.py)."""
        record = self._current.stream
        record.last_use = self.allocator.clock
        return record.handle

    def synchronize(self, check_errors=True):
        """Drain every stream of the device; then raise IndexError for the calling thread's
        index checks queued before this call (snapshots first: work other threads queue
        meanwhile stays pending)."""
        self._drain(None, check_errors)

    def synchronize_stream(self, record, check_errors=True, read=None):
        """Drain one stream (a record of ``self.streams``; a host read drains the current
        one); then raise IndexError for the calling thread's index checks queued on it.
        ``read``: (host address, device address, bytes) of a host read to queue on the
        stream first (after the checks' flags: the one wait serves both)."""
        self._drain(record, check_errors, read)

    def _drain(self, record, check_errors, read=None):
        if self.capture is not None:
            self.capture.refuse("a synchronization of the device")
        self.settle_collectives()
        self.make_current()
        with self._keep_alive_lock:
            if record is None:
                kept, self._keep_alive = self._keep_alive, []
            else:
                kept = [item for item in self._keep_alive if item[0] is record]
                if kept:
                    self._keep_alive = [item for item in self._keep_alive if item[0] is not record]
        taken = self.index_checks.snapshot(record) if check_errors else ()
        flags = self.index_checks.queue_flags(taken)
        finish = self.host_reads.copy_staged(*read, record.handle) if read is not None else None
        if record is None:
            self.streams.synchronize_all()
        else:
            record.sync()
        del kept
        if finish is not None:
            finish()
        self.index_checks.raise_flagged(taken, flags)

    def settle_collectives(self):
        """Before anything waits for the stream: read the signature rounds that checked
        collectives queued without waiting (``runtime/signature_rounds.py``); raises, the
        group aborted, where the ranks' calls differed (their collective never finishes)."""
        rounds = self._families.get("signature_rounds")
        if rounds is not None:
            rounds.settle()

    def memory_info(self):
        """(free, total) bytes: free counts the blocks our caching allocator holds, which
        it releases and retries with before it reports out-of-memory."""
        self.make_current()
        free, total = hip.mem_get_info()
        return free + self.allocator.cached_bytes, total

    # --- memory control (optional hook candlewick.backend.MemoryStatsDevice) -------------
    def memory_stats(self):
        stats = self.allocator.stats()
        stats["pinned_bytes"] = self.pinned.bytes
        stats["free_bytes"], stats["total_bytes"] = self.memory_info()
        return stats

    def reset_peak_memory_stats(self):
        self.allocator.reset_peak()

    def empty_cache(self):
        self.allocator.release_cache()
        self.pinned.release_cache()

    def set_memory_limit(self, nbytes):
        self.allocator.set_limit(nbytes)

    # --- streams and events (optional hook candlewick.backend.StreamDevice) --------------
    def new_stream(self):
        return RocmStream(self, self.streams.new())

    def current_stream(self):
        current = self._current
        return self._own_stream if current.owner is None else current.owner

    def set_current_stream(self, stream):
        if stream.device is not self:
            raise DeviceMismatchError(f"set_current_stream: {stream!r} belongs to {stream.device.name}, "
                                      f"not {self.name}")
        if self.capture is not None and stream.record is not self._current.stream:
            self.capture.refuse("switching streams (a capture records one stream)")
        self.streams.use(stream.record, None if stream is self._own_stream else stream)

    def new_event(self, timing):
        return RocmEvent(self, timing)

    # --- graph capture (optional group "graphs": runtime/capture.py) ---------
    def begin_capture(self):
        """Record, not run, the work queued on the current stream from now on."""
        # per-stream state that is made (and zeroed) lazily must exist before: its
        # zeroing would be recorded into the graph instead of running now
        reductions.scratch(self)
        _capture.begin(self)

    def end_capture(self):
        """Stop recording: the ``CapturedGraph`` (``replay()``, ``close()``)."""
        if self.capture is None:
            raise GraphCaptureError(f"end_capture on {self.name}: no capture is running")
        return _capture.end(self)

    def abort_capture(self):
        """Stop recording and drop what was recorded (the capture raised)."""
        if self.capture is not None:
            _capture.abort(self)

    # --- device-side error flags for index checks (index_checks.py) -----------
    def error_flag(self, op_name):
        """Device address of an int32 slot that an index kernel sets on an out-of-range
        index; the next synchronizing call reads it and raises IndexError naming op_name."""
        return self.index_checks.flag_address(op_name)

    def raise_index_errors(self):
        """Drain the stream and raise for flagged index checks (same as synchronize())."""
        self.synchronize()

    # --- per-device state: library handles, caches, scratch ---------------------
    def family_state(self, name, make=None):
        """The per-device state ``name`` (any hashable) of a library or an op family: a
        handle, a cache, scratch memory. ``make(device)`` creates it on first use, once,
        under the device's one family lock (re-entrant: a ``make`` may ask for other
        state); after that one dict lookup. Without ``make``: the state if it was made,
        else None (a report must not create it)."""
        state = self._families.get(name)
        if state is None and make is not None:
            with self._family_lock:
                state = self._families.get(name)
                if state is None:
                    state = self._families[name] = make(self)
        return state

    def stream_state(self, name, make):
        """The state ``name`` of a library or an op family that work on one stream uses
        alone (a handle bound to the stream, a scratch area its kernels share): kept with
        the calling thread's current stream record, ``make(device, record)`` on its first
        use there (under the family lock); the stream is marked used (what the caller
        queues with it goes there)."""
        record = self._current.stream
        record.last_use = self.allocator.clock
        state = record.state.get(name)
        if state is None:
            with self._family_lock:
                state = record.state.get(name)
                if state is None:
                    state = record.state[name] = make(self, record)
        return state

    @property
    def blas(self):
        """The hipBLAS handle of the current stream (one per stream, made on its first use
        there, so threads on different streams never share one); the device is made
        current, as every call on the handle needs."""
        self.make_current()
        return self.stream_state("hipblas", _blas_handle)

    @property
    def solver(self):
        """The hipSOLVER handle of the current stream (one per stream, made on its first
        use there); the device is made current, as every call on the handle needs."""
        self.make_current()
        return self.stream_state("hipsolver", _solver_handle)

    @property
    def miopen(self):
        """MIOpen on this device: its ``miopen.DeviceMIOpen`` (handle, plans, workspace),
        or the reason MIOpen is unusable here (a string); made on first use."""
        return self.family_state("miopen", miopen.state_for)

    @property
    def fft_plans(self):
        """The current stream's hipFFT plans (``families/fft.py``'s bounded ``PlanCache``: a
        plan runs on the stream it was made with and holds a work area its transforms share)."""
        return self.stream_state("hipfft", fft.plan_cache_for)

    # --- profiler ranges (optional hook candlewick.backend.ProfilerRangeDevice): roctx ------
    def range_push(self, name):
        roctx.push(name)

    def range_pop(self):
        roctx.pop()
