"""candlewick's ROCm backend (HIP through hip-python; hipRTC kernels; hipBLAS, hipSOLVER,
hipFFT, MIOpen, RCCL).

Importing this package never touches the HIP runtime: ``BACKEND.probe()`` says whether a
device is usable and, if not, why, in the runtime's own words. This module only
re-exports what the entry point and users name. The modules, bottom layer first (each
imports only its own layer and those above it in this table; tests/rocm/host/test_layers.py
checks it, docs/architecture.md says more):

=====================  ==================================================  ==========
module                 what it owns                                        layer
=====================  ==================================================  ==========
``error.py``           every error class; ``check`` of a call's status      error
``abi/``               argument structs and shared constants, their        abi
                       byte layout and launch buffer, the generated C
                       header, element-wise operands, a ``RawKernel``'s
                       argument buffer
``bindings/``          one library per module: hip (its ctypes calls:      bindings
                       hip_ctypes), hip_graph, hip_streams, hiprtc,
                       hipblas, hipsolver, hipfft, miopen_c, rccl, roctx;
                       hip_python: each hip-python library opened once
``ops.py``             the op table: (primitive, op, dtype) -> kernel      ops
``codegen/``           kernel module sources; fused-graph kernels; the     codegen
                       custom kernels' sources
``storage_slice.py``   the device buffer and its typed view                runtime
``runtime/``           allocator, pinned host memory, streams and          runtime
                       events, graph capture, host reads, index checks,
                       the launcher, peer copies, communicators and
                       their signature rounds
``kernels.py``         source -> hipRTC -> code-object cache -> loaded     kernels
                       module -> the kernel lookup every family uses
``rocblas.py``         every GEMM and BLAS call                            families
``miopen.py``          MIOpen: handle, plan cache, workspace, declines     families
``families/``          the primitives, one group per module                families
``storage.py``         ``RocmStorage``: the protocol's routing table       storage
``device.py``          ``RocmDevice``: properties, stream, allocator,      device
                       kernels, launcher, library handles, per-device
                       state (creation and the families' other calls:
                       ``families/device_calls.py``)
``backend.py``         ``RocmBackend``, ``BACKEND``, ``precompile``          device
``__init__.py``        this shim                                           shim
=====================  ==================================================  ==========
"""

from .backend import BACKEND, RocmBackend, all_kernel_sources, precompile, probe
from .device import RocmDevice
from .error import RocmError
from .storage import RocmStorage

__all__ = ["BACKEND", "RocmBackend", "RocmDevice", "RocmError", "RocmStorage", "all_kernel_sources",
           "precompile", "probe"]
