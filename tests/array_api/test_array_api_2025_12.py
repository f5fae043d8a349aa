"""What the 2025.12 revision adds or changes, and the switch back to 2024.12.

Oracles: array-api-strict with its 2025.12 flag (isin, expand_dims with a tuple axis,
broadcast_shapes, the list -> tuple changes) and NumPy (eig's defining properties).
"""

import os
import subprocess
import sys

import array_api_strict as xs
import numpy as np
import pytest

import candlewick as cw
from array_api_support import assert_matches_strict, to_np, to_strict
from candlewick.errors import ApiVersionError, AxisError, DTypeError, ShapeError


@pytest.fixture
def revision():
    """Select a revision for one test (candlewick and the oracle), restoring both after."""
    before, strict_before = cw.array_api_version(), xs.get_array_api_strict_flags()["api_version"]

    def select(version):
        cw.set_array_api_version(version)
        xs.set_array_api_strict_flags(api_version=version)

    yield select
    cw.set_array_api_version(before)
    xs.set_array_api_strict_flags(api_version=strict_before)


#: the revision this run started with (CANDLEWICK_ARRAY_API_VERSION, else 2025.12)
STARTED = cw.array_api_version()


@pytest.fixture(autouse=True)
def _on_2025_12(revision):
    """These tests are about 2025.12, whichever revision the run selected."""
    revision("2025.12")


# --- the version flag ----------------------------------------------------------------------

def test_the_default_revision_is_2025_12():
    assert STARTED == os.environ.get("CANDLEWICK_ARRAY_API_VERSION", "2025.12")
    assert cw.__array_api_version__ == cw.array_api_version() == "2025.12"
    assert cw.asarray(1).__array_namespace__(api_version="2025.12") is cw


def test_the_environment_variable_selects_2024_12():
    code = "import candlewick as cw; print(cw.__array_api_version__, type(cw.__array_namespace_info__().devices()).__name__)"
    env = dict(os.environ, CANDLEWICK_ARRAY_API_VERSION="2024.12")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["2024.12", "list"]
    env["CANDLEWICK_ARRAY_API_VERSION"] = "2023.12"
    bad = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert bad.returncode != 0 and "CANDLEWICK_ARRAY_API_VERSION" in bad.stderr


def test_set_array_api_version_rejects_unknown_revisions(revision):
    before = cw.__array_api_version__
    with pytest.raises(ValueError, match="2024.12"):
        cw.set_array_api_version("2026.12")
    assert cw.__array_api_version__ == before


@pytest.mark.parametrize("version", ["2024.12", "2025.12"])
def test_sequences_are_tuples_from_2025_12_and_lists_before(revision, version):
    revision(version)
    assert cw.__array_api_version__ == version
    kind = tuple if version == "2025.12" else list
    a, b = cw.asarray([1, 2]), cw.asarray([3, 4, 5])
    for got, ref in ((cw.meshgrid(a, b), xs.meshgrid(to_strict(a), to_strict(b))),
                     (cw.broadcast_arrays(a[:, None], b), xs.broadcast_arrays(to_strict(a)[:, None], to_strict(b)))):
        assert type(got) is kind and type(ref) is kind
        for g, r in zip(got, ref):
            assert_matches_strict(g, r)
    assert type(cw.meshgrid()) is kind
    assert type(cw.__array_namespace_info__().devices()) is kind


@pytest.mark.parametrize("call", [
    lambda: cw.broadcast_shapes((2,), (1,)),
    lambda: cw.isin(cw.asarray([1]), cw.asarray([1])),
    lambda: cw.linalg.eig(cw.eye(2)),
    lambda: cw.linalg.eigvals(cw.eye(2)),
], ids=["broadcast_shapes", "isin", "eig", "eigvals"])
def test_2025_12_functions_raise_under_2024_12(revision, call):
    revision("2024.12")
    with pytest.raises(ApiVersionError, match="2025.12"):
        call()
    revision("2025.12")
    call()


