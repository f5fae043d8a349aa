"""The backend protocol: what a backend implements for candlewick to run on it.

A backend is a package that exposes, through the entry-point group
``candlewick.backends``, an object satisfying ``Backend``. That object hands out
``BackendDevice`` objects, which create ``BackendStorage`` objects. Everything the
Array API namespace does is composed in the front end from the primitives below.

General rules for every primitive (backend authors: read these first)

* A storage is a flat buffer of one dtype. A ``Layout`` (``candlewick.layout``) says
  how an array views it: ``shape``, ``strides`` and ``offset`` in *elements*. Strides
  may be 0 (broadcast) or negative (reversed); any layout the front end passes is in
  bounds of the storage. Primitives must accept every layout: contiguous, transposed,
  stepped, broadcast, offset, negative-stride, 0-d (``shape == ()``) and empty.
* Unless marked *in-place*, a primitive returns a **new C-contiguous storage** holding
  exactly ``prod(out_shape)`` elements (offset 0); it never aliases its inputs.
* Inputs of a binary primitive already have one dtype and one shape (the front end
  promotes and broadcasts; broadcast dimensions arrive with stride 0).
* dtypes are ``candlewick.dtypes.DType`` objects. Which dtypes an op accepts and the
  dtype it returns are given by ``candlewick.opdefs`` (``op.accepts(dtype)``,
  ``op.result_dtype(dtype)``); the front end never asks for an op outside that domain.
  float16 and bfloat16 may be computed in float32 and rounded once on store.
* Scalars are Python ``bool``/``int``/``float``/``complex`` already representable in
  the operand's dtype (the front end checks ranges).
* Integer arithmetic wraps modulo 2**bits. Integer ``floor_divide`` and ``remainder``
  by zero give 0; ``remainder`` takes the divisor's sign (Python/NumPy semantics).
  Integer ``pow`` with a negative exponent gives ``1`` for base 1, ``+-1`` for base -1
  and 0 otherwise. Shifts by a count < 0 or >= bits give 0 (``-1`` for a right shift of
  a negative value). Float semantics are IEEE 754 with the Array API standard's primary
  results for NaN, +-inf and -0.0: NumPy's, but for ``floor_divide`` with an infinite
  operand (``inf // 2.0`` is inf); ``maximum``/``minimum``/``min``/``max`` propagate NaN.
* A backend that lacks a primitive, or a dtype for it, raises
  ``candlewick.errors.UnsupportedOperation(op, dtype, backend)``; it never computes
  on another device. Errors in the data (an index out of range) raise
  ``IndexError`` subclasses; an asynchronous backend may raise them at the next
  synchronizing call (``to_host``, ``synchronize``) and must name the operation. A
  write with an out-of-range index (scatter, scatter_add, index_add) writes nothing, as
  NumPy's (the conformance suite checks the destination afterwards).

The rules the conformance suite checks (generated from candlewick/contract.py by
tools/gen_contract_doc.py: edit the table, not this text)

Every primitive:
* Every input layout works: contiguous, permuted, stepped, broadcast (stride 0), offset,
  negative strides, 0-d and empty; the suite draws them all for every primitive.
  [layouts: to_host, copy, unary, binary, reduce, matmul, sort, gather, assign]
* A result is a new storage of exactly `prod(shape)` elements of the promised dtype
  (`op.result_dtype`), read back C-contiguous through `Layout.contiguous(shape)` (rfftn,
  and qr's Q, svd's U and Vh where they come with a layout: through the dense
  permutation returned); it never aliases an input. `to_host` returns an owning,
  C-contiguous ndarray, a 0-d one for a 0-d layout. [result-storage: copy, unary,
  binary, reduce, astype, matmul, index_select]
* A primitive that raises UnsupportedOperation for a dtype or group the device declares
  fails; one that is missing fails by name (`MyStorage has no method 'isin'`).
  [declared-means-supported: storage_from_host, unary, binary]

How results are compared:
* Integer and bool results, indices, and data movement are exact; copies and `to_host`
  bit for bit (NaN payloads and the sign of zero included), `full` and `fill` with the
  sign of zero. [exact: to_host, copy, assign, fill, concat, compress, index_select,
  gather, scatter, nonzero, sort, argsort, unique, where, compare]
* A floating result is within the rule's bound of the exact value (computed in float64
  from the same inputs), in ulps of the result dtype plus the rule's absolute term; NaN
  exactly where the exact result is NaN, infinities exactly; the sign of a zero only
  where IEEE 754 fixes it (abs, ceil, floor, trunc, round, negative, conj, real,
  copysign, nextafter, fill, full). [float-ulps: unary, binary, binary_scalar, reduce,
  scan, matmul, astype]
* A complex result is first in the exact value's class: finite, infinite (a part is
  infinite, C99 Annex G), or NaN; a finite one is within `k * eps * |exact|` of it, k
  the rule's bound. [complex-class: unary, binary, matmul, reduce]
* float16 and bfloat16 may be computed in float32 and rounded once on store: their
  bounds are float32's plus that rounding; their sums and products accumulate in
  float32. [half-in-float32: unary, binary, affine, reduce, scan, matmul, index_add]

Element-wise accuracy:
* Exact: abs, ceil, floor, trunc, round (half to even), sign, negative, conj, real,
  imag, isfinite, isinf, isnan, signbit, relu, maximum, minimum, copysign, nextafter (a
  step in the operand's own dtype), the bitwise, logical and shift ops, and every
  comparison. [exact-functions: unary, binary]
* Within 1 ulp (one rounding): add, subtract, multiply, divide, floor_divide, remainder,
  reciprocal, sqrt, square. [rounded-functions: unary, binary, binary_scalar]
* Within 4 ulps: exp, expm1, log, log1p, log2, log10, sin, cos, tan, asin, acos, atan,
  sinh, cosh, tanh, asinh, acosh, atanh, erf, sigmoid, gelu, silu, pow, atan2, hypot,
  logaddexp; gelu also within `4 * eps * |x|` (its negative tail cancels), silu within
  `4 * smallest_subnormal * |x|`, logaddexp(a, b) within `4 * eps * (|a| w_a + |b|
  w_b)`, `w = exp(x - logaddexp(a, b))` (its condition, where the result cancels).
  [transcendental-functions: unary, binary]
* Complex bounds (k above): add and subtract 1; multiply, divide, pow, abs, square and
  sqrt 4; reciprocal, sign and every other function 8. Complex pow is also allowed `4 *
  eps * |b log a| * |exact|` and is not checked at a = 0 or for non-finite operands.
  [complex-functions: unary, binary]
* Complex log1p keeps the digits of a small z: for |z| < 0.5 it is within its bound of
  `log1p(2x + x^2 + y^2) / 2 + i atan2(y, 1 + x)` (z = x + iy), not of `log(1 + z)`,
  which loses them (NumPy's own complex log1p does). [complex-log1p: unary]
* Complex expm1 of a z with an infinite or NaN part is `exp(z) - 1` (the standard's
  special values; NumPy gives NaN+NaNj for inf+NaNj). [complex-expm1-special: unary]

Element-wise special cases:
* NaN, infinities and signed zeros give the Array API standard's primary results, which
  are NumPy's except floor_divide with an infinite operand: `floor(a / b)` (`inf // 2.0`
  is inf, `1.0 // -inf` is -0.0; NumPy gives NaN and -1.0). [float-special-values:
  unary, binary, binary_scalar]
* maximum, minimum, the min and max reductions and max_pool2d propagate NaN; clip keeps
  NaN. [nan-propagation: binary, reduce, clip, max_pool2d]
* Integer floor_divide and remainder by zero give 0; remainder takes the divisor's sign
  and floor_divide rounds toward -inf (-7 // 3 = -3, -7 % 3 = 2); `min // -1` wraps to
  min. [integer-division: binary, binary_scalar]
* Integer arithmetic wraps modulo 2**bits (pow too: `2 ** bits` is 0); `0 ** 0` is 1.
  [integer-wrap: binary, binary_scalar, unary, reduce, scan, matmul, affine]
* Integer pow with a negative exponent: 1 for base 1, +-1 for base -1 (by the exponent's
  parity), 0 otherwise. [integer-pow-negative: binary, binary_scalar]
* A shift by a count < 0 or >= bits gives 0 (-1 for a right shift of a negative value);
  `1 << (bits - 1)` is the dtype's most negative value for signed dtypes. [shifts:
  binary, binary_scalar]
* sign of a complex z is z/|z| (0 for 0; not checked for infinite z); gelu is the erf
  form `x * (1 + erf(x / sqrt(2))) / 2` (not the tanh approximation) and gives x for the
  largest finite x; silu is `x * sigmoid(x)`. [sign-and-activations: unary]
* Floats to integers truncate toward zero (NaN, infinities and out-of-range values are
  unspecified but must not fault); anything to bool is `!= 0` (NaN is True); a
  conversion to float16 or bfloat16 from a wider type may round twice (1 ulp).
  [astype-conversions: astype]
* `x * mul + add` within 1 ulp plus one rounding of the product (`eps * |x * mul|`, eps
  of the compute dtype: float32 for float16 and bfloat16), fused or not; integers wrap.
  [affine-bound: affine]

Reductions, scans, products:
* A sum of n terms (sum, cumulative_sum, each matmul or convolution element, accumulated
  scatter_add and index_add contributions) is within 1 ulp plus `(n + 1) * eps_acc *
  sum(|term|)` (+ `(n + 1)` smallest subnormals), eps_acc the accumulation dtype's: any
  summation order passes; complex matmul twice that. [sum-bound: reduce, scan, matmul,
  conv1d, conv2d, conv_transpose1d, conv_transpose2d, avg_pool2d, scatter_add,
  index_add]
* A product of n factors (prod, cumulative_prod) is within 1 ulp plus `(n + 1) * eps_acc
  * |exact|` (complex: twice that). [product-bound: reduce, scan]
* matmul forms every product, zeros included (`0 * inf` is NaN: no skipping of zero
  terms); complex products are `(ac - bd) + (ad + bc)i`, so a result's class (finite,
  infinite, NaN) is that of the sum of those products. [matmul-products: matmul]
* argmin and argmax give the first index of the extreme, or of the first NaN; over an
  empty set sum is 0, prod 1, any False, all True (min, max, argmin, argmax are never
  asked). [extremes-and-empty: reduce]
* var (std with root) is the two-pass formula within 2 ulps plus its error bound
  (`(sum_bound(squares) + 4 eps sum(squares) + n * mean_error**2) / (n - correction)`);
  NaN where `n - correction <= 0` or the set holds a NaN or an infinity. [var-bound:
  var]

Orders and sets:
* NaN orders above +inf (last ascending, first descending); -0.0 and 0.0 are equal; a
  stable sort keeps equal elements in their order in both directions; an unstable one
  may order equal elements (and their indices) any way. [sort-order: sort, sort_values,
  argsort]
* The sorted operand has NaN last; the result is the first i with `x[i] >= v` (`> v`
  with right), NaN values going after every number. [searchsorted-order: searchsorted]
* Distinct values by `==` (each NaN distinct, -0.0 and 0.0 one value) in ascending
  order: NaN last, False before True, complex by real part then imaginary part, NaN last
  in each; first occurrence, inverse and counts exact. [unique-order: unique]
* An element is in the other operand when it equals (`==`) one of its elements: NaN is
  in nothing, -0.0 is 0.0; either operand may be empty. [isin-equality: isin]
* Coordinates in C order; NaN, and a complex value with either part non-zero, count as
  non-zero. [nonzero-order: nonzero]

Indexing and writes:
* Indices lie in `[-n, n)` (negatives from the end); any other raises IndexError and,
  for a write, writes nothing (the suite reads the destination back). [index-range:
  index_select, gather, scatter, scatter_add, index_add]
* scatter: which of several writes to one element wins is unspecified (one of them);
  scatter_add and index_add accumulate every contribution (the sum bound, in any order).
  [duplicate-writes: scatter, scatter_add, index_add]
* assign from an overlapping view of the same storage is as if the source were read
  first; no element outside the destination view changes. [overlap: assign]

Optional hooks and groups:
* `real_view` (optional): the complex buffer as its real components (element 2k the real
  part of element k, 2k+1 the imaginary part), sharing memory both ways; without it the
  parts are copies through `unary` and are checked as such. [complex-part-views: unary]
* The `inplace` group writes the values of the out-of-place primitive of the same name
  into `self[dst_layout]` (any strides and offset), exactly as that primitive's rules
  bind them; an operand sharing the destination's memory in any way (`x[1:] += x[:-1]`,
  `x += x.T`) gives NumPy's result, as if read whole before the first write; no element
  outside the view changes. [inplace-overlap: unary_into, binary_into,
  binary_scalar_into, compare_into, compare_scalar_into, where_into]
* The `binary_dtype` group gives `binary`'s values of both operands converted to `dtype`
  as `astype` converts them, without the converted copies; operands of any two dtypes.
  [binary-convert-as-read: binary_as]
* The `reduce_dtype` group gives the values of `astype(dtype)` followed by `reduce` or
  `scan` in `dtype`, within that primitive's rules for `dtype` (integers wrap in it; a
  float64 sum of float32 elements is bound by float64's eps), each element converted as
  `astype` converts it, without the converted copy. [convert-as-read: reduce_as,
  scan_as]
* A compiled fused graph gives what replaying its primitives gives: bit for bit for
  exact operations, within the rules above for the others (floating sums may be
  reassociated). [fused-equals-replay: compile_fused]

Optional groups, random numbers:
* Factors reconstruct their input (L L^H, Q R, U S Vh, A V = V diag(w)) and solve, inv,
  det and slogdet match float64 LAPACK within `64 * n * eps * scale` (scale: the largest
  |a_ij|, times n for svd and eigh; for det the product of the row norms); Q, U, V
  orthonormal within `64 * n * eps`; triangular factors exactly triangular; singular
  values descending, eigh's eigenvalues ascending, eig's eigenvectors of unit 2-norm;
  LinAlgError for a matrix that is not positive definite (cholesky) or singular (solve,
  inv). [linalg-bound: cholesky, qr, svd, eigh, eig, solve, inv, det, slogdet]
* Unnormalized transforms within 1 ulp plus `8 * eps * (log2(n) + 1) * sum(|x|)` along
  each transformed line. [fft-bound: fft, rfft, irfft, fftn, rfftn]
* A device that declares `fft_norm` is given NumPy's `norm` ("backward", "ortho",
  "forward") by the front end and scales inside the transform: NumPy's result with that
  norm, within the unnormalized bound times the same factor; without `norm` the
  transform stays unnormalized. [fft-norm: fft, rfft, irfft, fftn, rfftn]
* A device that declares `fft_pad` is given fft's and rfft's `n` where it is longer than
  the input's axis: NumPy's transform with that `n` (the input zero-padded to it),
  within the bound over the padded line, scaled by that `n` where `norm` is given too.
  [fft-pad: fft, rfft]
* The Philox words are bit-exact (`PHILOX`); with low=0 and high=1 the uniform values
  are too, as is a float32 draw over `[0, 2**24)` (each word's top 24 bits); rand_normal
  is within the rounding of its log, sqrt, cos and sin in the compute precision.
  [random-words: rand_uniform, rand_normal]
(end of the generated rules)
"""

