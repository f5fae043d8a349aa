"""SciPy's part of the pydata-suites plugin (candlewick_substitute.py loads it): candlewick
as a parameter of SciPy's ``xp`` fixture, known to its conftest's markers, at the Array API
revision the conftest pins array-api-strict to; off host memory, SciPy's assertion helpers
move candlewick's arrays to the host explicitly, as they move CuPy's and PyTorch's."""

import pytest

STRICT, CANDLEWICK = "array_api_strict", "candlewick"


def patch_xp_fixture(session):
    """Add candlewick to the parameters of SciPy's ``xp`` fixture (its conftest defines
    them once, from the backends it finds installed)."""
    import candlewick
    from candlewick.backend import holds_host_memory

    conftest = None
    for fixturedef in session._fixturemanager._arg2fixturedefs.get("xp", ()):
        params = tuple(fixturedef.params or ())
        ids = {getattr(p, "id", None) for p in params}
        if STRICT not in ids or CANDLEWICK in ids:
            continue
        mark = pytest.mark.array_api_backends
        fixturedef.params = (*params, pytest.param(candlewick, id=CANDLEWICK, marks=mark))
        conftest = fixturedef.func.__globals__
    if conftest is None:
        return
    # scipy/conftest.py pins array-api-strict to a revision (2024.12 in SciPy 1.17, 2025.12
    # later): candlewick follows the one strict follows now (SciPy's devices() fixture, for
    # one, adds a list to the revision's sequence; 1.18's polyroots calls linalg.eigvals)
    candlewick.set_array_api_version(_strict_revision())
    # every backend its markers may name must be known to the conftest: its skip/xfail
    # helper keys its reasons by xp_known_backends, and a cpu_only marker walks
    # xp_skip_cpu_only_backends (a KeyError for each marked test, strict's too, otherwise)
    conftest["xp_known_backends"].add(CANDLEWICK)
    if not holds_host_memory(candlewick.get_device(None)):
        # a GPU array: SciPy's cpu_only markers skip it, as they skip CuPy's
        conftest["xp_skip_cpu_only_backends"].add(CANDLEWICK)
        _move_to_host_in_scipy_assertions()


def _strict_revision():
    """The Array API revision array-api-strict follows now (where candlewick supports it)."""
    import array_api_strict

    from candlewick.api_version import SUPPORTED, array_api_version

    revision = array_api_strict.get_array_api_strict_flags().get("api_version")
    return revision if revision in SUPPORTED else array_api_version()


class _HostTesting:
    """``numpy.testing`` whose functions first move candlewick arrays to the host."""

    def __init__(self, testing, to_host):
        self._testing, self._to_host = testing, to_host

    def __getattr__(self, name):
        found = getattr(self._testing, name)
        if not callable(found):
            return found

        def moved(*args, **kwargs):
            return found(*map(self._to_host, args), **{k: self._to_host(v) for k, v in kwargs.items()})

        return moved


class _NumpyWithHostTesting:
    """NumPy, with ``testing`` replaced by :class:`_HostTesting`; every other name is NumPy's."""

    def __init__(self, numpy, testing):
        self._numpy, self.testing = numpy, testing

    def __getattr__(self, name):
        return getattr(self._numpy, name)


def _move_to_host_in_scipy_assertions():
    """SciPy's test assertions (``scipy._lib._array_api``: ``xp_assert_close`` and the others)
    compare with ``numpy.testing`` for every namespace except CuPy's and PyTorch's, which they
    move to the host themselves (``.get()``, ``.cpu()``); their ``_xp_copy_to_numpy`` says a
    new device backend needs the same explicit handling. candlewick's arrays off host memory
    get it here: ``candlewick.to_numpy`` in those helpers only, so that a SciPy function that
    hands the array to NumPy itself still meets the refused implicit copy."""
    import numpy
    from scipy._lib import _array_api as helpers

    import candlewick

    def to_host(value):
        return candlewick.to_numpy(value) if isinstance(value, candlewick.Array) else value

    copy_to_numpy = helpers._xp_copy_to_numpy
    helpers._xp_copy_to_numpy = lambda x: to_host(x) if isinstance(x, candlewick.Array) else copy_to_numpy(x)
    helpers.np = _NumpyWithHostTesting(numpy, _HostTesting(numpy.testing, to_host))
