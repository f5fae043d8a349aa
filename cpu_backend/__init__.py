"""candlewick's reference backend: every primitive of candlewick/backend.py on NumPy."""

from .device import CPU_DEVICE, CpuBackend, CpuDevice
from .storage import CpuStorage

__all__ = ["BACKEND", "CPU_DEVICE", "CpuBackend", "CpuDevice", "CpuStorage"]

BACKEND = CpuBackend()