from typing import Any, Protocol, runtime_checkable

from .backend_device import PHILOX, Backend, BackendDevice
from .backend_elementwise import BinaryDtypeStorage, ElementwiseStorage, InplaceStorage
from .backend_groups import GROUPS_WITH_FALLBACK, OPTIONAL_CAPABILITIES, OPTIONAL_PRIMITIVES
from .backend_indexing import IndexingStorage, OrderingStorage, TransferStorage, WriteStorage
from .backend_linalg_fft import FFTStorage, LinalgStorage
from .backend_optional import (
    CollectiveDevice,
    Communicator,
    ComplexViewStorage,
    CustomKernelDevice,
    DeviceCopyStorage,
    DLPackDevice,
    DLPackStorage,
    DescendingSortViewDevice,
    FFTNormDevice,
    FFTPadDevice,
    FusionDevice,
    GraphDevice,
    HostMemoryDevice,
    HostViewStorage,
    IrfftScratchDevice,
    UnsharedStorage,
    declares_descending_sort_view,
    declares_fft_norm,
    declares_fft_pad,
    holds_host_memory,
)
from .backend_runtime import (
    MEMORY_STAT_KEYS,
    AsyncHostCopyStorage,
    BackendEvent,
    BackendStream,
    MemoryStatsDevice,
    PinnedMemoryDevice,
    ProfilerRangeDevice,
    StreamDevice,
)
from .backend_reductions import ProductStorage, ReduceDtypeStorage, ReductionStorage
from .opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

