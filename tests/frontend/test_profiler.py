"""candlewick.profile on every backend under test: what a record holds, only the outermost
primitive of a call, every thread, classes put back as they were, the table and the plot."""

import threading

import pytest

import candlewick as cw
from candlewick import registry
from cpu_backend import CpuDevice, CpuStorage


def test_records_hold_primitive_op_dtype_shapes_and_times(device):
    x = cw.ones((8, 4), dtype=cw.float32, device=device)
    with cw.profile() as p:
        y = cw.exp(x)
        cw.sum(y, axis=0)
    assert [(r.primitive, r.op, r.dtype, r.shapes) for r in p.records] == [
        ("unary", "exp", "float32", ((8, 4),)), ("reduce", "sum", "float32", ((8, 4),))]
    for r in p.records:
        assert r.device == device.name and r.thread == threading.get_ident()
        assert r.host_ms >= 0 and r.start_ms >= 0
        if isinstance(device, cw.backend.StreamDevice):
            assert r.device_ms is not None and r.device_ms >= 0 and r.device_start_ms >= 0


def test_creation_and_host_reads_are_recorded(device):
    with cw.profile() as p:
        x = cw.zeros(5, dtype=cw.int64, device=device)
        cw.to_numpy(x)
    names = [r.primitive for r in p.records]
    assert names[0] == "zeros" and p.records[0].shapes == ((5,),) and "to_host" in names


def test_only_the_outermost_primitive_is_recorded(device, monkeypatch):
    """A primitive that calls others (a backend composing it) counts once."""
    x = cw.ones(6, dtype=cw.float32, device=device)
    calls = []

    def composed(self, layout, *args):
        calls.append(1)
        return self.unary(cw.backend.UnaryOp.EXP, layout)  # a primitive inside a primitive

    monkeypatch.setattr(type(x._storage), "copy", composed)
    with cw.profile() as p:
        cw.asarray(x, copy=True)
    assert calls and [r.primitive for r in p.records] == ["copy"]


def test_every_thread_is_recorded(device):
    x = cw.ones(16, dtype=cw.float32, device=device)
    with cw.profile() as p:
        t = threading.Thread(target=lambda: cw.negative(x))
        t.start()
        t.join()
        cw.abs(x)
    assert {(r.op, r.thread == threading.get_ident()) for r in p.records} == {("negative", False), ("abs", True)}


def test_classes_are_put_back_even_when_the_block_raises():
    before_storage, before_device = dict(vars(CpuStorage)), dict(vars(CpuDevice))
    with pytest.raises(ZeroDivisionError):
        with cw.profile():
            assert CpuStorage.unary.__wrapped__ is before_storage["unary"]  # wrapped while recording
            1 / 0
    assert dict(vars(CpuStorage)) == before_storage and dict(vars(CpuDevice)) == before_device
    x = cw.ones(3)
    with cw.profile() as outer:
        with cw.profile() as inner:
            cw.exp(x)
        cw.sin(x)
    assert [r.op for r in outer.records] == ["exp", "sin"] and [r.op for r in inner.records] == ["exp"]
    assert dict(vars(CpuStorage)) == before_storage


def test_a_device_class_first_seen_inside_the_block_is_recorded():
    class OtherCpu(CpuDevice):
        pass

    other = OtherCpu()
    with cw.profile() as p:
        cw.ones(3, device=other)
    assert [r.primitive for r in p.records] == ["ones"]
    assert "ones" not in vars(OtherCpu) and registry.opened_devices()


def test_table_and_plot():
    x = cw.ones(100)
    with cw.profile() as p:
        for _ in range(3):
            x = cw.exp(x) * 0.5
    rows = p.totals()
    assert {(g["primitive"], g["op"], g["calls"]) for g in rows} == {("unary", "exp", 3),
                                                                    ("binary_scalar", "multiply", 3)}
    text = p.table()
    assert text.splitlines()[0].split()[:4] == ["primitive", "op", "dtype", "calls"]
    assert text.splitlines()[-1].split()[:2] == ["total", "6"] and str(p) == text
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    fig = p.plot()
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert any(label.startswith("host") for label in labels) and any("stream" in label for label in labels)
