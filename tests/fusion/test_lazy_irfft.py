"""irfft of a pending result in lazy mode on a device with the hooks ``IrfftScratchDevice``
(candlewick/fusion/lazy_consume.py, ``consume_irfft`` and ``Pending.consume``): the
graph writes the transform's input into a buffer the transform then overwrites, and the
result itself stays pending. On every backend under test, given a stand-in of the hooks
that overwrites its input with NaN after the transform (as a C2R may): the values are
eager mode's bit for bit, the consumed result reads right afterwards (in the block, after
it, after a write to what it was computed from), nothing an array holds is overwritten,
and the errors are eager mode's. The rocm backend's own hooks run on the host in
tests/rocm/host/test_lazy_irfft_host.py."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.fusion import lazy_mode, lazy_policy, lazy_storage
from candlewick.layout import Layout
from _irfft_hooks import bits, data, scratch  # noqa: F401 (scratch: a fixture)


@pytest.fixture(autouse=True)
def record_everywhere(monkeypatch):
    """Record on every backend (cpu runs lazy mode eagerly otherwise), and give these small
    arrays to the consumer path (``lazy_policy.CONSUME_BYTES``; its own test sets it)."""
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
    monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", 0)


@pytest.mark.parametrize("norm", ["backward", "ortho", "forward"])
def test_irfft_of_a_pending_product_equals_eager(device, scratch, norm):
    x, response = data(device)
    want = cw.fft.irfft(cw.fft.rfft(x) * response, norm=norm)
    for _ in range(3):  # (the policy sees the same call again)
        with cw.lazy():
            got = cw.fft.irfft(cw.fft.rfft(x) * response, norm=norm)
        assert np.array_equal(bits(got), bits(want))
    assert len(scratch) == 3


def test_the_consumed_product_reads_right_afterwards(device, scratch):
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    want_product = cw.to_numpy(spectrum * response)
    want = cw.to_numpy(cw.fft.irfft(spectrum * response))
    with cw.lazy():
        product = spectrum * response
        y = cw.fft.irfft(product)
        assert len(scratch) == 1 and isinstance(product._storage, lazy_storage.LazyStorage)
        assert product._storage.real is None  # still pending: its computed copy was the transform's
        assert np.array_equal(cw.to_numpy(product), want_product)  # computed again when read
        again = spectrum * response
        z = cw.fft.irfft(again)
    assert np.array_equal(cw.to_numpy(y), want) and np.array_equal(cw.to_numpy(z), want)
    assert np.array_equal(cw.to_numpy(again), want_product)  # the block's end computed it
    assert np.array_equal(cw.to_numpy(spectrum * response), want_product)  # its operands untouched


def test_a_write_computes_a_kept_product_first(device, scratch):
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    want_product = cw.to_numpy(spectrum * response)
    with cw.lazy():
        product = spectrum * response
        cw.fft.irfft(product)
        spectrum[0, 0] = 100.0  # the product was computed from the spectrum before this write
        assert np.array_equal(cw.to_numpy(product), want_product)


def test_a_product_no_one_holds_is_not_computed(device, scratch, monkeypatch):
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    runs = []
    original = lazy_storage.Pending.flush

    def counted(self):
        if self.graph.nodes:
            runs.append(len(self.graph.nodes))
        return original(self)

    monkeypatch.setattr(lazy_storage.Pending, "flush", counted)
    with cw.lazy():
        y = cw.fft.irfft(spectrum * response)
        assert not lazy_storage.LIVE  # its graph went with it: a write here asks nothing
    assert runs == [] and len(scratch) == 1 and not lazy_storage.LIVE
    assert y.shape == (3, 16)


@pytest.mark.parametrize("n, axis", [(20, -1), (4, 0)], ids=["padded", "first axis"])
def test_inputs_the_device_lays_out_itself_run_the_primitive(device, scratch, n, axis):
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    want = cw.fft.irfft(spectrum * 2.0, n=n, axis=axis)
    with cw.lazy():
        got = cw.fft.irfft(spectrum * 2.0, n=n, axis=axis)
    assert scratch == [] and np.array_equal(bits(got), bits(want))


@pytest.mark.parametrize("n", [None, 10], ids=["rows", "truncated"])
def test_a_view_of_the_product_is_copied_in_the_graph(device, scratch, n):
    x, response = data(device, rows=4)
    spectrum = cw.fft.rfft(x)
    want = cw.fft.irfft((spectrum * response)[::2], n=n, norm="forward")
    with cw.lazy():
        got = cw.fft.irfft((spectrum * response)[::2], n=n, norm="forward")
    assert len(scratch) == 1 and np.array_equal(bits(got), bits(want))


@pytest.mark.parametrize("norm, n", [("forward", 10), ("backward", None)], ids=["view's copy", "factor"])
def test_the_consumers_node_is_counted_by_no_policy(device, scratch, norm, n):
    """The node consume_irfft records for the transform's input (a copy of a view, the
    factor's multiply) is no user's call: the calls the run teaches lazy_policy (pinned
    as fusing on a fusing device, ``Pending.calls``, kept with the product) are the
    product's only."""
    x, response = data(device, rows=4)
    spectrum = cw.fft.rfft(x)
    with cw.lazy():
        product = spectrum * response
        cw.fft.irfft(product[::2], n=n, norm=norm)
        assert len(scratch) == 1
        assert [name for name, _, _ in product._storage.pending.calls] == ["binary"]


