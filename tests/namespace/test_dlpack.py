"""DLPack exchange: from_dlpack of host producers (NumPy, array-api-strict, torch when
installed) and of candlewick arrays; export of candlewick arrays where the backend's
storage offers the ``dlpack_view`` hook (zero-copy on the cpu backend)."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _oracle import check, on

HOST_DTYPES = ["bool", "int8", "int64", "uint16", "uint64", "float16", "float32", "float64",
               "complex64", "complex128"]


def _exports(device):
    return hasattr(type(cw.zeros(1, device=device)._storage), "dlpack_view")


@pytest.mark.parametrize("dtype", HOST_DTYPES)
def test_from_numpy_producer(device, dtype):
    host = (np.arange(12).reshape(3, 4) % 5).astype(dtype)
    out = cw.from_dlpack(host, device=device)
    assert out.device is device
    check(out, host)


def test_from_strided_and_zero_d_numpy(device):
    host = np.arange(24.0).reshape(4, 6)
    for view in (host[::2, 1::2], host.T, host[::-1], np.asarray(3.5), host[:0]):
        check(cw.from_dlpack(view, device=device), np.asarray(view))


def test_from_dlpack_without_device_lands_on_the_host_device():
    out = cw.from_dlpack(np.arange(3))
    assert out.device is cw.get_device("cpu")
    check(out, np.arange(3))


def test_from_array_api_strict_producer(device):
    src = xp.asarray([[1.0, 2.0], [3.0, 4.0]], dtype=xp.float32)
    check(cw.from_dlpack(src, device=device), np.asarray(src))


def test_from_torch_producer(device):
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    check(cw.from_dlpack(t, device=device), t.numpy())


def test_copy_true_never_shares(device):
    host = np.arange(4.0)
    out = cw.from_dlpack(host, device=device, copy=True)
    host[0] = 99.0
    assert cw.to_numpy(out)[0] == 0.0


def test_copy_false_needs_a_sharing_importer(device):
    host = np.arange(4.0)
    importer = getattr(device, "storage_from_dlpack", None)
    if importer is None or importer(np.arange(1.0), False) is None:  # cannot share host memory
        with pytest.raises(BufferError, match="copy=False"):
            cw.from_dlpack(host, device=device, copy=False)
        return
    out = cw.from_dlpack(host, device=device, copy=False)
    host[1] = -1.0
    assert cw.to_numpy(out)[1] == -1.0


def test_from_candlewick_array(device):
    x = on(device, [1, 2, 3])
    assert cw.from_dlpack(x) is x
    y = cw.from_dlpack(x, copy=True)
    assert y is not x
    y[0] = 7
    assert cw.to_numpy(x)[0] == 1
    assert cw.from_dlpack(x, device=device) is x


def test_from_dlpack_rejects_non_producers(device):
    with pytest.raises(TypeError, match="__dlpack__"):
        cw.from_dlpack([1, 2, 3], device=device)


def test_unsupported_producer_dtype_is_refused(device):
    class OnlyDevice:
        def __dlpack__(self, **kwargs):
            raise AssertionError("not reached")

        def __dlpack_device__(self):
            return (99, 0)

    with pytest.raises(BufferError, match="DLPack device"):
        cw.from_dlpack(OnlyDevice(), device=device)


# --- export (needs the backend's dlpack_view hook) --------------------------------------

def _require_export(device):
    if not _exports(device):
        with pytest.raises(BufferError, match="dlpack_view"):
            on(device, [1.0]).__dlpack_device__()
        pytest.xfail(f"the {device.backend} backend's storage has no dlpack_view hook yet")


def _require_host_export(device):
    """NumPy consumes host memory only; device memory is tested in tests/rocm/gpu."""
    _require_export(device)
    if int(on(device, [1.0]).__dlpack_device__()[0]) not in (1, 3, 11, 13):
        pytest.skip(f"{device.name} exports device memory (tests/rocm/gpu/test_dlpack_interop.py)")


def test_export_to_numpy_is_zero_copy_on_the_host(device):
    _require_host_export(device)
    x = on(device, np.arange(12.0).reshape(3, 4))
    assert tuple(x.__dlpack_device__()) == (1, 0)
    shared = np.from_dlpack(x)
    np.testing.assert_array_equal(shared, np.arange(12.0).reshape(3, 4))
    x[0, 0] = -5.0
    assert shared[0, 0] == -5.0


def test_export_of_views_and_copies(device):
    _require_host_export(device)
    x = on(device, np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(np.from_dlpack(x.mT[::2]), np.arange(12.0).reshape(3, 4).T[::2])
    copied = np.from_dlpack(_Capsule(x, copy=True))
    x[1, 1] = 100.0
    assert copied[1, 1] == 5.0
    round_trip = cw.from_dlpack(x, device=device)
    check(round_trip, cw.to_numpy(x))


def test_export_honours_max_version_and_host_dl_device(device):
    _require_export(device)
    x = on(device, [1.0, 2.0])
    assert x.__dlpack__(max_version=(1, 0)) is not None
    assert x.__dlpack__() is not None
    host_copy = np.from_dlpack(_Capsule(x, dl_device=(1, 0)))
    np.testing.assert_array_equal(host_copy, [1.0, 2.0])
    with pytest.raises(BufferError):  # OpenCL memory is never a candlewick device's own
        x.__dlpack__(dl_device=(4, 0), copy=False)
    with pytest.raises(BufferError, match="host"):
        x.__dlpack__(dl_device=(4, 0))


class _Capsule:
    """A producer that forwards to ``x.__dlpack__`` with fixed keyword arguments."""

    def __init__(self, x, **kwargs):
        self.x, self.kwargs = x, kwargs

    def __dlpack__(self, **kwargs):
        kwargs.update(self.kwargs)
        return self.x.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (1, 0) if "dl_device" in self.kwargs else self.x.__dlpack_device__()


def test_export_mechanism_with_a_copying_hook(device, monkeypatch):
    """The front end's half of export, whatever the backend: a hook that hands out host
    copies (``to_host``) must see each layout, and copy/dl_device must be honoured."""
    storage_type = type(cw.zeros(1, device=device)._storage)
    seen = []

    def host_copy_view(self, layout):
        seen.append(layout.shape)
        return self.to_host(layout)

    monkeypatch.setattr(storage_type, "dlpack_view", host_copy_view, raising=False)
    base = np.arange(12.0).reshape(3, 4)
    x = on(device, base)
    assert tuple(x.__dlpack_device__()) == (1, 0)
    np.testing.assert_array_equal(np.from_dlpack(x.mT[::-1]), base.T[::-1])
    np.testing.assert_array_equal(np.from_dlpack(_Capsule(x[1:], copy=True)), base[1:])
    np.testing.assert_array_equal(np.from_dlpack(_Capsule(x, dl_device=(1, 0))), base)
    assert (4, 3) in seen and (2, 4) in seen
    with pytest.raises(BufferError):
        x.__dlpack__(dl_device=(4, 0), copy=False)
