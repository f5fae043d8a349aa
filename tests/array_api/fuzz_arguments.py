"""The arguments of the fuzz test's calls, one of its three building blocks (with
``fuzz_targets``, the callables, and ``fuzz_outcomes``, the rule): hypothesis strategies
of bad (and some good) arguments. ``call_arguments`` gives a target plausible values by
parameter name with one or two bad ones among them (wrong types and dtypes, special
values, views, foreign operands, huge and negative sizes, odd sequences, out-of-range
axes and indices), usually in an arity its signature accepts and now and then with a
wrong arity or an unknown keyword from ``keyword_pool``; ``numpy_call_arguments`` gives
NumPy's entry points (``fuzz_targets.numpy_targets``) their operands, at least one a
candlewick array, and NumPy's keywords.

``MID_SIZES`` is a setting a caller assigns on this module before the first draw
(tools/reliability_fuzz.py in its tight-memory batches): it adds mid-size integers to
``INTS``.
"""

import inspect
import math

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

import candlewick as cw
from fuzz_targets import NUMPY_CREATION, NUMPY_FUNCTIONS, NUMPY_UFUNCS, UFUNC_METHODS, signature_of

ALL_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                   "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128")

# Integers are either small or far beyond any allocation, never in between: a fuzzed
# shape must fail at once or be tiny, not make a CI machine allocate gigabytes. A run
# under a tight memory limit (tools/reliability_fuzz.py --tight-share) sets MID_SIZES:
# sizes whose results fit no more than a few times in what the limit leaves, so that the
# kernels' own allocations fail there and must be reported as DeviceMemoryError.
_INT_VALUES = (0, 1, 2, 3, 7, -1, -2, -3, -7, 2**62, 2**63, 2**64, -(2**63) - 1, 10**30)
_MID_SIZE_VALUES = (2**22, 2**24, 2**25, 3 * 2**23)
MID_SIZES = False
INTS = st.deferred(lambda: st.sampled_from(_INT_VALUES + (_MID_SIZE_VALUES if MID_SIZES else ())))
FLOATS = st.sampled_from([0.0, -0.0, 0.5, -2.5, 3.0, float("nan"), float("inf"), float("-inf"), 1e300])
COMPLEXES = st.sampled_from([1j, complex(float("nan"), 1.0), 2.5 - 1j])
STRINGS = st.sampled_from(["", "a", "cpu", "rocm:99", "nope", "cpu:1", "float32", "int8", "xy",
                           "ij", "left", "right", "ortho", "forward", "fro", "nuc", "reduced",
                           "complete", "numeric", "integral", "2024.12", "backward"])


#: element values: ordinary, signed zeros, NaN, infinities, subnormals, and the dtype's
#: own extremes (LOWEST/HIGHEST, replaced per dtype)
_VALUES = [0, 1, -1, 2, 3, 0.5, -0.0, float("nan"), float("inf"), float("-inf"), 5e-324, 1e-40,
           "LOWEST", "HIGHEST"]
VIEW_KINDS = ("plain", "plain", "flip", "transpose", "offset", "strided", "broadcast", "0-d", "empty")


def small_arrays(draw_dtype=st.sampled_from(ALL_DTYPE_NAMES)):
    """Small arrays of every dtype (float16/bfloat16 included), holding special values,
    often as views: reversed (negative strides), transposed, offset, strided, broadcast
    (stride 0), 0-d and empty."""
    @st.composite
    def build(draw):
        name = draw(draw_dtype)
        view = draw(st.sampled_from(VIEW_KINDS))
        shape = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
        if view in ("offset", "strided"):
            shape = (draw(st.integers(2, 5)),) + shape[1:]
        elif view == "0-d":
            shape = ()
        elif view == "empty":
            shape = shape[:1] + (0,) + shape[1:]
        size = math.prod(shape)
        # one draw seeds the elements: a draw per element would make the data, not the
        # call, the cost of a fuzzed call
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        values = [_VALUES[i] for i in rng.integers(0, len(_VALUES), size)]
        host = _host_of_dtype(values, shape, name)
        x = cw.asarray(host)
        if view == "flip" and x.ndim:
            x = x[::-1]
        elif view == "transpose" and x.ndim >= 2:
            x = x.mT
        elif view == "offset":
            x = x[1:]
        elif view == "strided":
            x = x[::2]
        elif view == "broadcast":
            x = cw.broadcast_to(x, (2,) + x.shape)
        return x

    return build()


