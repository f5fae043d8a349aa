"""DLPack with device memory: PyTorch and CuPy consume rocm arrays without a copy and
candlewick consumes theirs; stream handoff; capsule versions and lifetimes.
(Skipped where torch / cupy are not importable or see no GPU.)"""

import ctypes
import gc

import ml_dtypes
import numpy as np
import pytest

import candlewick as cw
from rocm_backend.families import dlpack_capsules

DTYPES = ["float32", "float16", "bfloat16", "float64", "int64", "int8", "uint8", "bool", "complex64"]


def _host(name, shape=(3, 4)):
    data = np.arange(int(np.prod(shape))).reshape(shape) % 7
    np_dtype = ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)
    return data.astype(np_dtype)


def _torch_host(t):
    return (t.float() if str(t.dtype) == "torch.bfloat16" else t).cpu().numpy()


def test_dlpack_device(rocm):
    x = cw.asarray(np.arange(6.0), device=rocm)
    kind, ordinal = x.__dlpack_device__()
    assert int(kind) == (2 if rocm.arch.startswith("sm_") else 10) and ordinal == 0


@pytest.mark.parametrize("name", DTYPES)
def test_torch_consumes_without_copy(rocm, torch, name):
    host = _host(name)
    x = cw.asarray(host, device=rocm)
    t = torch.from_dlpack(x)
    assert t.is_cuda and tuple(t.shape) == host.shape
    assert t.data_ptr() == x._storage.ptr  # the same memory
    np.testing.assert_array_equal(_torch_host(t).astype(np.complex128), host.astype(np.complex128))
    if name not in ("bool",):
        t.add_(1)
        torch.cuda.synchronize()
        assert (cw.to_numpy(x).astype(np.complex128) == host.astype(np.complex128) + 1).all()


def test_torch_consumes_views(rocm, torch):
    host = np.arange(48.0).reshape(6, 8)
    base = cw.asarray(host, device=rocm)
    views = [(base[::2, 1:], host[::2, 1:]), (cw.permute_dims(base, (1, 0)), host.T),
             (base[3], host[3]), (base[1:1], host[1:1]), (base[2, 5], host[2, 5])]
    for view, ref in views:
        t = torch.from_dlpack(view)
        assert tuple(t.shape) == ref.shape
        np.testing.assert_array_equal(t.cpu().numpy(), ref)


@pytest.mark.parametrize("name", DTYPES)
def test_candlewick_consumes_torch(rocm, torch, name):
    host = _host(name, (4, 6))
    real = host.real if np.iscomplexobj(host) else host  # torch builds its complex from the real part
    t = torch.from_numpy(real.astype(np.float32)).to(getattr(torch, name)).cuda()[:, ::2]
    x = cw.from_dlpack(t)
    assert x.device is rocm and x.shape == (4, 3)
    expected = _torch_host(t)
    np.testing.assert_array_equal(cw.to_numpy(x).astype(expected.dtype), expected)
    if name == "float32":
        t.mul_(2)  # shared: candlewick sees torch's write
        torch.cuda.synchronize()
        np.testing.assert_array_equal(cw.to_numpy(x), expected * 2)
        del t
        gc.collect()
        np.testing.assert_array_equal(cw.to_numpy(x + 1), expected * 2 + 1)  # x keeps the memory


def test_copy_true_does_not_share(rocm, torch):
    t = torch.arange(5, dtype=torch.float32, device="cuda")
    x = cw.from_dlpack(t, copy=True)
    t.fill_(-1)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(cw.to_numpy(x), np.arange(5.0))


def test_roundtrip_keeps_the_pointer(rocm, torch):
    x = cw.asarray(np.arange(10.0), device=rocm)
    y = cw.from_dlpack(torch.from_dlpack(x))
    assert y._storage.ptr + y._layout.offset * 8 == x._storage.ptr
    np.testing.assert_array_equal(cw.to_numpy(y), np.arange(10.0))


def test_stream_handoff_both_ways(rocm, torch):
    n = 1 << 24
    s = torch.cuda.Stream()
    big = cw.ones((n,), dtype=cw.float32, device=rocm)
    y = (big * 3) + 0.5  # queued on our stream
    with torch.cuda.stream(s):
        t = torch.from_dlpack(y)  # torch passes s: s waits for our event
        total = t.sum()
    s.synchronize()
    assert total.item() == pytest.approx(3.5 * n, rel=1e-6)
    with torch.cuda.stream(s):
        u = torch.full((n,), 2.0, device="cuda")  # written on s
        for _ in range(20):
            u.mul_(1.0)
        x = cw.from_dlpack(u)  # we pass our stream: torch makes it wait
    assert float(cw.to_numpy(cw.sum(x))) == 2.0 * n


def _capsule_name(cap):
    fn = ctypes.pythonapi.PyCapsule_GetName
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.py_object]
    return fn(cap)


def test_capsule_versions_and_lifetime(rocm, torch):
    gc.collect()
    live = len(dlpack_capsules._exports)
    x = cw.asarray(np.arange(4.0), device=rocm)
    assert _capsule_name(x.__dlpack__(max_version=(1, 0))) == b"dltensor_versioned"
    legacy = x.__dlpack__()
    assert _capsule_name(legacy) == b"dltensor"
    t = torch.utils.dlpack.from_dlpack(legacy)
    del legacy
    gc.collect()
    assert len(dlpack_capsules._exports) == live + 1  # held by t
    del x
    gc.collect()
    filler = [cw.full((4,), 9.0, device=rocm) for _ in range(8)]  # may reuse freed blocks, not t's
    np.testing.assert_array_equal(t.cpu().numpy(), np.arange(4.0))
    del t, filler
    gc.collect()
    assert len(dlpack_capsules._exports) == live


def test_cupy_roundtrip(rocm, cupy):
    host = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    x = cw.asarray(host, device=rocm)
    c = cupy.from_dlpack(x)
    assert c.data.ptr == x._storage.ptr
    np.testing.assert_array_equal(cupy.asnumpy(c), host)
    c2 = cupy.arange(30, dtype=cupy.float64)[::3]
    y = cw.from_dlpack(c2)
    assert y.device is rocm
    np.testing.assert_array_equal(cw.to_numpy(y), cupy.asnumpy(c2))
    c2[:] = 5.0
    cupy.cuda.runtime.deviceSynchronize()
    np.testing.assert_array_equal(cw.to_numpy(y), np.full(10, 5.0))
