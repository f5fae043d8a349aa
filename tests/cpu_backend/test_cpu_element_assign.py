"""CpuStorage.assign's one-element case in C (candlewick._native.ElementAssign, where it
was built): the element copied as the Python primitive copies it, for every dtype; every
other case, and every error, the Python primitive's."""

import ml_dtypes
import numpy as np
import pytest

from candlewick import _core
from candlewick.array import Array
from candlewick.errors import DTypeError
from candlewick.layout import Layout
from cpu_backend import copies
from cpu_backend.storage import CpuStorage
from cpu_helpers import download, upload

pytestmark = pytest.mark.skipif(_core._native is None, reason="candlewick._native was not built here")

DTYPES = [np.bool_, np.int8, np.uint16, np.int32, np.int64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64,
          np.complex64, np.complex128]


def test_the_primitive_is_the_c_one_over_the_python_one():
    assert type(CpuStorage.assign) is _core._native.ElementAssign
    assert CpuStorage.assign.general is copies.assign


@pytest.mark.parametrize("np_dtype", DTYPES)
def test_one_element_is_copied_as_the_python_primitive_copies_it(np_dtype):
    rng = np.random.default_rng(0)
    host = (rng.standard_normal(24) * 100).astype(np_dtype)
    values = (rng.standard_normal(5) * 100).astype(np_dtype)
    fast, _ = upload(host)
    python, _ = upload(host)
    src, _ = upload(values)
    for at, frm in ((0, 4), (23, 0), (7, 2)):
        fast.assign(Layout((), (), at), src, Layout((), (), frm))
        copies.assign(python, Layout((), (), at), src, Layout((), (), frm))
    got, want = download(fast, (24,)), download(python, (24,))
    assert got.tobytes() == want.tobytes()
    assert got[7] == values[2]


def test_other_cases_and_errors_are_the_python_primitives():
    x, layout = upload(np.zeros((3, 4), np.float32))
    row, row_layout = upload(np.arange(4, dtype=np.float32))
    x.assign(Layout((4,), (1,), 4), row, row_layout)  # not one element
    assert download(x, (3, 4))[1].tolist() == [0, 1, 2, 3]
    wide, _ = upload(np.ones(2, np.float64))
    with pytest.raises(DTypeError, match="assign: src has dtype .*float64, expected .*float32"):
        x.assign(Layout((), (), 0), wide, Layout((), (), 0))
    with pytest.raises(IndexError):
        x.assign(Layout((), (), 12), row, Layout((), (), 0))  # past the buffer: NumPy's error
    frozen = np.zeros(4, np.float32)
    frozen.flags.writeable = False
    ro = CpuStorage(frozen, x.dtype)
    with pytest.raises(ValueError, match="read-only"):
        ro.assign(Layout((), (), 0), row, Layout((), (), 1))
    _core._native.unbind()  # an unbound module: the Python primitive
    try:
        x.assign(Layout((), (), 11), row, Layout((), (), 3))
    finally:
        _core.bind_native(Array)
    assert download(x, (3, 4))[2, 3] == 3
