"""[bindings] The HIP runtime through hip-python, imported lazily (the few calls made
through ctypes on the very runtime hip-python loaded are ``hip_ctypes.py``).

Importing this module never fails when ROCm or hip-python is missing: ``probe()`` says
why instead, in the runtime's words. Each function below is one runtime call whose
status goes through ``error.check``.
"""

import re
import threading
from importlib import metadata

from ..error import check, error_for, status_name
from .hip_python import opened

# hipHostMallocMapped | hipHostMallocCoherent: device writes reach host memory directly (the
# CUDA path through the shim ignores the coherence bit: its pinned memory always is)
_HOST_MALLOC_MAPPED = 0x2 | 0x40000000

_api = None


class _HipApi:
    """The hip-python modules, imported on first use."""

    def __init__(self):
        self.hip, self.hiprtc, self.hipblas = opened("hip"), opened("hiprtc"), opened("hipblas")


def hip_api():
    """hip-python's ``hip``, ``hiprtc`` and ``hipblas`` modules (imported on first use)."""
    global _api
    if _api is None:
        _api = _HipApi()
    return _api


_INSTALL_ROCM = "install the ROCm runtime (ROCm 6 or newer) or set ROCM_PATH to the folder holding lib/"
_NO_DEVICE = ("no usable AMD GPU: check the amdgpu driver, access to /dev/kfd and /dev/dri "
              "(the render and video groups) and HIP_VISIBLE_DEVICES")


def install_hint():
    """The command that installs what the ``rocm`` extra brings, read from candlewick's own
    metadata (pyproject.toml pins it once), and the extra's form for a checkout: candlewick
    is not on a package index, so ``pip install 'candlewick[rocm]'`` would find nothing."""
    try:
        requires = metadata.requires("candlewick") or []
    except metadata.PackageNotFoundError:  # a source tree on sys.path, not installed
        requires = []
    pins = [r.split(";")[0].strip() for r in requires if re.search(r"""extra\s*==\s*["']rocm["']""", r)]
    packages = " ".join(f"'{pin}'" for pin in pins) or "'hip-python[libraries,systems]' tqdm"
    return f"pip install {packages} (candlewick's rocm extra; from a candlewick checkout: pip install '.[rocm]')"


def probe():
    """(available, reason): reason is '' when a HIP device is usable, else the runtime's
    words and what to install or set next."""
    try:
        hip = opened("hip")
    except ImportError as exc:
        return False, f"hip-python is not installed ({exc}): {install_hint()}"
    except Exception as exc:  # a broken install must not break candlewick
        return False, (f"hip-python failed to import: {type(exc).__name__}: {exc}; reinstall it: "
                       f"{install_hint().replace('pip install', 'pip install --force-reinstall', 1)}")
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


# --- device, stream, memory ------------------------------------------------------------

# The device each host thread last made current through set_device: HIP keeps one current
# device per thread, and every call that allocates, copies on a stream, launches or uses a
# library handle acts on it. ``use_device`` skips the runtime call when it is already current.
current = threading.local()


def set_device(ordinal):
    check("hipSetDevice", hip_api().hip.hipSetDevice(ordinal))
    current.ordinal = ordinal


def use_device(ordinal):
    """Make ``ordinal`` this thread's current device (no runtime call when it already is)."""
    if getattr(current, "ordinal", None) != ordinal:
        set_device(ordinal)


def forget_current_device():
    """After a library call that may have switched this thread's device itself (RCCL sets
    each member's device in a group call): the next use_device asks the runtime again."""
    current.ordinal = None


def can_access_peer(ordinal, peer):
    """Whether device ``ordinal`` can read and write device ``peer``'s memory directly."""
    return bool(check("hipDeviceCanAccessPeer", hip_api().hip.hipDeviceCanAccessPeer(ordinal, peer)))


# hipErrorPeerAccessAlreadyEnabled: a second enable of the same pair is not an error here
_PEER_ALREADY_ENABLED = 704


def enable_peer_access(peer):
    """Let the current device access device ``peer``'s memory (idempotent)."""
    (status,) = hip_api().hip.hipDeviceEnablePeerAccess(peer, 0)
    if int(status) not in (0, _PEER_ALREADY_ENABLED):
        check("hipDeviceEnablePeerAccess", status)


def device_properties(ordinal):
    return check("hipGetDeviceProperties", hip_api().hip.hipGetDeviceProperties(ordinal))


def create_stream():
    """A non-blocking stream (hip-python's handle)."""
    hip = hip_api().hip
    return check("hipStreamCreateWithFlags", hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking))


def stream_synchronize(stream):
    check("hipStreamSynchronize", hip_api().hip.hipStreamSynchronize(stream))


def malloc(size):
    """A device pointer (int); RocmOutOfMemory when the device has no room."""
    return int(check("hipMalloc", hip_api().hip.hipMalloc(size)))