# --- broadcast_shapes ------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", [(), ((),), ((2, 3),), ((2, 1), (3,)), ((1, 4), (5, 1, 1), ()),
                                    ((0,), (1,)), ((3, 0, 2), (0, 1))])
def test_broadcast_shapes_matches_the_oracle(shapes):
    assert cw.broadcast_shapes(*shapes) == xs.broadcast_shapes(*shapes)
    assert type(cw.broadcast_shapes(*shapes)) is tuple


def test_broadcast_shapes_rejects_what_does_not_broadcast():
    with pytest.raises(ShapeError, match="broadcast_shapes"):
        cw.broadcast_shapes((2, 3), (3, 2))
    with pytest.raises(TypeError):
        cw.broadcast_shapes((2.5,))
    with pytest.raises(ValueError):
        cw.broadcast_shapes((-1,))


# --- expand_dims with a tuple axis, permute_dims with negative axes, scalar searchsorted ----

@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("axis", [(0,), (-1,), (0, 1), (0, -1), (-1, -2), (2, 0), (1, 3)])
def test_expand_dims_with_a_tuple_axis(shape, axis):
    x = cw.reshape(cw.arange(int(np.prod(shape)), dtype=cw.int32), shape)
    if not all(-len(shape) - len(axis) <= a < len(shape) + len(axis) for a in axis):
        with pytest.raises(AxisError):
            cw.expand_dims(x, axis)
        return
    assert_matches_strict(cw.expand_dims(x, axis), xs.expand_dims(to_strict(x), axis=axis))


def test_expand_dims_rejects_a_repeated_position():
    with pytest.raises(AxisError, match="twice"):
        cw.expand_dims(cw.ones((2, 3)), (0, -4))  # -4 is 0 in the 4-d result
    with pytest.raises(AxisError):
        cw.expand_dims(cw.ones((2, 3)), (0, 4))


def test_permute_dims_takes_negative_axes():
    x = cw.reshape(cw.arange(24), (2, 3, 4))
    assert_matches_strict(cw.permute_dims(x, (-1, 0, -2)), xs.permute_dims(to_strict(x), (-1, 0, -2)))


@pytest.mark.parametrize("value", [2, 2.5, -1])
def test_searchsorted_takes_a_scalar(value):
    x = cw.asarray([0.0, 1.0, 2.0, 3.0])
    for side in ("left", "right"):
        assert_matches_strict(cw.searchsorted(x, value, side=side), xs.searchsorted(to_strict(x), value, side=side))


# --- isin ----------------------------------------------------------------------------------------

_NAN = float("nan")


