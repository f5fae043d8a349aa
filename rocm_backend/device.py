"""The ROCm device: discovery, properties, the stream, the caching allocator, handles.

hip-python is imported lazily (``hip_api()``): importing this module never fails when
ROCm or hip-python is missing; ``probe()`` reports why instead, in the runtime's words.
Every device owns one non-blocking stream; all work is queued there and only host reads
(``to_host``, ``synchronize``, ``memory_info``) wait for it.
"""

import threading

from candlewick import dtypes as _dt
from candlewick.errors import DeviceMemoryError
from candlewick.named_device import NamedDevice

from .error import RocmOutOfMemory, check, status_name
from .index_checks import IndexChecks

_api = None
# hipHostMallocMapped | hipHostMallocCoherent: device writes reach host memory directly (the
# CUDA path through the shim ignores the coherence bit: its pinned memory always is)
_HOST_MALLOC_MAPPED = 0x2 | 0x40000000


class _HipApi:
    """The hip-python modules, imported on first use."""

    def __init__(self):
        from hip import hip, hipblas, hiprtc

        self.hip, self.hiprtc, self.hipblas = hip, hiprtc, hipblas


def hip_api():
    global _api
    if _api is None:
        _api = _HipApi()
    return _api


_INSTALL_ROCM = "install the ROCm runtime (ROCm 6 or newer) or set ROCM_PATH to the folder holding lib/"
_NO_DEVICE = ("no usable AMD GPU: check the amdgpu driver, access to /dev/kfd and /dev/dri "
              "(the render and video groups) and HIP_VISIBLE_DEVICES")


def probe():
    """(available, reason): reason is '' when a HIP device is usable, else the runtime's words."""
    try:
        from hip import hip
    except ImportError as exc:
        return False, f"hip-python is not installed ({exc}): pip install 'candlewick[rocm]'"
    except Exception as exc:  # a broken install must not break candlewick
        return False, (f"hip-python failed to import: {type(exc).__name__}: {exc}; "
                       f"pip install --force-reinstall 'candlewick[rocm]'")
    try:
        result = hip.hipGetDeviceCount()
    except RuntimeError as exc:  # hip-python's dlopen of the runtime failed
        return False, f"libamdhip64.so not loadable: {exc}; {_INSTALL_ROCM}"
    except Exception as exc:
        return False, f"hipGetDeviceCount raised {type(exc).__name__}: {exc}; {_INSTALL_ROCM}"
    status, count = result
    if int(status) != 0:
        return False, f"hipGetDeviceCount failed: {status_name(status)}; {_NO_DEVICE}"
    if count < 1:
        return False, f"hipGetDeviceCount reported 0 devices; {_NO_DEVICE}"
    return True, ""


def device_count():
    ok, _ = probe()
    if not ok:
        return 0
    return check("hipGetDeviceCount", hip_api().hip.hipGetDeviceCount())


def _round_size(nbytes):
    """Pool buckets: 512-byte steps below 1 MiB, 1 MiB steps above (few distinct sizes)."""
    step = 512 if nbytes < (1 << 20) else (1 << 20)
    return (nbytes + step - 1) // step * step


