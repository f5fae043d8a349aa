"""The primitives whose result may come with its layout (``rfftn``; ``qr``'s Q): the front
end takes a dense permutation as a view and refuses anything else with a BackendError,
since a wrong layout would read memory the result does not own."""

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


def test_qr_takes_a_column_major_q_and_refuses_a_bad_layout(monkeypatch):
    """A backend's qr may return Q as (storage, layout), column-major as LAPACK leaves it;
    a backend that returns plain storages (the cpu one) is read C-contiguous as before."""
    device = cw.get_device("cpu")
    a = np.random.default_rng(0).standard_normal((6, 4))
    x = cw.asarray(a, device=device)
    q_np, r_np = np.linalg.qr(a)
    plain_q, plain_r = cw.linalg.qr(x)
    np.testing.assert_allclose(cw.to_numpy(plain_q), q_np, atol=1e-12)
    storage_type = type(x._storage)
    q_layout = Layout((6, 4), (1, 6), 0)

    def column_major_q(self, layout, complete):
        return (device.storage_from_host(np.ascontiguousarray(q_np.T)), q_layout), device.storage_from_host(r_np)

    monkeypatch.setattr(storage_type, "qr", column_major_q)
    q, r = cw.linalg.qr(x)
    assert q._layout == q_layout and q.shape == (6, 4)
    np.testing.assert_array_equal(cw.to_numpy(q), q_np)
    np.testing.assert_array_equal(cw.to_numpy(r), r_np)
    q_layout = Layout((6, 4), (1, 7), 0)  # gaps: past the storage's 24 elements
    with pytest.raises(BackendError, match=r"linalg\.qr: the backend returned a layout"):
        cw.linalg.qr(x)


def test_svd_takes_column_major_u_and_vh(monkeypatch):
    """svd's U and Vh may each come with a layout, as qr's Q (hipSOLVER leaves them
    column-major); the front end checks each against its shape."""
    device = cw.get_device("cpu")
    a = np.random.default_rng(1).standard_normal((6, 4))
    x = cw.asarray(a, device=device)
    u_np, s_np, vh_np = np.linalg.svd(a, full_matrices=False)
    layouts = {"u": Layout((6, 4), (1, 6), 0), "vh": Layout((4, 4), (1, 4), 0)}

    def column_major_factors(self, layout, full_matrices):
        return ((device.storage_from_host(np.ascontiguousarray(u_np.T)), layouts["u"]), device.storage_from_host(s_np),
                (device.storage_from_host(np.ascontiguousarray(vh_np.T)), layouts["vh"]))

    monkeypatch.setattr(type(x._storage), "svd", column_major_factors)
    u, s, vh = cw.linalg.svd(x, full_matrices=False)
    assert u._layout == layouts["u"] and vh._layout == layouts["vh"]
    np.testing.assert_array_equal(cw.to_numpy(u), u_np)
    np.testing.assert_array_equal(cw.to_numpy(vh), vh_np)
    np.testing.assert_array_equal(cw.to_numpy(s), s_np)
    layouts["vh"] = Layout((4, 4), (1, 5), 0)
    with pytest.raises(BackendError, match=r"linalg\.svd: the backend returned a layout"):
        cw.linalg.svd(x, full_matrices=False)