__all__ = [
    "AsyncHostCopyStorage", "Backend", "BackendDevice", "BackendEvent", "BackendStorage", "BackendStream",
    "CollectiveDevice", "Communicator", "ComplexViewStorage", "CustomKernelDevice",
    "DeviceCopyStorage",
    "DLPackDevice", "DLPackStorage", "DescendingSortViewDevice", "FFTNormDevice", "FFTPadDevice", "FusionDevice",
    "GraphDevice", "declares_descending_sort_view", "declares_fft_norm", "declares_fft_pad",
    "HostMemoryDevice", "HostViewStorage", "IrfftScratchDevice", "UnsharedStorage", "holds_host_memory", "MEMORY_STAT_KEYS",
    "MemoryStatsDevice",
    "PinnedMemoryDevice", "ProfilerRangeDevice", "StreamDevice",
    "GROUPS_WITH_FALLBACK", "OPTIONAL_CAPABILITIES", "OPTIONAL_PRIMITIVES", "PHILOX",
    "UnaryOp", "BinaryOp", "CompareOp", "ReduceOp", "ScanOp",
    "TransferStorage", "WriteStorage", "ElementwiseStorage", "InplaceStorage", "BinaryDtypeStorage",
    "ReductionStorage", "ReduceDtypeStorage", "IndexingStorage", "OrderingStorage", "ProductStorage",
    "LinalgStorage", "FFTStorage", "protocol_methods",
]


@runtime_checkable
class BackendStorage(TransferStorage, WriteStorage, ElementwiseStorage, InplaceStorage, BinaryDtypeStorage,
                     ReductionStorage, ReduceDtypeStorage, IndexingStorage, OrderingStorage, ProductStorage,
                     LinalgStorage, FFTStorage, Protocol):
    """A typed flat buffer on one device, with the primitives that read it.

    Attributes: ``dtype`` (DType), ``device`` (the BackendDevice that owns it),
    ``size`` (number of elements in the buffer). The primitives are declared by chapter in
    the protocol classes it is made of (``backend_indexing``, ``backend_elementwise``,
    ``backend_reductions``, ``backend_linalg_fft``), each method's docstring its contract.
    """

    dtype: Any
    device: Any
    size: int


def protocol_methods(protocol: type) -> "list[str]":
    """The methods a protocol class declares, its chapters' included (its public functions, in
    the order of its bases and of their bodies: ``BackendStorage``'s are the contract's order)."""
    names: dict[str, None] = {}
    for cls in protocol.__mro__:
        if cls in (Protocol, object) or cls.__module__ == "typing":
            continue
        names.update((n, None) for n, v in vars(cls).items() if callable(v) and not n.startswith("_"))
    return list(names)