class CachingAllocator:
    """Reuses freed device blocks of the same rounded size.

    All work of a device runs on its one stream, so a block freed by the host while
    kernels that read it are still queued can be handed out again at once: the next
    user's work is queued behind them. On out-of-memory the cache is released and the
    allocation retried once before DeviceMemoryError.
    """

    def __init__(self, device):
        self._device = device
        self._free = {}  # rounded size -> [pointer ints]
        self._lock = threading.Lock()
        self.cached_bytes = 0
        self.in_use_bytes = 0

    def allocate(self, nbytes):
        """(pointer int, rounded size). Size 0 gives the null pointer. A cache hit is
        one dict lookup and a list pop under the lock (no device call, no sync)."""
        if nbytes <= 0:
            return 0, 0
        size = (nbytes + 511) & ~511 if nbytes < (1 << 20) else (nbytes + 0xFFFFF) & ~0xFFFFF  # _round_size
        # acquire/release rather than `with`: half the cost, on every small op's path
        self._lock.acquire()
        try:
            bucket = self._free.get(size)
            if bucket:
                self.cached_bytes -= size
                self.in_use_bytes += size
                return bucket.pop(), size
        finally:
            self._lock.release()
        ptr = self._malloc(size)
        with self._lock:
            self.in_use_bytes += size
        return ptr, size

    def _malloc(self, size):
        hip = hip_api().hip
        self._device.make_current()
        try:
            return int(check("hipMalloc", hip.hipMalloc(size)))
        except RocmOutOfMemory:
            self.release_cache()
            try:
                return int(check("hipMalloc", hip.hipMalloc(size)))
            except RocmOutOfMemory as exc:
                free = None
                try:
                    free = self._device.memory_info()[0]
                except Exception:
                    pass
                raise DeviceMemoryError(self._device.name, size, free, str(exc)) from None

    def release(self, ptr, size):
        """Return a block to the pool (called by a storage slice's finalizer)."""
        if not size:
            return
        self._lock.acquire()  # as in allocate
        try:
            bucket = self._free.get(size)
            if bucket is None:
                self._free[size] = [ptr]
            else:
                bucket.append(ptr)
            self.cached_bytes += size
            self.in_use_bytes -= size
        finally:
            self._lock.release()

    def release_cache(self):
        """hipFree every cached block (after the stream drains: queued work may use them)."""
        with self._lock:
            blocks = [(p, s) for s, ptrs in self._free.items() for p in ptrs]
            self._free.clear()
            self.cached_bytes = 0
        if not blocks:
            return
        hip = hip_api().hip
        self._device.synchronize(check_errors=False)
        for ptr, _ in blocks:
            check("hipFree", hip.hipFree(ptr))


