"""NumPy's array methods on ``candlewick.Array`` (``x.sum()``, ``x.reshape(2, 3)``,
``x.astype`` aside), with NumPy's signatures: NumPy, CuPy, PyTorch and JAX arrays have
them, and Dask calls them on its chunks (``chunk.sum(axis=..., keepdims=True)``,
``chunk.squeeze(axis)``). ``NumpyMethods`` is a declared base of ``candlewick.Array``
(which holds its members itself: ``array._one_level``).

Each method is NumPy's function of the same name on the array, through the translation a
NumPy call on a candlewick array takes (``numpy_functions.FUNCTIONS``), so a method and
its NumPy function cannot disagree; ``out=`` is written after (``write_out``), and an
option the translation does not take is candlewick's error naming the method (a method
never falls back to NumPy). The in-place ones (``sort``, ``fill``) write the result back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._core import ArrayBase
from .docstrings import fill as _fill
from .errors import ArgumentValueError, short_repr
from .namespace_lookup import cw, namespace_function
from .numpy_args import NOT_MINE
from .numpy_functions import FUNCTIONS

if TYPE_CHECKING:
    from .array import Array
    from ._types import Axes, DTypeLike, Scalar

_NO_VALUE: Any = np._NoValue


_write_out = namespace_function("numpy_names.write_out")


def _numpy(function, array, *args, out=None, **kwargs):
    """``function(array, *args, **kwargs)`` through NumPy's translation, written to out."""
    result = FUNCTIONS[function](array, *args, **kwargs)
    name = f"Array.{function.__name__}"
    if result is NOT_MINE:
        given = ", ".join([*(short_repr(a) for a in args), *(f"{k}={short_repr(v)}" for k, v in kwargs.items())])
        raise ArgumentValueError(f"{name}: a NumPy option of this call is one candlewick does not take ({given})")
    return _write_out(out, result, name)


def _given(**options):
    """The options given (NumPy's no-value default dropped, as NumPy's methods drop it)."""
    return {k: v for k, v in options.items() if v is not _NO_VALUE}


