"""The rocm backend's var primitive (composed of its own reduce and element-wise kernels:
candlewick.composed_primitives.var_in_steps), run on the CPU end to end through the backend's host
code and its real kernels compiled for the host (host_exec.py), against NumPy's var/std."""

import numpy as np
import pytest

from candlewick.layout import Layout
from host_exec import build, device_factory
from rocm_backend import ops

DTYPES = {"float32", "float64", "complex64", "complex128"}
OPS = {"binary": {"subtract", "divide"}, "unary": {"abs", "square", "sqrt"}}


def _wanted(key):
    """The kernels var launches for the dtypes above."""
    kind, rest = key[0], key[1:]
    if kind in OPS:
        return rest[0] in OPS[kind] and rest[-1] in DTYPES
    if kind == "reduce":
        return rest[1] == "sum" and rest[-1] in DTYPES
    return kind in ("copy", "fill") or (kind == "affine" and rest[-1] in DTYPES)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    specs = [s for s in ops.TABLE.values() if _wanted(tuple(s.key))]
    return build(tmp_path_factory.mktemp("moments_host"), ["reduce.hip"], specs)


@pytest.fixture
def dev(lib, monkeypatch, tmp_path):
    return device_factory(lib, monkeypatch, tmp_path)(warp=64)[1]


def _layout(base, view):
    item = base.dtype.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    return Layout(view.shape, tuple(st // item for st in view.strides), offset)


def _data(dtype, rng):
    a = rng.standard_normal((6, 40, 5)) * 3 + 1
    if dtype.startswith("complex"):
        a = a + 1j * (rng.standard_normal((6, 40, 5)) - 2)
    return a.astype(dtype)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("axes", [(0, 1, 2), (1,), (0, 2), ()])
@pytest.mark.parametrize("correction", [0, 1, 2.5])
def test_var_and_std_against_numpy(dev, dtype, axes, correction):
    rng = np.random.default_rng(len(axes) + int(2 * correction))
    base = _data(dtype, rng)
    for view in (base, base[:, ::-3, 1:], base.transpose(2, 0, 1)):
        layout = _layout(base, view)
        ax = axes
        count = int(np.prod([view.shape[a] for a in ax]))
        storage = dev.storage_from_host(base)
        for root, fn in ((False, np.var), (True, np.std)):
            want = fn(view.astype(np.complex128 if view.dtype.kind == "c" else np.float64), axis=ax,
                      ddof=correction) if count - correction > 0 else np.full(
                          [n for i, n in enumerate(view.shape) if i not in ax], np.nan)
            got = storage.var(layout, ax, correction, root).to_host(Layout.contiguous(np.shape(want)))
            assert got.dtype == np.empty(0, dtype).real.dtype
            tol = 1e-5 if got.dtype == np.float32 else 1e-12
            np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_var_of_nothing_and_of_non_finite_values(dev):
    empty = np.zeros((3, 0), np.float32)
    got = dev.storage_from_host(empty).var(Layout.contiguous((3, 0)), (1,), 0, False)
    assert np.isnan(got.to_host(Layout.contiguous((3,)))).all()
    x = np.array([[1.0, np.inf, 2.0], [1.0, 2.0, 4.0], [np.nan, 0.0, 1.0]], np.float64)
    got = dev.storage_from_host(x).var(Layout.contiguous((3, 3)), (1,), 0, True)
    got = got.to_host(Layout.contiguous((3,)))
    np.testing.assert_array_equal(np.isnan(got), [True, False, True])
    assert got[1] == pytest.approx(np.std(x[1]))