def _extremes(name):
    if name == "bool":
        return False, True
    if name.startswith(("int", "uint")):
        info = np.iinfo(name)
        return int(info.min), int(info.max)
    info = ml_dtypes.finfo(ml_dtypes.bfloat16) if name == "bfloat16" else np.finfo(
        name.replace("complex64", "float32").replace("complex128", "float64"))
    return float(info.min), float(info.max)


def _host_of_dtype(values, shape, name):
    lowest, highest = _extremes(name)
    if name.startswith(("int", "uint")):
        ints = [lowest if v == "LOWEST" else highest if v == "HIGHEST" else
                (0 if v != v or v in (float("inf"), float("-inf")) else int(v)) for v in values]
        ints = [min(max(v, lowest), highest) for v in ints]
        return np.array(ints, dtype=name).reshape(shape)
    floats = [lowest if v == "LOWEST" else highest if v == "HIGHEST" else v for v in values]
    host = np.array(floats, dtype=np.float64).reshape(shape)
    with np.errstate(all="ignore"):
        if name == "bool":
            return host != 0
        if name == "bfloat16":
            return host.astype(ml_dtypes.bfloat16)
        if name.startswith("complex"):
            return (host + 1j * host[::-1] if host.ndim else host + 0j).astype(name)
        return host.astype(name)


def dtype_objects():
    return st.sampled_from([getattr(cw, n) for n in ALL_DTYPE_NAMES] + [
        np.dtype("float64"), np.float32, int, float, bool, complex, "float64", "bogus"])


def containers(inner):
    return st.one_of(
        st.lists(inner, max_size=3),
        st.lists(inner, max_size=3).map(tuple),
        st.lists(st.lists(INTS, max_size=2), max_size=2),  # ragged nests
        st.dictionaries(st.sampled_from(["a", "axis"]), inner, max_size=1),
        st.lists(INTS, max_size=3).map(tuple),
    )


