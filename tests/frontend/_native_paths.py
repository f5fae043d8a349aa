"""What the tests of candlewick._native's front-end paths share (test_native_elementwise.py,
test_native_reduction.py; imported by name through pyproject's pythonpath, and copied by
.ci/wheel_gate.sh): a call's outcome on the C path and on the Python path (the module
unbound), and a recording fallback."""

import candlewick as cw
from candlewick import _core
from candlewick.array import Array


def outcome(fn, args, kwargs=None):
    """Everything a result shows (class, dtype, device, layout, bytes), or the error raised."""
    try:
        out = fn(*args, **(kwargs or {}))
    except Exception as exc:  # both paths must fail alike
        return ("raised", type(exc), str(exc))
    lay = out._layout
    return (type(out), out._dtype, out._device, lay.shape, lay.strides, lay.offset, lay._contig,
            lay.dense_size, cw.to_numpy(out).tobytes())


def both_paths(fn, args, kwargs=None):
    """(C path's outcome, Python path's outcome) of ``fn(*args, **kwargs)``."""
    fast = outcome(fn, args, kwargs)
    _core._native.unbind()
    try:
        python = outcome(fn, args, kwargs)
    finally:
        _core.bind_native(Array)
    return fast, python


class Recorder:
    """A fallback that records its calls and answers "fallback"."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return "fallback"
