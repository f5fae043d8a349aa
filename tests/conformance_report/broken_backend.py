"""A deliberately broken host-memory backend, ``broken``: examples/host_backend with the
mistakes a first backend makes, for the conformance suite's first-hour checks
(tests/conformance_report/test_first_report.py) and its time to a first report
(bench/conformance_first_report.py).

``CANDLEWICK_BROKEN_MISTAKES`` (comma list; default ``to_host_0d,isin,warnings``) picks them:

* ``to_host_0d``: ``to_host`` of a 0-d layout returns the NumPy scalar, not a 0-d array
  (the suite draws 0-d arrays nearly everywhere: the host-transfer stage fails);
* ``isin``: the primitive is not written yet (the storage has no such method);
* ``warnings``: ``unary`` computes with NumPy's floating-point warnings on, so
  ``log(0)`` and ``sqrt(-1)`` warn (the results are right);
* ``binary_rhs``: ``binary`` reads its right operand as if contiguous (wrong whenever the
  suite draws another layout for it: many failures in the last stage).

Registered by a dist-info holding ``broken = broken_backend:BACKEND`` (see ``register``).
"""

import os

import numpy as np

from candlewick.layout import Layout

from host_backend import HostBackend, HostDevice, HostStorage

MISTAKES_ENV = "CANDLEWICK_BROKEN_MISTAKES"
MISTAKES = frozenset(m.strip() for m in os.environ.get(MISTAKES_ENV, "to_host_0d,isin,warnings").split(",")
                     if m.strip())


class BrokenStorage(HostStorage):
    __slots__ = ()

    def to_host(self, layout):
        if "to_host_0d" in MISTAKES and layout.shape == ():
            return self.buf[layout.offset]  # a NumPy scalar: no ndarray, no C-contiguous flag
        return super().to_host(layout)

    def unary(self, op, layout):
        if "warnings" in MISTAKES and op.value in ("log", "sqrt") and self.dtype.numpy in (np.float32, np.float64):
            with np.errstate(all="warn"):
                values = getattr(np, op.value)(self.view(layout))
            return type(self)(np.ascontiguousarray(values).reshape(-1), self.dtype, self.device)
        return HostStorage.unary(self, op, layout)

    def binary(self, op, lhs_layout, rhs, rhs_layout):
        if "binary_rhs" in MISTAKES:
            rhs_layout = Layout.contiguous(rhs_layout.shape)
        return HostStorage.binary(self, op, lhs_layout, rhs, rhs_layout)

    def __getattribute__(self, name):
        if name == "isin" and "isin" in MISTAKES:  # a primitive not written yet
            raise AttributeError(f"'BrokenStorage' object has no attribute {name!r}")
        return object.__getattribute__(self, name)


class BrokenDevice(HostDevice):
    backend = "broken"
    storage_type = BrokenStorage


class BrokenBackend(HostBackend):
    name = "broken"
    device_type = BrokenDevice


BACKEND = BrokenBackend()


def register(site):
    """Make ``broken`` a registered backend for interpreters with ``site`` on their path
    (a dist-info holding its entry point, as pip would install it); returns the folders
    such an interpreter needs on PYTHONPATH besides ``site``."""
    info = site / "candlewick_broken_backend-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: candlewick-broken-backend\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[candlewick.backends]\nbroken = broken_backend:BACKEND\n")
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    return [repo, os.path.join(repo, "examples", "host_backend"), here, str(site)]
