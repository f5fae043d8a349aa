"""``__array_namespace_info__()``: what this namespace and its devices offer.

Devices come from the backend registry; the dtypes of a device are what the device
declares (``BackendDevice.dtypes``) restricted to the 13 dtypes the standard names
(float16/bfloat16 are candlewick extras and are not reported here).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from . import dtypes as _dt
from .api_version import revision_sequence
from .registry import all_devices, default_device_now, get_device
from .errors import ArgumentValueError, short_repr

if TYPE_CHECKING:
    from ._types import DeviceLike
    from .backend import BackendDevice
    from .dtypes import DType

_KIND_MEMBERS = {
    None: _dt.ARRAY_API_DTYPES,
    "bool": (_dt.bool_,),
    "signed integer": _dt.SIGNED,
    "unsigned integer": _dt.UNSIGNED,
    "integral": _dt.INTEGER,
    "real floating": (_dt.float32, _dt.float64),
    "complex floating": _dt.COMPLEX,
    "numeric": _dt.INTEGER + (_dt.float32, _dt.float64) + _dt.COMPLEX,
}


#: {(id(device), kind): (device, dtypes()'s answer)}: a device's dtypes are fixed once it is
#: open, and scikit-learn asks about ten times a call (its float dtypes, through
#: _max_precision_float_dtype and supported_float_dtypes); keyed by id, since a device
#: hashes through Python code (the entry holds its device, so the id stays its own)
_ANSWERS: dict = {}


def _answered(device, kind):
    """A copy of ``dtypes()``'s answer for ``device`` (the object, by identity) and ``kind``
    kept in ``_ANSWERS``, or None."""
    try:
        hit = _ANSWERS[id(device), kind]
    except (KeyError, TypeError):  # (TypeError: an unhashable kind, named by dtypes())
        return None
    return dict(hit[1]) if hit[0] is device else None


class __array_namespace_info__:
    """The inspection object of the Array API (2023.12+)."""

    __slots__ = ()

    def capabilities(self) -> dict[str, bool | int | None]:
        """Boolean-mask indexing and data-dependent shapes are composed in the front end
        (scan + scatter with one host read of the count), so every device has them.
        'max dimensions' is the smallest limit any device declares (its optional
        ``max_dimensions`` attribute), or None when no device declares one.

        Returns
        -------
        dict
            ``{"boolean indexing": True, "data-dependent shapes": True, "max dimensions": int or None}``.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.__array_namespace_info__().capabilities()["boolean indexing"]
        True
        """
        limits = [getattr(d, "max_dimensions", None) for d in all_devices()]
        limits = [n for n in limits if n is not None]
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": min(limits) if limits else None,  # type: ignore[type-var]  # the Nones are filtered out above
        }

    def default_device(self) -> BackendDevice:
        """The device arrays are created on when none is given.

        Returns
        -------
        device

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.__array_namespace_info__().default_device() == "cpu"
        True
        """
        return default_device_now()

    def default_dtypes(self, *, device: DeviceLike | None = None) -> dict[str, DType]:
        """The front end's defaults; they do not depend on the device, but the device
        argument is still resolved so that a bad one is reported.

        Parameters
        ----------
        device : str, device or None
            The device asked about; None for the default device.

        Returns
        -------
        dict
            The dtypes of "real floating", "complex floating", "integral" and "indexing".

        Raises
        ------
        DeviceError
            If device names no device.

        Examples
        --------
        >>> import candlewick as cw
        >>> cw.__array_namespace_info__().default_dtypes()["integral"]
        candlewick.int64
        """
        get_device(device)
        return {
            "real floating": _dt.DEFAULT_FLOAT,
            "complex floating": _dt.DEFAULT_COMPLEX,
            "integral": _dt.DEFAULT_INT,
            "indexing": _dt.DEFAULT_INDEX,
        }

    def devices(self) -> Sequence[BackendDevice]:
        """Every device of the available backends.

        Returns
        -------
        tuple of device (a list under the 2024.12 revision)

        Examples
        --------
        >>> import candlewick as cw
        >>> "cpu" in cw.__array_namespace_info__().devices()
        True
        """
        return revision_sequence(all_devices())

    def dtypes(self, *, device: DeviceLike | None = None,
               kind: str | tuple[str, ...] | None = None) -> dict[str, DType]:
        """``{name: dtype}`` of the standard dtypes ``device`` supports, of ``kind``
        (None, a kind name, or a tuple of kind names: their union).

        Parameters
        ----------
        device : str, device or None
            The device asked about; None for the default device.
        kind : str, tuple of str or None
            A kind name ("bool", "integral", "real floating", ...), several, or None for all.

        Returns
        -------
        dict
            ``{name: dtype}``.

        Raises
        ------
        ValueError
            If kind names no kind.
        DeviceError
            If device names no device.

        Examples
        --------
        >>> import candlewick as cw
        >>> sorted(cw.__array_namespace_info__().dtypes(kind="bool"))
        ['bool']
        """
        # a device object asked again: its answer before get_device's frame (scikit-learn asks
        # ten times a StandardScaler fit, with x.device); a name or None: after it
        answer = _answered(device, kind)
        if answer is not None:
            return answer
        dev = get_device(device)
        answer = _answered(dev, kind)
        if answer is not None:
            return answer
        supported = set(dev.dtypes)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted: set[DType] = set()
        for k in kinds:
            try:
                wanted.update(_KIND_MEMBERS[k])
            except (KeyError, TypeError):
                raise ArgumentValueError(
                    f"dtypes: kind must be None, one of {sorted(k for k in _KIND_MEMBERS if k)} "
                    f"or a tuple of them, got {short_repr(k)}"
                ) from None
        answer = {d.name: d for d in _dt.ARRAY_API_DTYPES if d in wanted and d in supported}
        _ANSWERS[id(dev), kind] = (dev, answer)
        return dict(answer)
