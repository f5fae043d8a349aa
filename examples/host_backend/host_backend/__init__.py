"""host_backend: a candlewick backend whose arrays are NumPy buffers in the host's memory,
registered as ``host`` (entry point group ``candlewick.backends``); the host-memory walk
of candlewick's docs/writing-a-backend.md.

    import candlewick as cw, numpy as np
    x = cw.arange(5.0, device="host")
    np.median(x), x.device == "host:0"
"""

from .device import DEVICES_ENV, HostBackend, HostDevice
from .storage import HostStorage

__all__ = ["BACKEND", "DEVICES_ENV", "HostBackend", "HostDevice", "HostStorage"]

BACKEND = HostBackend()
