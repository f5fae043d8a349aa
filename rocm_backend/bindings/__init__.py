"""The bindings layer: the only code of the backend that calls hip-python (HIP runtime,
hipRTC, hipBLAS) or MIOpen's C API through ctypes. Each call's status becomes a
``RocmError`` (``rocm_backend.error.check``) or, for MIOpen, a ``MIOpenError``."""