def free(ptr):
    check("hipFree", hip_api().hip.hipFree(ptr))


def host_malloc_mapped(nbytes):
    """(host address, device address) of pinned host memory that kernels can write."""
    hip = hip_api().hip
    host = int(check("hipHostMalloc", hip.hipHostMalloc(nbytes, _HOST_MALLOC_MAPPED)))
    return host, int(check("hipHostGetDevicePointer", hip.hipHostGetDevicePointer(host, 0)))


def mem_get_info():
    free_bytes, total = check("hipMemGetInfo", hip_api().hip.hipMemGetInfo())
    return int(free_bytes), int(total)


def memset_async(ptr, byte, nbytes, stream):
    check("hipMemsetAsync", hip_api().hip.hipMemsetAsync(ptr, byte, nbytes, stream))


def memcpy_htod_async(dst, src_address, nbytes, stream):
    check("hipMemcpyHtoDAsync", hip_api().hip.hipMemcpyHtoDAsync(dst, src_address, nbytes, stream))


def memcpy_dtoh_async(dst_address, src, nbytes, stream):
    check("hipMemcpyDtoHAsync", hip_api().hip.hipMemcpyDtoHAsync(dst_address, src, nbytes, stream))


def memcpy_dtod_async(dst, src, nbytes, stream):
    check("hipMemcpyDtoDAsync", hip_api().hip.hipMemcpyDtoDAsync(dst, src, nbytes, stream))


def memcpy_peer_async(dst, dst_ordinal, src, src_ordinal, nbytes, stream):
    check("hipMemcpyPeerAsync",
          hip_api().hip.hipMemcpyPeerAsync(dst, dst_ordinal, src, src_ordinal, nbytes, stream))


def event_create():
    """An event without timing on the current device (for ordering streams)."""
    hip = hip_api().hip
    return check("hipEventCreateWithFlags", hip.hipEventCreateWithFlags(hip.hipEventDisableTiming))


def event_record(event, stream):
    check("hipEventRecord", hip_api().hip.hipEventRecord(event, stream))


def event_synchronize(event):
    """Wait on the host until the work queued before ``event``'s record has run."""
    check("hipEventSynchronize", hip_api().hip.hipEventSynchronize(event))


# hipErrorNotReady: hipEventQuery's answer while the work before the event still runs
_NOT_READY = 600


def event_query(event):
    """Whether the work queued before ``event``'s record has run (never waits)."""
    result = hip_api().hip.hipEventQuery(event)
    status = result[0] if isinstance(result, tuple) else result
    if int(status) == _NOT_READY:
        return False
    check("hipEventQuery", result)
    return True


def stream_wait_event(stream, event):
    check("hipStreamWaitEvent", hip_api().hip.hipStreamWaitEvent(stream, event, 0))


def event_destroy(event):
    """Release an event (its pending waits still complete)."""
    check("hipEventDestroy", hip_api().hip.hipEventDestroy(event))


def stream_wait_for(stream, consumer):
    """Make stream ``consumer`` (an int handle) wait for the work queued on ``stream``."""
    hip = hip_api().hip
    event = check("hipEventCreateWithFlags", hip.hipEventCreateWithFlags(hip.hipEventDisableTiming))
    try:
        check("hipEventRecord", hip.hipEventRecord(event, stream))
        check("hipStreamWaitEvent", hip.hipStreamWaitEvent(consumer, event, 0))
    finally:
        hip.hipEventDestroy(event)  # released once the wait is satisfied


# --- modules and launches --------------------------------------------------------------

def module_load_data(code):
    return check("hipModuleLoadData", hip_api().hip.hipModuleLoadData(code))


def module_get_function(module, name):
    return check(f"hipModuleGetFunction({name})", hip_api().hip.hipModuleGetFunction(module, name.encode()))


def occupancy_blocks_per_multiprocessor(fn, block):
    """Resident blocks of ``block`` threads per multiprocessor; 0 when the runtime cannot say."""
    try:
        status, per_sm = hip_api().hip.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(fn, block, 0)
        return int(per_sm) if int(status) == 0 else 0
    except Exception:  # noqa: BLE001 (a runtime without the query)
        return 0


def module_launch_kernel(fn, gx, gy, gz, bx, by, bz, stream, extra_address, name, shared_mem=0):
    """hipModuleLaunchKernel through hip-python (the path without ctypes)."""
    (status,) = hip_api().hip.hipModuleLaunchKernel(fn, gx, gy, gz, bx, by, bz, shared_mem, stream, None,
                                                    extra_address)
    if int(status):
        raise error_for(f"hipModuleLaunchKernel({name})", status)


def status_enum(code):
    """hip-python's hipError_t for a raw status (so errors name it), else the int."""
    try:
        return hip_api().hip.hipError_t(code)
    except Exception:  # noqa: BLE001
        return code
