"""Pickling a candlewick array (how Dask and cubed send chunks between processes): the
elements and the device's name travel; the unpickled array is on the receiving
process's own device object, so it combines with arrays made there."""

import pickle

import numpy as np
import pytest

import candlewick as cw


@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16", "int8", "bool", "complex64"])
def test_round_trip_keeps_elements_dtype_and_device(dtype, device):
    host = (np.arange(12).reshape(3, 4) % 3).astype("float32")
    x = cw.astype(cw.asarray(host, device=device), dtype)
    y = pickle.loads(pickle.dumps(x))
    assert y.dtype is x.dtype and y.shape == x.shape
    assert y.device is x.device  # the registry's device, not a copy of it
    np.testing.assert_array_equal(cw.to_numpy(y), cw.to_numpy(x))
    assert cw.concat([x, y]).shape == (6, 4)  # same device: they combine


def test_views_pickle_as_their_own_elements(device):
    x = cw.reshape(cw.arange(24.0, device=device), (4, 6))
    view = x[1:3, ::-2].mT
    y = pickle.loads(pickle.dumps(view))
    np.testing.assert_array_equal(cw.to_numpy(y), cw.to_numpy(view))
    assert len(pickle.dumps(view)) < len(pickle.dumps(x))  # only the view's elements travel


def test_zero_size_and_zero_dim(device):
    for x in (cw.zeros((0, 3), device=device), cw.asarray(2.5, device=device)):
        y = pickle.loads(pickle.dumps(x))
        assert y.shape == x.shape and y.device is x.device
