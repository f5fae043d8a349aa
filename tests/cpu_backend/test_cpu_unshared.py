"""CpuStorage.unshared (the optional hook backend.UnsharedStorage, which temporary elision
asks): True only while nothing but the storage refers to its buffer's memory."""

import numpy as np

import candlewick as cw
from candlewick.backend import UnsharedStorage


def test_a_fresh_result_is_unshared_until_viewed():
    x = cw.asarray(np.ones((4, 4))) + 1.0
    storage = x._storage
    assert isinstance(storage, UnsharedStorage)
    assert storage.unshared()
    view = np.asarray(x)  # NumPy's view of the buffer
    assert not storage.unshared()
    del view
    assert storage.unshared()


def test_a_products_flat_reshape_is_unshared():
    a = cw.asarray(np.ones((4, 4)))
    product = a @ a
    assert product._storage.buf.base is not None  # (matmul's result reshaped flat)
    assert product._storage.unshared()


def test_imported_and_read_only_memory_is_shared():
    host = np.ones(8)
    assert not cw.from_dlpack(host)._storage.unshared()
    frozen = np.ones(8)
    frozen.flags.writeable = False
    assert not cw.from_dlpack(frozen)._storage.unshared()
