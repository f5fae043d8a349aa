"""[families] The op families: each module implements a group of the protocol's primitives
on the runtime (launcher, buffers), the kernel lookup (``kernels.py``) and the ABI (op
table, argument structs). Functions take the storage they work on first
(``storage.RocmStorage`` binds them as its methods) and make their results with
``device.storage_type.empty``."""
