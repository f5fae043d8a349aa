"""The namespace's functions for the modules below it: ``namespace_function("sum")`` (or
``cw.sum``) calls ``candlewick.sum``. The namespace modules import ``array``, which
imports the NumPy protocols and the Array methods, so those find the namespace's
functions through ``sys.modules`` (loaded by the package before any array exists) on
their first call instead of importing them, which would be an import cycle."""

import functools
import sys

_PACKAGE = __package__ or "candlewick"


@functools.cache
def namespace_function(path):
    """The candlewick function at ``path`` ("sum", "nan_reductions.nansum"), one caller per
    path, made once; the function itself is looked up on the caller's first call."""
    module, _, name = path.rpartition(".")
    target = None

    def call(*args, **kwargs):
        nonlocal target
        if target is None:
            owner = sys.modules[f"{_PACKAGE}.{module}" if module else _PACKAGE]
            target = getattr(owner, name)
        return target(*args, **kwargs)

    call.__name__ = name
    return call


def has_function(name):
    """Does the namespace have a function ``name`` (looked up now)?"""
    return callable(getattr(sys.modules[_PACKAGE], name, None))


class _Namespace:
    """``cw.sum`` is ``namespace_function("sum")``: the same cached caller at every access."""

    def __getattr__(self, name):
        return namespace_function(name)


cw = _Namespace()