class IndexLike:
    """An object with ``__index__`` (the standard takes it wherever an int goes)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        if isinstance(self.value, BaseException):
            raise self.value
        return self.value

    def __repr__(self):
        return f"IndexLike({self.value!r})"


def deep_list(depth, leaf=1):
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def holding_itself():
    """A list that holds itself."""
    value = [1]
    value.append(value)
    return value


class HostileRepr:
    """An object whose repr (and str) raises: a message quoting it with repr() fails."""

    def __repr__(self):
        raise RuntimeError("no repr")

    __str__ = __repr__


def _self_referencing():
    seq = [1.0, 2.0]
    seq.append(seq)
    mapping = {"axis": 0}
    mapping["self"] = mapping
    return [seq, mapping]


#: sequences no array or argument is made of: a 5000-deep list (a recursive walk or repr
#: of it overflows the stack), lists and dicts holding themselves, a 70-deep one-element nest
ODD_SEQUENCES = [deep_list(5000), deep_list(70), tuple(deep_list(300))] + _self_referencing()
#: keys and shapes past the 64-dimension limit, slices whose step no stride can hold
HUGE_KEYS = [(None,) * 70, (slice(None),) * 65, (1,) * 65, (0,) * 70, slice(None, None, 2**62),
             slice(None, None, -(2**63)), slice(2**62, None, 2**62), (Ellipsis, slice(None, None, 2**64)),
             (slice(None), slice(None, None, 2**62)), IndexLike(1), IndexLike(2**63), IndexLike(TypeError("no"))]
#: Python numbers no integer dtype holds, in the shapes asarray and setitem take
UNSTORABLE_NUMBERS = [[float("nan")], [1.0, float("inf")], [[float("-inf")]], [1e300], [-1], [2**64], 3e9, -0.5]


def _high_dimensional():
    """Arrays at the dimension limit and near it (every later call must stay within it)."""
    return [cw.ones((1,) * 64), cw.zeros((1,) * 63 + (2,), dtype=cw.int8), cw.ones((1,) * 40, dtype=cw.bool)]


def bad_values():
    scalars = st.one_of(st.booleans(), INTS, FLOATS, COMPLEXES)
    leaves = st.one_of(
        small_arrays(), small_arrays(), scalars, STRINGS, dtype_objects(),
        st.sampled_from([None, Ellipsis, b"x", object(), lambda x: x, np.float32(1.5), np.int64(3),
                         np.ones((2, 2)), np.ones(3, dtype=np.int8)[::-1], [1.0, 2.0, 3.0], memoryview(b"ab"),
                         slice(1, None, -1), slice(None), slice(0, 2**63), slice(None, None, 0),
                         slice("a", None), cw.newaxis, int, float("nan"), 2**63 - 1, -(2**63)]),
        st.builds(lambda: cw.get_device("cpu")),
        st.sampled_from(ODD_SEQUENCES + HUGE_KEYS + UNSTORABLE_NUMBERS),
        st.builds(_high_dimensional).flatmap(st.sampled_from),
    )
    return st.one_of(leaves, leaves, containers(leaves))


def _good_values():
    """Plausible values by parameter name, so that most calls get past the first check
    and a bad value in one slot reaches the deeper validation."""
    ints = st.integers(-4, 4)
    axis = st.one_of(st.none(), ints, st.lists(ints, max_size=3).map(tuple))
    arrays = small_arrays()
    flags = st.booleans()
    small = st.integers(0, 4)
    scalars = st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from([0.5, -1.5, 2.0]))
    by_name = {
        "axis": axis, "axes": axis, "source": axis, "destination": axis, "shift": axis,
        "shape": st.lists(small, max_size=3).map(tuple), "s": st.lists(st.integers(1, 4), max_size=2).map(tuple),
        "repetitions": st.lists(small, max_size=3).map(tuple),
        "dtype": dtype_objects(), "device": st.sampled_from(["cpu", None]),
        "copy": st.sampled_from([None, True, False]), "keepdims": flags, "stable": flags,
        "descending": flags, "endpoint": flags, "upper": flags, "full_matrices": flags,
        "include_initial": flags,
        "k": ints, "n": st.one_of(st.none(), small), "offset": ints, "n_rows": small,
        "n_cols": st.one_of(st.none(), small), "num": small, "repeats": st.one_of(small, arrays),
        "correction": st.sampled_from([0, 1, 0.5]), "ord": st.sampled_from([None, 1, 2, -1, float("inf"), "fro", "nuc"]),
        "rtol": st.one_of(st.none(), st.floats(0, 1), arrays), "d": st.sampled_from([1.0, 0.5]),
        "side": st.sampled_from(["left", "right"]), "norm": st.sampled_from(["backward", "ortho", "forward"]),
        "mode": st.sampled_from(["reduced", "complete"]), "indexing": st.sampled_from(["xy", "ij"]),
        "kind": st.sampled_from(["numeric", "integral", None, "bool"]),
        "start": scalars, "stop": st.one_of(st.none(), scalars), "step": st.sampled_from([1, 2, -1, 0.5]),
        "fill_value": scalars, "min": st.one_of(st.none(), scalars, arrays), "max": st.one_of(st.none(), scalars, arrays),
        "api_version": st.sampled_from([None, "2024.12", "2023.12"]), "stream": st.none(),
        "max_version": st.sampled_from([None, (1, 0), (0, 8)]), "dl_device": st.none(),
        "arrays": st.lists(arrays, min_size=1, max_size=3), "sorter": st.one_of(st.none(), arrays),
        "prepend": st.one_of(st.none(), arrays), "append": st.one_of(st.none(), arrays),
        "key": st.one_of(ints, st.just(Ellipsis), st.just(slice(None, None, -1)), arrays,
                         st.lists(st.one_of(ints, st.just(slice(1, None)), st.none()), max_size=3).map(tuple),
                         st.sampled_from(HUGE_KEYS)),
        "obj": st.one_of(arrays, scalars, st.lists(FLOATS, max_size=3), st.sampled_from(UNSTORABLE_NUMBERS)),
        "value": st.one_of(scalars, arrays), "other": st.one_of(scalars, arrays, arrays),
    }
    return by_name, arrays


def call_arguments(fn, keyword_pool):
    """(args, kwargs) for ``fn``: plausible values with one or two bad ones, usually in an
    arity the signature accepts; now and then a wrong arity or an unknown keyword."""
    if getattr(fn, "_numpy_kind", None):
        return numpy_call_arguments(fn._numpy_kind)
    takes_self = getattr(fn, "_takes_self", False)
    try:
        params = list(inspect.signature(fn).parameters.values())
        known = True
    except (TypeError, ValueError):
        params, known = [], False
    good_by_name, default_good = _good_values()
    bad = bad_values()

    def value_for(pname, draw):
        good = good_by_name.get(pname, default_good)
        return draw(bad) if draw(st.integers(0, 3)) == 3 else draw(good)

    @st.composite
    def build(draw):
        args, kwargs = [], {}
        for p in params:
            if p.kind is p.VAR_POSITIONAL:
                args.extend(value_for("arrays_item", draw) for _ in range(draw(st.integers(0, 3))))
            elif p.kind is p.VAR_KEYWORD:
                continue
            elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
                # Hypothesis favours small draws, so rare events fire on the largest value
                if draw(st.integers(0, 19)) != 19:  # now and then leave a required one out
                    args.append(value_for(p.name, draw))
            elif draw(st.booleans()):
                if p.kind is p.POSITIONAL_ONLY:
                    args.append(value_for(p.name, draw))
                else:
                    kwargs[p.name] = value_for(p.name, draw)
        if not known:
            args = [draw(bad) for _ in range(draw(st.integers(0, 3)))]
        if draw(st.integers(0, 19)) == 19:
            args.append(draw(bad))  # one positional too many
        if draw(st.integers(0, 19)) == 19:
            kwargs[draw(st.sampled_from(sorted(keyword_pool) + ["bogus"]))] = draw(bad)
        if takes_self:
            args = [draw(small_arrays())] + args
        return args, kwargs

    return build()


#: keywords NumPy's ufuncs and functions take, and one they do not
_NUMPY_KEYWORDS = ("out", "dtype", "where", "axis", "keepdims", "casting", "initial", "order", "ddof", "shape",
                   "fill_value", "copy", "kind", "weights", "correction", "mean", "subok", "bogus")


def numpy_call_arguments(kind):
    """(args, kwargs) of a NumPy entry point (``numpy_targets``) holding candlewick arrays:
    the ufunc or function and its operands, at least one a candlewick array, among
    plausible and bad values, with NumPy's keywords (``out=``, ``where=``, ``dtype=``...)."""
    good_by_name, arrays = _good_values()
    bad = bad_values()
    operand = st.one_of(arrays, arrays, st.integers(-3, 3), st.sampled_from([0.5, -1.0]), bad)

    def keyword_value(name, draw):
        if name == "out":
            return draw(st.one_of(arrays, st.lists(arrays, min_size=1, max_size=2).map(tuple),
                                  st.builds(lambda: np.empty(3)), bad))
        if name == "where":
            return draw(st.one_of(st.booleans(), small_arrays(st.just("bool")), bad))
        good = good_by_name.get(name)
        return draw(bad) if good is None or draw(st.integers(0, 3)) == 3 else draw(good)

    @st.composite
    def build(draw):
        kwargs = {}
        for name in draw(st.lists(st.sampled_from(_NUMPY_KEYWORDS), max_size=2, unique=True)):
            kwargs[name] = keyword_value(name, draw)
        if kind == "array":
            args = [draw(arrays)]
            if draw(st.booleans()):
                kwargs["dtype"] = draw(st.one_of(dtype_objects(), bad))
            if draw(st.booleans()):
                kwargs["copy"] = draw(st.one_of(st.sampled_from([None, True, False]), bad))
            return args, kwargs
        if kind == "ufunc":
            ufunc = draw(st.sampled_from(NUMPY_UFUNCS))
            method = draw(st.sampled_from(UFUNC_METHODS))
            count = {"reduce": 1, "accumulate": 1, "reduceat": 2, "at": 3}.get(method, ufunc.nin)
            count = max(0, count + draw(st.sampled_from([0, 0, 0, 0, -1, 1])))
            inputs = [draw(operand) for _ in range(count)]
            if not any(isinstance(v, cw.Array) for v in inputs):
                inputs.insert(draw(st.integers(0, len(inputs))), draw(arrays))
            return [ufunc, method] + inputs, kwargs
        if kind == "creation":
            func = draw(st.sampled_from(NUMPY_CREATION))
            kwargs["like"] = draw(st.one_of(arrays, arrays, arrays, bad))
            shape_like = st.one_of(st.integers(-1, 4), st.tuples(st.integers(0, 3), st.integers(0, 3)), INTS)
            args = [draw(st.one_of(shape_like, arrays, st.lists(st.integers(-3, 3), max_size=4), bad))]
            return args + [draw(operand) for _ in range(draw(st.integers(0, 2)))], kwargs
        func = draw(st.sampled_from(NUMPY_FUNCTIONS))
        first = draw(st.one_of(arrays, st.lists(arrays, min_size=1, max_size=3)))
        rest = [draw(operand) for _ in range(draw(st.integers(0, 2)))]
        return [func, first] + rest, kwargs

    return build()


def keyword_pool(targets):
    pool = set()
    for _, fn in targets:
        pool.update(signature_of(fn)[2])
    return pool