def test_a_product_below_the_bound_is_computed_and_copied(device, scratch, monkeypatch):
    """Under ``lazy_policy.CONSUME_BYTES`` the host's work of the consumer path would
    outlast the pass it saves: the graph runs and the primitive copies, as before."""
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    want = cw.fft.irfft(spectrum * response)
    monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", (spectrum * response).size * 8 + 1)
    with cw.lazy():
        product = spectrum * response
        got = cw.fft.irfft(product)
        assert product._storage.real is not None
    assert scratch == [] and np.array_equal(bits(got), bits(want))
    monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", (spectrum * response).size * 8)
    with cw.lazy():
        got = cw.fft.irfft(spectrum * response)
    assert len(scratch) == 1 and np.array_equal(bits(got), bits(want))


def test_below_the_bound_irfft_looks_up_no_recording_graph(device, scratch, monkeypatch):
    """``lazy_consume.may_consume`` is asked first: an irfft of a pending result below
    ``lazy_policy.CONSUME_BYTES`` runs the graph and the primitive without looking up the
    graph lazy mode records here (a call more on every such irfft); at the bound it does."""
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    size = (spectrum * response).size * 8
    for bound, looked_up in ((size + 1, 0), (size, 1)):
        monkeypatch.setattr(lazy_policy, "CONSUME_BYTES", bound)
        lazy_policy.reset()  # (recorded, not deferred: the graph's path)
        with cw.lazy():
            product = spectrum * response
            storage = product._storage
            assert type(storage) is lazy_storage.LazyStorage and storage.real is None
            asked = []
            recording = lazy_storage.RECORDING[0]
            lazy_storage.RECORDING[0] = lambda d: asked.append(d) or recording(d)
            try:
                storage.irfft(Layout.contiguous(storage.node.shape), 1, 16)
            finally:
                lazy_storage.RECORDING[0] = recording
        assert len(asked) == looked_up


def test_errors_are_eager_modes(device, scratch):
    x, response = data(device)
    spectrum = cw.fft.rfft(x)
    for bad in (dict(n=0), dict(axis=2), dict(norm="sideways")):
        with pytest.raises(Exception) as eager:
            cw.fft.irfft(spectrum * response, **bad)
        with pytest.raises(type(eager.value)) as lazy, cw.lazy():
            cw.fft.irfft(spectrum * response, **bad)
        assert str(lazy.value) == str(eager.value)
    assert scratch == []


def test_a_kept_result_let_go_while_another_thread_holds_the_lock_is_dropped_later(device):
    """``Pending._forget`` is a weakref callback: it runs in whichever thread lets the kept
    result go (during a collection too), so it never waits for the graph's lock; where
    another thread holds it, the dead reference stays and the next flush drops it."""
    import threading
    import weakref

    pending = lazy_storage.Pending(device)

    class Kept:
        pass

    kept = Kept()
    ref = weakref.ref(kept, pending._forget)
    pending.kept.append(ref)
    lazy_storage.LIVE.add(pending)
    held, release = threading.Event(), threading.Event()

    def hold():
        with pending.lock:
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert held.wait(10)
        del kept  # the callback runs here, while the other thread holds the lock
        assert pending.kept == [ref] and pending in lazy_storage.LIVE
    finally:
        release.set()
        holder.join()
    pending.flush()
    assert pending.kept == [] and pending not in lazy_storage.LIVE


def test_a_factor_node_that_fills_the_graph_runs_it_and_the_primitive_copies(device, scratch, monkeypatch):
    """consume_irfft records the scaling as a node of the product's graph; where that node
    brings the graph to ``MAX_NODES`` the graph runs at once, and irfft takes the computed
    product as any primitive would (no scratch call), with eager mode's bits."""
    x, response = data(device)
    want = cw.fft.irfft(cw.fft.rfft(x) * response, norm="backward")
    for _ in range(3):  # (the policy sees the same calls again, as in the tests above)
        with cw.lazy():
            cw.fft.irfft(cw.fft.rfft(x) * response, norm="backward")
    del scratch[:]
    lazy_policy.reset()  # (recorded, not deferred: the graph's path)
    with cw.lazy():
        product = cw.fft.rfft(x) * response
        storage = product._storage
        assert type(storage) is lazy_storage.LazyStorage and storage.real is None
        monkeypatch.setattr(lazy_storage, "MAX_NODES", len(storage.graph.nodes) + 1)
        got = cw.fft.irfft(product, norm="backward")
        assert storage.real is not None  # the factor's node ran the graph
    assert scratch == []
    assert np.array_equal(bits(got), bits(want))
    assert np.array_equal(bits(product), bits(cw.fft.rfft(x) * response))
