"""NumPy's ``lib`` helpers that code written for NumPy's namespace reaches through
``xp.lib`` (xarray's rolling windows call ``xp.lib.stride_tricks.sliding_window_view``,
as on CuPy's namespace)."""

from . import stride_tricks

__all__ = ["stride_tricks"]
