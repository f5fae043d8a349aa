"""[kernels] From a kernel's source to its launch-ready handle: hipRTC, the code-object
cache, the loaded modules of a device, and the one kernel lookup every family uses.

A module's source (the shared prelude plus its generated entry points) is assembled by
``codegen/sources.py``; here it is compiled with hipRTC for a device's architecture the
first time one of its kernels is launched. Code objects are cached in memory and on disk
(platformdirs' user cache dir, mode 0700): key = SHA-256 of source, options,
architecture and hipRTC version; each file carries its key and a SHA-256 of the code,
checked on load; writes are atomic (tempfile + os.replace); an entry that is corrupt or
not ours is recompiled.

A device's ``KernelRuntime`` (``device.kernels``) loads the modules and keeps the kernel
handles; ``kernel`` and ``ew_kernel`` look a kernel up by its op-table key
(``ops.kernel_key``), memoized per device: after the first call one dict hit.
"""

import hashlib
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import platformdirs

from candlewick import dtypes as dt

from . import ops
from .bindings import hip, hiprtc
from .error import RocmError
from .runtime.launcher import BoundKernel

COMPILE_OPTIONS = ()  # besides --offload-arch; hipRTC optimizes by default
_CACHE_MAGIC = b"CWKCO1\n"

_lock = threading.RLock()
_code_memory = {}  # cache key -> code object bytes
stats = {"compiled": 0, "disk_hits": 0, "memory_hits": 0, "compile_seconds": 0.0}


def cache_dir():
    """The on-disk code-object cache (created 0700). CANDLEWICK_KERNEL_CACHE overrides."""
    override = os.environ.get("CANDLEWICK_KERNEL_CACHE")
    if override:
        path = Path(override)
    else:
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


def compile_source(name, source, options, arch):
    """hipRTC-compile ``source`` for ``arch``; the code object bytes."""
    return hiprtc.compile_program(name, source, options, arch)


def cached_code(source, arch, extra_options=()):
    """The code object of ``source`` for ``arch`` where the memory or the disk cache holds
    it (counted as a hit), else None: nothing is compiled."""
    code, _, _ = _cached(source, arch, extra_options)
    return code


def _cached(source, arch, extra_options):
    """(code or None, the cache key, the cache directory or None where it cannot be made)."""
    options = list(COMPILE_OPTIONS) + list(extra_options)
    key = cache_key(source, options, arch, _version())
    with _lock:
        code = _code_memory.get(key)
        if code is not None:
            stats["memory_hits"] += 1
            return code, key, None
    directory = None
    try:
        directory = _ensure_cache_dir()
        code = read_cache_entry(directory / f"{key}.co", key)
    except OSError:
        code = None
    if code is not None:
        with _lock:
            stats["disk_hits"] += 1
            _code_memory[key] = code
    return code, key, directory


def code_object(module, source, arch, extra_options=()):
    """The compiled module ``module`` (its ``source``) for ``arch``: memory cache, then
    disk cache, then hipRTC. The compiler runs outside the lock (hip-python releases the
    GIL there), so ``compile_all`` can build modules on several threads.
    ``extra_options`` follow ``COMPILE_OPTIONS`` (and are part of the cache key)."""
    code, key, directory = _cached(source, arch, extra_options)
    if code is not None:
        return code
    options = list(COMPILE_OPTIONS) + list(extra_options)
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
        _version_cached = hiprtc.version()
    return _version_cached


def compile_all(sources, arch, progress=True, threads=None):
    """Compile (or load from the disk cache) every ``(module, source)`` of ``sources``
    for ``arch`` on ``threads`` threads (default: one per CPU), with a tqdm progress
    bar; the cache statistics."""
    sources = sorted(sources)
    bar = None
    if progress:
        try:
            from tqdm import tqdm  # optional library, loaded lazily

            bar = tqdm(total=len(sources), desc=f"hipRTC {arch}", unit="module")
        except ImportError:
            bar = None
    _version()  # query the compiler once before the threads start
    with ThreadPoolExecutor(max_workers=threads or os.cpu_count() or 1) as pool:
        futures = {pool.submit(code_object, name, source, arch): name for name, source in sources}
        for future in as_completed(futures):
            future.result()
            if bar is not None:
                bar.set_postfix_str(futures[future])
                bar.update(1)
    if bar is not None:
        bar.close()
    return dict(stats)


# --- the kernels of one device ------------------------------------------------------

