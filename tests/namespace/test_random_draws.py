"""candlewick.random's NumPy draws (issue 35, item 6): NumPy's signatures, the numbers of the
Philox stream (computed here from the contract's oracle, so the same on every backend the
test runs on), the ranges and frequencies the distributions promise, and clear errors."""

import inspect
import math

import numpy as np
import pytest

import candlewick as cw
from candlewick.conformance import philox_reference as philox
from candlewick.errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError

DRAWS = [n for n in cw.random.__all__ if inspect.isfunction(getattr(cw.random.Generator, n, None))]
# NumPy parameters we do not take: out= (results are new arrays), the ziggurat method switch
NOT_TAKEN = {"out", "method"}


@pytest.mark.parametrize("name", DRAWS)
def test_draws_have_numpys_signature(name):
    """NumPy's parameters, in NumPy's order with NumPy's defaults (dtype None standing for
    NumPy's float64); what candlewick adds is keyword-only."""
    ours = inspect.signature(getattr(cw.random.Generator, name)).parameters
    theirs = [p for p in inspect.signature(getattr(np.random.Generator, name)).parameters.values()
              if p.name not in NOT_TAKEN | {"self"}]
    positional = [p for p in ours.values() if p.kind is p.POSITIONAL_OR_KEYWORD][1:]  # (self)
    assert [p.name for p in positional] == [p.name for p in theirs]
    for mine, numpy_param in zip(positional, theirs):
        if mine.name != "dtype":
            assert mine.default == numpy_param.default, (name, mine.name)
    assert all(p.kind is p.KEYWORD_ONLY for p in list(ours.values())[len(positional) + 1:])
    assert getattr(cw.random, name).__doc__ == getattr(cw.random.Generator, name).__doc__
    assert list(inspect.signature(getattr(cw.random, name)).parameters) == list(ours)[1:]


def _words24(seed, counter, rows, n):
    """The float32 draws over [0, 2**24) the integer draws are made of: each word's top 24 bits."""
    return (philox.words(seed, counter, rows * n).astype(np.uint64) >> np.uint64(8)).reshape(rows, n)


def _bits64(seed, counter, n):
    a, b, c = _words24(seed, counter, 3, n)
    bits = (a << np.uint64(40)) ^ (b << np.uint64(16)) ^ c
    return bits.view(np.int64)


def test_integers_are_the_streams_bits_on_every_backend(device):
    n, seed = 37, 12345
    g = cw.random.default_rng(seed)
    got = cw.to_numpy(g.integers(-5, 1000, size=n, device=device))
    expected = (_bits64(seed, 0, n).astype(object) % 1005 - 5).astype(np.int64)
    np.testing.assert_array_equal(got, expected)
    assert g.counter == math.ceil(3 * n / 4)  # three words an element, whole blocks
    # the next draw starts where this one ended
    again = cw.to_numpy(g.integers(0, 2**62, size=n, device=device))
    np.testing.assert_array_equal(again, _bits64(seed, math.ceil(3 * n / 4), n) % 2**62)


def test_wide_integer_ranges_use_every_bit(device):
    g = cw.random.default_rng(9)
    full = cw.to_numpy(g.integers(0, 2**64, size=16, dtype=cw.uint64, device=device))
    np.testing.assert_array_equal(full, _bits64(9, 0, 16).view(np.uint64))
    signed = cw.to_numpy(cw.random.default_rng(9).integers(-2**63, 2**63, size=16, device=device))
    np.testing.assert_array_equal(signed, (_bits64(9, 0, 16).view(np.uint64) ^ np.uint64(2**63)).view(np.int64))
    high = cw.to_numpy(g.integers(2**63, 2**63 + 10, size=50, dtype="uint64", device=device))
    assert ((high >= 2**63) & (high < 2**63 + 10)).all()
    inclusive = cw.to_numpy(g.integers(-128, 127, size=2000, dtype=cw.int8, endpoint=True, device=device))
    assert inclusive.min() == -128 and inclusive.max() == 127


