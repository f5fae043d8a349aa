"""Errors raised by the shared helpers (axes, shapes, dtypes, devices) name the public
function the user called (issue 21): ``CandlewickError`` puts the name the stack shows in
front of a message that lacks it, and leaves alone a message that names it already."""

import pytest

import candlewick as cw
from candlewick.errors import CandlewickError, DeviceMemoryError, ShapeError, calling_public_function

X = cw.ones((2, 3))


@pytest.mark.parametrize("call, name", [
    (lambda: cw.concat([X, X], axis=(1,)), "concat"),              # layout.normalize_axis
    (lambda: cw.moveaxis(X, 5, 0), "moveaxis"),
    (lambda: cw.broadcast_arrays(X, cw.ones(4)), "broadcast_arrays"),  # layout.broadcast_shapes
    (lambda: cw.add(X, cw.ones(4)), "add"),                        # a generated element-wise function
    (lambda: X + cw.ones(4), "Array.__add__"),                     # an operator
    (lambda: cw.asarray([1], dtype=2.5j), "asarray"),              # dtypes.as_dtype
    (lambda: cw.zeros(3, device=1.5), "zeros"),                    # registry.get_device
    (lambda: cw.linalg.eigvalsh(cw.ones((2, 2), dtype=cw.bool)), "linalg.eigvalsh"),
    (lambda: X[1, 2, 3], "Array.__getitem__"),
    (lambda: cw.broadcast_shapes((2, 3), (4,)), "broadcast_shapes"),  # behind the Array API revision check
    (lambda: cw.linalg.eigvals(cw.asarray([[float("nan"), 1.0], [0.0, 1.0]])), "linalg.eigvals"),  # in a backend
])
def test_helper_errors_name_the_function_called(call, name):
    with pytest.raises(CandlewickError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{name}: ") and not message.startswith(f"{name}: {name}"), message


def test_a_message_naming_its_function_is_left_alone():
    with pytest.raises(CandlewickError) as info:
        cw.reshape(X, (4, 4))
    assert str(info.value).startswith("reshape: ") and "reshape: reshape" not in str(info.value), info.value


def test_errors_made_outside_a_public_call_are_unchanged():
    assert calling_public_function() is None
    assert str(ShapeError("shapes do not fit")) == "shapes do not fit"
    assert str(DeviceMemoryError("cpu", 10, 5)) == "out of memory on cpu: asked for 10 bytes, 5 bytes free"
