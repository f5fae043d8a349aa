"""Small helpers shared by the rocm GPU tests."""

import ml_dtypes
import numpy as np

from candlewick.layout import Layout


def upload(device, array):
    """(storage, contiguous layout) of a host array on ``device``."""
    array = np.ascontiguousarray(array)
    return device.storage_from_host(array), Layout.contiguous(array.shape)


def read(storage, shape):
    return storage.to_host(Layout.contiguous(tuple(shape)))


def eps(dtype):
    return float(ml_dtypes.finfo(dtype.numpy).eps)


def tiny(dtype):
    return float(ml_dtypes.finfo(dtype.numpy).smallest_subnormal)