def test_permutation_is_the_stable_argsort_of_random_keys(device):
    g = cw.random.default_rng(4)
    got = cw.to_numpy(g.permutation(50, device=device))
    np.testing.assert_array_equal(got, np.argsort(_bits64(4, 0, 50), kind="stable"))
    x = cw.reshape(cw.arange(12, device=device), (4, 3))
    rows = cw.to_numpy(cw.random.default_rng(4).permutation(x))
    np.testing.assert_array_equal(rows, np.arange(12).reshape(4, 3)[np.argsort(_bits64(4, 0, 4), kind="stable")])
    cols = cw.to_numpy(cw.random.default_rng(4).permutation(x, axis=1))
    assert sorted(map(tuple, cols.T.tolist())) == sorted(map(tuple, np.arange(12).reshape(4, 3).T.tolist()))


def test_shuffle_writes_in_place_through_views(device):
    x = cw.arange(20, device=device)
    view = x[::2]
    cw.random.default_rng(1).shuffle(view)
    host = cw.to_numpy(x)
    assert sorted(host[::2].tolist()) == list(range(0, 20, 2)) and host[1::2].tolist() == list(range(1, 20, 2))
    assert host[::2].tolist() != list(range(0, 20, 2))


def test_floating_draws_follow_the_philox_oracle(device):
    seed = 77
    dtype = cw.float32 if cw.float64 not in device.dtypes else cw.float64
    u = cw.to_numpy(cw.random.default_rng(seed).random(40, dtype=dtype, device=device))
    assert u.tobytes() == philox.uniform((40,), dtype.numpy, seed, 0, 0.0, 1.0).tobytes()
    z = cw.to_numpy(cw.random.default_rng(seed).standard_normal((5, 8), dtype=dtype, device=device))
    values, _ = philox.normal_float64((5, 8), dtype.numpy, seed, 0, 0.0, 1.0)
    np.testing.assert_allclose(z, values, rtol=1e-5, atol=1e-5)
    e = cw.to_numpy(cw.random.default_rng(seed).exponential(3.0, size=40, dtype=dtype, device=device))
    expected = -np.log1p(-philox.unit_uniforms(seed, 0, 40, dtype.numpy).astype(np.float64)) * 3.0
    np.testing.assert_allclose(e, expected, rtol=1e-5)


def test_distributions_have_their_moments(device):
    g = cw.random.default_rng(2024)
    n = 20_000
    checks = {
        "uniform(-2, 4)": (g.uniform(-2.0, 4.0, size=n, dtype=cw.float32, device=device), 1.0, math.sqrt(3.0)),
        "normal(3, 2)": (g.normal(3.0, 2.0, size=n, dtype=cw.float32, device=device), 3.0, 2.0),
        "exponential(0.5)": (g.exponential(0.5, size=n, dtype=cw.float32, device=device), 0.5, 0.5),
        "lognormal(0, 0.25)": (g.lognormal(0.0, 0.25, size=n, dtype=cw.float32, device=device),
                               math.exp(0.25**2 / 2), math.sqrt((math.exp(0.25**2) - 1) * math.exp(0.25**2))),
    }
    for name, (x, mean, std) in checks.items():
        host = cw.to_numpy(x).astype(np.float64)
        assert abs(host.mean() - mean) < 5 * std / math.sqrt(n), name
        assert abs(host.std() - std) < 0.05 * std, name
    counts = np.bincount(cw.to_numpy(g.integers(7, size=n, device=device)), minlength=7)
    assert (abs(counts - n / 7) < 5 * math.sqrt(n / 7)).all(), counts


def test_choice_with_and_without_replacement(device):
    g = cw.random.default_rng(5)
    p = [0.1, 0.0, 0.6, 0.3]
    picks = cw.to_numpy(g.choice(4, size=20_000, p=p, device=device))
    freq = np.bincount(picks, minlength=4) / picks.size
    np.testing.assert_allclose(freq, p, atol=0.015)
    assert freq[1] == 0
    population = cw.reshape(cw.arange(10, device=device), (5, 2))
    rows = g.choice(population, size=(2, 3))
    assert rows.shape == (2, 3, 2) and rows.device == population.device
    unique = cw.to_numpy(g.choice(population, size=5, replace=False))
    assert sorted(map(tuple, unique.tolist())) == [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)]
    weighted = cw.to_numpy(g.choice(6, size=3, replace=False, p=[0.2, 0.2, 0.2, 0.2, 0.2, 0.0],
                                    device=device))
    assert len(set(weighted.tolist())) == 3 and 5 not in weighted
    one = g.choice(population, axis=1)
    assert one.shape == (5,)
    assert g.choice(3, size=0, device=device).shape == (0,)


