"""candlewick: Array API arrays whose compute is done by pluggable backends.

``import candlewick as cw`` gives the Array API 2025.12 namespace (2024.12 on request:
``CANDLEWICK_ARRAY_API_VERSION=2024.12`` or ``cw.set_array_api_version("2024.12")``, see
``candlewick.api_version``). Backends (``cpu``,
``rocm``, third-party) are found through the ``candlewick.backends`` entry points and
loaded only when a device of theirs is asked for.
"""

import math as _math

from . import api_version as _api_version
from . import dtypes as _dtypes_module
from .api_version import array_api_version, set_array_api_version
from .array import Array
from .conversion import asarray, to_numpy
from .creation import empty, empty_like, full, full_like, ones, ones_like, zeros, zeros_like
from .dtypes import (
    bfloat16, bool_ as bool, complex64, complex128, float16, float32, float64, int8, int16,
    int32, int64, isdtype, uint8, uint16, uint32, uint64,
)
from .elementwise import *  # noqa: F401,F403  (the generated element-wise functions)
from .elementwise import __all__ as _elementwise_names
from .matrix_products import matmul, matrix_transpose
from .matrix_products import tensordot, vecdot
from .ranges import arange, linspace, meshgrid
from .matrices import eye, tril, triu
from .data_types import astype, can_cast, finfo, iinfo, result_type
from .dlpack import from_dlpack
from .info import __array_namespace_info__
from .manipulation import expand_dims, flip, moveaxis, permute_dims, reshape, squeeze
from .broadcasting import broadcast_arrays, broadcast_shapes, broadcast_to
from .joining import concat, stack, unstack
from .registry import backends, default_device, get_device, set_default_device
from .promotion_mode import get_promotion_mode, promotion_mode, set_promotion_mode
from .host_copy import get_implicit_host_copy, set_implicit_host_copy
from .statistical import max, min, prod, sum
from .moments import mean, std, var
from .cumulative import cumulative_prod, cumulative_sum
from .repetition import repeat, roll, tile
from .searching import argmax, argmin, count_nonzero, nonzero, searchsorted
from .selection import where
from .sorting import argsort, sort
from .set_membership import isin
from .sets import unique_all, unique_counts, unique_inverse, unique_values
from .indexing_functions import take, take_along_axis
from .utility import all, any, diff
from .fusion import fuse, lazy
from .custom_kernels import ElementwiseKernel, RawKernel, ReductionKernel
from . import nn, random  # noqa: E402  (Candle's extra ops; Philox random numbers)
from . import fft, linalg  # noqa: E402  (the Array API extensions)
from . import graphs  # noqa: E402  (graph capture and replay, on devices that declare "graphs")
from .streams import Event, Stream, current_stream, synchronize  # noqa: E402  (streams and events: docs/gpu.md)
from .memory import empty_cache, memory_stats, pinned_empty, reset_peak_memory_stats, set_memory_limit  # noqa: E402
from .profiler import profile  # noqa: E402  (a profiler of the primitives: docs/gpu.md)
# NumPy's names and signatures beside the standard's (xarray, Dask and cubed call these
# on the namespace they are given, as on CuPy's; NumPy's own calls reach them through
# numpy_functions)
from .numpy_names import cumprod, cumsum, transpose
from .nan_reductions import (
    nanargmax, nanargmin, nancumprod, nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
)
from .quantiles import median, nanmedian, nanpercentile, nanquantile, percentile, quantile
from .padding import pad
from .einsum import einsum
from .gradient import gradient
from . import lib  # noqa: E402  (NumPy's lib.stride_tricks.sliding_window_view)

__version__ = "0.1.0"

e = _math.e
inf = float("inf")
nan = float("nan")
pi = _math.pi
newaxis = None

def __getattr__(name):
    # the selected revision can change at run time (set_array_api_version), so the
    # module attribute is computed on each read
    if name == "__array_api_version__":
        return _api_version.array_api_version()
    raise AttributeError(f"module 'candlewick' has no attribute {name!r}")


__all__ = [
    "Array", "__array_api_version__", "e", "inf", "nan", "pi", "newaxis",
    "backends", "default_device", "get_device", "set_default_device", "to_numpy",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128", "isdtype",
    "arange", "asarray", "empty", "empty_like", "full", "full_like", "ones", "ones_like",
    "zeros", "zeros_like", "matmul", "matrix_transpose", "broadcast_arrays", "broadcast_to",
    "concat", "expand_dims", "flip", "moveaxis", "permute_dims", "reshape", "squeeze",
    "stack", "unstack", "max", "mean", "min", "prod", "sum",
]
__all__ += [
    "tensordot", "vecdot", "eye", "linspace", "meshgrid", "tril", "triu", "astype", "can_cast",
    "finfo", "iinfo", "result_type", "from_dlpack", "__array_namespace_info__", "fft", "linalg",
]
__all__ += list(_elementwise_names)
__all__ += [
    "cumulative_prod", "cumulative_sum", "std", "var", "repeat", "roll", "tile", "argmax",
    "argmin", "count_nonzero", "nonzero", "searchsorted", "where", "argsort", "sort",
    "unique_all", "unique_counts", "unique_inverse", "unique_values", "take",
    "take_along_axis", "all", "any", "diff",
]
__all__ += ["array_api_version", "set_array_api_version", "broadcast_shapes", "isin"]
__all__ += ["fuse", "lazy"]
__all__ += ["Event", "Stream", "current_stream", "synchronize", "empty_cache", "memory_stats", "pinned_empty",
            "reset_peak_memory_stats", "set_memory_limit", "profile"]
__all__ += ["ElementwiseKernel", "RawKernel", "ReductionKernel"]
__all__ += [
    "cumsum", "cumprod", "transpose", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin",
    "nanargmax", "nanargmin", "nancumsum", "nancumprod", "quantile", "percentile", "median", "nanquantile",
    "nanpercentile", "nanmedian", "pad", "einsum", "gradient",
]


def __dir__() -> list[str]:
    """``dir()`` of the namespace: its public names (``__all__``), the public submodules
    outside the standard (``nn``, ``random``, ``errors``, ``graphs``, ``lib``) and ``__version__``; not the
    modules the namespace is built from."""
    return sorted([*__all__, "nn", "random", "errors", "graphs", "lib", "__version__"])
