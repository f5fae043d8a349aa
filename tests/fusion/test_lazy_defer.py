"""A deferred call in lazy mode (candlewick/fusion/lazy_defer.py): a ``binary`` call on
computed arrays whose result an inverse real FFT read alone is, from its next call on,
kept as the call (no graph) and run with the transform's scale into the transform's
input; every other reader computes it by the eager call. On every backend under test,
with the stand-in hooks of _irfft_hooks.py (the transform's input overwritten after it
ran): the values are eager mode's bit for bit, whoever reads the result (a primitive, a
recorded call, a host read, a write anywhere, the block's end, another thread), and the
errors are eager mode's. The rocm backend's fused kernel runs on the host in
tests/rocm/host/test_lazy_irfft_host.py."""

import threading

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_defer, lazy_mode, lazy_storage
from _irfft_hooks import bits, data, scratch  # noqa: F401 (scratch: a fixture)


@pytest.fixture(autouse=True)
def record_everywhere(monkeypatch):
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)  # (cpu runs lazy mode eagerly otherwise)


def _deferred(storage):
    return (type(storage) is lazy_storage.LazyStorage and storage.real is None
            and type(storage.pending) is lazy_defer.Deferral)


def _taught(x, response, norm="backward"):
    """The product read alone by irfft once in lazy mode (recorded, as lazy mode's first
    sight of a call): deferred from then on. Returns (spectrum, eager product, eager irfft)."""
    spectrum = cw.fft.rfft(x)
    with cw.lazy():
        product = spectrum * response
        assert not _deferred(product._storage)
        cw.fft.irfft(product, norm=norm)
    return spectrum, spectrum * response, cw.fft.irfft(spectrum * response, norm=norm)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_a_product_irfft_read_alone_is_deferred_from_then_on(device, scratch, norm):
    x, response = data(device)
    spectrum, want_product, want = _taught(x, response, norm)
    del scratch[:]
    for _ in range(3):
        with cw.lazy():
            product = spectrum * response
            assert _deferred(product._storage)
            got = cw.fft.irfft(product, norm=norm)
            assert _deferred(product._storage)  # (the transform read its own input)
        assert bits(got).tobytes() == bits(want).tobytes()
        assert bits(product).tobytes() == bits(want_product).tobytes()  # (computed at the block's end)
    assert len(scratch) == 3


def test_every_other_reader_computes_it_as_eager_mode(device, scratch):
    x, response = data(device)
    spectrum, want_product, _ = _taught(x, response)
    readers = {
        "recorded call": lambda p: p + 1.0,
        "reduction": lambda p: cw.sum(p, axis=1),
        "other primitive": lambda p: cw.matmul(p, cw.ones((p.shape[1], 2), dtype=p.dtype, device=device)),
        "indexing": lambda p: p[1:, ::2],
        "host read": lambda p: cw.asarray(cw.to_numpy(p), device=device),
        "irfft of a slice": lambda p: cw.fft.irfft(p[:2]),
    }
    for name, read in readers.items():
        want = read(want_product)
        with cw.lazy():
            product = spectrum * response
            assert _deferred(product._storage), name
            got = read(product)
        assert bits(got).tobytes() == bits(want).tobytes(), name


def test_a_write_computes_it_first(device, scratch):
    x, response = data(device)
    spectrum, want_product, _ = _taught(x, response)
    operand = cw.asarray(spectrum, copy=True)
    with cw.lazy():
        product = operand * response
        assert _deferred(product._storage)
        operand[0, 0] = 0.0  # (the product read operand before this write)
        assert product._storage.real is not None
    assert bits(product).tobytes() == bits(want_product).tobytes()
    with cw.lazy():
        product = spectrum * response
        product += 1.0  # (a write to the deferred result itself)
    assert bits(product).tobytes() == bits(want_product + 1.0).tobytes()


def test_one_dropped_leaves_nothing_pending(device, scratch):
    x, response = data(device)
    spectrum, _, want = _taught(x, response)
    with cw.lazy():
        got = cw.fft.irfft(spectrum * response)
        assert not lazy_storage.LIVE  # (its own weak reference forgot it: a write asks nothing)
    assert bits(got).tobytes() == bits(want).tobytes()


def test_not_deferred_where_an_operand_is_pending(device, scratch):
    x, response = data(device)
    spectrum, _, _ = _taught(x, response)
    with cw.lazy():
        product = (spectrum + 0.0) * response  # (its operand recorded: the call joins its graph)
        assert type(product._storage) is lazy_storage.LazyStorage and product._storage.node is not None


def test_another_thread_reads_it(device, scratch):
    x, response = data(device)
    spectrum, want_product, _ = _taught(x, response)
    got = []
    with cw.lazy():
        product = spectrum * response
        assert _deferred(product._storage)
        worker = threading.Thread(target=lambda: got.append(cw.to_numpy(product)))
        worker.start()
        worker.join()
    assert got[0].tobytes() == cw.to_numpy(want_product).tobytes()


def test_errors_are_eager_modes(device, scratch):
    x, response = data(device)
    spectrum, _, _ = _taught(x, response)
    for bad in (dict(n=0), dict(axis=2), dict(norm="sideways"), dict(n=7)):
        try:
            eager = cw.fft.irfft(spectrum * response, **bad)
        except Exception as error:  # noqa: BLE001 (whichever the eager call raises)
            with pytest.raises(type(error)) as lazy, cw.lazy():
                cw.fft.irfft(spectrum * response, **bad)
            assert str(lazy.value) == str(error)
        else:
            with cw.lazy():
                got = cw.fft.irfft(spectrum * response, **bad)
            assert bits(got).tobytes() == bits(eager).tobytes()
