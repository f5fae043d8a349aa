"""What other libraries' users reach for on the first day, on every backend under test:
``tolist``/``item``, ``format`` and ``round`` of 0-d arrays, devices equal to their names,
big-endian NumPy input, and bfloat16 through DLPack (DLPack's own kDLBfloat type)."""

import ctypes

import ml_dtypes
import numpy as np
import pytest

import candlewick as cw

KDL_BFLOAT = 4


def test_tolist_and_item(device):
    x = cw.asarray([[1, 2], [3, 4]], dtype=cw.int16, device=device)
    assert x.tolist() == [[1, 2], [3, 4]]
    assert all(type(v) is int for row in x.tolist() for v in row)
    assert x.mT.tolist() == [[1, 3], [2, 4]]  # through the view's layout
    assert cw.asarray(2.5, device=device).tolist() == 2.5
    half = cw.asarray([1.5, -0.25], dtype=cw.bfloat16, device=device).tolist()
    assert half == [1.5, -0.25] and all(type(v) is float for v in half)
    assert cw.asarray([[7]], dtype=cw.uint8, device=device).item() == 7
    assert type(cw.asarray(True, device=device).item()) is bool
    assert cw.asarray(1 + 2j, device=device).item() == 1 + 2j
    assert type(cw.asarray(0.5, dtype=cw.bfloat16, device=device).item()) is float
    with pytest.raises(ValueError, match="size 1"):
        x.item()


def test_format_and_round_of_0d_arrays(device):
    x = cw.asarray(3.14159, device=device)
    assert f"{x:.2f}" == "3.14" and f"{x:>8.3f}" == "   3.142"
    assert f"{cw.asarray(42, dtype=cw.int32, device=device):05d}" == "00042"
    assert f"{x}" == str(x)
    with pytest.raises(TypeError, match="0-d"):
        f"{cw.asarray([1.0, 2.0], device=device):.2f}"
    assert round(cw.asarray(2.5, device=device)) == 2 and type(round(x)) is int  # ties to even
    assert round(cw.asarray(-3.7, dtype=cw.float32, device=device)) == -4
    assert round(cw.asarray(9, dtype=cw.int64, device=device)) == 9
    r = round(x, 2)
    assert r.dtype is cw.float64 and r.shape == () and float(r) == 3.14
    r32 = round(cw.asarray(2.4567, dtype=cw.float32, device=device), 1)
    assert r32.dtype is cw.float32 and abs(float(r32) - 2.5) < 1e-6
    with pytest.raises(TypeError):
        round(cw.asarray(1 + 1j, device=device))
    with pytest.raises(TypeError, match="0-d"):
        round(cw.asarray([1.5], device=device))


@pytest.mark.parametrize("values,dtype", [
    ([1, 2, 3], "int64"), ([[1.5, -2.0], [0.0, 1e10]], "float64"), (2.5, "float32"), (True, "bool"),
    ([1 + 2j, -3j], "complex64"), ([0.5, 1.25], "bfloat16"), ([], "int8"), (list(range(2000)), "int32"),
])
def test_str_and_print_are_numpys(device, values, dtype, capsys):
    """``str(x)`` and ``print(x)`` show the elements as NumPy does, on every backend (the
    repr keeps its ``Array(..., dtype=..., device=...)`` form)."""
    host = np.asarray(values, dtype=getattr(ml_dtypes, dtype, None) or dtype)
    x = cw.asarray(host, device=device)
    assert str(x) == str(host) and f"{x}" == str(host)
    print(x[::-1] if x.ndim else x)
    assert capsys.readouterr().out == str(host[::-1] if host.ndim else host) + "\n"
    assert repr(x).startswith("Array(") and f"device='{device.name}'" in repr(x)


def test_devices_equal_their_names(device):
    x = cw.asarray([1.0], device=device)
    name = x.device.name
    assert x.device == name and name == x.device and not (x.device != name)
    assert hash(x.device) == hash(name)
    assert {name: "found"}[x.device] == "found" and x.device in {name}
    assert x.device != name + "x" and x.device != 0
    assert x.device == cw.get_device(name) and x.device is cw.get_device(name)
    if name != "cpu":
        assert cw.get_device("cpu") != x.device


