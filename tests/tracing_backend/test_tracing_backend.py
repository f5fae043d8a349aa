"""examples/tracing_backend: what it records, and a device declaring a dtype subset."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import UnsupportedOperation
from tracing_backend import TracingBackend


@pytest.fixture
def traced():
    backend = TracingBackend(wraps="cpu", hide="")
    return backend, backend.device(0)


def _tallies(backend):
    return {(p, o, d): t for p, o, d, t in backend.recorder.rows()}


def test_records_primitive_op_dtype_calls_and_bytes(traced):
    backend, dev = traced
    x = cw.ones((100,), dtype=cw.float32, device=dev)
    y = x * 2.0
    z = y * 3.0
    s = cw.sum(z)
    assert float(s) == 600.0
    rows = _tallies(backend)
    assert rows[("ones", "", "float32")].calls == 1
    assert rows[("ones", "", "float32")].bytes_written == 400
    mul = rows[("binary_scalar", "multiply", "float32")]
    assert (mul.calls, mul.bytes_read, mul.bytes_written) == (2, 800, 800)
    total = rows[("reduce", "sum", "float32")]
    assert (total.calls, total.bytes_read, total.bytes_written) == (1, 400, 4)
    text = backend.recorder.format()
    assert "binary_scalar" in text and "multiply" in text and text.splitlines()[-1].startswith("total")


def test_views_count_the_elements_they_view(traced):
    backend, dev = traced
    x = cw.reshape(cw.arange(12, dtype=cw.int32, device=dev), (3, 4))
    backend.recorder.reset()
    col = x[:, 1] + x[:, 2]  # two strided views of 3 elements each
    np.testing.assert_array_equal(cw.to_numpy(col), [3, 11, 19])
    add = _tallies(backend)[("binary", "add", "int32")]
    assert (add.calls, add.bytes_read, add.bytes_written) == (1, 24, 12)


def test_results_match_the_wrapped_backend_and_stay_on_the_tracing_device(traced):
    _, dev = traced
    host = np.linspace(-2, 2, 9)
    traced_result = cw.sort(cw.sin(cw.asarray(host, device=dev)), descending=True)
    plain = cw.sort(cw.sin(cw.asarray(host, device="cpu")), descending=True)
    assert traced_result.device is dev
    np.testing.assert_array_equal(cw.to_numpy(traced_result), cw.to_numpy(plain))
    assert dev.same_device(dev) and not dev.same_device(cw.registry.get_device("cpu"))
    with pytest.raises(cw.errors.DeviceMismatchError):
        traced_result + plain


def test_dlpack_export_shares_the_wrapped_memory(traced):
    _, dev = traced
    x = cw.arange(5, dtype=cw.int64, device=dev)
    np.testing.assert_array_equal(np.from_dlpack(x), np.arange(5))


def test_probe_reports_a_missing_wrapped_backend():
    ok, reason = TracingBackend(wraps="no_such_backend").probe()
    assert not ok and "no_such_backend" in reason
    ok, reason = TracingBackend(wraps="tracing").probe()
    assert not ok and "itself" in reason


@pytest.fixture
def no_float64():
    return TracingBackend(wraps="cpu", hide="float64,complex128,fft").device(0)


def test_declared_subset(no_float64):
    assert cw.float64 not in no_float64.dtypes and cw.float32 in no_float64.dtypes
    assert "fft" not in no_float64.capabilities and "linalg" in no_float64.capabilities


@pytest.mark.parametrize("make", [
    lambda dev: cw.ones((3,), device=dev),  # the default floating dtype is float64
    lambda dev: cw.asarray([1.5, 2.5], dtype=cw.float64, device=dev),
    lambda dev: cw.arange(3, dtype=cw.float32, device=dev).astype(cw.float64),
    lambda dev: cw.asarray(np.ones(2), device="cpu").to_device(dev),
    lambda dev: cw.random.uniform(size=(2,), device=dev),
], ids=["ones", "asarray", "astype", "to_device", "random"])
def test_undeclared_dtype_is_a_clear_error_naming_backend_and_dtype(no_float64, make):
    with pytest.raises(UnsupportedOperation, match=r"float64.*'tracing'.*tracing:0 does not support dtype float64"):
        make(no_float64)


def test_the_device_itself_refuses_withheld_dtypes(no_float64):
    with pytest.raises(UnsupportedOperation, match="storage_from_host.*float64"):
        no_float64.storage_from_host(np.ones(2))
    with pytest.raises(UnsupportedOperation, match="zeros.*complex128"):
        no_float64.zeros((2,), cw.complex128)
    x = no_float64.storage_from_host(np.ones(2, np.float32))
    with pytest.raises(UnsupportedOperation, match="astype.*float64"):
        x.astype(cw.layout.Layout.contiguous((2,)), cw.float64)


def test_declared_dtypes_still_work(no_float64):
    x = cw.arange(4, dtype=cw.float32, device=no_float64)
    np.testing.assert_array_equal(cw.to_numpy(x * 2.0), [0, 2, 4, 6])


def test_device_calls_that_return_no_storage_pass_through(traced):
    backend, dev = traced
    assert dev.synchronize() is None
    free, total = dev.memory_info()
    assert isinstance(free, int) and isinstance(total, int) and 0 <= free <= total
    assert _tallies(backend)[("memory_info", "", "")].calls == 1


def test_concat_and_compress_forward_their_storages_and_count_their_bytes(traced):
    backend, dev = traced
    a = cw.arange(4, dtype=cw.int32, device=dev)
    b = cw.arange(10, 13, dtype=cw.int32, device=dev)
    backend.recorder.reset()
    joined = cw.concat([a, b])
    np.testing.assert_array_equal(cw.to_numpy(joined), [0, 1, 2, 3, 10, 11, 12])
    row = _tallies(backend)[("concat", "", "int32")]
    assert (row.calls, row.bytes_read, row.bytes_written) == (1, 28, 28)
    kept = joined[joined > 2]
    assert kept.device is dev
    np.testing.assert_array_equal(cw.to_numpy(kept), [3, 10, 11, 12])
    assert _tallies(backend)[("compress", "", "int32")].calls == 1


@pytest.mark.parametrize("hide", ["", "real_view"])
def test_real_and_imag_views_are_wrapped_and_hiding_the_hook_copies(hide):
    """The wrapped cpu storage's real_view comes back as a tracing storage (never the cpu
    one, which the forwarding __getattr__ would hand out); hidden, imag is a copy."""
    backend = TracingBackend(wraps="cpu", hide=hide)
    dev = backend.device(0)
    z = cw.asarray(np.array([1 + 2j, 3 - 4j], np.complex64), device=dev)
    im = cw.imag(z)
    assert type(im._storage).__name__ == "TracingStorage" and im.device == z.device
    assert cw.to_numpy(im).tolist() == [2.0, -4.0]
    im[0] = 7.0
    assert complex(cw.to_numpy(z)[0]) == (1 + 2j if hide else 1 + 7j)  # a view writes into z
    rows = _tallies(backend)
    assert (("real_view", "", "complex64") in rows) is not bool(hide)
    assert (("unary", "imag", "complex64") in rows) is bool(hide)


def test_bool_goes_to_the_sort_as_it_is(traced):
    """sort and argsort hand bool to the backend's sort itself (the protocol takes it): no
    uint8 copy before it, no bool copy after it."""
    backend, dev = traced
    host = np.array([True, False, True, False, False, True])
    x = cw.asarray(host, device=dev)
    backend.recorder.reset()
    idx = cw.argsort(x, descending=True)
    values = cw.sort(x)
    np.testing.assert_array_equal(cw.to_numpy(idx), np.argsort(~host, kind="stable"))
    np.testing.assert_array_equal(cw.to_numpy(values), np.sort(host))
    assert values.dtype == cw.bool
    rows = _tallies(backend)
    assert rows[("argsort", "", "bool")].calls == 1 and rows[("sort_values", "", "bool")].calls == 1
    assert not [key for key in rows if key[0] == "astype"], rows
