"""Custom kernels from Python, as CuPy's: ``RawKernel`` (a ``__global__`` function's
source, launched with a grid and block), ``ElementwiseKernel`` and ``ReductionKernel``
(a parameter list and C code, generated into kernels by the device). A device compiles
them when it declares the ``custom_kernels`` capability
(``candlewick.backend.CustomKernelDevice``: rocm); on any other (cpu) element-wise and
reduction bodies written in the C subset run as graphs of the device's primitives, and
``RawKernel`` raises UnsupportedOperation. docs/custom_kernels.md describes them."""

from .elementwise_kernel import ElementwiseKernel
from .raw_kernel import RawKernel
from .reduction_kernel import ReductionKernel

__all__ = ["ElementwiseKernel", "RawKernel", "ReductionKernel"]