@pytest.mark.parametrize("code", [">i4", ">u2", ">f8", ">c8", ">i8"])
def test_big_endian_numpy_input_is_converted(device, code):
    host = np.arange(6, dtype=code).reshape(2, 3) * 3
    x = cw.asarray(host, device=device)
    assert x.dtype.numpy == host.dtype.newbyteorder("=")
    np.testing.assert_array_equal(cw.to_numpy(x), host)
    wide = cw.complex128 if host.dtype.kind == "c" else cw.float64
    y = cw.asarray(host, dtype=wide, device=device)
    np.testing.assert_array_equal(cw.to_numpy(y), host.astype(wide.numpy))


def _capsule_dtype(capsule):
    """(code, bits) of an unconsumed DLPack capsule's tensor, read as dlpack.h lays it out."""
    api = ctypes.PyDLL(None)
    is_valid, pointer = api.PyCapsule_IsValid, api.PyCapsule_GetPointer
    is_valid.restype, is_valid.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]
    pointer.restype, pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    for name, tensor_offset in ((b"dltensor", 0), (b"dltensor_versioned", 32)):
        if is_valid(capsule, name):
            address = pointer(capsule, name) + tensor_offset + 20  # data, device, ndim, dtype
            return tuple(ctypes.string_at(address, 2))
    raise AssertionError("not a DLPack capsule")


class _Producer:
    """A DLPack producer that is not a candlewick array (forwards to one)."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_bfloat16_dlpack_uses_dlpacks_bfloat16_type(device):
    values = [1.5, -2.25, 3.0, 0.0078125]
    x = cw.asarray(values, dtype=cw.bfloat16, device=device)
    assert _capsule_dtype(x.__dlpack__()) == (KDL_BFLOAT, 16)
    assert _capsule_dtype(x.__dlpack__(max_version=(1, 0))) == (KDL_BFLOAT, 16)
    back = cw.from_dlpack(_Producer(x[::-1]))
    # host memory (kDLCPU) lands on the default device (a host-memory backend's array too)
    landing = cw.get_device(None) if x.__dlpack_device__()[0] == 1 else x.device
    assert back.dtype is cw.bfloat16 and back.device == landing
    assert back.tolist() == values[::-1]
    # other dtypes keep their own codes
    assert _capsule_dtype(cw.asarray([1], dtype=cw.uint16, device=device).__dlpack__()) == (1, 16)
    assert _capsule_dtype(cw.asarray([1.0], dtype=cw.float16, device=device).__dlpack__()) == (2, 16)


def test_bfloat16_dlpack_with_torch(device):
    torch = pytest.importorskip("torch")
    x = cw.asarray([[1.5, -2.25], [3.0, 0.5]], dtype=cw.bfloat16, device=device)
    host_memory = int(x.__dlpack_device__()[0]) == 1
    if not host_memory and not torch.cuda.is_available():
        pytest.skip("this torch build cannot take device memory")
    t = torch.from_dlpack(x)
    assert t.dtype is torch.bfloat16 and t.shape == (2, 2)
    assert t.float().cpu().tolist() == [[1.5, -2.25], [3.0, 0.5]]
    source = torch.tensor([[1.0, 2.5], [-4.0, 8.0]], dtype=torch.bfloat16, device=t.device)
    y = cw.from_dlpack(source.T)
    assert y.dtype is cw.bfloat16 and y.device == x.device
    assert y.tolist() == [[1.0, -4.0], [2.5, 8.0]]
    if host_memory:  # zero-copy both ways
        t[0, 0] = 8.0
        assert x.tolist()[0][0] == 8.0
        source[0, 1] = 16.0
        assert y.tolist()[1][0] == 16.0
    np.testing.assert_array_equal(cw.to_numpy(y), source.T.float().cpu().numpy().astype(ml_dtypes.bfloat16))
