"""HIP kernel sources, hipRTC compilation, the code-object cache, and kernel launch.

Kernel bodies live in ``hip/*.hip`` (package data). A *module* is the shared prelude
(every ``hip`` file) plus the generated ``extern "C"`` entry points that ``ops.py`` lists
for it; it is compiled with hipRTC for the device's architecture the first time one of
its kernels is launched. Code objects are cached in memory and on disk (platformdirs'
user cache dir, mode 0700): key = SHA-256 of source, options, architecture and hipRTC
version; each file carries its key and a SHA-256 of the code, checked on load; writes
are atomic (tempfile + os.replace); an entry that is corrupt or not ours is recompiled.
"""

import hashlib
import os
import tempfile
import threading
import time
from pathlib import Path

from candlewick.errors import BackendUnavailableError

from . import ops
from .argpack import ABIS
from .error import RocmError, check

HIP_DIR = Path(__file__).with_name("hip")
# prelude order: types, complex math, functors, then the kernel bodies
PRELUDE_FILES = ("common.h", "complex.h", "complex_inv.h", "math_ops.h", "elementwise.hip", "reduce.hip",
                 "scan.hip", "index.hip", "sort.hip", "random.hip", "matmul.hip", "nn.hip",
                 "transpose.hip")
COMPILE_OPTIONS = ()  # besides --offload-arch; hipRTC optimizes by default
_CACHE_MAGIC = b"CWKCO1\n"

_prelude = None
_lock = threading.RLock()
_code_memory = {}  # cache key -> code object bytes
stats = {"compiled": 0, "disk_hits": 0, "memory_hits": 0, "compile_seconds": 0.0}


def prelude():
    global _prelude
    if _prelude is None:
        parts = []
        for name in PRELUDE_FILES:
            parts.append(f"// ---- {name}\n")
            parts.append((HIP_DIR / name).read_text())
        _prelude = "".join(parts)
    return _prelude


def module_source(module):
    return prelude() + "\n// ---- generated entry points (rocm_backend/ops.py)\n" + ops.module_entry_points(module)


def all_kernel_sources():
    """(module name, source, options) for every module the op table can generate.

    Each module's source defines the ``extern "C"`` kernels ``ops.MODULES[name]`` lists;
    options exclude ``--offload-arch``, which the compiler adds for its target.
    """
    for module in sorted(ops.MODULES):
        yield module, module_source(module), list(COMPILE_OPTIONS)


def cache_dir():
    """The on-disk code-object cache (created 0700). CANDLEWICK_KERNEL_CACHE overrides."""
    override = os.environ.get("CANDLEWICK_KERNEL_CACHE")
    if override:
        path = Path(override)
    else:
        import platformdirs

        path = Path(platformdirs.user_cache_dir("candlewick")) / "rocm-kernels"
    return path


def _ensure_cache_dir():
    path = cache_dir()
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def cache_key(source, options, arch, compiler_version):
    h = hashlib.sha256()
    for part in (source, "\0".join(options), arch, compiler_version):
        h.update(part.encode())
        h.update(b"\0\1")
    return h.hexdigest()


