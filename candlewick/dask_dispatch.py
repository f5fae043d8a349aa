"""Registers candlewick arrays with Dask's chunk-type dispatch (as Dask does for CuPy).

Dask joins, contracts, counts and takes from chunks through per-type dispatch tables
(concatenate, tensordot, numel, take, empty, to_numpy: the entries it fills for CuPy);
without an entry it falls back to NumPy's, which turns candlewick chunks into NumPy
arrays (and is refused on a device whose memory the host cannot read). Importing
this module fills the entries, in the process that imports it. Dask worker processes are
separate processes: load it there too, with the worker preload option

    LocalCluster(n_workers=4, preload=["candlewick.dask_dispatch"])
    dask worker tcp://scheduler:8786 --preload candlewick.dask_dispatch

This module imports Dask: it is optional (the ``ecosystem`` extra) and only loaded when
asked for.
"""

import math

from dask.array.dispatch import (
    concatenate_lookup, empty_lookup, numel_lookup, take_lookup, tensordot_lookup, to_numpy_dispatch,
)

from .array import Array
from .conversion import asarray, to_numpy
from .creation import empty, full
from .indexing_functions import take
from .matrix_products import tensordot
from .joining import concat


def _concatenate(arrays, axis=0):
    return concat(list(arrays), axis=axis)


def _tensordot(a, b, axes=2):
    return tensordot(a, b, axes=axes)


def _numel(x, axis=None, keepdims=False, dtype="float64", **kwargs):
    """The count of elements a reduction over ``axis`` sees, as a candlewick array on x's
    device (Dask's mean and moments divide the chunk's sums by it); Dask's default makes
    a NumPy array, which does not mix with candlewick's."""
    axes = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
    axes = {a % x.ndim for a in axes}
    count = math.prod(x.shape[a] for a in axes)
    shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape) if keepdims or i not in axes)
    return full(shape, count, dtype=dtype, device=x.device)


def _take(a, indices, axis=0):
    return take(a, indices if isinstance(indices, Array) else asarray(indices, device=a.device), axis=axis)


def _empty(shape, dtype=None, **kwargs):
    return empty(shape, dtype=dtype)


concatenate_lookup.register(Array, _concatenate)
tensordot_lookup.register(Array, _tensordot)
numel_lookup.register(Array, _numel)
take_lookup.register(Array, _take)
empty_lookup.register(Array, _empty)
to_numpy_dispatch.register(Array, lambda data, **kwargs: to_numpy(data))
