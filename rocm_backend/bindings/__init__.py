"""[bindings] The bindings layer: the only code of the backend that calls hip-python (HIP
runtime, hipRTC, hipBLAS, hipSOLVER, hipFFT, RCCL) or MIOpen's C API through ctypes, one
library per module. Each call's status becomes a ``RocmError`` (``error.check``) or, for
MIOpen, a ``MIOpenError``."""
