"""Registers candlewick arrays with Dask's chunk-type dispatch (as Dask does for CuPy).

Dask joins and contracts chunks through per-type dispatch tables; without an entry it
falls back to ``np.concatenate``/``np.tensordot``, which turns candlewick chunks into
NumPy arrays (and is refused on a device whose memory the host cannot read). Importing
this module fills the entries, in the process that imports it. Dask worker processes are
separate processes: load it there too, with the worker preload option

    LocalCluster(n_workers=4, preload=["candlewick.dask_dispatch"])
    dask worker tcp://scheduler:8786 --preload candlewick.dask_dispatch

This module imports Dask: it is optional (the ``ecosystem`` extra) and only loaded when
asked for.
"""

from dask.array.dispatch import concatenate_lookup, tensordot_lookup

from .array import Array
from .matrix_products import tensordot
from .joining import concat


def _concatenate(arrays, axis=0):
    return concat(list(arrays), axis=axis)


def _tensordot(a, b, axes=2):
    return tensordot(a, b, axes=axes)


concatenate_lookup.register(Array, _concatenate)
tensordot_lookup.register(Array, _tensordot)
