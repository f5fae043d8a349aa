"""``__array_namespace_info__``, DLPack exchange with NumPy, array-api-compat
integration, and the copy semantics of ``asarray``/``reshape``/``astype`` (views must
share memory: checked by writing through one and reading through the other)."""

import array_api_compat
import numpy as np
import pytest
from hypothesis import given

import candlewick as cw
from array_api_support import ALL, any_arrays, dt, same_memory, shapes, to_np

info = cw.__array_namespace_info__()


# --- __array_namespace_info__ -------------------------------------------------------

def test_capabilities():
    caps = info.capabilities()
    assert {"boolean indexing", "data-dependent shapes", "max dimensions"} <= set(caps)
    assert isinstance(caps["boolean indexing"], bool)
    assert isinstance(caps["data-dependent shapes"], bool)
    assert caps["max dimensions"] is None or (isinstance(caps["max dimensions"], int) and caps["max dimensions"] >= 1)


def test_default_device_and_devices(dev):
    assert info.default_device() == dev  # the test runs with its device as the default
    devices = info.devices()
    # a tuple from 2025.12 on (gh-981), a list in 2024.12
    assert isinstance(devices, tuple if cw.__array_api_version__ >= "2025.12" else list) and dev in devices
    for d in devices:
        assert cw.zeros(1, device=d).device == d


def test_default_dtypes(dev):
    defaults = info.default_dtypes(device=dev)
    assert set(defaults) == {"real floating", "complex floating", "integral", "indexing"}
    assert defaults["real floating"] in (cw.float32, cw.float64)
    assert defaults["complex floating"] == {cw.float32: cw.complex64, cw.float64: cw.complex128}[defaults["real floating"]]
    assert defaults["integral"] in (cw.int32, cw.int64) and defaults["indexing"] in (cw.int32, cw.int64)
    # the defaults are what the namespace actually uses
    assert cw.asarray(1.5).dtype == defaults["real floating"]
    assert cw.asarray(1).dtype == defaults["integral"]
    assert cw.asarray(1j).dtype == defaults["complex floating"]
    assert cw.argmax(cw.asarray([1, 2])).dtype == defaults["indexing"]
    assert info.default_dtypes() == defaults


@pytest.mark.parametrize("kind", [None, "bool", "signed integer", "unsigned integer", "integral",
                                  "real floating", "complex floating", "numeric",
                                  ("bool", "complex floating")])
def test_dtypes_by_kind(kind, dev):
    got = info.dtypes(device=dev, kind=kind)
    assert isinstance(got, dict)
    for name, d in got.items():
        assert d == dt(name) and name in ALL
        assert kind is None or cw.isdtype(d, kind)
    if kind is None:
        # every dtype the device reports works there
        for d in got.values():
            assert cw.zeros(2, dtype=d, device=dev).dtype == d
    expected = {n for n in ALL if kind is None or cw.isdtype(dt(n), kind)}
    assert set(got) <= expected


def test_dtypes_rejects_unknown_kinds():
    with pytest.raises(ValueError):
        info.dtypes(kind="floating")


# --- DLPack -------------------------------------------------------------------------

@pytest.mark.parametrize("name", ALL)
def test_dlpack_round_trip_with_numpy_on_cpu(name, on_cpu):
    if not on_cpu:
        pytest.skip("NumPy can only import host (kDLCPU) memory")
    host = np.arange(12).reshape(3, 4).astype(name)
    x = cw.asarray(host)
    assert x.__dlpack_device__()[0] == 1  # kDLCPU
    exported = np.from_dlpack(x)
    np.testing.assert_array_equal(exported, host)
    back = cw.from_dlpack(exported)
    assert back.dtype == dt(name) and back.shape == host.shape
    np.testing.assert_array_equal(to_np(back), host)
    imported = cw.from_dlpack(host[:, ::2])
    np.testing.assert_array_equal(to_np(imported), host[:, ::2])


def test_from_dlpack_copy_semantics_on_cpu(on_cpu):
    if not on_cpu:
        pytest.skip("host memory only")
    host = np.zeros(4)
    copied = cw.from_dlpack(host, copy=True)
    host[1] = 5.0
    assert to_np(copied)[1] == 0.0, "copy=True must not share the producer's memory"
    try:
        shared = cw.from_dlpack(host, copy=False)
    except (ValueError, BufferError):
        return  # the standard: raise when the import cannot avoid a copy
    host[2] = 7.0
    assert to_np(shared)[2] == 7.0, "copy=False must share the producer's memory"


def test_dlpack_device_of_an_array(dev):
    kind, ordinal = cw.zeros(2).__dlpack_device__()
    if dev.backend == "cpu":
        assert (int(kind), ordinal) == (1, 0)
    else:
        assert int(kind) in (2, 10)  # kDLCUDA (HIP on NVIDIA) or kDLROCM
        assert ordinal == dev.ordinal


