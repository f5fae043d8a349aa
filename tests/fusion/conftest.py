"""Each test of lazy mode starts with lazy_policy's counts empty: what a test records must
not depend on which calls earlier tests ran replayed on a fusing device. ``compiler``: a
fusing device for tests of what lazy mode records and runs; ``fusing``: the backend under
test made one."""

from collections import OrderedDict

import pytest

import candlewick as cw
from candlewick.fusion import lazy_mode, lazy_policy, lazy_run
from candlewick.fusion.replay import replayer


@pytest.fixture(autouse=True)
def fresh_lazy_policy():
    lazy_policy.reset()
    yield
    lazy_policy.reset()


@pytest.fixture
def compiler(monkeypatch):
    """The cpu device declaring ``fusion``, with a stand-in compiler that refuses any graph
    holding a reduction (as the ROCm generator refuses a column reduction over many rows)
    and compiles the others into their replay; the graphs it was asked for, each with
    whether it compiled."""
    device = cw.asarray([0.0]).device
    asked = []

    def compile_fused(graph):
        kinds = [n.kind for n in graph.nodes]
        ok = "reduce" not in kinds
        asked.append((kinds, ok))
        return replayer(graph) if ok else None

    monkeypatch.setattr(device, "capabilities", device.capabilities | {"fusion"})
    monkeypatch.setattr(device, "compile_fused", compile_fused, raising=False)
    monkeypatch.setattr(lazy_mode, "_fuses", {})
    # (and records there: each thread keeps its last device's answer, cpu's "no" before this)
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
    monkeypatch.setattr(lazy_policy, "RECORD_BYTES", 0)
    monkeypatch.setattr(lazy_run, "_cache", OrderedDict())  # (graphs compiled before this device fused)
    monkeypatch.setattr(lazy_run, "_last", [()])
    return device, asked


@pytest.fixture
def fusing(device, monkeypatch):
    """``device`` declaring ``fusion`` (a replaying compiler where it has none); the graphs
    compiled, as lists of node kinds."""
    asked = []
    compile_own = device.compile_fused if "fusion" in device.capabilities else replayer

    def compile_fused(graph):
        asked.append([n.kind for n in graph.nodes])
        return compile_own(graph)

    monkeypatch.setattr(device, "capabilities", device.capabilities | {"fusion"})
    monkeypatch.setattr(device, "compile_fused", compile_fused, raising=False)
    monkeypatch.setattr(lazy_mode, "_fuses", {})
    monkeypatch.setattr(lazy_mode, "RECORD_EVERYWHERE", True)
    monkeypatch.setattr(lazy_run, "_cache", OrderedDict())
    monkeypatch.setattr(lazy_run, "_last", [()])
    return device, asked
