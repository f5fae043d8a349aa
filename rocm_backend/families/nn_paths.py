"""[families] Which path runs an nn primitive: the settings (``CANDLEWICK_ROCM_NN``,
``CANDLEWICK_ROCM_CONV_LAYOUT``), the device's MIOpen state when it should be used,
the per-path call counts and the ``nn`` line of the backend's details (``nn.py`` says
what each path covers)."""

import collections
import functools
import os
import threading

from candlewick import dtypes as dt
from candlewick.errors import UnsupportedOperation
from candlewick.layout import Layout

from .. import miopen
from .copies import copy
from .nn_fallback import contiguous

ALIGN = 256  # bytes: MIOpen gets buffers at least this aligned (ours always are)

ENV = "CANDLEWICK_ROCM_NN"
LAYOUT_ENV = "CANDLEWICK_ROCM_CONV_LAYOUT"
MIOPEN_CONV_DTYPES = (dt.float16, dt.bfloat16, dt.float32)
MIOPEN_POOL_DTYPES = (dt.float16, dt.float32)

#: (primitive, path) -> calls, for tests and benchmarks ("miopen", "fallback")
path_counts = collections.Counter()
_count_lock = threading.Lock()


def _env_reader(name):
    """A function returning the environment variable ``name`` now (None when unset; str
    or bytes, for keys and comparisons only). ``os.environ.get`` of an unset name costs
    about a microsecond (a KeyError inside), paid twice per convolution; on POSIX
    ``os.environ`` keeps its encoded entries in the dict ``_data``, which every
    ``os.environ`` write updates, so a lookup there sees the same values for ~50 ns."""
    data = getattr(os.environ, "_data", None)
    if os.name == "posix" and isinstance(data, dict):
        return functools.partial(data.get, os.fsencode(name))
    return functools.partial(os.environ.get, name)


mode_setting = _env_reader(ENV)
layout_setting = _env_reader(LAYOUT_ENV)


def _setting(raw, default):
    return (os.fsdecode(raw) if raw is not None else default).strip().lower() or default


def requested():
    mode = _setting(mode_setting(), "auto")
    if mode not in ("auto", "fallback", "miopen"):
        raise ValueError(f"{ENV}={mode!r}: expected auto, fallback or miopen")
    return mode


def count(op, path):
    tally((op, path))


def tally(key, _get=path_counts.get):
    _count_lock.acquire()  # no exception can come between (a dict update of a tuple key)
    path_counts[key] = _get(key, 0) + 1
    _count_lock.release()


def miopen_for(device, op, dtype, mode=None):
    """The device's MIOpen state when this call should use it, else None (``mode``:
    requested(), when the caller has it already)."""
    mode = mode or requested()
    if mode == "fallback":
        return None
    state = device.miopen
    if isinstance(state, miopen.DeviceMIOpen):
        return state
    if mode == "miopen":
        raise UnsupportedOperation(op, dtype, "rocm", f"{ENV}=miopen but MIOpen is unusable: {state}")
    return None


def describe(devices=()):
    """The ``nn`` line of the backend's details()."""
    mode = requested()
    if mode == "fallback":
        return f"im2col+GEMM fallback (forced by {ENV}=fallback)"
    lib, path, reason = miopen.library()
    if lib is None:
        return f"im2col+GEMM fallback ({reason})"
    for device in devices:
        state = device.family_state("miopen")  # as made so far: a report makes nothing
        if isinstance(state, str):
            return f"im2col+GEMM fallback (MIOpen at {path} unusable on {device.name}: {state})"
    return (f"MIOpen {miopen.version(lib)} ({path}); our kernels for float64 convolutions "
            f"(im2col+GEMM: MIOpen has no general float64 convolution), max pooling, "
            f"bfloat16/float64 average pooling, nearest upsampling")


def channels_last():
    """Whether a MIOpen convolution runs channels-last (``CANDLEWICK_ROCM_CONV_LAYOUT`` =
    nhwc; default nchw). Measured on an H200 through the shim
    (bench/results/rocm_probe_nvidia-h200_2026-11-21.md): cuDNN's NHWC tensor-core
    kernels win on the device for a 3x3 float16 convolution (23 us against 47-117 us
    for what Find picks with NCHW), but our two transposes and their launches cost more
    than that on the host and on the device, so NCHW stays the default."""
    return _setting(layout_setting(), "nchw") == "nhwc"


def aligned(storage, layout):
    """(storage, layout) contiguous and starting on an ALIGN-byte boundary (for MIOpen)."""
    storage, layout = contiguous(storage, layout)
    if (layout.offset * storage.dtype.itemsize) % ALIGN:
        storage, layout = copy(storage, layout), Layout.contiguous(layout.shape)
    return storage, layout


def ptr(storage, layout):
    """The address of ``layout``'s first element."""
    return storage.ptr + layout.offset * storage.dtype.itemsize
