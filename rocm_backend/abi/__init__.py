"""[abi] The ABI layer: what the Python side and the kernels must agree on. Kernel argument
structs and shared constants (declared once, in ``structs.py``; the C header ``hip/abi.h``
is generated from them by ``c_header.py``) and element-wise operand packing
(``ew_operands.py``). Imports only the front end's contract (dtypes, errors)."""
