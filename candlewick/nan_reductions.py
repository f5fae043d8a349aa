"""NaN-skipping reductions (NumPy's nansum, nanmean, nanvar, nanstd, nanmax, nanmin) of a
real or complex floating array, composed from the namespace ``xp``'s own functions.
NumPy calls reach them through ``numpy_protocols`` (xarray's default ``skipna`` path calls
NumPy's nan-functions on whatever array it holds). Like that module, this one imports
nothing of candlewick: the namespace is passed in."""


def _valid(xp, a):
    return xp.logical_not(xp.isnan(a))


def _count(xp, valid, a, axis, keepdims):
    real = xp.finfo(a.dtype).dtype
    return xp.sum(xp.astype(valid, real), axis=axis, keepdims=keepdims)


def nansum(xp, a, axis=None, keepdims=False):
    return xp.sum(xp.where(_valid(xp, a), a, 0.0), axis=axis, keepdims=keepdims)


def nanmean(xp, a, axis=None, keepdims=False):
    return nansum(xp, a, axis, keepdims) / _count(xp, _valid(xp, a), a, axis, keepdims)


def nanvar(xp, a, axis=None, keepdims=False, ddof=0):
    valid = _valid(xp, a)
    centred = xp.where(valid, a - nanmean(xp, a, axis, True), 0.0)
    squares = xp.real(centred * xp.conj(centred)) if xp.isdtype(a.dtype, "complex floating") else centred * centred
    dof = _count(xp, valid, a, axis, keepdims) - ddof
    # NumPy's rule: a slice with no degrees of freedom left gives NaN
    return xp.where(dof > 0, xp.sum(squares, axis=axis, keepdims=keepdims) / dof, float("nan"))


def nanstd(xp, a, axis=None, keepdims=False, ddof=0):
    return xp.sqrt(nanvar(xp, a, axis, keepdims, ddof))


def _extreme(xp, reduce, fill, a, axis, keepdims):
    valid = _valid(xp, a)
    found = reduce(xp.where(valid, a, fill), axis=axis, keepdims=keepdims)
    empty = xp.all(xp.logical_not(valid), axis=axis, keepdims=keepdims)
    return xp.where(empty, float("nan"), found)  # an all-NaN slice gives NaN


def nanmax(xp, a, axis=None, keepdims=False):
    return _extreme(xp, xp.max, float("-inf"), a, axis, keepdims)


def nanmin(xp, a, axis=None, keepdims=False):
    return _extreme(xp, xp.min, float("inf"), a, axis, keepdims)
