"""Which revision of the Array API standard the namespace follows.

``"2025.12"`` by default; ``"2024.12"`` is selected by the environment variable
``CANDLEWICK_ARRAY_API_VERSION`` (read when candlewick is imported) or at run time by
``candlewick.set_array_api_version("2024.12")``, as array-api-strict does with
``ARRAY_API_STRICT_API_VERSION`` / ``set_array_api_strict_flags(api_version=...)``.
``candlewick.__array_api_version__`` always names the selected revision.

Where the two texts disagree, each revision behaves as its own text says:

* 2025.12's new functions (``broadcast_shapes``, ``isin``, ``linalg.eig``,
  ``linalg.eigvals``) raise ``ApiVersionError`` under 2024.12;
* ``meshgrid``, ``broadcast_arrays`` and ``__array_namespace_info__().devices()`` return a
  tuple under 2025.12 and a list under 2024.12.

What 2025.12 only widens (a tuple ``axis`` in ``expand_dims``, negative ``axes`` in
``permute_dims``, a scalar ``x2`` in ``searchsorted``) is accepted under both: 2024.12
leaves those inputs undefined, so accepting them conforms to it too.
"""

import functools
import inspect
import os

from .errors import ApiVersionError, ArgumentTypeError, ArgumentValueError, name_code, public_name, short_repr

SUPPORTED = ("2024.12", "2025.12")
DEFAULT = "2025.12"
ENV_VAR = "CANDLEWICK_ARRAY_API_VERSION"


def _checked(version, source):
    # the type first: ``in`` on an array would ask for its truth value
    if not isinstance(version, str):
        raise ArgumentTypeError(f"{source}: the Array API revision must be a str, one of {SUPPORTED}; "
                                f"got {type(version).__name__} {short_repr(version)}")
    if version not in SUPPORTED:
        raise ArgumentValueError(f"{source}: the Array API revision must be one of {SUPPORTED}, got {short_repr(version)}")
    return version


_selected = _checked(os.environ.get(ENV_VAR, DEFAULT), ENV_VAR)


def array_api_version() -> str:
    """The Array API revision the namespace follows now.

    Returns
    -------
    str
        ``"2024.12"`` or ``"2025.12"``.

    Examples
    --------
    >>> import candlewick as cw
    >>> cw.array_api_version() in ("2024.12", "2025.12")
    True
    """
    return _selected


def set_array_api_version(version: str) -> None:
    """Select the revision the namespace follows from now on.

    Parameters
    ----------
    version : str
        ``"2024.12"`` or ``"2025.12"``.

    Returns
    -------
    None

    Raises
    ------
    ArgumentTypeError
        If version is not a str.
    ArgumentValueError
        If version names no supported revision.

    Examples
    --------
    >>> import candlewick as cw
    >>> before = cw.array_api_version()
    >>> cw.set_array_api_version("2024.12")
    >>> cw.array_api_version()
    '2024.12'
    >>> cw.set_array_api_version(before)
    """
    global _selected
    _selected = _checked(version, "set_array_api_version")


def revision_sequence(items):
    """A function's sequence result: a tuple from 2025.12 on, a list before (gh-981)."""
    return tuple(items) if _selected >= "2025.12" else list(items)


def requires(version):
    """Decorate a function that the standard added in ``version``: under an earlier
    selected revision calling it raises ``ApiVersionError``."""
    def decorate(fn):
        signature = inspect.signature(fn)

        def bind(args, kwargs):
            try:  # a call that does not bind fails naming fn
                signature.bind(*args, **kwargs)
            except TypeError as exc:
                raise ArgumentTypeError(f"{fn.__name__}: {exc}") from None

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            if _selected < version:
                bind(args, kwargs)
                raise ApiVersionError(
                    f"{fn.__name__} is new in the Array API {version}, but candlewick follows "
                    f"{_selected} (select it with candlewick.set_array_api_version({version!r}) "
                    f"or {ENV_VAR}={version})"
                )
            try:
                return fn(*args, **kwargs)
            except TypeError:  # the binding is checked only then (binding costs ~1 µs a call)
                bind(args, kwargs)
                raise
        return name_code(checked, public_name(fn.__code__) or fn.__qualname__)
    return decorate