def read_cache_entry(path, key):
    """The code stored under ``key`` at ``path``, or None if missing, corrupt or foreign."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    head = len(_CACHE_MAGIC)
    if len(data) < head + 64 or not data.startswith(_CACHE_MAGIC):
        return None
    stored_key, digest, code = data[head:head + 32], data[head + 32:head + 64], data[head + 64:]
    if stored_key != bytes.fromhex(key) or hashlib.sha256(code).digest() != digest or not code:
        return None
    return code


def write_cache_entry(directory, key, code):
    """Atomically store ``code`` under ``key`` (a reader never sees a partial file)."""
    blob = _CACHE_MAGIC + bytes.fromhex(key) + hashlib.sha256(code).digest() + code
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".co")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmp, directory / f"{key}.co")
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def compiler_version():
    from .device import hip_api

    major, minor = check("hiprtcVersion", hip_api().hiprtc.hiprtcVersion())
    return f"hiprtc-{major}.{minor}"


def compile_source(name, source, options, arch):
    """hipRTC-compile ``source`` for ``arch``; the code object bytes."""
    from .device import hip_api

    hiprtc = hip_api().hiprtc
    prog = check("hiprtcCreateProgram", hiprtc.hiprtcCreateProgram(source.encode(), f"{name}.hip".encode(), 0, [], []))
    try:
        opts = [f"--offload-arch={arch}".encode()] + [o.encode() for o in options]
        (status,) = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)
        if int(status) != 0:
            log = ""
            try:
                size = check("hiprtcGetProgramLogSize", hiprtc.hiprtcGetProgramLogSize(prog))
                buf = bytearray(max(int(size), 1))
                check("hiprtcGetProgramLog", hiprtc.hiprtcGetProgramLog(prog, buf))
                log = bytes(buf).rstrip(b"\0").decode(errors="replace")
            except RocmError:
                pass
            raise RocmError(f"hiprtcCompileProgram({name}, {arch})", status, log[-20000:])
        size = check("hiprtcGetCodeSize", hiprtc.hiprtcGetCodeSize(prog))
        code = bytearray(int(size))
        check("hiprtcGetCode", hiprtc.hiprtcGetCode(prog, code))
        return bytes(code)
    finally:
        hiprtc.hiprtcDestroyProgram(prog.createRef())  # takes hiprtcProgram*


def code_object(module, arch):
    """The compiled module for ``arch``: memory cache, then disk cache, then hipRTC.
    The compiler runs outside the lock (hip-python releases the GIL there), so
    ``precompile`` can build modules on several threads."""
    source = module_source(module)
    options = list(COMPILE_OPTIONS)
    key = cache_key(source, options, arch, _version())
    with _lock:
        code = _code_memory.get(key)
        if code is not None:
            stats["memory_hits"] += 1
            return code
    directory = None
    try:
        directory = _ensure_cache_dir()
        code = read_cache_entry(directory / f"{key}.co", key)
    except OSError:
        code = None
    if code is not None:
        with _lock:
            stats["disk_hits"] += 1
    else:
        t0 = time.perf_counter()
        code = compile_source(module, source, options, arch)
        with _lock:
            stats["compile_seconds"] += time.perf_counter() - t0
            stats["compiled"] += 1
        if directory is not None:
            try:
                write_cache_entry(directory, key, code)
            except OSError:
                pass  # a read-only cache dir must not stop the computation
    with _lock:
        _code_memory[key] = code
    return code


_version_cached = None


def _version():
    global _version_cached
    if _version_cached is None:
        _version_cached = compiler_version()
    return _version_cached


class KernelRuntime:
    """Loaded modules and kernel handles of one device, and its launcher."""

    def __init__(self, device):
        from .launch import Launcher

        self.device = device
        self._modules = {}
        self._functions = {}
        self._kernels = {}  # kernel name -> launch.BoundKernel
        self.ew_cache = {}  # storage.ew_kernel / raw_kernel: (family, op, dtype) strings -> kernel
        self._lock = threading.Lock()
        self.launcher = Launcher(device)

    def function(self, spec):
        """hip-python's handle of the kernel ``spec`` (module loaded on first use)."""
        fn = self._functions.get(spec.name)
        if fn is not None:
            return fn
        from .device import hip_api

        hip = hip_api().hip
        with self._lock:
            module = self._modules.get(spec.module)
            if module is None:
                try:
                    code = code_object(spec.module, self.device.arch)
                except RocmError as exc:  # the log names the line; say which kernel was wanted
                    if hasattr(exc, "add_note"):
                        exc.add_note(f"(loading kernel {spec.name!r} of module {spec.module!r})")
                    raise
                self.device.make_current()
                module = check("hipModuleLoadData", hip.hipModuleLoadData(code))
                self._modules[spec.module] = module
            fn = check(f"hipModuleGetFunction({spec.name})", hip.hipModuleGetFunction(module, spec.name.encode()))
            self._functions[spec.name] = fn
        return fn

    def kernel(self, spec):
        """The launch-ready ``BoundKernel`` of ``spec`` (cached: one dict hit per launch)."""
        k = self._kernels.get(spec.name)
        if k is None:
            from .launch import BoundKernel

            k = self._kernels[spec.name] = BoundKernel(spec, self.function(spec))
        return k

    def launch(self, spec, grid, values, block=None):
        """Queue ``spec`` on the device stream with the ABI struct packed from ``values``."""
        if isinstance(grid, int):
            grid = (grid, 1, 1)
        block = block or (spec.block, 1, 1)
        self.launcher.launch(self.kernel(spec), grid[0], grid[1], grid[2], block[0], block[1], block[2],
                             ABIS[spec.abi], values)


def runtime(device):
    rt = getattr(device, "_kernel_runtime", None)
    if rt is None:
        rt = device._kernel_runtime = KernelRuntime(device)
    return rt


def grid_for(n, block=ops.EW_BLOCK, device=None):
    """Blocks for a grid-stride loop over ``n`` items: enough to fill the device."""
    cap = 65535 * 8
    if device is not None:
        cap = max(device.multiprocessors * 32, 1)
    return max(1, min((n + block - 1) // block, cap))


def precompile(device=None, modules=None, progress=True, threads=None):
    """Compile (or load from the disk cache) every module for the device's architecture,
    on ``threads`` threads (default: one per CPU), with a tqdm progress bar.

    ``device``: a rocm device object (default: device 0); with none usable,
    BackendUnavailableError says why, as ``asarray(..., device="rocm")`` does."""
    from concurrent.futures import ThreadPoolExecutor, as_completed

    if device is None:
        from . import BACKEND

        ok, reason = BACKEND.probe()
        if not ok:  # what asarray(..., device="rocm") raises
            raise BackendUnavailableError.of("rocm", reason)
        device = BACKEND.device(0)
    names = sorted(modules or ops.MODULES)
    bar = None
    if progress:
        try:
            from tqdm import tqdm

            bar = tqdm(total=len(names), desc=f"hipRTC {device.arch}", unit="module")
        except ImportError:
            bar = None
    _version()  # query the compiler once before the threads start
    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        futures = {pool.submit(code_object, name, device.arch): name for name in names}
        for future in as_completed(futures):
            future.result()
            if bar is not None:
                bar.set_postfix_str(futures[future])
                bar.update(1)
    if bar is not None:
        bar.close()
    return dict(stats)
