"""``__array_namespace_info__()``: what this namespace and its devices offer.

Devices come from the backend registry; the dtypes of a device are what the device
declares (``BackendDevice.dtypes``) restricted to the 13 dtypes the standard names
(float16/bfloat16 are candlewick extras and are not reported here).
"""

from . import dtypes as _dt
from .registry import all_devices, default_device_now, get_device
from .errors import ArgumentValueError, short_repr

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


class __array_namespace_info__:
    """The inspection object of the Array API (2023.12+)."""

    __slots__ = ()

    def capabilities(self):
        """Boolean-mask indexing and data-dependent shapes are composed in the front end
        (scan + scatter with one host read of the count), so every device has them.
        'max dimensions' is the smallest limit any device declares (its optional
        ``max_dimensions`` attribute), or None when no device declares one."""
        limits = [getattr(d, "max_dimensions", None) for d in all_devices()]
        limits = [n for n in limits if n is not None]
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": min(limits) if limits else None,
        }

    def default_device(self):
        return default_device_now()

    def default_dtypes(self, *, device=None):
        """The front end's defaults; they do not depend on the device, but the device
        argument is still resolved so that a bad one is reported."""
        get_device(device)
        return {
            "real floating": _dt.DEFAULT_FLOAT,
            "complex floating": _dt.DEFAULT_COMPLEX,
            "integral": _dt.DEFAULT_INT,
            "indexing": _dt.DEFAULT_INDEX,
        }

    def devices(self):
        return list(all_devices())

    def dtypes(self, *, device=None, kind=None):
        """``{name: dtype}`` of the standard dtypes ``device`` supports, of ``kind``
        (None, a kind name, or a tuple of kind names: their union)."""
        supported = set(get_device(device).dtypes)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        wanted = set()
        for k in kinds:
            try:
                wanted.update(_KIND_MEMBERS[k])
            except (KeyError, TypeError):
                raise ArgumentValueError(
                    f"dtypes: kind must be None, one of {sorted(k for k in _KIND_MEMBERS if k)} "
                    f"or a tuple of them, got {short_repr(k)}"
                ) from None
        return {d.name: d for d in _dt.ARRAY_API_DTYPES if d in wanted and d in supported}
