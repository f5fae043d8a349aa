"""Device object, protocol shape, host transfer and creation primitives."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from candlewick import dtypes as dt
from candlewick import registry
from candlewick.backend import (OPTIONAL_CAPABILITIES, OPTIONAL_PRIMITIVES, Backend, BackendDevice, BackendStorage,
                                protocol_methods)
from candlewick.layout import Layout

from .checks import Expected, assert_bitwise_equal, read_flat, read_result, require_capability
from .strategies import dtype_params, host_arrays, scalars, shapes

ALL = dtype_params(dt.ALL_DTYPES)
OPTIONAL_GROUP = {name: group for group, names in OPTIONAL_PRIMITIVES.items() for name in names}
REAL_NUMERIC = dtype_params(dt.INTEGER + dt.REAL_FLOATING)


# --- the device object ---------------------------------------------------------------


def _missing(obj, name, protocol):
    """The failure text of a protocol method ``obj`` lacks, naming it and its contract."""
    contract = (getattr(protocol, name).__doc__ or "").strip().splitlines()
    first = f" ({contract[0]})" if contract else ""
    return (f"{type(obj).__name__} has no method {name!r}: {protocol.__name__}.{name} of candlewick/backend.py"
            f"{first}. Every primitive must exist; one a dtype cannot do raises UnsupportedOperation")


@pytest.mark.primitive(param="name")
@pytest.mark.parametrize("name", protocol_methods(BackendDevice))
def test_device_has_the_method(device, name):
    assert callable(getattr(device, name, None)), _missing(device, name, BackendDevice)


@pytest.mark.primitive(param="name")
@pytest.mark.parametrize("name", protocol_methods(BackendStorage))
def test_storage_has_the_primitive(device, name):
    """Every primitive, each filed under its own row; an optional group's only where the
    device declares the group (``capabilities``)."""
    group = OPTIONAL_GROUP.get(name)
    if group is not None:
        require_capability(device, group)
    storage = device.storage_from_host(np.zeros(3, np.int64))
    assert callable(getattr(storage, name, None)), _missing(storage, name, BackendStorage)


@pytest.mark.primitive("device object")
def test_device_satisfies_protocol(device):
    for attr in ("backend", "ordinal", "name", "dtypes", "capabilities"):
        assert hasattr(device, attr), f"{type(device).__name__} has no attribute {attr!r} (BackendDevice)"
    assert isinstance(device.backend, str) and device.backend
    assert isinstance(device.ordinal, int) and device.ordinal >= 0
    expected_name = "cpu" if device.backend == "cpu" else f"{device.backend}:{device.ordinal}"
    assert device.name == expected_name
    # users write x.device == "rocm:0"; candlewick gives a device class without equality
    # NamedDevice's, one that defines __eq__ or __hash__ must keep to it
    assert device == device.name and hash(device) == hash(device.name), (
        f"{device!r} does not compare equal to its name {device.name!r} (or hashes otherwise): "
        f"inherit candlewick.named_device.NamedDevice, or define no __eq__/__hash__")


@pytest.mark.primitive("backend object")
def test_backend_object_satisfies_protocol(device):
    backend = registry.get_backend(device.backend)
    for name in protocol_methods(Backend):
        assert callable(getattr(backend, name, None)), _missing(backend, name, Backend)
    assert backend.name == device.backend
    assert backend.probe() == (True, "")
    assert 0 <= device.ordinal < backend.device_count()
    details = backend.details()
    assert isinstance(details, dict)
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in details.items())


@pytest.mark.primitive("same_device")
def test_device_is_the_registry_singleton(device):
    assert registry.get_device(device.name) is device
    assert device.same_device(device) is True
    # every other device of every available backend is a different device
    for other in registry.all_devices():
        if other is not device:
            assert device.same_device(other) is False
            assert other.same_device(device) is False


@pytest.mark.primitive("device object")
def test_declared_dtypes_are_known_and_hold_the_protocol_results(device):
    """A device may declare a subset of the dtypes (many GPUs lack float64); the report
    shows the others as not declared. bool (comparisons) and int64 (indices) are results
    of required primitives, so every device has them."""
    declared = tuple(device.dtypes)
    unknown = [d for d in declared if d not in dt.ALL_DTYPES]
    assert not unknown, f"{device.name} declares dtypes candlewick does not know: {unknown}"
    missing = [d.name for d in (dt.bool_, dt.int64) if d not in declared]
    assert not missing, f"{device.name} must declare {missing}: required primitives return them"


@pytest.mark.primitive("device object")
def test_capabilities_are_known_groups(device):
    assert set(device.capabilities) <= set(OPTIONAL_CAPABILITIES)


@pytest.mark.primitive("synchronize", "memory_info")
def test_synchronize_and_memory_info(device):
    assert device.synchronize() is None
    info = device.memory_info()
    assert isinstance(info, tuple) and len(info) == 2
    free, total = info
    assert all(isinstance(v, int) and not isinstance(v, bool) for v in info)
    assert total > 0 and 0 <= free <= total


@pytest.mark.primitive("storage_from_host")
@pytest.mark.parametrize("dtype", ALL)
def test_storage_satisfies_protocol(device, dtype):
    s = device.storage_from_host(np.zeros(3, dtype.numpy))
    for attr in ("dtype", "device", "size", "to_host"):
        assert hasattr(s, attr), f"{type(s).__name__} has no attribute {attr!r} (BackendStorage)"
    assert s.dtype is dtype and s.size == 3
    assert s.device is device


# --- host transfer ---------------------------------------------------------------------


@pytest.mark.primitive("to_host")
@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_to_host_reads_every_layout(device, dtype, data):
    x = data.draw(host_arrays(dtype, data.draw(shapes())))
    s = x.upload(device)
    assert s.size == x.flat.size and s.dtype is dtype
    assert_bitwise_equal(read_flat(s), x.flat)
    got = s.to_host(x.layout)
    assert isinstance(got, np.ndarray) and got.flags.c_contiguous, (
        f"to_host of shape {x.layout.shape} returned {type(got).__name__}, not a C-contiguous NumPy array "
        f"(for a 0-d layout too: a 0-d array, not a scalar)")
    assert_bitwise_equal(got, x.value())


@pytest.mark.primitive("storage_from_host", "to_host")
@pytest.mark.parametrize("dtype", ALL)
def test_transfers_copy(device, dtype):
    grid = np.arange(6).reshape(2, 3).astype(dtype.numpy)
    # any C-contiguous array uploads as its flat C-order buffer
    assert_bitwise_equal(read_flat(device.storage_from_host(grid)), grid.reshape(-1))
    host = np.ones(4, dtype.numpy)
    s = device.storage_from_host(host)
    host[...] = 0  # the storage must not alias the uploaded array
    first = read_flat(s)
    assert_bitwise_equal(first, np.ones(4, dtype.numpy))
    first[...] = 0  # nor the downloaded one
    assert_bitwise_equal(read_flat(s), np.ones(4, dtype.numpy))


# --- creation --------------------------------------------------------------------------


@pytest.mark.primitive("zeros", "ones", "empty")
@pytest.mark.parametrize("dtype", ALL)
@given(shape=shapes())
def test_zeros_ones_empty(device, dtype, shape):
    assert_bitwise_equal(read_result(device.zeros(shape, dtype), dtype, shape),
                         np.zeros(shape, dtype.numpy))
    Expected(np.ones(shape, dtype.numpy)).check(read_result(device.ones(shape, dtype), dtype, shape))
    read_result(device.empty(shape, dtype), dtype, shape)  # shape, dtype and size only


@pytest.mark.parametrize("dtype", ALL)
@given(data=st.data())
def test_full(device, dtype, data):
    shape = data.draw(shapes())
    value = data.draw(scalars(dtype))
    got = read_result(device.full(shape, dtype, value), dtype, shape)
    # exact values and signs of zero (a NaN's payload is the host conversion's choice)
    Expected(np.full(shape, value, dtype.numpy), zero_sign=True).check(got)


@pytest.mark.parametrize("dtype", REAL_NUMERIC)
@given(data=st.data())
def test_arange(device, dtype, data):
    size = data.draw(st.integers(0, 40))
    if dtype.is_integer:
        info = np.iinfo(dtype.numpy)
        step = data.draw(st.integers(-3, 3))
        last = step * max(size - 1, 0)
        # every element must be representable (the front end checks the range)
        start = data.draw(st.integers(max(int(info.min), int(info.min) - last),
                                      min(int(info.max), int(info.max) - last)))
        expected = np.array([start + i * step for i in range(size)], dtype=dtype.numpy)
        Expected(expected).check(read_result(device.arange(start, step, size, dtype), dtype, (size,)))
        return
    start = data.draw(st.floats(-1e3, 1e3))
    step = data.draw(st.floats(-10, 10))
    # computed in float64 (one fused or two roundings) and cast once
    expected = (start + np.arange(size, dtype=np.float64) * step).astype(dtype.numpy)
    got = read_result(device.arange(start, step, size, dtype), dtype, (size,))
    Expected(expected, ulps=1, atol=2 * np.finfo(np.float64).eps * abs(step) * size).check(got)


@pytest.mark.primitive("zeros", "ones", "full", "empty", "arange")
@pytest.mark.parametrize("dtype", [pytest.param(dt.float32, id="float32")])
def test_creation_of_size_zero_and_0d(device, dtype):
    for shape in ((), (0,), (3, 0, 2)):
        for make in (device.zeros, device.ones, device.empty):
            read_result(make(shape, dtype), dtype, shape)
        assert read_result(device.full(shape, dtype, 2.0), dtype, shape).size == math.prod(shape)


@pytest.mark.primitive("storage_from_host", "to_host")
@pytest.mark.parametrize("dtype", ALL)
def test_storage_from_host_of_empty_and_0d(device, dtype):
    for shape in ((), (0,)):
        host = np.zeros(shape, dtype.numpy)
        s = device.storage_from_host(host.reshape(-1))
        assert s.size == host.size
        got = s.to_host(Layout.contiguous(shape))
        assert got.shape == shape and got.dtype == dtype.numpy