def test_array_parameters_broadcast_as_numpys(device):
    g = cw.random.default_rng(8)
    loc = cw.asarray([0.0, 100.0, -100.0], device=device)
    x = g.normal(loc, 1.0, size=(4, 3))
    assert x.shape == (4, 3) and x.device == loc.device
    host = cw.to_numpy(x)
    assert (abs(host - np.array([0.0, 100.0, -100.0])) < 8).all()
    assert g.uniform(cw.zeros(2, device=device), 1.0).shape == (2,)
    with pytest.raises(ShapeError, match="normal"):
        g.normal(loc, 1.0, size=(3, 2))
    with pytest.raises(ArgumentValueError, match="scale must be >= 0"):
        g.normal(0.0, cw.asarray([1.0, -1.0], device=device))
    bounded = cw.to_numpy(g.integers(cw.asarray([0, 10, 20], device=device), 25, size=(100, 3)))
    assert (bounded >= [0, 10, 20]).all() and (bounded < 25).all()


@pytest.mark.parametrize("call,error,match", [
    (lambda g: g.integers(5, 5), ArgumentValueError, r"integers: low \(5\) must be < high"),
    (lambda g: g.integers(0, 300, dtype=cw.int8), ArgumentValueError, "outside int8"),
    (lambda g: g.integers(0, 3, dtype=cw.float32), DTypeError, "integer dtype"),
    (lambda g: g.integers(0.5, 3), ArgumentTypeError, "low must be an integer"),
    (lambda g: g.choice(3, 5, replace=False), ArgumentValueError, "larger sample"),
    (lambda g: g.choice(3, p=[0.5, 0.2, 0.2]), ArgumentValueError, "do not sum to 1"),
    (lambda g: g.choice(3, p=[1.5, -0.5, 0.0]), ArgumentValueError, ">= 0"),
    (lambda g: g.choice(3, p=[0.5, 0.5]), ShapeError, "length 3"),
    (lambda g: g.choice(3, 2, replace=False, p=[1.0, 0.0, 0.0]), ArgumentValueError, "fewer non-zero"),
    (lambda g: g.choice(0, 1), ArgumentValueError, "cannot be empty"),
    (lambda g: g.choice("abc"), ArgumentTypeError, "choice: a must be"),
    (lambda g: g.permutation(cw.asarray(1)), ShapeError, "at least 1-D"),
    (lambda g: g.shuffle([1, 2]), ArgumentTypeError, "shuffle: x must be a candlewick array"),
    (lambda g: g.uniform(1.0, 0.0), ArgumentValueError, r"high \(0.0\) must be >= low"),
    (lambda g: g.normal(0.0, -1.0), ArgumentValueError, "scale must be >= 0"),
    (lambda g: g.random(dtype=cw.int32), DTypeError, "real floating"),
    (lambda g: g.random(size=-1), ArgumentValueError, "non-negative"),
])
def test_bad_arguments_raise_naming_the_draw(call, error, match):
    with pytest.raises(error, match=match):
        call(cw.random.default_rng(0))


def test_module_functions_draw_from_the_default_generator():
    cw.random.seed(11)
    a = cw.random.integers(100, size=5).tolist() + cw.random.random(2).tolist()
    cw.random.seed(11)
    g = cw.random.default_generator()
    assert g.integers(100, size=5).tolist() + g.random(2).tolist() == a
    assert cw.random.default_rng(11).integers(100, size=5).tolist() == a[:5]
    with pytest.raises(ArgumentValueError, match=r"integers: low \(3\)"):
        cw.random.integers(3, 3)


def test_size_none_gives_a_0d_array():
    g = cw.random.default_rng(0)
    for draw in (g.random(), g.normal(), g.integers(4), g.choice(3), g.exponential()):
        assert draw.shape == ()
