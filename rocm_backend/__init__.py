"""candlewick's ROCm backend (HIP through hip-python; hipRTC kernels; hipBLAS GEMM).

Importing this package never touches the HIP runtime: ``BACKEND.probe()`` says whether
a device is usable and, if not, why, in the runtime's own words. The package is a stack
of layers (docs/architecture.md): bindings -> runtime -> abi -> families -> storage ->
device/backend; this module only re-exports what the entry point and users name.
"""

from .backend import BACKEND, RocmBackend, all_kernel_sources, precompile, probe
from .device import RocmDevice
from .error import RocmError
from .storage import RocmStorage

__all__ = ["BACKEND", "RocmBackend", "RocmDevice", "RocmError", "RocmStorage", "all_kernel_sources",
           "precompile", "probe"]
