"""Upload/download helpers shared by the cpu_backend unit tests."""

import numpy as np

from candlewick.layout import Layout
from cpu_backend import CPU_DEVICE


def upload(array):
    """A storage holding ``array`` (C order) and its contiguous layout."""
    array = np.ascontiguousarray(array)
    return CPU_DEVICE.storage_from_host(array), Layout.contiguous(array.shape)


def download(storage, shape):
    return storage.to_host(Layout.contiguous(shape))
