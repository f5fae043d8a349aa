"""candlewick's ROCm backend (HIP through hip-python; hipRTC kernels; hipBLAS GEMM).

Importing this package never touches the HIP runtime: ``BACKEND.probe()`` says whether
a device is usable and, if not, why, in the runtime's own words.
"""

from .device import RocmBackend, RocmDevice, probe
from .error import RocmError
from .kernels import all_kernel_sources, precompile
from .storage import RocmStorage

BACKEND = RocmBackend()

__all__ = ["BACKEND", "RocmBackend", "RocmDevice", "RocmError", "RocmStorage", "all_kernel_sources",
           "precompile", "probe"]
