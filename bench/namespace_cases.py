"""The call list of bench/host_overhead.py: one row per function of the namespace (plus
the indexing and scalar forms the issues name), each with inputs fit for it, generated
for any element count ``n``. No candlewick internals: every call goes through a
namespace (candlewick, NumPy or array-api-strict) passed in.

A row is ``(name, call, numpy_call)``: ``call(ns, A)`` runs the function in namespace
``ns`` on ``A`` (that namespace's arrays, see :func:`host_inputs`), and ``numpy_call``
replaces it for NumPy where NumPy spells the function differently (None: the same call).
"""

import math
from types import SimpleNamespace

import numpy as np

# functions of candlewick.__all__ that take no array data or have no peer, left out on
# purpose (anything else of __all__ that is callable must have a row: see coverage())
NOT_MEASURED = {
    "__array_namespace_info__": "no array input (an info object)",
    "backends": "candlewick's registry, no peer",
    "default_device": "candlewick's registry, no peer",
    "get_device": "candlewick's registry, no peer",
    "set_default_device": "candlewick's registry, no peer",
    "array_api_version": "candlewick's configuration, no peer",
    "set_array_api_version": "candlewick's configuration, no peer",
    "Array": "the array class",
}


def host_inputs(n):
    """Host (NumPy) inputs of about ``n`` elements, values inside every function's domain
    (x, y in (0.1, 0.9): log, acos, atanh... stay finite)."""
    rng = np.random.default_rng(0)
    side = max(2, math.isqrt(n))
    x = rng.uniform(0.1, 0.9, n).astype(np.float32)
    y = rng.uniform(0.1, 0.9, n).astype(np.float32)
    return {
        "x": x, "y": y,
        "m": rng.standard_normal((side, side)).astype(np.float32),
        "i": rng.integers(1, 7, n).astype(np.int64),
        "j": rng.integers(1, 7, n).astype(np.int64),
        "b": rng.random(n) < 0.5,
        "c": (x + 1j * y).astype(np.complex64),
        "idx": rng.integers(0, n, n).astype(np.int64),
        "sorted": np.sort(x),
        "dup": rng.integers(0, max(2, n // 4), n).astype(np.int64),
        "row": rng.integers(0, side, (1, side)).astype(np.int64),
    }


def as_namespace_arrays(ns, host):
    return SimpleNamespace(**{k: ns.asarray(v) for k, v in host.items()}, side=host["m"].shape[0],
                           n=host["x"].size, xlist=host["x"][:16].tolist() if host["x"].size <= 16
                           else host["x"].tolist())


def _unary(name):
    return (name, lambda ns, A: getattr(ns, name)(A.x), None)


def _binary(name, a="x", b="y"):
    return (name, lambda ns, A: getattr(ns, name)(getattr(A, a), getattr(A, b)), None)


UNARY_FLOAT = ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "exp",
               "expm1", "floor", "isfinite", "isinf", "isnan", "log", "log10", "log1p", "log2", "negative",
               "positive", "reciprocal", "round", "sign", "signbit", "sin", "sinh", "sqrt", "square", "tan",
               "tanh", "trunc"]
BINARY_FLOAT = ["add", "atan2", "copysign", "divide", "equal", "floor_divide", "greater", "greater_equal",
                "hypot", "less", "less_equal", "logaddexp", "maximum", "minimum", "multiply", "nextafter",
                "not_equal", "pow", "remainder", "subtract"]
BINARY_INT = ["bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift", "bitwise_xor"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]


def rows():
    out = [_unary(n) for n in UNARY_FLOAT]
    out[UNARY_FLOAT.index("acosh")] = ("acosh", lambda ns, A: ns.acosh(A.x + 1), None)
    out += [_binary(n) for n in BINARY_FLOAT]
    out += [_binary(n, "i", "j") for n in BINARY_INT]
    out += [("bitwise_invert", lambda ns, A: ns.bitwise_invert(A.i), None)]
    out += [_binary(n, "b", "b") for n in LOGICAL]
    out += [("logical_not", lambda ns, A: ns.logical_not(A.b), None)]
    out += [(n, lambda ns, A, n=n: getattr(ns, n)(A.c), None) for n in ("real", "imag", "conj")]
    out += [
        ("clip", lambda ns, A: ns.clip(A.x, min=0.2, max=0.8), None),
        # --- the scalar forms and operators the issues name
        ("x > 0.5 (greater, Python scalar)", lambda ns, A: A.x > 0.5, None),
        ("x * 2.0 (multiply, Python scalar)", lambda ns, A: A.x * 2.0, None),
        ("where(x > 0.5, x, y)", lambda ns, A: ns.where(A.x > 0.5, A.x, A.y), None),
        ("x[idx] (integer array)", lambda ns, A: A.x[A.idx], None),
        ("x[mask] (boolean mask)", lambda ns, A: A.x[A.b], None),
        ("x[1:3] (slice)", lambda ns, A: A.x[1:3], None),
        # --- creation
        ("arange", lambda ns, A: ns.arange(A.n, dtype=ns.float32), None),
        ("asarray (list of floats)", lambda ns, A: ns.asarray(A.xlist, dtype=ns.float32), None),
        ("empty", lambda ns, A: ns.empty((A.n,), dtype=ns.float32), None),
        ("empty_like", lambda ns, A: ns.empty_like(A.x), None),
        ("eye", lambda ns, A: ns.eye(A.side, dtype=ns.float32), None),
        ("from_dlpack", lambda ns, A: ns.from_dlpack(A.x), None),
        ("full", lambda ns, A: ns.full((A.n,), 1.5, dtype=ns.float32), None),
        ("full_like", lambda ns, A: ns.full_like(A.x, 1.5), None),
        ("linspace", lambda ns, A: ns.linspace(0.0, 1.0, A.n, dtype=ns.float32), None),
        ("meshgrid", lambda ns, A: ns.meshgrid(A.m[0, :], A.m[1, :]), None),
        ("ones", lambda ns, A: ns.ones((A.n,), dtype=ns.float32), None),
        ("ones_like", lambda ns, A: ns.ones_like(A.x), None),
        ("tril", lambda ns, A: ns.tril(A.m), None),
        ("triu", lambda ns, A: ns.triu(A.m), None),
        ("zeros", lambda ns, A: ns.zeros((A.n,), dtype=ns.float32), None),
        ("zeros_like", lambda ns, A: ns.zeros_like(A.x), None),
        ("to_numpy", lambda ns, A: ns.to_numpy(A.x), lambda ns, A: np.array(A.x)),
        # --- data types
        ("astype", lambda ns, A: ns.astype(A.x, ns.float64), None),
        ("can_cast", lambda ns, A: ns.can_cast(ns.int32, ns.float64), None),
        ("finfo", lambda ns, A: ns.finfo(ns.float32), None),
        ("iinfo", lambda ns, A: ns.iinfo(ns.int32), None),
        ("isdtype", lambda ns, A: ns.isdtype(ns.float32, "real floating"), None),
        ("result_type", lambda ns, A: ns.result_type(A.x, ns.float64), None),
        # --- linear algebra (main namespace)
        ("matmul", lambda ns, A: ns.matmul(A.m, A.m), None),
        ("matrix_transpose", lambda ns, A: ns.matrix_transpose(A.m), None),
        ("tensordot", lambda ns, A: ns.tensordot(A.m, A.m, axes=1), None),
        ("vecdot", lambda ns, A: ns.vecdot(A.m, A.m), None),
        # --- manipulation
        ("broadcast_arrays", lambda ns, A: ns.broadcast_arrays(A.m, A.m[0, :]), None),
        ("broadcast_shapes", lambda ns, A: ns.broadcast_shapes((A.side, 1), (1, A.side)), None),
        ("broadcast_to", lambda ns, A: ns.broadcast_to(A.m[0, :], (A.side, A.side)), None),
        ("concat", lambda ns, A: ns.concat([A.x, A.y]), None),
        ("expand_dims", lambda ns, A: ns.expand_dims(A.x, axis=0), None),
        ("flip", lambda ns, A: ns.flip(A.x), None),
        ("moveaxis", lambda ns, A: ns.moveaxis(A.m, 0, 1), None),
        ("permute_dims", lambda ns, A: ns.permute_dims(A.m, (1, 0)), None),
        ("repeat", lambda ns, A: ns.repeat(A.x, 2), None),
        ("reshape", lambda ns, A: ns.reshape(A.x, (A.n // 2, 2)), None),
        ("roll", lambda ns, A: ns.roll(A.x, 3), None),
        ("squeeze", lambda ns, A: ns.squeeze(A.row, axis=0), None),
        ("stack", lambda ns, A: ns.stack([A.x, A.y]), None),
        ("tile", lambda ns, A: ns.tile(A.x, (2,)), None),
        ("unstack", lambda ns, A: ns.unstack(A.m), None),
        # --- searching
        ("argmax", lambda ns, A: ns.argmax(A.x), None),
        ("argmin", lambda ns, A: ns.argmin(A.x), None),
        ("count_nonzero", lambda ns, A: ns.count_nonzero(A.b), None),
        ("nonzero", lambda ns, A: ns.nonzero(A.b), None),
        ("searchsorted", lambda ns, A: ns.searchsorted(A.sorted, A.y), None),
        ("where", lambda ns, A: ns.where(A.b, A.x, A.y), None),
        # --- set functions
        ("isin", lambda ns, A: ns.isin(A.i, A.j), None),
        ("unique_all", lambda ns, A: ns.unique_all(A.dup), None),
        ("unique_counts", lambda ns, A: ns.unique_counts(A.dup), None),
        ("unique_inverse", lambda ns, A: ns.unique_inverse(A.dup), None),
        ("unique_values", lambda ns, A: ns.unique_values(A.dup), None),
        # --- sorting
        # the standard's sort and argsort are stable by default. Sorted values are bitwise
        # the same whatever the sort's stability once -0.0/0.0 ties and NaN payloads are
        # restored (issue 39): NumPy's default sort beside sort; its stable kind beside argsort
        ("sort", lambda ns, A: ns.sort(A.x), None),
        ("sort (stable=False)", lambda ns, A: ns.sort(A.x, stable=False), None),
        ("argsort", lambda ns, A: ns.argsort(A.x), lambda ns, A: np.argsort(A.x, kind="stable")),
        ("argsort (stable=False)", lambda ns, A: ns.argsort(A.x, stable=False), None),
        # --- statistical
        ("cumulative_prod", lambda ns, A: ns.cumulative_prod(A.x), None),
        ("cumulative_sum", lambda ns, A: ns.cumulative_sum(A.x), None),
        ("max", lambda ns, A: ns.max(A.x), None),
        ("mean", lambda ns, A: ns.mean(A.x), None),
        ("min", lambda ns, A: ns.min(A.x), None),
        ("prod", lambda ns, A: ns.prod(A.x), None),
        ("std", lambda ns, A: ns.std(A.x), None),
        ("sum", lambda ns, A: ns.sum(A.x), None),
        ("var", lambda ns, A: ns.var(A.x), None),
        # --- utility
        ("all", lambda ns, A: ns.all(A.b), None),
        ("any", lambda ns, A: ns.any(A.b), None),
        ("diff", lambda ns, A: ns.diff(A.x), None),
        # --- indexing functions
        ("take", lambda ns, A: ns.take(A.x, A.idx), None),
        ("take_along_axis", lambda ns, A: ns.take_along_axis(A.x, A.idx, axis=0), None),
    ]
    return out


def function_of(row_name):
    """The namespace function a row measures (its name up to the first space)."""
    name = row_name.split(" ")[0]
    if "(" in name or "[" in name or name.startswith("x"):
        return None
    return name


def coverage(namespace):
    """Callable names of ``namespace.__all__`` with neither a row nor a reason to skip."""
    measured = {function_of(r[0]) for r in rows()} | {"greater", "multiply", "where", "asarray"}
    names = [n for n in namespace.__all__ if callable(getattr(namespace, n)) and not isinstance(
        getattr(namespace, n), type) and not hasattr(getattr(namespace, n), "itemsize")]
    return [n for n in names if n not in measured and n not in NOT_MEASURED]
