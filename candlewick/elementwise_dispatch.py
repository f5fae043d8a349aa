"""The element-wise dispatch: operand checks (dtype domain from ``candlewick.opdefs``,
Python scalar rules, devices), promotion and broadcasting, then one storage primitive.

``unary``, ``binary`` and ``compare`` serve the namespace's element-wise functions, the
array's operators and every function composed from element-wise steps;
``unary_function``, ``binary_function`` and ``compare_function`` make the namespace's
generated functions, with the common case (arrays of one dtype the op takes, one shape,
one device) inline and anything else through the three. The hot paths build their
result as ``new_array`` does, inlined: at 16 elements each Python call is a visible
share of the function's cost. Where the optional C module candlewick._native was built,
that inline case runs in C (``in_c``), with the Python function as its fallback.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from . import dtypes as _dt
from ._core import (
    RESULT, RESULT_BY_NAME, ArrayBase, _native, broadcast_layouts, cached_layout, check_accepts, check_dtype_on,
    check_result, contiguous_layout, new_array, promote_pair, scalar_array, scalar_for, require_array,
)
from .elision import FROM_BYTES
from .errors import ArgumentTypeError, ArgumentValueError, DTypeError, ShapeError, name_code
from .lazy_gate import GATE, operand
from .inplace import write
from .opdefs import BinaryOp
from .promotion_mode import is_strict
from .type_promotion import promote_types, standard_promotion

if TYPE_CHECKING:
    from ._types import Scalar
    from .array import Array


def _floating_only(op, dtype):
    """A function defined on floating point only (sqrt, exp, atan2, ...), given bool or
    integers outside strict mode: it runs in the default floating dtype, as in NumPy
    (docs/promotion.md). Only functions returning their input's dtype: ``imag`` and
    ``signbit`` stay errors (an integer's answer is all zeros / ``x < 0``)."""
    if dtype.level >= 2 or "F" not in op.domain or "I" in op.domain or op.result != "same":
        return False
    if is_strict():
        raise DTypeError(
            f"{op.value} is defined on floating point and does not take {dtype.name} in strict "
            f"promotion mode: cast with astype({_dt.DEFAULT_FLOAT.name}) first, or use "
            f"candlewick.set_promotion_mode('default')"
        )
    return True


def unary(op, x, fname, out=None):
    """Apply a UnaryOp to an array; with ``out`` (an array) written into it
    (``inplace.write``: same dtype and shape as the result) and ``out`` returned."""
    require_array(x, fname)
    out_dtype = RESULT_BY_NAME[op].get(x._dtype.name)
    if out_dtype is None:
        if _floating_only(op, x._dtype):
            x = x.astype(_dt.DEFAULT_FLOAT)
        out_dtype = check_accepts(op, x._dtype, fname)
    if out is not None:
        return write(out, out_dtype, x._layout.shape, x._device, fname, "unary", (op,), x._storage, x._layout, ())
    return new_array(type(x), operand(x).unary(op, x._layout), x._layout.shape, out_dtype, x._device)


def binary(op, x1, x2, fname, out=None):
    """Apply a BinaryOp to two operands (arrays or one Python scalar); ``out`` as ``unary``'s."""
    if isinstance(x1, ArrayBase):
        if type(x2) is type(x1):
            if x1._dtype is not x2._dtype or x1._device is not x2._device:
                if out is None:
                    mixed = _binary_converting(op, x1, x2, fname)
                    if mixed is not None:
                        return mixed
                x1, x2 = promote_pair(x1, x2, fname)
            dtype = x1._dtype
            result = RESULT_BY_NAME[op].get(dtype.name)
            if result is None:
                x1, x2, dtype, result = _coerce_domain(op, x1, x2, dtype, fname)
            l1, l2 = x1._layout, x2._layout
            shape = l1.shape
            if shape != l2.shape:
                shape, (l1, l2) = broadcast_layouts(x1, x2)
            if out is not None:
                return write(out, result, shape, x1._device, fname, "binary", (op,), x1._storage, l1, (x2._storage, l2))
            return new_array(type(x1), operand(x1).binary(op, l1, x2._storage, l2), shape, result, x1._device)
        t2 = type(x2)
        if (t2 is float or t2 is int) and x1._dtype.level == 2:
            # a float or int with a real floating array: runs in x1's dtype (scalar_for's
            # rule, inline)
            result = RESULT_BY_NAME[op].get(x1._dtype.name)
            if result is not None:
                layout = x1._layout
                value = x2 if t2 is float else float(x2)
                if out is not None:
                    return write(out, result, layout.shape, x1._device, fname, "binary_scalar", (op,),
                                 x1._storage, layout, (value, False))
                storage = operand(x1).binary_scalar(op, layout, value, False)
                return new_array(type(x1), storage, layout.shape, result, x1._device)
        return _binary_scalar(op, x1, x2, False, fname, out)
    if isinstance(x2, ArrayBase):
        t1 = type(x1)
        if out is None and (t1 is float or t1 is int) and x2._dtype.level == 2:
            # the same case reflected (2.0 * x: a KMeans step's, pairwise_distances' -2 * d)
            result = RESULT_BY_NAME[op].get(x2._dtype.name)
            if result is not None:
                layout = x2._layout
                storage = operand(x2).binary_scalar(op, layout, x1 if t1 is float else float(x1), True)
                return new_array(type(x2), storage, layout.shape, result, x2._device)
        return _binary_scalar(op, x2, x1, True, fname, out)
    raise ArgumentTypeError(f"{fname}: at least one operand must be a candlewick array")


#: the optional group of ``binary_as`` (candlewick/backend.py) and the dtypes it computes in
BINARY_DTYPE = "binary_dtype"
_CONVERTED = frozenset({"float32", "float64", "complex64", "complex128"})
#: {dtype name: {dtype name: their promoted dtype}}, for two different dtypes promoting to
#: one of _CONVERTED (the Array API table's, the same in either promotion mode; a name hashes
#: in C, a DType through its Python __hash__), as this module and the C path read it
_CONVERTING = {a.name: {b.name: r for b in _dt.ALL_DTYPES
                        if a is not b and (r := standard_promotion(a, b)) is not None and r.name in _CONVERTED}
               for a in _dt.ALL_DTYPES}


#: the elements below which the C case takes an array and a Python scalar: from there the
#: forward operator's Python method may write into its operand where it is a temporary
#: (candlewick.elision; its threshold in elements of the widest real dtype)
_SCALAR_BELOW = FROM_BYTES // 8


def _binary_converting(op, x1, x2, fname):
    """``op`` of arrays of two dtypes on one device that declares the optional group
    "binary_dtype" (``x - mean``, x float32 and the mean float64): each operand converted
    as it is read, as NumPy's ufuncs do, with no cast copy of the narrower one. None
    where that does not apply: the caller then promotes with ``astype`` (the fallback).
    Inline, for its frames: ``_CONVERTING`` before promote_types, and x2 broadcast onto x1's
    shape without broadcast_layouts' helpers (the result checked in its own dtype,
    ``check_result``): scikit-learn's ``X - mean`` once a StandardScaler fit, after NumPy's
    calls over the data have evicted the frames (each ~2-3 us then)."""
    device = x1._device
    if x2._device is not device or BINARY_DTYPE not in device.capabilities:
        return None
    dtype = _CONVERTING[x1._dtype.name].get(x2._dtype.name)
    if dtype is None:
        dtype = promote_types(x1._dtype, x2._dtype)  # (strict mode's error, as promote_pair's)
        if dtype.name not in _CONVERTED:
            return None
    result = RESULT_BY_NAME[op].get(dtype.name)
    if result is None:
        return None
    check_dtype_on(device, dtype, fname)
    l1, l2 = x1._layout, x2._layout
    shape = l1.shape
    if shape != l2.shape:
        try:
            l2 = l2.broadcast_to(shape)
        except ShapeError:  # (x1 broadcast too: the general helper)
            shape, (l1, l2) = broadcast_layouts(x1, x2)
    check_result(fname, shape, dtype, device)  # (in the result's dtype: broadcast_layouts' reads x1's)
    return new_array(type(x1), operand(x1).binary_as(op, l1, x2._storage, l2, dtype), shape, result, device)


def _coerce_domain(op, x1, x2, dtype, fname):
    """Integer true division runs in the default float dtype (NumPy's rule), and so do
    the other floating-only functions outside strict mode; logical ops accept any dtype
    as truth values. Anything else is a dtype error."""
    if (op is BinaryOp.DIVIDE and dtype.is_integer) or _floating_only(op, dtype):
        target = _dt.DEFAULT_FLOAT
    elif op in (BinaryOp.LOGICAL_AND, BinaryOp.LOGICAL_OR, BinaryOp.LOGICAL_XOR):
        target = _dt.bool_
    else:
        check_accepts(op, dtype, fname)
    x1, x2 = x1.astype(target), x2.astype(target)
    return x1, x2, target, RESULT[op][target]


def _binary_scalar(op, x, value, reflected, fname, out):
    value, dtype = scalar_for(value, x._dtype, fname)
    if op is BinaryOp.POW and not reflected and dtype.is_integer and value < 0:
        # NumPy's and PyTorch's rule, checked on the host as PyTorch does (an exponent
        # array is not checked: that would cost a synchronization; see pow's docstring)
        raise ArgumentValueError(
            f"{fname}: integers to negative integer powers are not allowed (exponent {value}); "
            f"raise a floating array instead (x.astype(float64) ** {value})"
        )
    if dtype is not x._dtype:
        x = x.astype(dtype)
    result = RESULT_BY_NAME[op].get(dtype.name)
    if result is None:
        other = scalar_array(x, value, dtype, x._device)
        pair = (other, x) if reflected else (x, other)
        x1, x2, dtype, result = _coerce_domain(op, *pair, dtype, fname)
        shape, (l1, l2) = broadcast_layouts(x1, x2)
        if out is not None:
            return write(out, result, shape, x1._device, fname, "binary", (op,), x1._storage, l1, (x2._storage, l2))
        return new_array(type(x1), operand(x1).binary(op, l1, x2._storage, l2), shape, result, x1._device)
    if out is not None:
        return write(out, result, x._layout.shape, x._device, fname, "binary_scalar", (op,), x._storage,
                     x._layout, (value, reflected))
    storage = operand(x).binary_scalar(op, x._layout, value, reflected)
    return new_array(type(x), storage, x._layout.shape, result, x._device)


def compare(op, x1, x2, fname, out=None):
    """Apply a CompareOp (a bool result); ``out`` as ``unary``'s."""
    if not isinstance(x1, ArrayBase):
        if not isinstance(x2, ArrayBase):
            raise ArgumentTypeError(f"{fname}: at least one operand must be a candlewick array")
        return _compare_scalar(op, x2, x1, True, fname, out)
    if not isinstance(x2, ArrayBase):
        t2 = type(x2)
        if (out is None and (t2 is float or t2 is int) and x1._dtype.level == 2
                and x1._dtype.name in RESULT_BY_NAME[op]):
            layout = x1._layout  # (as binary's, scalar_for's rule inline)
            storage = operand(x1).compare_scalar(op, layout, x2 if t2 is float else float(x2), False)
            return new_array(type(x1), storage, layout.shape, _dt.bool_, x1._device)
        return _compare_scalar(op, x1, x2, False, fname, out)
    if (out is None and x1._dtype is x2._dtype and x1._device is x2._device
            and x1._layout.shape == x2._layout.shape):
        # the hot path: one dtype, one shape (nothing to promote or broadcast)
        if x1._dtype.name not in RESULT_BY_NAME[op]:
            check_accepts(op, x1._dtype, fname)
        storage = operand(x1).compare(op, x1._layout, x2._storage, x2._layout)
        return new_array(type(x1), storage, x1._layout.shape, _dt.bool_, x1._device)
    x1, x2 = promote_pair(x1, x2, fname)
    check_accepts(op, x1._dtype, fname)
    shape, (l1, l2) = broadcast_layouts(x1, x2)
    if out is not None:
        return write(out, _dt.bool_, shape, x1._device, fname, "compare", (op,), x1._storage, l1, (x2._storage, l2))
    return new_array(type(x1), operand(x1).compare(op, l1, x2._storage, l2), shape, _dt.bool_, x1._device)


def _compare_scalar(op, x, value, reflected, fname, out):
    """An array against a Python scalar: no 0-d array, no broadcasting (the result has
    x's shape, already checked when x was made)."""
    value, dtype = scalar_for(value, x._dtype, fname)
    if dtype is not x._dtype:
        x = x.astype(dtype)
    if dtype.name not in RESULT_BY_NAME[op]:
        check_accepts(op, dtype, fname)
    if out is not None:
        return write(out, _dt.bool_, x._layout.shape, x._device, fname, "compare_scalar", (op,), x._storage,
                     x._layout, (value, reflected))
    storage = operand(x).compare_scalar(op, x._layout, value, reflected)
    return new_array(type(x), storage, x._layout.shape, _dt.bool_, x._device)


# --- the namespace's generated functions ---------------------------------------------------

def c_case(fn, arity, op, results, method):
    """``in_c``'s callable itself, where candlewick._native was built (None where not):
    ``_native.Elementwise``, for C callers that call it without a Python frame (the
    in-place operators' rebinding update in lazy mode, ``inplace.inplace_method``). A
    ``binary`` one takes ``_binary_converting``'s common case too: two arrays of a pair
    in ``_CONVERTING``, on a device of every dtype declaring "binary_dtype". A ``binary``
    or ``compare`` one takes an array of a real floating dtype and a Python float or int
    after it (``binary``'s and ``compare``'s inline case), below ``_SCALAR_BELOW``
    elements."""
    if _native is None:
        return None
    if method == "binary":
        return _native.Elementwise(arity, op, results, method, fn, converting=_CONVERTING,
                                   all_dtypes=_dt.ALL_DTYPES, scalar_below=_SCALAR_BELOW)
    if method == "compare":
        return _native.Elementwise(arity, op, results, method, fn, scalar_below=_SCALAR_BELOW)
    return _native.Elementwise(arity, op, results, method, fn)


def in_c(fn, arity, op, results, method):
    """``fn`` with its common case run in C, where candlewick._native was built: arrays of
    exactly the bound class, of one dtype in ``results`` (``RESULT_BY_NAME[op]``), one
    device and one shape (or one operand's shape broadcast onto the other's, or both onto a
    larger one below ``allocation.QUERY_ABOVE_BYTES``), through the storage primitive
    ``method``; anything else still
    ``fn``'s. ``fn`` must give that case the same result (the generated functions' inline
    case, the forward operators). At 2^20 elements the case costs about 1 us in Python.
    The result is named as ``fn`` is, its code object too (errors name the function)."""
    return with_case(fn, arity, c_case(fn, arity, op, results, method))


def with_case(fn, arity, fast):
    """``in_c``'s function of ``fn`` running ``fast`` (``c_case``'s; ``fn`` itself where
    that is None), for a caller that keeps ``fast`` too."""
    if fast is None:
        return fn
    if arity == 1:
        def native_fn(x: Array, /) -> Array:
            return fast(x)
    else:
        def native_fn(x1: Array | Scalar, x2: Array | Scalar, /) -> Array:  # type: ignore[misc]
            return fast(x1, x2)
    # fn's names and docstring, and __wrapped__: what it runs, for readers of its source and
    # inspect.signature
    functools.update_wrapper(native_fn, fn)
    return name_code(native_fn, getattr(fn.__code__, "co_qualname", fn.__code__.co_name))


def unary_function(op, fname):
    """The namespace function ``fname`` of a UnaryOp: an array of a dtype the op takes
    inline, anything else through ``unary``."""
    results = RESULT_BY_NAME[op]

    def fn(x: Array, /) -> Array:
        if isinstance(x, ArrayBase) and not GATE.on:  # (lazy mode records through unary)
            out_dtype = results.get(x._dtype.name)
            if out_dtype is not None:
                layout = x._layout
                cls = type(x)
                out = cls.__new__(cls)  # (new_array, inlined)
                out._storage = x._storage.unary(op, layout)
                shape = layout.shape
                out._layout = cached_layout(shape) or contiguous_layout(shape)
                out._dtype = out_dtype
                out._device = x._device
                return out
        return unary(op, x, fname)

    return in_c(fn, 1, op, results, "unary")


def _two_array_function(op, fname, method, fallback):
    """The namespace function ``fname`` of ``op``: two arrays of one class, dtype (one the op
    takes), device and shape call the storage's ``method`` inline, anything else goes
    through ``fallback`` (``binary`` or ``compare``)."""
    results = RESULT_BY_NAME[op]

    def fn(x1: Array | Scalar, x2: Array | Scalar, /) -> Array:
        if type(x1) is type(x2) and isinstance(x1, ArrayBase) and not GATE.on:  # (lazy: the fallback)
            a2: ArrayBase = x2  # type: ignore[assignment]  # x1's class, which mypy does not infer
            l1, l2 = x1._layout, a2._layout
            shape = l1.shape
            out_dtype = results.get(x1._dtype.name) if x1._dtype is a2._dtype else None
            if out_dtype is not None and x1._device is a2._device and shape == l2.shape:
                cls = type(x1)
                out = cls.__new__(cls)  # (new_array, inlined)
                out._storage = getattr(x1._storage, method)(op, l1, a2._storage, l2)
                out._layout = cached_layout(shape) or contiguous_layout(shape)
                out._dtype = out_dtype
                out._device = x1._device
                return out
        return fallback(op, x1, x2, fname)

    return in_c(fn, 2, op, results, method)


def binary_function(op, fname):
    """The namespace function ``fname`` of a BinaryOp (see ``_two_array_function``)."""
    return _two_array_function(op, fname, "binary", binary)


def compare_function(op, fname):
    """The namespace function ``fname`` of a CompareOp, its result bool."""
    return _two_array_function(op, fname, "compare", compare)
