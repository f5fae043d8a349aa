"""A stand-in for hip-python (``hip.hip``, ``hip.hiprtc``, ``hip.hipblas``) on a machine
without ROCm: every call succeeds at once and does nothing on a device.

It lets the ROCm backend's Python path run end to end on a CPU (device objects,
allocator, argument packing, kernel lookup, launches), so that tests can check what
that path does (no synchronization on the async path, allocator reuse) and its host
overhead can be profiled without a GPU. It proves
nothing about results: "device memory" is never read or written.

``install()`` puts the fake modules into ``sys.modules`` (before ``rocm_backend`` is
imported or used) and returns the ``FakeRuntime`` whose ``calls`` counts every call.
"""

import collections
import sys
import types


class Status(int):
    """An int with a ``.name``, like hip-python's status enums."""

    def __new__(cls, value, name):
        obj = int.__new__(cls, value)
        obj.name = name
        return obj


OK = Status(0, "hipSuccess")


class _Props:
    name = b"Fake GPU"
    gcnArchName = b"gfx90a"
    major, minor = 9, 0
    warpSize = 64
    multiProcessorCount = 104
    maxThreadsPerBlock = 1024
    sharedMemPerBlock = 65536
    totalGlobalMem = 64 << 30


class _Handle:
    """An opaque runtime handle (stream, module, function)."""

    def __init__(self, kind, name=""):
        self.kind, self.name = kind, name

    def createRef(self):
        return self