def test_from_dlpack_rejects_objects_without_dlpack():
    with pytest.raises((TypeError, AttributeError, BufferError)):
        cw.from_dlpack([1, 2, 3])


def test_from_dlpack_of_a_candlewick_array(dev):
    x = cw.asarray([1.0, 2.0, 3.0])
    y = cw.from_dlpack(x)
    assert y.device == dev
    np.testing.assert_array_equal(to_np(y), [1.0, 2.0, 3.0])


# --- array-api-compat -----------------------------------------------------------------

@given(x=any_arrays(shapes(max_dims=2)))
def test_array_api_compat_recognises_candlewick(x):
    assert array_api_compat.is_array_api_obj(x)
    assert array_api_compat.array_namespace(x) is cw
    assert array_api_compat.array_namespace(x, x[...]) is cw
    assert array_api_compat.device(x) == x.device


# --- copy semantics -------------------------------------------------------------------

@given(x=any_arrays(shapes(min_dims=1, max_dims=3, min_side=1)))
def test_asarray_copy_semantics(x):
    # copy=None: no copy is needed, so none is made
    assert same_memory(cw.asarray(x), x)
    assert same_memory(cw.asarray(x, copy=False), x)
    copied = cw.asarray(x, copy=True)
    assert not same_memory(copied, x)
    np.testing.assert_array_equal(to_np(copied), to_np(x))


def test_asarray_copy_false_when_a_copy_is_needed():
    with pytest.raises(ValueError):
        cw.asarray([1, 2, 3], copy=False)
    x = cw.asarray([1, 2, 3], dtype=cw.int32)
    with pytest.raises(ValueError):
        cw.asarray(x, dtype=cw.int64, copy=False)


@given(x=any_arrays(shapes(min_dims=1, max_dims=3, min_side=1)))
def test_reshape_copy_semantics(x):
    flat = cw.reshape(x, (-1,))
    assert same_memory(flat, x), "reshaping a contiguous array is a view"
    assert same_memory(cw.reshape(x, (-1,), copy=False), x)
    assert not same_memory(cw.reshape(x, (-1,), copy=True), x)
    if x.ndim >= 2 and x.shape[-2] > 1 and x.shape[-1] > 1:
        transposed = x.mT
        with pytest.raises(ValueError):
            cw.reshape(transposed, (-1,), copy=False)
        copied = cw.reshape(transposed, (-1,))
        np.testing.assert_array_equal(to_np(copied), np.swapaxes(to_np(x), -1, -2).reshape(-1))


def test_astype_copy_false_keeps_memory_when_the_dtype_matches():
    x = cw.asarray([1.0, 2.0, 3.0])
    assert same_memory(cw.astype(x, cw.float64, copy=False), x)
    assert not same_memory(cw.astype(x, cw.float64), x)


def test_views_share_memory():
    x = cw.reshape(cw.arange(24, dtype=cw.float64), (2, 3, 4))
    for view in (x[1], x[:, ::2], x[..., ::-1], cw.permute_dims(x, (2, 0, 1)), x.mT,
                 cw.expand_dims(x, axis=0), cw.flip(x, axis=1), cw.moveaxis(x, 0, -1),
                 cw.squeeze(cw.expand_dims(x, axis=1), axis=1), cw.unstack(x)[1]):
        assert same_memory(view, x), "this manipulation is documented to return a view"


@pytest.mark.parametrize("copy", [None, True, False])
@pytest.mark.parametrize("to_host", [False, True])
def test_dlpack_export_flags_every_copy(dev, copy, to_host):
    """__dlpack__ with every copy / dl_device combination the standard defines: a copy
    (asked for, or needed to reach the host) carries DLPACK_FLAG_BITMASK_IS_COPIED in the
    versioned capsule; copy=False to another device is a BufferError."""
    from rocm_backend import dlpack as capsules  # the ctypes reader of DLPack capsules

    x = cw.asarray(np.arange(6.0).reshape(2, 3))
    own = x.__dlpack_device__()
    target = (1, 0) if to_host else own
    moves = tuple(int(v) for v in target) != tuple(int(v) for v in own)
    if moves and copy is False:
        with pytest.raises(BufferError):
            x.__dlpack__(max_version=(1, 0), dl_device=target, copy=False)
        return
    imported = capsules.Imported(x.__dlpack__(max_version=(1, 0), dl_device=target, copy=copy))
    try:
        assert imported.device == tuple(int(v) for v in target)
        assert bool(imported.flags & capsules.FLAG_IS_COPIED) == bool(copy or moves)
    finally:
        imported.release()
    for unversioned in (x.__dlpack__(), x.__dlpack__(copy=copy, dl_device=target)):
        capsules.Imported(unversioned).release()
