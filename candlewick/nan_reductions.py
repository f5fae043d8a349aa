"""NaN-skipping reductions (NumPy's nansum, nanmean, nanvar, nanstd, nanmax, nanmin) of a
real or complex floating array, composed from candlewick's own functions. NumPy calls
reach them through ``numpy_protocols`` (xarray's default ``skipna`` path calls NumPy's
nan-functions on whatever array it holds)."""

from . import data_types as _data_types
from . import elementwise as _ew
from . import searching as _searching
from . import statistical as _stat
from . import utility as _utility


def _valid(a):
    return _ew.logical_not(_ew.isnan(a))


def _count(valid, a, axis, keepdims):
    real = _data_types.finfo(a.dtype).dtype
    return _stat.sum(_data_types.astype(valid, real), axis=axis, keepdims=keepdims)


def nansum(a, axis=None, keepdims=False):
    return _stat.sum(_searching.where(_valid(a), a, 0.0), axis=axis, keepdims=keepdims)


def nanmean(a, axis=None, keepdims=False):
    return nansum(a, axis, keepdims) / _count(_valid(a), a, axis, keepdims)


def nanvar(a, axis=None, keepdims=False, ddof=0):
    valid = _valid(a)
    centred = _searching.where(valid, a - nanmean(a, axis, True), 0.0)
    squares = _ew.real(centred * _ew.conj(centred)) if a.dtype.is_complex else centred * centred
    dof = _count(valid, a, axis, keepdims) - ddof
    # NumPy's rule: a slice with no degrees of freedom left gives NaN
    return _searching.where(dof > 0, _stat.sum(squares, axis=axis, keepdims=keepdims) / dof, float("nan"))


def nanstd(a, axis=None, keepdims=False, ddof=0):
    return _ew.sqrt(nanvar(a, axis, keepdims, ddof))


def _extreme(reduce, fill, a, axis, keepdims):
    valid = _valid(a)
    found = reduce(_searching.where(valid, a, fill), axis=axis, keepdims=keepdims)
    empty = _utility.all(_ew.logical_not(valid), axis=axis, keepdims=keepdims)
    return _searching.where(empty, float("nan"), found)  # an all-NaN slice gives NaN


def nanmax(a, axis=None, keepdims=False):
    return _extreme(_stat.max, float("-inf"), a, axis, keepdims)


def nanmin(a, axis=None, keepdims=False):
    return _extreme(_stat.min, float("inf"), a, axis, keepdims)
