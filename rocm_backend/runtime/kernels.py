"""hipRTC compilation of kernel modules and the code-object cache.

A module's source (the shared prelude plus its generated entry points) is assembled by
``abi/sources.py``; here it is compiled with hipRTC for a device's architecture the first
time one of its kernels is launched. Code objects are cached in memory and on disk
(platformdirs' user cache dir, mode 0700): key = SHA-256 of source, options,
architecture and hipRTC version; each file carries its key and a SHA-256 of the code,
checked on load; writes are atomic (tempfile + os.replace); an entry that is corrupt or
not ours is recompiled.
"""

import hashlib
import os
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

import platformdirs

from ..bindings import hiprtc

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


def code_object(module, source, arch, extra_options=()):
    """The compiled module ``module`` (its ``source``) for ``arch``: memory cache, then
    disk cache, then hipRTC. The compiler runs outside the lock (hip-python releases the
    GIL there), so ``compile_all`` can build modules on several threads.
    ``extra_options`` follow ``COMPILE_OPTIONS`` (and are part of the cache key)."""
    options = list(COMPILE_OPTIONS) + list(extra_options)
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
