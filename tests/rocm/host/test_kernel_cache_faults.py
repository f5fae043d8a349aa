"""The on-disk code-object cache under process-level faults (issue 21), on the CPU: the
compiler is replaced by a deterministic stand-in, so no GPU or hip-python is needed.
Two processes compiling and writing the same entry at once, a cache directory that
cannot be created or written, and a full disk: the kernel is still returned, the cache
never holds a partial or corrupt entry, and no temporary file is left behind."""

import hashlib
import os
import pathlib
import subprocess
import sys

import pytest

from rocm_backend import kernels, ops
from rocm_backend.codegen.sources import module_source

REPO = pathlib.Path(__file__).parents[3]
MODULE = sorted(ops.MODULES)[0]
ARCH = "gfx90a"

WORKER = '''
import hashlib, os, pathlib, resource, signal, sys, time
from rocm_backend import kernels
from rocm_backend.codegen.sources import module_source

rendezvous, module, arch, file_limit = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
if file_limit:  # a full disk: writes past this many bytes fail (EFBIG) instead of killing the process
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))


def stand_in_compiler(name, source, options, arch):
    (rendezvous / f"compiling-{os.getpid()}").touch()
    deadline = time.monotonic() + 30  # both processes compile before either writes
    while len(list(rendezvous.glob("compiling-*"))) < int(os.environ["PEERS"]) and time.monotonic() < deadline:
        time.sleep(0.005)
    return hashlib.sha256((source + arch).encode()).digest() * 8192  # 256 KiB, the same in both


kernels.compile_source = stand_in_compiler
kernels._version = lambda: "stand-in-1.0"
code = kernels.code_object(module, module_source(module), arch)
print(kernels.stats["compiled"], kernels.stats["disk_hits"], hashlib.sha256(code).hexdigest())
'''


def _expected_digest():
    code = hashlib.sha256((module_source(MODULE) + ARCH).encode()).digest() * 8192
    return hashlib.sha256(code).hexdigest()


def _start(tmp_path, cache, peers, file_limit=0):
    rendezvous = tmp_path / "rendezvous"
    rendezvous.mkdir(exist_ok=True)
    env = dict(os.environ, CANDLEWICK_KERNEL_CACHE=str(cache), PEERS=str(peers),
               PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    return subprocess.Popen([sys.executable, "-c", WORKER, str(rendezvous), MODULE, ARCH, str(file_limit)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def _results(processes):
    results = []
    for process in processes:
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        compiled, disk_hits, digest = out.split()
        results.append((int(compiled), int(disk_hits), digest))
    return results


def _entries(cache):
    return sorted(p.name for p in cache.iterdir()) if cache.is_dir() else []


def test_two_processes_compile_and_write_the_same_entry_at_once(tmp_path):
    cache = tmp_path / "cache"
    results = _results([_start(tmp_path, cache, peers=2), _start(tmp_path, cache, peers=2)])
    assert [r[:2] for r in results] == [(1, 0), (1, 0)]  # both compiled: the writes raced
    assert {r[2] for r in results} == {_expected_digest()}
    entries = _entries(cache)
    assert len(entries) == 1 and entries[0].endswith(".co"), entries  # one entry, no temporaries
    key = entries[0][:-3]
    code = kernels.read_cache_entry(cache / entries[0], key)
    assert code is not None and hashlib.sha256(code).hexdigest() == _expected_digest()
    # a third process finds the entry whole and does not compile
    later = tmp_path / "later"
    later.mkdir()
    (third,) = _results([_start(later, cache, peers=1)])
    assert third == (0, 1, _expected_digest())


def test_a_cache_directory_that_cannot_be_created_still_runs(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    (result,) = _results([_start(tmp_path, blocker / "cache", peers=1)])
    assert result == (1, 0, _expected_digest())
    assert blocker.read_text() == "in the way"


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_cache_directory_still_runs(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o500)
    try:
        (result,) = _results([_start(tmp_path, cache, peers=1)])
    finally:
        cache.chmod(0o700)
    assert result == (1, 0, _expected_digest())
    assert _entries(cache) == []


def test_a_full_disk_leaves_no_partial_entry(tmp_path):
    cache = tmp_path / "cache"
    (result,) = _results([_start(tmp_path, cache, peers=1, file_limit=4096)])
    assert result == (1, 0, _expected_digest())
    assert _entries(cache) == []  # the failed write removed its temporary file