class FakeRuntime:
    """The three fake modules and a counter of the calls made to them."""

    def __init__(self):
        self.calls = collections.Counter()
        self.launches = []  # (kernel name, grid x, block x) of every launch
        self.next_ptr = 0x10000
        self.host_blocks = []  # pinned-host stand-ins, kept alive
        self.capturing = None  # the launches recorded by the stream capture running, else None
        self.graphs_alive = 0  # graphs and executable graphs not destroyed yet
        self.hip = self._module("hip", self._hip_functions())
        self.hiprtc = self._module("hiprtc", self._hiprtc_functions())
        self.hipblas = self._module("hipblas", self._hipblas_functions())
        self.hip.hipStreamNonBlocking = 1
        self.hip.hipEventDefault = 0
        self.hip.hipEventDisableTiming = 2
        self.hip.hipStreamCaptureMode = lambda mode: int(mode)

    def _module(self, name, functions):
        mod = types.ModuleType(f"hip.{name}")
        for fname, fn in functions.items():
            setattr(mod, fname, self._counted(fname, fn))
        return mod

    def _counted(self, name, fn):
        calls = self.calls

        def call(*args):
            calls[name] += 1
            return fn(*args)

        call.__name__ = name
        return call

    def _host_malloc(self, size, flags=0):
        """Real host memory (the backend reads and writes pinned host memory itself)."""
        import ctypes

        block = ctypes.create_string_buffer(size)
        self.host_blocks.append(block)
        return (OK, ctypes.addressof(block))

    def _malloc(self, size):
        ptr = self.next_ptr
        self.next_ptr += (size + 4095) // 4096 * 4096
        return (OK, ptr)

    def _hip_functions(self):
        ok = lambda *a: (OK,)  # noqa: E731
        return {
            "hipGetDeviceCount": lambda: (OK, 1),
            "hipSetDevice": ok,
            "hipGetDeviceProperties": lambda o: (OK, _Props()),
            "hipStreamCreateWithFlags": lambda f: (OK, _Handle("stream")),
            "hipMalloc": self._malloc,
            "hipFree": ok,
            "hipMemcpyHtoDAsync": ok,
            "hipMemcpyDtoHAsync": ok,
            "hipMemcpyDtoDAsync": ok,
            "hipMemsetAsync": ok,
            "hipStreamSynchronize": ok,
            "hipMemGetInfo": lambda: (OK, 60 << 30, 64 << 30),
            "hipModuleLoadData": lambda code: (OK, _Handle("module")),
            "hipModuleGetFunction": lambda m, name: (OK, _Handle("function", name)),
            "hipModuleLaunchKernel": self._launch,
            "hipHostMalloc": self._host_malloc,
            "hipHostGetDevicePointer": lambda host, flags: (OK, host),
            "hipEventCreateWithFlags": lambda flags: (OK, _Handle("event")),
            "hipEventRecord": ok,
            "hipEventSynchronize": ok,
            "hipEventQuery": ok,
            "hipEventDestroy": ok,
            "hipEventElapsedTime": lambda start, end: (OK, 0.0),
            "hipStreamWaitEvent": ok,
            "hipStreamQuery": ok,
            "hipHostFree": ok,
            "hipStreamBeginCapture": self._begin_capture,
            "hipStreamEndCapture": self._end_capture,
            "hipStreamIsCapturing": lambda stream: (OK, int(self.capturing is not None)),
            "hipGraphInstantiateWithFlags": self._instantiate,
            "hipGraphLaunch": self._graph_launch,
            "hipGraphExecDestroy": self._destroy,
            "hipGraphDestroy": self._destroy,
        }

    def _launch(self, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        (self.launches if self.capturing is None else self.capturing).append((fn.name, gx, bx))
        return (OK,)

    # graphs: a capture records the launches; a replay appends them to ``launches``
    def _begin_capture(self, stream, mode):
        if self.capturing is not None:
            return (Status(1, "hipErrorInvalidValue"),)
        self.capturing = []
        return (OK,)

    def _end_capture(self, stream):
        if self.capturing is None:
            return (Status(1, "hipErrorInvalidValue"), None)
        graph, self.capturing = _Handle("graph", list(self.capturing)), None
        self.graphs_alive += 1
        return (OK, graph)

    def _instantiate(self, graph, flags):
        self.graphs_alive += 1
        return (OK, _Handle("graph_exec", graph.name))

    def _graph_launch(self, graph_exec, stream):
        if self.capturing is not None:
            return (Status(1, "hipErrorInvalidValue"),)
        self.launches.extend(graph_exec.name)
        return (OK,)

    def _destroy(self, handle):
        self.graphs_alive -= 1
        return (OK,)

    def _hiprtc_functions(self):
        ok = lambda *a: (OK,)  # noqa: E731
        return {
            "hiprtcVersion": lambda: (OK, 5, 2),
            "hiprtcCreateProgram": lambda *a: (OK, _Handle("program")),
            "hiprtcCompileProgram": ok,
            "hiprtcGetCodeSize": lambda p: (OK, 4),
            "hiprtcGetCode": ok,
            "hiprtcDestroyProgram": ok,
            "hiprtcGetProgramLogSize": lambda p: (OK, 1),
            "hiprtcGetProgramLog": ok,
        }

    def _hipblas_functions(self):
        ok = lambda *a: (OK,)  # noqa: E731
        return {"hipblasCreate": lambda: (OK, _Handle("blas")), "hipblasSetStream": ok}

    @property
    def synchronizing_calls(self):
        """How many calls so far waited for the device (or read it back)."""
        return sum(self.calls[n] for n in ("hipStreamSynchronize", "hipMemcpyDtoHAsync", "hipDeviceSynchronize"))


def install(monkeypatch=None, runtime=None):
    """Put a fresh fake hip-python into sys.modules; return its FakeRuntime.

    ``runtime``: a FakeRuntime (subclass) to install instead of a fresh one.
    The backend's cached hip-python handle (``rocm_backend.bindings.hip._api``) is reset so
    that the next call binds the fake. With a pytest ``monkeypatch`` everything is put
    back after the test (so a real GPU run in the same session is unaffected); without
    one (scripts) the fake stays. Devices made with the fake must not be mixed with real
    ones: make them with ``rocm_backend.RocmBackend().device(0)``, not the registry.
    """
    rt = FakeRuntime() if runtime is None else runtime
    pkg = types.ModuleType("hip")
    pkg.hip, pkg.hiprtc, pkg.hipblas = rt.hip, rt.hiprtc, rt.hipblas
    pkg.__path__ = []
    import rocm_backend.bindings.hip as hip_binding
    import rocm_backend.bindings.hipblas as hipblas_binding
    import rocm_backend.bindings.rccl as rccl_binding

    entries = {"hip": pkg, "hip.hip": rt.hip, "hip.hiprtc": rt.hiprtc, "hip.hipblas": rt.hipblas}
    extra = getattr(rt, "rccl", None)  # a runtime that fakes RCCL too (fake_devices.py)
    if extra is not None:
        pkg.rccl = extra
        entries["hip.rccl"] = extra
    if monkeypatch is None:
        hip_binding.current.ordinal = None  # the fake's devices start with none current
        sys.modules.update(entries)
        hip_binding._api = None
        rccl_binding._api = None
        hipblas_binding._state = {}
    else:
        from rocm_backend import kernels

        for name, mod in entries.items():
            monkeypatch.setitem(sys.modules, name, mod)
        monkeypatch.setattr(hip_binding, "_api", None)
        monkeypatch.setattr(rccl_binding, "_api", None)
        # hipBLAS's binding keeps the enums and per-dtype constants of the modules its first
        # GEMM saw: one test's stand-in enums ("HIPBLAS_OP_N" in pydata_fake, "N" in
        # test_complex_matmul's mirror) must not reach the next test's GEMM
        monkeypatch.setattr(hipblas_binding, "_state", {})
        # the fake's devices start with none current; afterwards the real runtime's is back
        monkeypatch.setattr(hip_binding.current, "ordinal", None, raising=False)
        # compiled "code" of the fake must not stay in the process-wide caches
        monkeypatch.setattr(kernels, "_code_memory", {})
        monkeypatch.setattr(kernels, "_version_cached", None)
    return rt
