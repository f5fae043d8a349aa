"""``rfftn``'s result layout (the one primitive that returns one): the front end takes a
dense permutation as a view and refuses anything else with a BackendError, since a wrong
layout would read memory the result does not own."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import BackendError
from candlewick.fft._common import scaled_view
from candlewick.layout import Layout


@pytest.mark.parametrize("layout, dense", [
    (Layout.contiguous((2, 3, 4)), True),
    (Layout((4, 3), (1, 4), 0), True),           # a transposed (3, 4) buffer
    (Layout((2, 1, 3), (1, 99, 2), 0), True),     # a size-1 axis's stride does not matter
    (Layout((0, 3), (3, 1), 0), True),
    (Layout((4, 3), (1, 5), 0), False),           # gaps
    (Layout((4, 3), (3, 1), 2), False),           # offset
    (Layout((4, 3), (1, 2), 0), False),           # overlaps
], ids=str)
def test_is_dense_permutation(layout, dense):
    assert layout.is_dense_permutation() is dense


def test_scaled_view_takes_a_transposed_result_and_refuses_a_bad_layout():
    device = cw.get_device("cpu")
    spectrum = np.arange(12, dtype=np.complex64).reshape(4, 3)
    stored = device.storage_from_host(np.ascontiguousarray(spectrum.T))  # (3, 4) in memory
    got = scaled_view(stored, Layout((4, 3), (1, 4), 0), (4, 3), cw.complex64, device, 1.0, "rfftn")
    np.testing.assert_array_equal(cw.to_numpy(got), spectrum)
    halved = scaled_view(stored, Layout((4, 3), (1, 4), 0), (4, 3), cw.complex64, device, 0.5, "rfftn")
    np.testing.assert_array_equal(cw.to_numpy(halved), spectrum * 0.5)
    with pytest.raises(BackendError, match=r"fft\.rfftn: the backend returned a layout"):
        scaled_view(stored, Layout((4, 3), (1, 5), 0), (4, 3), cw.complex64, device, 1.0, "rfftn")
    with pytest.raises(BackendError, match="not a dense permutation of shape"):
        scaled_view(stored, Layout.contiguous((4, 3)), (3, 4), cw.complex64, device, 1.0, "rfftn")
