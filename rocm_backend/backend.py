"""[device] The object behind the entry point ``rocm_backend:BACKEND``: availability, devices,
details, and compiling every kernel ahead of use."""

import importlib.metadata
import threading

from candlewick.errors import BackendUnavailableError

from . import kernels, ops
from .bindings import hip
from .codegen.sources import module_source
from .device import RocmDevice
from .families import nn_paths


class RocmBackend:
    name = "rocm"

    def __init__(self):
        self._devices = {}
        self._lock = threading.Lock()

    def probe(self):
        return hip.probe()

    def device_count(self):
        return hip.device_count()

    def device(self, ordinal):
        with self._lock:
            dev = self._devices.get(ordinal)
            if dev is None:
                dev = self._devices[ordinal] = RocmDevice(ordinal)
            return dev

    def details(self):
        try:
            nn_path = nn_paths.describe(list(self._devices.values()))
        except Exception as exc:  # details() must never break candlewick.backends()
            nn_path = f"unknown ({type(exc).__name__}: {exc})"
        out = {"nn": nn_path, "kernel cache": str(kernels.cache_dir())}
        try:
            out["hip-python"] = importlib.metadata.version("hip-python")
        except Exception:
            pass
        return out


BACKEND = RocmBackend()
probe = hip.probe


def all_kernel_sources():
    """(module name, source, options) for every module the op table can generate.

    Each module's source defines the ``extern "C"`` kernels ``ops.MODULES[name]`` lists;
    options exclude ``--offload-arch``, which the compiler adds for its target.
    """
    for module in sorted(ops.MODULES):
        yield module, module_source(module), list(kernels.COMPILE_OPTIONS)


def precompile(device=None, modules=None, progress=True, threads=None):
    """Compile (or load from the disk cache) every module (or ``modules``) for the
    device's architecture (default: ``rocm:0``), on ``threads`` threads (default: one
    per CPU), with a tqdm progress bar; the cache statistics. With no usable device,
    BackendUnavailableError says why, as ``asarray(..., device="rocm")`` does."""
    if device is None:
        ok, reason = BACKEND.probe()
        if not ok:  # what asarray(..., device="rocm") raises
            raise BackendUnavailableError.of("rocm", reason)
        device = BACKEND.device(0)
    names = sorted(modules or ops.MODULES)
    return kernels.compile_all([(name, module_source(name)) for name in names], device.arch, progress, threads)
