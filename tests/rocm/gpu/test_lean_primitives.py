"""The primitives of the lean eager path on a rocm device, at sizes past the conformance
suite's: compare_scalar (contiguous and strided), concat (several operands, a strided
one, an empty one), compress (1-D and with trailing axes, nothing kept, everything kept),
sort_values and argsort (both directions, stable and not), against NumPy."""

import numpy as np
import pytest

import candlewick as cw


def _on(device, host):
    return cw.asarray(host, device=device)


@pytest.mark.parametrize("reflected", [False, True])
def test_compare_scalar_with_a_python_scalar(rocm, reflected):
    host = np.random.default_rng(0).standard_normal(1 << 17).astype(np.float32)
    x = _on(rocm, host)
    got = (0.25 > x) if reflected else (x > 0.25)
    np.testing.assert_array_equal(cw.to_numpy(got), (0.25 > host) if reflected else (host > 0.25))
    strided = _on(rocm, host.reshape(256, 512))[:, ::3]
    np.testing.assert_array_equal(cw.to_numpy(strided <= 0), host.reshape(256, 512)[:, ::3] <= 0)
    ints = _on(rocm, np.arange(-50, 50, dtype=np.int16))
    np.testing.assert_array_equal(cw.to_numpy(ints == 7), np.arange(-50, 50) == 7)


def test_concat_of_several_operands(rocm):
    rng = np.random.default_rng(1)
    parts = [rng.standard_normal((64, n)).astype(np.float64) for n in (1000, 0, 37, 4096)]
    got = cw.concat([_on(rocm, p) for p in parts], axis=1)
    np.testing.assert_array_equal(cw.to_numpy(got), np.concatenate(parts, axis=1))
    base = rng.integers(0, 100, (300, 40)).astype(np.int32)
    strided = _on(rocm, base)[::2, ::-1]
    got = cw.concat([strided, _on(rocm, base[:5, :])], axis=0)
    np.testing.assert_array_equal(cw.to_numpy(got), np.concatenate([base[::2, ::-1], base[:5]], axis=0))


@pytest.mark.parametrize("keep", ["some", "none", "all"])
def test_compress_by_a_boolean_mask(rocm, keep):
    rng = np.random.default_rng(2)
    host = rng.standard_normal((1 << 16, 3)).astype(np.float32)
    mask = {"some": rng.random(1 << 16) < 0.3, "none": np.zeros(1 << 16, bool),
            "all": np.ones(1 << 16, bool)}[keep]
    x, m = _on(rocm, host), _on(rocm, mask)
    np.testing.assert_array_equal(cw.to_numpy(x[m]), host[mask])
    np.testing.assert_array_equal(cw.to_numpy(x[:, 0][m]), host[:, 0][mask])


@pytest.mark.parametrize("stable", [True, False])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_values_and_argsort(rocm, descending, stable):
    rng = np.random.default_rng(3)
    host = rng.integers(-1000, 1000, (8, 5000)).astype(np.float32)
    host[0, :10] = np.nan
    x = _on(rocm, host)
    values = cw.to_numpy(cw.sort(x, axis=1, descending=descending, stable=stable))
    expected = np.sort(host, axis=1, kind="stable")
    expected = np.flip(np.sort(np.flip(host, 1), axis=1, kind="stable"), 1) if descending else expected
    np.testing.assert_array_equal(values, expected)
    order = cw.to_numpy(cw.argsort(x, axis=1, descending=descending, stable=stable))
    np.testing.assert_array_equal(np.take_along_axis(host, order, axis=1), expected)
