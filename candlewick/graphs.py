"""Graph capture: record a sequence of candlewick calls on a device once, replay it many
times for the cost of one launch (CUDA/HIP graphs; docs/graphs.md).

    g = cw.graphs.capture(step, x, w)   # warm-up call, then the captured call
    out = g.replay()                    # rerun on the current contents of x and w
    out = g.replay(x2, w2)              # copy new inputs into x and w first, then rerun

or, as ``torch.cuda.graph`` does it, by hand::

    g = cw.graphs.Graph("rocm")
    step(x, w)                          # warm-up: kernels compiled, memory cached
    with g.capture():
        out = step(x, w)
    g.replay()

A device offers this when it declares the optional group ``"graphs"``
(``candlewick.backend.GraphDevice``); on another device ``Graph`` raises
UnsupportedOperation naming it.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

from .array import Array
from .backend import GraphDevice
from .conversion import asarray
from .errors import ArgumentTypeError, DTypeError, GraphCaptureError, ShapeError, UnsupportedOperation, short_repr
from .registry import get_device

__all__ = ["Graph", "capture"]


class Graph:
    """A recording of the work queued on one device, replayed with :meth:`replay`.

    Parameters
    ----------
    device : str, device or None
        The device whose work is recorded (None: the default device). It must declare the
        optional group ``"graphs"``.

    Raises
    ------
    UnsupportedOperation
        If the device cannot capture graphs (the cpu backend, for one).
    """

    def __init__(self, device: Any = None) -> None:
        dev = get_device(device)
        if "graphs" not in dev.capabilities or not isinstance(dev, GraphDevice):
            raise UnsupportedOperation(
                "graph capture", None, dev.backend,
                f"device {dev.name} does not declare the optional group 'graphs' (run the calls eagerly there)")
        self.device = dev
        self._graph = None
        self._capturing = False
        #: ``capture(fn, ...)``'s static inputs and outputs (None for a hand-made capture)
        self.inputs: tuple | None = None
        self.outputs: Any = None

    @contextlib.contextmanager
    def capture(self):
        """Record what the block queues on the device instead of running it.

        Arrays made in the block hold the graph's memory: each replay rewrites them. A
        host read, a copy from host memory or random numbers in the block raise
        GraphCaptureError naming the function; when the block raises, nothing is kept.
        """
        if self._graph is not None or self._capturing:
            raise GraphCaptureError("Graph.capture: this graph already holds a capture; make a new Graph "
                                    "(or call reset() first)")
        self.device.begin_capture()
        self._capturing = True
        try:
            yield self
        except BaseException:
            self._capturing = False
            self.device.abort_capture()
            raise
        self._capturing = False
        self._graph = self.device.end_capture()

    def replay(self, *inputs: Any) -> Any:
        """Queue the recorded work again (asynchronous, like any op) and return ``outputs``.

        With arguments (only for graphs made by :func:`capture`): copy each into the
        static input in its position first; each must have that input's shape and dtype.
        """
        if self._graph is None:
            raise GraphCaptureError("Graph.replay: nothing captured yet (capture inside `with g.capture():` "
                                    "or make the graph with candlewick.graphs.capture)")
        if inputs:
            self._copy_inputs(inputs)
        self._graph.replay()
        return self.outputs

    def _copy_inputs(self, inputs):
        if self.inputs is None:
            raise GraphCaptureError("Graph.replay: this graph was captured by hand (`with g.capture():`), so it "
                                    "has no inputs to copy into: write into the arrays it read instead")
        if len(inputs) != len(self.inputs):
            raise ArgumentTypeError(f"Graph.replay: takes the {len(self.inputs)} inputs of the captured call, "
                                    f"got {len(inputs)}")
        copies = []  # every argument is checked before any is copied: a bad one changes nothing
        for k, (static, new) in enumerate(zip(self.inputs, inputs)):
            if new is static or not isinstance(static, Array):
                if not _same_value(new, static):
                    raise GraphCaptureError(f"Graph.replay: argument {k} was a Python value "
                                            f"{short_repr(static)} at capture, frozen into the graph; "
                                            f"got {short_repr(new)}")
                continue
            if not isinstance(new, Array):
                new = asarray(new, device=static.device)  # no dtype: a mismatch raises, never casts
            elif new.device != static.device:
                new = new.to_device(static.device)
            if new.shape != static.shape:
                raise ShapeError(f"Graph.replay: argument {k} must keep the captured shape {static.shape}, "
                                 f"got {new.shape} (a new shape needs a new capture)")
            if new.dtype != static.dtype:
                raise DTypeError(f"Graph.replay: argument {k} must keep the captured dtype {static.dtype.name}, "
                                 f"got {new.dtype.name} (convert it with astype, or capture again)")
            copies.append((static, new))
        for static, new in copies:
            static[...] = new

    @property
    def captured(self) -> bool:
        return self._graph is not None

    def reset(self) -> None:
        """Free the graph and give back its memory (its arrays keep theirs until they die)."""
        graph, self._graph = self._graph, None
        if graph is not None:
            graph.close()

    def __repr__(self) -> str:
        state = "captured" if self._graph is not None else "capturing" if self._capturing else "empty"
        return f"Graph({self.device.name!r}, {state})"


def _same_value(a, b):
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - values without a plain equality are not the same
        return False


def capture(fn: Callable[..., Any], *args: Any, warmup: int = 1, device: Any = None) -> Graph:
    """Capture ``fn(*args)`` as a graph, the way ``torch.cuda.make_graphed_callables`` does.

    ``fn`` runs ``warmup`` times eagerly first (kernels compile and the allocator caches
    blocks of the right sizes), then once under capture. The graph keeps ``args`` as its
    static inputs and ``fn``'s result as its static outputs (``g.inputs``, ``g.outputs``);
    ``g.replay(*new_args)`` copies new inputs into the static ones and returns the outputs,
    rewritten.

    Parameters
    ----------
    fn : callable
        Queues work with candlewick functions; no host reads (docs/graphs.md).
    *args
        Its arguments: arrays (static inputs) and Python values (frozen into the graph).
    warmup : int
        Eager calls before the capture (at least 1 unless ``fn`` already ran on these shapes).
    device : str, device or None
        The device to capture on; None: the device of the first array argument, else the
        default device.
    """
    if not callable(fn):
        raise ArgumentTypeError(f"capture: fn must be callable, got {short_repr(fn)}")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ArgumentTypeError(f"capture: warmup must be an int >= 0, got {short_repr(warmup)}")
    if device is None:
        device = next((a.device for a in args if isinstance(a, Array)), None)
    graph = Graph(device)
    for _ in range(warmup):
        fn(*args)
    with graph.capture():
        outputs = fn(*args)
    graph.inputs, graph.outputs = args, outputs
    return graph
