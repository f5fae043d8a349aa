"""NumPy's array methods on candlewick arrays (``x.sum()``, ``x.reshape(2, 3)``...):
each equals NumPy's method on the same data (value, shape, dtype), stays a candlewick
array on the array's device, writes ``out=`` when given, and refuses an option it does
not take with candlewick's error naming the method."""

import numpy as np
import pytest

import candlewick as cw
from candlewick.errors import ArgumentValueError

DATA = np.array([[1.5, -2.0, 3.0], [0.5, 4.0, -1.5]])
FLAGS = DATA > 0

CASES = [
    ("reshape", (3, 2), {}), ("reshape", ((6,),), {}), ("reshape", ((3, 2),), {"order": "F"}),
    ("sum", (), {}), ("sum", (0,), {"keepdims": True}), ("sum", (), {"axis": 1, "dtype": "float32"}),
    ("sum", (), {"where": FLAGS}), ("sum", (), {"initial": 10.0}), ("prod", (1,), {}),
    ("mean", (), {}), ("mean", (0,), {"dtype": "float32"}), ("var", (), {"ddof": 1}), ("std", (1,), {}),
    ("max", (), {}), ("max", (1,), {"keepdims": True}), ("max", (), {"initial": 10.0}), ("min", (0,), {}),
    ("argmax", (), {}), ("argmax", (1,), {"keepdims": True}), ("argmin", (0,), {}),
    ("cumsum", (), {}), ("cumsum", (1,), {}), ("cumprod", (0,), {}),
    ("copy", (), {}), ("flatten", (), {}), ("flatten", ("F",), {}), ("ravel", (), {}),
    ("transpose", (), {}), ("transpose", (1, 0), {}), ("transpose", ((1, 0),), {}),
    ("swapaxes", (0, 1), {}), ("repeat", (2,), {}), ("repeat", (2,), {"axis": 1}),
    ("take", ([2, 0],), {"axis": 1}), ("take", (4,), {}), ("clip", (-1.0, 2.0), {}), ("clip", (), {"max": 0.0}),
    ("round", (), {}), ("round", (1,), {}), ("conj", (), {}), ("conjugate", (), {}),
    ("argsort", (), {}), ("argsort", (0,), {}), ("dot", (DATA.T,), {}),
]


def _as_candlewick(value, device):
    return cw.asarray(value, device=device) if isinstance(value, np.ndarray) else value


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_method_matches_numpy(name, args, kwargs, device):
    x = cw.asarray(DATA, device=device)
    got = getattr(x, name)(*(_as_candlewick(a, device) for a in args),
                           **{k: _as_candlewick(v, device) for k, v in kwargs.items()})
    expected = getattr(DATA, name)(*args, **kwargs)
    assert isinstance(got, cw.Array) and got.device == x.device
    host = cw.to_numpy(got)
    assert host.shape == np.shape(expected) and host.dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(host, expected, rtol=1e-6)


@pytest.mark.parametrize("name", ["any", "all"])
def test_truth_methods(name, device):
    x = cw.asarray(FLAGS, device=device)
    assert getattr(x, name)().item() == getattr(FLAGS, name)()
    assert getattr(x, name)(axis=0).tolist() == getattr(FLAGS, name)(axis=0).tolist()


def test_real_imag_and_sizes(device):
    z = cw.asarray(DATA + 2j * DATA, device=device)
    assert z.real.tolist() == DATA.tolist() and z.imag.tolist() == (2 * DATA).tolist()
    x = cw.asarray(DATA, device=device)
    assert x.real is x and x.imag.tolist() == np.zeros_like(DATA).tolist()  # as NumPy's
    assert cw.asarray([1, 2], device=device).imag.tolist() == [0, 0]
    assert x.nbytes == DATA.nbytes and x.itemsize == DATA.itemsize


def test_in_place_methods(device):
    x = cw.asarray([[3, 1, 2], [9, 7, 8]], device=device)
    assert x.sort() is None and x.tolist() == [[1, 2, 3], [7, 8, 9]]
    x.sort(axis=0)
    x.fill(4)
    assert x.tolist() == [[4, 4, 4], [4, 4, 4]]


def test_searchsorted_and_nonzero(device):
    x = cw.asarray([1, 3, 5, 7], device=device)
    assert x.searchsorted(cw.asarray([4, 8], device=device)).tolist() == [2, 4]
    assert [i.tolist() for i in cw.asarray([[0, 2], [3, 0]], device=device).nonzero()] == [[0, 1], [1, 0]]


def test_out_is_written(device):
    x = cw.asarray(DATA, device=device)
    out = cw.zeros(3, device=device)
    assert x.sum(axis=0, out=out) is out
    assert out.tolist() == DATA.sum(axis=0).tolist()
    assert x.max(axis=1, out=cw.zeros(2, device=device)).tolist() == DATA.max(axis=1).tolist()


def test_options_candlewick_does_not_take_are_refused_by_name(device):
    x = cw.asarray(DATA, device=device)
    with pytest.raises(ArgumentValueError, match="Array.argsort"):
        x.argsort(order="f")
    with pytest.raises(ArgumentValueError, match="Array.take"):
        x.take([0], mode="clip")
