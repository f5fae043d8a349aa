"""The backend protocol's tables of optional groups (``candlewick.backend`` re-exports them):
which groups a device may declare in ``BackendDevice.capabilities``, which of them the front
end can do without, and the primitives each group holds.
"""

__all__ = ["GROUPS_WITH_FALLBACK", "OPTIONAL_CAPABILITIES", "OPTIONAL_PRIMITIVES"]

#: optional primitive groups a device may declare in ``BackendDevice.capabilities``
#: ("graphs": the device methods of ``GraphDevice``; "fusion": ``FusionDevice.compile_fused``;
#: "custom_kernels": the device methods of ``CustomKernelDevice``; "inplace": the element-wise
#: primitives that write into a destination, ``*_into``; "reduce_dtype": sums, products and their
#: running forms into a requested dtype, ``reduce_as`` and ``scan_as``; "binary_dtype": an
#: element-wise op of operands of two dtypes, each converted as it is read, ``binary_as``)
OPTIONAL_CAPABILITIES = ("linalg", "fft", "graphs", "fusion", "custom_kernels", "inplace", "reduce_dtype",
                         "binary_dtype")

#: the optional groups whose absence loses no function: the front end takes the documented
#: fallback instead (docs/architecture.md's table of what differs between backends)
GROUPS_WITH_FALLBACK = ("fusion", "inplace", "reduce_dtype", "binary_dtype")

#: the methods of each optional group (``BackendStorage``'s, and ``FusionDevice``'s
#: ``compile_fused``): a device that declares the group implements all of them
#: (tools/gen_array_api_doc.py and the conformance report read this table)
OPTIONAL_PRIMITIVES = {
    "linalg": ("cholesky", "qr", "svd", "eigh", "eig", "solve", "inv", "det", "slogdet"),
    "fft": ("fft", "rfft", "irfft", "fftn", "rfftn"),
    "fusion": ("compile_fused",),  # a device method (``FusionDevice``), not a storage one
    "custom_kernels": ("raw_kernel", "elementwise_kernel", "reduction_kernel"),  # device methods too
    "inplace": ("unary_into", "binary_into", "binary_scalar_into", "compare_into",
                "compare_scalar_into", "where_into"),
    "reduce_dtype": ("reduce_as", "scan_as"),
    "binary_dtype": ("binary_as",),
}
