"""Helpers for the namespace tests: build candlewick arrays on the device under test in
several layouts, and compare results with NumPy / array-api-strict oracles."""

import contextlib

import numpy as np
import pytest

import candlewick as cw
from candlewick.dtypes import from_numpy


def make(host, device, layout="contiguous"):
    """A candlewick array equal to ``host`` on ``device``.

    ``layout``: ``contiguous``; ``flipped`` (every axis a negative-stride view);
    ``strided`` (a view with step 2 on the last axis, of a wider buffer)."""
    host = np.asarray(host)
    if layout == "contiguous" or host.ndim == 0:
        return cw.asarray(host, device=device)
    if layout == "flipped":
        base = cw.asarray(np.ascontiguousarray(np.flip(host)), device=device)
        return cw.flip(base)
    if layout == "strided":
        wide = np.repeat(host, 2, axis=-1) if host.shape[-1] else host
        base = cw.asarray(np.ascontiguousarray(wide), device=device)
        key = (slice(None),) * (host.ndim - 1) + (slice(None, None, 2),)
        return base[key] if host.shape[-1] else base
    raise ValueError(layout)


LAYOUTS = ("contiguous", "flipped", "strided")


def host(a):
    return cw.to_numpy(a)


def assert_same(result, expected, *, dtype=None, rtol=0.0, atol=0.0):
    """``result`` (candlewick) equals ``expected`` (NumPy or array-api-strict) in shape,
    dtype and values; NaNs must sit at the same places."""
    expected = np.asarray(expected)
    assert isinstance(result, cw.Array), type(result)
    assert result.shape == expected.shape, (result.shape, expected.shape)
    want = dtype if dtype is not None else from_numpy(expected.dtype)
    assert result.dtype == want, (result.dtype, want)
    got = host(result)
    if rtol or atol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def strict(host_array):
    import array_api_strict as xp

    return xp.asarray(np.asarray(host_array))


def strict_np(a):
    return np.asarray(a)


@contextlib.contextmanager
def raises_index_error(device):
    """Expect IndexError from the block. The backend contract lets an asynchronous
    backend report a bad index at its next synchronizing call, so the block ends with
    one (``device.synchronize()``) inside the expectation."""
    with pytest.raises(IndexError):
        yield
        device.synchronize()
