"""rocm_backend.families.dlpack_capsules' ctypes structs, capsules and lifetimes, on the CPU.

The capsule code is device-agnostic: exported with device type kDLCPU, NumPy is a real
consumer (and producer) to check the struct layouts, both capsule versions, the
renaming protocol and that every deleter runs exactly once. The device side runs over
a fake device whose memory is host memory (no HIP call is made with stream=-1).
"""

import gc

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from rocm_backend.families import dlpack, dlpack_capsules
from rocm_backend.storage import RocmStorage


class HostProducer:
    """Exports a NumPy array through dlpack_capsules.make_capsule as kDLCPU memory."""

    def __init__(self, array):
        self.array = array

    def __dlpack_device__(self):
        return (dlpack_capsules.KDL_CPU, 0)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        a = self.array
        strides = tuple(s // a.itemsize for s in a.strides)
        versioned = max_version is not None and max_version[0] >= 1
        return dlpack_capsules.make_capsule(a, a.ctypes.data, a.shape, strides, dt.from_numpy(a.dtype),
                                   dlpack_capsules.KDL_CPU, 0, versioned)


def _live():
    gc.collect()
    return len(dlpack_capsules._exports)


@pytest.mark.parametrize("make", [
    lambda b: b, lambda b: b[::-1, 1::2], lambda b: b.T, lambda b: b[1, 2, ...], lambda b: b[:0],
], ids=["contiguous", "reversed-stepped", "transposed", "0-d", "empty"])
@pytest.mark.parametrize("np_dtype", [np.float32, np.float16, np.int64, np.bool_, np.complex64])
def test_numpy_consumes_our_capsules(make, np_dtype):
    before = _live()
    base = (np.arange(24).reshape(4, 6) % 7).astype(np_dtype)
    view = make(base)
    out = np.from_dlpack(HostProducer(view))  # NumPy asks for a versioned capsule
    assert out.shape == view.shape and out.dtype == view.dtype
    np.testing.assert_array_equal(out, view)
    if view.size:
        assert out.ctypes.data == view.ctypes.data  # shared, not copied
    assert _live() == before + 1
    del out
    assert _live() == before  # NumPy called our deleter


@pytest.mark.parametrize("versioned", [False, True])
def test_unconsumed_capsule_runs_the_deleter(versioned):
    before = _live()
    cap = HostProducer(np.arange(5.0)).__dlpack__(max_version=(1, 0) if versioned else None)
    assert _live() == before + 1
    del cap
    assert _live() == before


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_we_consume_numpy_capsules(max_version):
    a = np.arange(12, dtype=np.int16).reshape(3, 4)[:, ::-2]
    cap = a.__dlpack__() if max_version is None else a.__dlpack__(max_version=max_version)
    imp = dlpack_capsules.Imported(cap)
    assert (imp.dtype, imp.shape, imp.strides, imp.device) == (dt.int16, (3, 2), (4, -2), (1, 0))
    assert imp.data == a.ctypes.data and not imp.read_only
    with pytest.raises(BufferError, match="used_dltensor"):
        dlpack_capsules.Imported(cap)  # consumed once only
    imp.release()
    imp.release()  # idempotent


def test_span():
    assert dlpack_capsules.span((3, 4), (4, -2)) == (-6, 8)
    assert dlpack_capsules.span((0, 4), (4, 1)) == (0, -1)
    assert dlpack_capsules.span((), ()) == (0, 0)


# --- the device side over a fake device ----------------------------------------------

class FakeDevice:
    ordinal, name, stream = 0, "rocm:0", 0
    storage_type = RocmStorage
    capture = None  # no graph capture running (runtime/capture.py)

    def __init__(self, arch):
        self.arch = arch
        self.heap = np.zeros(1 << 16, np.uint8)
        self.synchronized = 0
        outer = self

        class Alloc:
            top = 0

            def allocate(self, nbytes):
                ptr = outer.heap.ctypes.data + Alloc.top
                Alloc.top += -(-nbytes // 256) * 256
                return ptr, nbytes

            def release(self, ptr, size):
                pass

        self.allocator = Alloc()

    def synchronize(self, check_errors=True):
        self.synchronized += 1


class Wrapper:
    def __init__(self, view):
        self.view = view

    def __dlpack_device__(self):
        return self.view.__dlpack_device__()

    def __dlpack__(self, *, stream=None, max_version=None):
        return self.view.__dlpack__(stream=-1, max_version=max_version)


@pytest.mark.parametrize("arch, kind", [("sm_90", dlpack_capsules.KDL_CUDA), ("gfx90a:sramecc+:xnack-", dlpack_capsules.KDL_ROCM)])
def test_device_export_import_roundtrip(arch, kind):
    dev = FakeDevice(arch)
    st = RocmStorage.empty(dev, dt.float32, 24)
    host = np.frombuffer(dev.heap, np.float32, 24, st.ptr - dev.heap.ctypes.data)
    host[:] = np.arange(24)
    layout = Layout.contiguous((4, 6)).flip((0,)).slice(1, 1, 6, 2)  # negative and stepped
    view = st.dlpack_view(layout)
    assert view.__dlpack_device__() == (kind, 0)
    before = _live()
    got, got_layout = dlpack.storage_from_dlpack(dev, Wrapper(view), copy=False)
    assert _live() == before + 1  # our export is alive while the import views it
    assert got_layout.shape == (4, 3) and got_layout.strides == (-6, 2)
    lo, hi = got_layout.span()
    assert lo == 0 and hi < got.size
    first = got.ptr + got_layout.offset * 4
    assert first == st.ptr + layout.offset * 4  # the same element, no copy
    del got
    assert _live() == before and dev.synchronized == 1  # drained, then the deleter ran
    other = FakeDevice(arch)
    other.ordinal = 1
    assert dlpack.storage_from_dlpack(other, Wrapper(view), copy=False) is None


def test_stream_arguments():
    nvidia, amd = FakeDevice("sm_90"), FakeDevice("gfx942")
    assert dlpack._consumer_stream(nvidia, None) == 0
    assert dlpack._consumer_stream(amd, 0) == 0
    assert dlpack._consumer_stream(nvidia, 1) == 1
    assert dlpack._consumer_stream(nvidia, -1) is None
    assert dlpack._consumer_stream(amd, 0x7F001234) == 0x7F001234
    with pytest.raises(ValueError):
        dlpack._consumer_stream(amd, 2)
    with pytest.raises(ValueError):
        dlpack._consumer_stream(nvidia, -5)
    with pytest.raises(TypeError):
        dlpack._consumer_stream(nvidia, "1")
