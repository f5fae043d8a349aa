"""eye, linspace, meshgrid, tril and triu against NumPy / array-api-strict."""

import array_api_strict as xp
import numpy as np
import pytest

import candlewick as cw
from _oracle import check, on, transposed


@pytest.mark.parametrize("n_rows,n_cols,k", [
    (3, None, 0), (3, 5, 1), (5, 3, -2), (4, 4, 4), (4, 4, -4), (4, 6, 10), (0, 3, 0), (3, 0, 0), (1, 1, 0),
])
def test_eye_matches_numpy(device, n_rows, n_cols, k):
    check(cw.eye(n_rows, n_cols, k=k, device=device), np.eye(n_rows, n_cols, k=k))


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float32", "complex64"])
def test_eye_dtypes(device, dtype):
    out = cw.eye(3, 4, k=-1, dtype=getattr(cw, dtype), device=device)
    check(out, np.eye(3, 4, k=-1, dtype=dtype))
    assert out.device is device


def test_eye_rejects_bad_arguments(device):
    with pytest.raises(ValueError, match="n_rows"):
        cw.eye(-1, device=device)
    with pytest.raises(TypeError, match="n_cols"):
        cw.eye(2, 2.0, device=device)
    with pytest.raises(TypeError, match="k"):
        cw.eye(2, k=True, device=device)


@pytest.mark.parametrize("start,stop,num,endpoint", [
    (0, 1, 5, True), (0, 1, 5, False), (-3.5, 10, 7, True), (2, -2, 4, False), (1, 1, 3, True),
    (0, 1, 1, True), (0, 1, 1, False), (0, 1, 0, True), (1e10, 1e10 + 1, 11, True), (5, 0, 6, True),
])
def test_linspace_matches_numpy(device, start, stop, num, endpoint):
    check(cw.linspace(start, stop, num, endpoint=endpoint, device=device),
          np.linspace(start, stop, num, endpoint=endpoint), rtol=1e-15, atol=1e-15)


def test_linspace_last_value_is_stop_exactly(device):
    out = cw.to_numpy(cw.linspace(0.1, 0.7, 7, device=device))
    assert out[-1] == 0.7 and out[0] == 0.1


def test_linspace_float32_and_complex(device):
    check(cw.linspace(0, 3, 7, dtype=cw.float32, device=device),
          np.asarray(xp.linspace(0, 3, 7, dtype=xp.float32)))
    check(cw.linspace(0, 2 + 4j, 5, device=device), np.linspace(0, 2 + 4j, 5), rtol=1e-15)
    check(cw.linspace(1j, -1, 4, endpoint=False, dtype=cw.complex64, device=device),
          np.linspace(1j, -1, 4, endpoint=False).astype(np.complex64), rtol=1e-6)


def test_linspace_rejects_bad_arguments(device):
    with pytest.raises(TypeError, match="dtype"):
        cw.linspace(0, 1, 3, dtype=cw.bool, device=device)
    with pytest.raises(TypeError, match="complex"):
        cw.linspace(0, 1j, 3, dtype=cw.float64, device=device)
    with pytest.raises(ValueError, match="num"):
        cw.linspace(0, 1, -1, device=device)
    with pytest.raises(TypeError, match="num"):
        cw.linspace(0, 1, 2.0, device=device)
    with pytest.raises(TypeError, match="start"):
        cw.linspace("0", 1, 2, device=device)


def test_linspace_and_arange_take_numpys_numbers(device):
    """NumPy's scalars and 0-d arrays as bounds, an integer dtype (floored), a complex arange."""
    assert cw.linspace(0, 10, 4, dtype=cw.int32, device=device).tolist() == np.linspace(0, 10, 4, dtype=np.int32).tolist()
    got = cw.linspace(cw.asarray(1.0, device=device), np.float32(2.0), 3, device=device)
    assert got.tolist() == [1.0, 1.5, 2.0]
    assert cw.arange(np.int64(3), device=device).tolist() == [0, 1, 2]
    assert cw.arange(0, cw.asarray(2, device=device), device=device).tolist() == [0, 1]
    assert cw.arange(3, dtype=cw.complex64, device=device).tolist() == [0j, 1 + 0j, 2 + 0j]


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(3,), (2, 3), (2, 3, 4), (0, 3), (1, 4, 2)])
def test_meshgrid_matches_numpy(device, indexing, sizes):
    hosts = [np.arange(n, dtype=np.int32) * (i + 1) for i, n in enumerate(sizes)]
    arrays = [on(device, h) for h in hosts]
    outs = cw.meshgrid(*arrays, indexing=indexing)
    expected = np.meshgrid(*hosts, indexing=indexing)
    assert isinstance(outs, tuple if cw.__array_api_version__ >= "2025.12" else list)
    assert len(outs) == len(expected)
    for got, want in zip(outs, expected):
        check(got, want)


def test_meshgrid_outputs_are_independent_copies(device):
    a, b = on(device, [1.0, 2.0]), on(device, [3.0, 4.0, 5.0])
    gx, gy = cw.meshgrid(a, b)
    gx[0, 0] = 100.0
    assert cw.to_numpy(gx)[1, 0] == 1.0
    assert cw.to_numpy(a)[0] == 1.0


def test_meshgrid_of_strided_input(device):
    base = on(device, np.arange(10.0))
    check(cw.meshgrid(base[::3], indexing="ij")[0], np.arange(10.0)[::3])


def test_meshgrid_rejects_bad_input(device):
    a = on(device, [1, 2])
    with pytest.raises(TypeError):
        cw.meshgrid(a, on(device, [1.0]))
    with pytest.raises(ValueError, match="1-D"):
        cw.meshgrid(a, on(device, [[1, 2]]))
    with pytest.raises(ValueError, match="indexing"):
        cw.meshgrid(a, indexing="xz")
    assert list(cw.meshgrid()) == []


@pytest.mark.parametrize("fname", ["tril", "triu"])
@pytest.mark.parametrize("shape", [(3, 4), (4, 3), (2, 3, 3), (0, 3), (2, 0, 2), (1, 1)])
def test_triangles_match_numpy(device, fname, shape):
    host = np.arange(1, np.prod(shape) + 1, dtype=np.float64).reshape(shape)
    x = on(device, host)
    for k in (-5, -1, 0, 1, 2, 5):
        check(getattr(cw, fname)(x, k=k), getattr(np, fname)(host, k=k))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint64", "complex128"])
def test_triangles_dtypes_and_views(device, dtype):
    host = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    check(cw.tril(on(device, host), k=1), np.tril(host, k=1))
    check(cw.triu(transposed(device, host), k=-1), np.triu(host, k=-1))
    big = np.iinfo(np.int64).max
    check(cw.tril(on(device, host), k=big), host)
    check(cw.triu(on(device, host), k=-big), host)


def test_triangles_reject_bad_input(device):
    with pytest.raises(ValueError, match="2 dimensions"):
        cw.tril(on(device, [1, 2, 3]))
    with pytest.raises(TypeError, match="k"):
        cw.triu(on(device, np.ones((2, 2))), k=1.5)
    with pytest.raises(TypeError):
        cw.tril(np.ones((2, 2)))