class RocmDevice(NamedDevice):
    """One HIP device (``rocm:N``)."""

    backend = "rocm"
    dtypes = _dt.ALL_DTYPES
    # the optional groups (hipSOLVER, hipFFT: storage.py routes them); class attributes so
    # tools (docs/array_api.md) can read them without a device
    capabilities = frozenset({"linalg", "fft"})

    def __init__(self, ordinal):
        api = hip_api()
        hip = api.hip
        self.ordinal = ordinal
        self.name = f"rocm:{ordinal}"
        check("hipSetDevice", hip.hipSetDevice(ordinal))
        props = check("hipGetDeviceProperties", hip.hipGetDeviceProperties(ordinal))
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
        self.stream = check(
            "hipStreamCreateWithFlags", hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking)
        )
        self.allocator = CachingAllocator(self)
        self._blas = None
        self._index_checks = IndexChecks(self)
        self._keep_alive = []  # host arrays of queued host->device copies
        self._state_lock = threading.Lock()  # lazily created handles, keep-alive list
        self._stream_sync = None  # made on first use (_make_stream_sync)
        _current.ordinal = ordinal
        from .kernels import runtime

        runtime(self)  # kernel handles and the launcher (compiles nothing yet)

    def __repr__(self):
        return f"RocmDevice({self.name!r}, {self.product_name!r}, arch={self.arch!r})"

    # --- identity -----------------------------------------------------------
    def same_device(self, other):
        return other is self or (
            getattr(other, "backend", None) == "rocm" and getattr(other, "ordinal", None) == self.ordinal
        )

    def make_current(self):
        if getattr(_current, "ordinal", None) != self.ordinal:
            check("hipSetDevice", hip_api().hip.hipSetDevice(self.ordinal))
            _current.ordinal = self.ordinal

    # --- synchronization and memory ----------------------------------------
    def host_mapped(self, nbytes):
        """(host address, device address) of ``nbytes`` of pinned host memory that kernels
        on this device can write and the host reads with plain loads; never freed (the
        device keeps such buffers for its lifetime)."""
        hip = hip_api().hip
        self.make_current()
        host = int(check("hipHostMalloc", hip.hipHostMalloc(nbytes, _HOST_MALLOC_MAPPED)))
        return host, int(check("hipHostGetDevicePointer", hip.hipHostGetDevicePointer(host, 0)))

    def keep_alive(self, host_array):
        """Hold a host array until the copy queued from it has surely run."""
        self._keep_alive.append(host_array)
        if len(self._keep_alive) > 64:
            self.synchronize(check_errors=False)

    def synchronize(self, check_errors=True):
        """Drain the stream; then raise IndexError for index checks queued before this call
        (snapshots first: work other threads queue meanwhile stays pending)."""
        self.make_current()
        with self._state_lock:
            kept, self._keep_alive = self._keep_alive, []
        taken = self._index_checks.snapshot() if check_errors else ()
        sync = self._stream_sync or self._make_stream_sync()
        sync()
        del kept
        self._index_checks.raise_flagged(taken)

    def _make_stream_sync(self):
        """hipStreamSynchronize of this stream as a call: through ctypes on the runtime
        hip-python loaded when it can (hip-python's own call costs several microseconds
        more per synchronize), else through hip-python."""
        import ctypes

        from .launch import _has_int, _status_name, loaded_function, loaded_runtime_path

        raw = loaded_function(loaded_runtime_path(), "hipStreamSynchronize")
        if raw is not None and _has_int(self.stream):
            stream = ctypes.c_void_p(int(self.stream))

            def sync():
                status = raw(stream)
                if status:  # hip-python's enum, so the error names the status as check() does
                    check("hipStreamSynchronize", _status_name(status))
        else:
            def sync():
                check("hipStreamSynchronize", hip_api().hip.hipStreamSynchronize(self.stream))
        self._stream_sync = sync
        return sync

    def memory_info(self):
        self.make_current()
        free, total = check("hipMemGetInfo", hip_api().hip.hipMemGetInfo())
        return int(free), int(total)

    # --- device-side error flags for index checks (index_checks.py) -----------
    def error_flag(self, op_name):
        """Device address of an int32 slot that an index kernel sets on an out-of-range
        index; the next synchronizing call reads it and raises IndexError naming op_name."""
        return self._index_checks.flag_address(op_name)

    def raise_index_errors(self):
        """Drain the stream and raise for flagged index checks (same as synchronize())."""
        self.synchronize()

    # --- DLPack import (optional hook candlewick.backend.DLPackDevice) ------------
    def storage_from_dlpack(self, obj, copy):
        from .dlpack import storage_from_dlpack

        return storage_from_dlpack(self, obj, copy)

    # --- handles ------------------------------------------------------------
    @property
    def blas(self):
        """The hipBLAS handle, bound to this device's stream (created on first GEMM)."""
        if self._blas is None:
            hipblas = hip_api().hipblas
            with self._state_lock:
                if self._blas is None:
                    self.make_current()
                    handle = check("hipblasCreate", hipblas.hipblasCreate())
                    check("hipblasSetStream", hipblas.hipblasSetStream(handle, self.stream))
                    self._blas = handle
        return self._blas

    # --- creation (the storage module holds the kernels' callers) -------------
    def storage_from_host(self, array):
        from . import creation

        return creation.from_host(self, array)

    def empty(self, shape, dtype):
        from . import creation

        return creation.empty(self, shape, dtype)

    def zeros(self, shape, dtype):
        from . import creation

        return creation.full(self, shape, dtype, 0)

    def ones(self, shape, dtype):
        from . import creation

        return creation.full(self, shape, dtype, 1)

    def full(self, shape, dtype, value):
        from . import creation

        return creation.full(self, shape, dtype, value)

    def arange(self, start, step, size, dtype):
        from . import creation

        return creation.arange(self, start, step, size, dtype)

    def rand_uniform(self, shape, dtype, seed, counter, low, high):
        from . import creation

        return creation.rand(self, "uniform", shape, dtype, seed, counter, low, high)

    def rand_normal(self, shape, dtype, seed, counter, mean, std):
        from . import creation

        return creation.rand(self, "normal", shape, dtype, seed, counter, mean, std)


_current = threading.local()


def _text(value):
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).split(b"\0", 1)[0].decode(errors="replace")
    return str(value).split("\0", 1)[0]



class RocmBackend:
    """The object behind the entry point ``rocm_backend:BACKEND``."""

    name = "rocm"

    def __init__(self):
        self._devices = {}
        self._lock = threading.Lock()

    def probe(self):
        return probe()

    def device_count(self):
        return device_count()

    def device(self, ordinal):
        with self._lock:
            dev = self._devices.get(ordinal)
            if dev is None:
                dev = self._devices[ordinal] = RocmDevice(ordinal)
            return dev

    def details(self):
        from .kernels import cache_dir

        try:
            from .nn import describe

            nn_path = describe(list(self._devices.values()))
        except Exception as exc:  # details() must never break candlewick.backends()
            nn_path = f"unknown ({type(exc).__name__}: {exc})"
        out = {"nn": nn_path, "kernel cache": str(cache_dir())}
        try:
            import importlib.metadata as md

            out["hip-python"] = md.version("hip-python")
        except Exception:
            pass
        return out