@pytest.mark.parametrize("x1, x2", [
    ([1, 2, 3, 4], [2, 4, 6]),
    ([[5, -1], [0, 7]], [7, 7, -1]),
    ([1, 2], []),
    ([], [1, 2]),
    ([1.0, _NAN, -0.0, 2.5], [0.0, _NAN, 2.5]),
    ([True, False, True], [False]),
    ([1 + 1j, 2j, _NAN + 0j], [2j, _NAN + 0j]),
], ids=["int", "2d", "empty-x2", "empty-x1", "nan-and-zeros", "bool", "complex"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin_matches_the_oracle(x1, x2, invert):
    a = cw.asarray(x1) if x1 else cw.asarray(x1, dtype=cw.int64)
    b = cw.asarray(x2, dtype=a.dtype)
    got = cw.isin(a, b, invert=invert)
    want = np.isin(to_np(a), to_np(b), invert=invert)  # value equality: NaN in nothing, -0 is +0
    assert got.dtype == cw.bool and got.shape == a.shape
    np.testing.assert_array_equal(to_np(got), want)


@pytest.mark.parametrize("kind", ["int", "float", "bool"])
def test_isin_against_a_long_x2_of_repeated_values(kind):
    """x2 past the length from which isin searches its distinct values only: repeats,
    NaNs, both zeros and values outside x1's range."""
    rng = np.random.default_rng(11)
    if kind == "int":
        x1, x2 = rng.integers(-5, 20, 300), np.repeat(rng.integers(0, 15, 50), 100)
    elif kind == "float":
        x1 = np.concatenate([rng.integers(-3, 10, 300).astype(float), [_NAN, -0.0, 0.0, 2.5]])
        x2 = np.concatenate([np.repeat([0.0, -0.0, _NAN, 2.5, 7.0], 1000), rng.standard_normal(100)])
    else:
        x1, x2 = rng.random(300) < 0.5, np.ones(5000, dtype=bool)
    for invert in (False, True):
        got = cw.isin(cw.asarray(x1), cw.asarray(x2), invert=invert)
        np.testing.assert_array_equal(to_np(got), np.isin(x1, x2, invert=invert))


def test_isin_with_scalars_and_promotion():
    x = cw.asarray([1, 2, 3], dtype=cw.int8)
    assert_matches_strict(cw.isin(x, 2), xs.isin(to_strict(x), 2))
    assert_matches_strict(cw.isin(3, x), xs.isin(3, to_strict(x)))
    assert cw.isin(3, x).shape == ()
    y = cw.asarray([300, 2], dtype=cw.int16)
    np.testing.assert_array_equal(to_np(cw.isin(x, y)), [False, True, False])
    with pytest.raises(TypeError):
        cw.isin(1, 2)
    with pytest.raises(TypeError):
        cw.isin(x, y, invert=1)
    with pytest.raises(DTypeError):
        cw.isin(x, cw.asarray([1.0]))  # no int/float promotion in the standard


# --- linalg.eig / eigvals -------------------------------------------------------------------------

def _has_linalg():
    return "linalg" in cw.get_device(None).capabilities


@pytest.mark.parametrize("name, cname", [("float32", "complex64"), ("float64", "complex128"),
                                         ("complex64", "complex64"), ("complex128", "complex128")])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 2, 2)])
def test_eig_and_eigvals(name, cname, shape):
    if not _has_linalg():
        pytest.skip("the device under test does not declare the optional linalg group")
    rng = np.random.default_rng(19)
    host = rng.standard_normal(shape)
    if name.startswith("complex"):
        host = host + 1j * rng.standard_normal(shape)
    x = cw.asarray(host.astype(name))
    w, v = cw.linalg.eig(x)
    assert isinstance(cw.linalg.eig(x), cw.linalg.EigResult)
    assert w.dtype == v.dtype == getattr(cw, cname)
    assert w.shape == shape[:-1] and v.shape == shape
    a, wn, vn = to_np(x).astype(np.complex128), to_np(w).astype(np.complex128), to_np(v).astype(np.complex128)
    tol = 1e-4 if cname == "complex64" else 1e-10
    np.testing.assert_allclose(a @ vn, vn * wn[..., None, :], atol=tol * max(1, shape[-1]) * 10)
    np.testing.assert_allclose(np.linalg.norm(vn, axis=-2), 1.0, atol=tol)
    np.testing.assert_array_equal(to_np(cw.linalg.eigvals(x)), to_np(w))


def test_eig_of_a_rotation_has_complex_eigenvalues():
    if not _has_linalg():
        pytest.skip("the device under test does not declare the optional linalg group")
    w = to_np(cw.linalg.eigvals(cw.asarray([[0.0, -1.0], [1.0, 0.0]])))
    np.testing.assert_allclose(np.sort_complex(w), [-1j, 1j], atol=1e-15)


def test_eig_rejects_bad_input():
    with pytest.raises(DTypeError, match="linalg.eig"):
        cw.linalg.eig(cw.eye(2, dtype=cw.int32))
    with pytest.raises(ShapeError, match="linalg.eig"):
        cw.linalg.eig(cw.ones((2, 3)))
    with pytest.raises(ShapeError, match="linalg.eigvals"):
        cw.linalg.eigvals(cw.ones(3))
