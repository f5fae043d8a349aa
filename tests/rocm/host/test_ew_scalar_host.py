"""An array and a Python scalar on strided and broadcast layouts (launch_ew's prepared
launches, whose scalar slots are four 8-byte words filled per launch like the pointers),
run on the CPU through the backend's own host path and its kernels compiled for the host
(host_exec.py), against NumPy; and the plans' packing of the words is the struct's packing
of the scalar bytes (test_launch_from_c.py: the words written from C are the same bytes)."""

import numpy as np
import pytest

from candlewick import dtypes as dt
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp
from host_exec import build, device_factory
from rocm_backend import ops
from rocm_backend.abi import structs
from rocm_backend.families import ew_launch

DTYPES = {"float32": (dt.float32, np.float32), "float64": (dt.float64, np.float64),
          "complex64": (dt.complex64, np.complex64), "complex128": (dt.complex128, np.complex128)}
# a value per dtype whose every byte matters: a wrong word or slot changes the result
SCALARS = {"float32": -2.75, "float64": 1.0 / 3.0, "complex64": 1.5 - 0.25j, "complex128": -1.0 / 3.0 + 2.5j}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    keys = [("binary", op, d) for op in (BinaryOp.SUBTRACT, BinaryOp.DIVIDE) for d, _ in DTYPES.values()]
    return build(tmp_path_factory.mktemp("ew_scalar_host"), [], [ops.lookup(key) for key in keys])


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)()[1]


def _layout(base, view):
    item = base.dtype.itemsize
    return Layout(view.shape, tuple(s // item for s in view.strides),
                  (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item)


@pytest.mark.parametrize("name", sorted(DTYPES))
@pytest.mark.parametrize("op", [BinaryOp.SUBTRACT, BinaryOp.DIVIDE])
def test_strided_and_broadcast_operands_with_a_scalar_on_either_side(dev, name, op):
    cw_dtype, npd = DTYPES[name]
    scalar = SCALARS[name]
    base = (np.arange(1, 241) * 0.5 - 30.25).astype(npd).reshape(12, 20)
    if npd in (np.complex64, np.complex128):
        base = base + (np.arange(240).reshape(12, 20) * 0.125).astype(npd) * 1j
    storage = dev.storage_from_host(base)
    row = base[3]
    views = {"transposed": (base, base.T), "every other column reversed": (base, base[::-1, ::2]),
             "a row broadcast down 5 rows": (base, np.broadcast_to(row, (5, 20)))}
    reference = np.subtract if op is BinaryOp.SUBTRACT else np.divide
    for what, (owner, view) in views.items():
        layout = _layout(owner, view)
        if not view.strides[0]:
            layout = Layout(view.shape, (0, 1), 3 * 20)
        for reflected in (False, True):
            got = storage.binary_scalar(op, layout, scalar, reflected).to_host(Layout.contiguous(view.shape))
            s = npd(scalar)
            want = reference(s, view) if reflected else reference(view, s)
            np.testing.assert_allclose(got, want.astype(npd), rtol=2e-6 if npd in (np.float32, np.complex64) else 1e-14,
                                       err_msg=f"{name} {op.value} {what} reflected={reflected}")


def _packed_reference(values, scalar):
    head = values[:-structs.SCALAR_WORDS]
    return structs.EW_ARGS.struct.pack(*head, scalar.ljust(structs.SCALAR_BYTES, b"\0"))


@pytest.mark.parametrize("value, dtype", [(-2.75, dt.float32), (1.0 / 3.0, dt.float64), (1.5 - 0.25j, dt.complex64),
                                          (-1.0 / 3.0 + 2.5j, dt.complex128), (-7, dt.int64), (200, dt.uint8)])
@pytest.mark.parametrize("reflected", [False, True])
def test_scalar_words_are_the_scalar_bytes(value, dtype, reflected):
    """launch_ew's words of a binary_scalar's 32 scalar bytes, packed by the plans' packer,
    give the bytes of the struct packed with the scalar as one bytes value."""
    bits = ew_launch.scalar_bytes(value, dtype)
    packed = bits + bytes(16) if reflected else bytes(16) + bits
    values = list(range(1, len(structs.EW_ARGS.value_fields(ew_launch._EW_PLANNED)) + 1))
    words = ew_launch._SCALAR_WORDS.unpack(packed)
    values[-structs.SCALAR_WORDS:] = words
    assert ew_launch._EW_PLANNED.pack(*values) == _packed_reference(values, packed)
    slot = structs.EW_ARGS.offsets["scalar"] + (0 if reflected else 16)
    assert ew_launch._EW_PLANNED.pack(*values)[slot:slot + 16] == bits