class NumpyMethods(ArrayBase):
    """NumPy's methods of ``candlewick.Array``."""

    __slots__ = ()

    def reshape(self, *shape: Any, order: str = "C", copy: bool | None = None) -> Array:
        return _numpy(np.reshape, self, shape[0] if len(shape) == 1 else shape, order=order, copy=copy)

    def sum(self, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
            keepdims: bool = False, initial: Any = _NO_VALUE, where: Any = _NO_VALUE) -> Array:
        return _numpy(np.sum, self, axis, dtype, None, keepdims, out=out, **_given(initial=initial, where=where))

    def prod(self, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
             keepdims: bool = False, initial: Any = _NO_VALUE, where: Any = _NO_VALUE) -> Array:
        return _numpy(np.prod, self, axis, dtype, None, keepdims, out=out, **_given(initial=initial, where=where))

    def mean(self, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
             keepdims: bool = False, *, where: Any = _NO_VALUE) -> Array:
        return _numpy(np.mean, self, axis, dtype, None, keepdims, out=out, **_given(where=where))

    def var(self, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
            ddof: int | float = 0, keepdims: bool = False, *, where: Any = _NO_VALUE,
            correction: Any = _NO_VALUE) -> Array:
        return _numpy(np.var, self, axis, dtype, None, ddof, keepdims, out=out, **_given(where=where, correction=correction))

    def std(self, axis: Axes | None = None, dtype: DTypeLike | None = None, out: Array | None = None,
            ddof: int | float = 0, keepdims: bool = False, *, where: Any = _NO_VALUE,
            correction: Any = _NO_VALUE) -> Array:
        return _numpy(np.std, self, axis, dtype, None, ddof, keepdims, out=out, **_given(where=where, correction=correction))

    def max(self, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False,
            initial: Any = _NO_VALUE, where: Any = _NO_VALUE) -> Array:
        return _numpy(np.max, self, axis, None, keepdims, out=out, **_given(initial=initial, where=where))

    def min(self, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False,
            initial: Any = _NO_VALUE, where: Any = _NO_VALUE) -> Array:
        return _numpy(np.min, self, axis, None, keepdims, out=out, **_given(initial=initial, where=where))

    def any(self, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False, *,
            where: Any = _NO_VALUE) -> Array:
        return _numpy(np.any, self, axis, None, keepdims, out=out, **_given(where=where))

    def all(self, axis: Axes | None = None, out: Array | None = None, keepdims: bool = False, *,
            where: Any = _NO_VALUE) -> Array:
        return _numpy(np.all, self, axis, None, keepdims, out=out, **_given(where=where))

    def argmax(self, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False) -> Array:
        return _numpy(np.argmax, self, axis, None, out=out, keepdims=keepdims)

    def argmin(self, axis: int | None = None, out: Array | None = None, *, keepdims: bool = False) -> Array:
        return _numpy(np.argmin, self, axis, None, out=out, keepdims=keepdims)

    def cumsum(self, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
        return _numpy(np.cumsum, self, axis, dtype, out=out)

    def cumprod(self, axis: int | None = None, dtype: DTypeLike | None = None, out: Array | None = None) -> Array:
        return _numpy(np.cumprod, self, axis, dtype, out=out)

    def copy(self, order: str = "C") -> Array:
        return cw.asarray(self, copy=True)

    def flatten(self, order: str = "C") -> Array:
        flat = _numpy(np.ravel, self, order)
        return cw.asarray(flat, copy=True)  # NumPy's flatten always copies

    def ravel(self, order: str = "C") -> Array:
        return _numpy(np.ravel, self, order)

    def transpose(self, *axes: Any) -> Array:
        given = axes[0] if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))) else axes
        return _numpy(np.transpose, self, tuple(given) if given else None)

    def squeeze(self, axis: Axes | None = None) -> Array:
        return _numpy(np.squeeze, self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> Array:
        return _numpy(np.swapaxes, self, axis1, axis2)

    def repeat(self, repeats: Any, axis: int | None = None) -> Array:
        return _numpy(np.repeat, self, repeats, axis)

    def take(self, indices: Any, axis: int | None = None, out: Array | None = None, mode: str = "raise") -> Array:
        return _numpy(np.take, self, indices, axis, None, mode, out=out)

    def clip(self, min: Scalar | Array | None = None, max: Scalar | Array | None = None,
             out: Array | None = None) -> Array:
        return _numpy(np.clip, self, min, max, out=out)

    def round(self, decimals: int = 0, out: Array | None = None) -> Array:
        return _numpy(np.round, self, decimals, out=out)

    def conj(self) -> Array:
        return cw.conj(self)

    def conjugate(self) -> Array:
        return cw.conj(self)

    @property
    def real(self) -> Array:
        return cw.real(self) if self._dtype.is_complex else self  # type: ignore[return-value]  # NumPy's: the array itself

    @property
    def imag(self) -> Array:
        return cw.imag(self) if self._dtype.is_complex else cw.zeros_like(self)

    @property
    def nbytes(self) -> int:
        return self._layout.size * self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    def argsort(self, axis: int | None = -1, kind: str | None = None, order: Any = None, *,
                stable: bool | None = None) -> Array:
        return _numpy(np.argsort, self, axis, kind, order, stable=stable)

    def sort(self, axis: int = -1, kind: str | None = None, order: Any = None, *, stable: bool | None = None) -> None:
        self[...] = _numpy(np.sort, self, axis, kind, order, stable=stable)  # type: ignore[index]  # Array's

    def searchsorted(self, v: Any, side: str = "left", sorter: Any = None) -> Array:
        return _numpy(np.searchsorted, self, v, side, sorter)

    def nonzero(self) -> tuple[Array, ...]:
        return _numpy(np.nonzero, self)

    def dot(self, b: Array, out: Array | None = None) -> Array:
        return _numpy(np.dot, self, b, out=out)

    def fill(self, value: Scalar) -> None:
        self[...] = value  # type: ignore[index]  # Array's __setitem__


# the methods' docstrings: what each is, what it returns, and an example that runs
_X = ">>> x = cw.asarray([[1.0, 2.0], [3.0, 4.0]])"
_DOCS = {
    "reshape": ("``numpy.reshape(x, shape)``: shape given as one tuple or as ints (``x.reshape(4, 1)``).",
                "Array\n    A view where the layout allows, else a copy.", ">>> x.reshape(4).tolist()\n[1.0, 2.0, 3.0, 4.0]"),
    "sum": ("``numpy.sum(x, ...)``: ``candlewick.sum`` with NumPy's ``initial`` and ``where``.", "Array\n    The sums.",
            ">>> x.sum(axis=0).tolist()\n[4.0, 6.0]"),
    "prod": ("``numpy.prod(x, ...)``.", "Array\n    The products.", ">>> x.prod(axis=1).tolist()\n[2.0, 12.0]"),
    "mean": ("``numpy.mean(x, ...)``.", "Array\n    The means.", ">>> x.mean().item()\n2.5"),
    "var": ("``numpy.var(x, ...)``: ``ddof`` is the standard's ``correction``.", "Array\n    The variances.",
            ">>> x.var(axis=0).tolist()\n[1.0, 1.0]"),
    "std": ("``numpy.std(x, ...)``.", "Array\n    The standard deviations.", ">>> x.std(axis=0, ddof=1).tolist()\n"
            "[1.4142135623730951, 1.4142135623730951]"),
    "max": ("``numpy.max(x, ...)``.", "Array\n    The maxima.", ">>> x.max(axis=1).tolist()\n[2.0, 4.0]"),
    "min": ("``numpy.min(x, ...)``.", "Array\n    The minima.", ">>> x.min().item()\n1.0"),
    "any": ("``numpy.any(x, ...)``.", "Array\n    bool: whether any element is true.", ">>> (x > 3).any().item()\nTrue"),
    "all": ("``numpy.all(x, ...)``.", "Array\n    bool: whether every element is true.", ">>> (x > 3).all().item()\nFalse"),
    "argmax": ("``numpy.argmax(x, ...)``: the index of the flattened array when axis is None.", "Array\n    The indices.",
               ">>> x.argmax().item()\n3"),
    "argmin": ("``numpy.argmin(x, ...)``.", "Array\n    The indices.", ">>> x.argmin(axis=1).tolist()\n[0, 0]"),
    "cumsum": ("``numpy.cumsum(x, ...)``: of the flattened array when axis is None.", "Array\n    The running sums.",
               ">>> x.cumsum().tolist()\n[1.0, 3.0, 6.0, 10.0]"),
    "cumprod": ("``numpy.cumprod(x, ...)``.", "Array\n    The running products.",
                ">>> x.cumprod(axis=1).tolist()\n[[1.0, 2.0], [3.0, 12.0]]"),
    "copy": ("A copy of the array, on its device.", "Array\n    The copy.", ">>> x.copy().tolist()\n[[1.0, 2.0], [3.0, 4.0]]"),
    "flatten": ("A 1-D copy of the array (C order; 'F' for Fortran order).", "Array\n    The copy.",
                ">>> x.flatten(order='F').tolist()\n[1.0, 3.0, 2.0, 4.0]"),
    "ravel": ("``numpy.ravel(x)``: 1-D, a view where the layout allows.", "Array\n    The elements in order.",
              ">>> x.ravel().tolist()\n[1.0, 2.0, 3.0, 4.0]"),
    "transpose": ("``numpy.transpose(x, axes)``: axes given as one tuple or as ints; reversed by default.",
                  "Array\n    A view with the axes permuted.", ">>> cw.zeros((2, 3, 4)).transpose(1, 0, 2).shape\n(3, 2, 4)"),
    "squeeze": ("``numpy.squeeze(x, axis)``: every axis of length 1 when axis is None.", "Array\n    A view.",
                ">>> cw.zeros((1, 3, 1)).squeeze().shape\n(3,)"),
    "swapaxes": ("``numpy.swapaxes(x, axis1, axis2)``.", "Array\n    A view with the two axes swapped.",
                 ">>> cw.zeros((2, 3, 4)).swapaxes(0, 2).shape\n(4, 3, 2)"),
    "repeat": ("``numpy.repeat(x, repeats, axis)``: of the flattened array when axis is None.", "Array\n    The repeated elements.",
               ">>> x.repeat(2, axis=0).shape\n(4, 2)"),
    "take": ("``numpy.take(x, indices, axis)``: of the flattened array when axis is None.", "Array\n    The elements taken.",
             ">>> x.take([1, 0], axis=1).tolist()\n[[2.0, 1.0], [4.0, 3.0]]"),
    "clip": ("``numpy.clip(x, min, max)``.", "Array\n    The clipped elements.", ">>> x.clip(2.0, 3.0).tolist()\n"
             "[[2.0, 2.0], [3.0, 3.0]]"),
    "round": ("``numpy.round(x, decimals)``: ties to even.", "Array\n    The rounded elements.",
              ">>> cw.asarray([0.5, 1.25]).round(1).tolist()\n[0.5, 1.2]"),
    "conj": ("The complex conjugate (``candlewick.conj``).", "Array\n    The conjugates.",
             ">>> cw.asarray([1 + 2j]).conj().tolist()\n[(1-2j)]"),
    "conjugate": ("The complex conjugate (``candlewick.conj``).", "Array\n    The conjugates.",
                  ">>> cw.asarray([1 - 1j]).conjugate().tolist()\n[(1+1j)]"),
    "real": ("The real part (``candlewick.real``).", "Array\n    The real parts.", ">>> cw.asarray([1 + 2j]).real.tolist()\n[1.0]"),
    "imag": ("The imaginary part (``candlewick.imag``; zeros for a real array).", "Array\n    The imaginary parts.",
             ">>> cw.asarray([1 + 2j]).imag.tolist()\n[2.0]"),
    "nbytes": ("The size of the elements in bytes.", "int\n    size * itemsize.", ">>> x.nbytes\n32"),
    "itemsize": ("The size of one element in bytes.", "int\n    The dtype's itemsize.", ">>> x.itemsize\n8"),
    "argsort": ("``numpy.argsort(x, ...)``: stable.", "Array\n    The indices that sort the array.",
                ">>> cw.asarray([3, 1, 2]).argsort().tolist()\n[1, 2, 0]"),
    "sort": ("Sort the array in place along ``axis`` (``numpy.ndarray.sort``).", "None",
             ">>> y = cw.asarray([3, 1, 2])\n>>> y.sort()\n>>> y.tolist()\n[1, 2, 3]"),
    "searchsorted": ("``numpy.searchsorted(x, v, side, sorter)``.", "Array\n    The insertion indices.",
                     ">>> cw.asarray([1, 3, 5]).searchsorted(4).item()\n2"),
    "nonzero": ("``numpy.nonzero(x)``: the indices of the elements that are not zero, per axis.",
                "tuple of Array\n    One index array per axis.", ">>> [i.tolist() for i in cw.asarray([0, 2, 3]).nonzero()]\n[[1, 2]]"),
    "dot": ("``numpy.dot(x, b)``: the sum over x's last axis and b's second-to-last.", "Array\n    The product.",
            ">>> x.dot(x).tolist()\n[[7.0, 10.0], [15.0, 22.0]]"),
    "fill": ("Set every element to ``value`` (in place).", "None",
             ">>> y = cw.zeros(3)\n>>> y.fill(2.0)\n>>> y.tolist()\n[2.0, 2.0, 2.0]"),
}
for _name, (_summary, _returns, _example) in _DOCS.items():
    _member = NumpyMethods.__dict__[_name]
    _fn = _member.fget if isinstance(_member, property) else _member
    _fn.__doc__ = _fill("\n".join([f"NumPy's method: {_summary}", "", "Returns", "-------", _returns, "",
                                   "Examples", "--------", ">>> import candlewick as cw", _X, _example]))