class KernelRuntime:
    """Loaded modules and kernel handles of one device. ``cache`` is the op families' memo
    of BoundKernels by op-table key, ``ew_cache`` of (BoundKernel, result dtype) of the
    element-wise ops by the same keys (one dict hit per launch after the first).

    An op-table kernel's first launch loads its whole module where the code-object cache
    holds it (``backend.precompile``, or an earlier process that compiled it whole), else
    compiles that kernel alone (``kernel_source``; a kernel the table does not list, its
    module's source whole) and loads it as a module of its own:
    hipRTC's time grows with the kernels a source instantiates, and a module of 36 to 60
    of them took 13-18 s into an empty cache (H100, 2026-12-07), where one launch needs one."""

    def __init__(self, device, module_source, kernel_source):
        self.device = device
        self.module_source = module_source
        self.kernel_source = kernel_source
        self._modules = {}  # module name, or (module, kernel name) for a kernel compiled alone -> handle
        self._functions = {}
        self._kernels = {}  # (module, kernel name) -> BoundKernel
        self.cache = {}
        self.ew_cache = {}
        self._resident = {}
        self._lock = threading.Lock()

    def function(self, spec, source=None, options=()):
        """hip-python's handle of the kernel ``spec`` (its module loaded on first use), from
        ``source`` when given (generated code: the kernels of a fused graph, compiled with
        the extra ``options``), else from the op table's module source, or the kernel's
        own where the cache lacks the module's (the class's docstring)."""
        key = (spec.module, spec.name)  # a RawKernel's name is the user's: many modules may have one
        fn = self._functions.get(key)
        if fn is not None:
            return fn
        with self._lock:
            module = self._modules.get(spec.module)
            if module is None:
                module = self._modules.get(key)
            if module is None:
                module = self._load(spec, source, options)
            fn = hip.module_get_function(module, spec.name)
            self._functions[key] = fn
        return fn

    def _load(self, spec, source, options):
        """The loaded module holding ``spec`` (under the lock): its whole module, or it alone."""
        self.device.make_current()  # the module loads on the current device (hipRTC may target it too)
        arch, name = self.device.arch, spec.module
        code = alone = None
        try:
            if source is None:
                source = self.module_source(spec.module)
                code = cached_code(source, arch, options)
                if code is None:
                    alone = self.kernel_source(spec)  # None for a kernel the table does not list
            if alone is not None:
                name = (spec.module, spec.name)
                code = code_object(f"{spec.module}.{spec.name}", alone, arch, options)
            elif code is None:
                code = code_object(spec.module, source, arch, options)
        except RocmError as exc:  # the log names the line; say which kernel was wanted
            if hasattr(exc, "add_note"):
                exc.add_note(f"(loading kernel {spec.name!r} of module {spec.module!r})")
            raise
        module = self._modules[name] = hip.module_load_data(code)
        return module

    def kernel(self, spec, source=None, options=()):
        """The launch-ready ``BoundKernel`` of ``spec`` (cached: one dict hit per launch);
        ``source`` and ``options`` as for ``function`` (a generated kernel's name is its
        source's digest, so one name is one kernel; a RawKernel's module is named by its source's)."""
        key = (spec.module, spec.name)
        k = self._kernels.get(key)
        if k is None:
            k = self._kernels[key] = BoundKernel(spec, self.function(spec, source, options))
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


def kernel(device, key, op_name=None, dtype=None):
    """The device's BoundKernel of the table's ``key`` (an ``ops.kernel_key``), memoized:
    after the first call one dict hit."""
    rt = device.kernels
    k = rt.cache.get(key)
    if k is None:
        k = rt.cache[key] = rt.kernel(ops.lookup(key, op_name, dtype))
    return k


def ew_kernel(device, family, op, dtype):
    """(BoundKernel, result dtype) of an element-wise op of the table: after the first
    call, one dict hit on a key of interned strings (enum and DType hashing are
    Python-level and cost more than the rest of the lookup). The kernel is for the
    contiguous launch and the one-strided-axis launch (``RocmDevice.ew_contiguous``,
    ``ew_launch.launch_strided_1d``): the op's flat entry where the table has one (fewer
    registers: hip/binary.hip's cw_binary_flat), else its entry; ``launch_ew`` looks
    up the full entry by key for every other layout."""
    rt = device.kernels
    key = (family, op._value_, dtype.name)
    hit = rt.ew_cache.get(key)
    if hit is None:
        spec = ops.entry(key, "flat") or ops.lookup(key, op.value, dtype)
        out = dt.bool_ if family == "compare" else op.result_dtype(dtype)
        hit = rt.ew_cache[key] = (rt.kernel(spec), out)
    return hit
