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
* The Philox words are bit-exact (`PHILOX`); with low=0 and high=1 the uniform values
  are too, as is a float32 draw over `[0, 2**24)` (each word's top 24 bits); rand_normal
  is within the rounding of its log, sqrt, cos and sin in the compute precision.
  [random-words: rand_uniform, rand_normal]
(end of the generated rules)
"""

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

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
    FusionDevice,
    GraphDevice,
    HostMemoryDevice,
    HostViewStorage,
    declares_descending_sort_view,
    declares_fft_norm,
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
from .opdefs import BinaryOp, CompareOp, ReduceOp, ScanOp, UnaryOp

if TYPE_CHECKING:
    from .layout import Layout

__all__ = [
    "AsyncHostCopyStorage", "Backend", "BackendDevice", "BackendEvent", "BackendStorage", "BackendStream",
    "CollectiveDevice", "Communicator", "ComplexViewStorage", "CustomKernelDevice",
    "DeviceCopyStorage",
    "DLPackDevice", "DLPackStorage", "DescendingSortViewDevice", "FFTNormDevice", "FusionDevice", "GraphDevice",
    "declares_descending_sort_view", "declares_fft_norm",
    "HostMemoryDevice", "HostViewStorage", "holds_host_memory", "MEMORY_STAT_KEYS", "MemoryStatsDevice",
    "PinnedMemoryDevice", "ProfilerRangeDevice", "StreamDevice",
    "GROUPS_WITH_FALLBACK", "OPTIONAL_CAPABILITIES", "OPTIONAL_PRIMITIVES", "PHILOX",
    "UnaryOp", "BinaryOp", "CompareOp", "ReduceOp", "ScanOp",
]

#: optional primitive groups a device may declare in ``BackendDevice.capabilities``
#: ("graphs": the device methods of ``GraphDevice``; "fusion": ``FusionDevice.compile_fused``;
#: "custom_kernels": the device methods of ``CustomKernelDevice``; "inplace": the element-wise
#: primitives that write into a destination, ``*_into``; "reduce_dtype": sums, products and their
#: running forms into a requested dtype, ``reduce_as`` and ``scan_as``; "binary_dtype": an
#: element-wise op of operands of two dtypes, each converted as it is read, ``binary_as``)
OPTIONAL_CAPABILITIES = ("linalg", "fft", "graphs", "fusion", "custom_kernels", "inplace", "reduce_dtype",
                         "binary_dtype")

#: the optional groups whose absence loses no function: the front end takes the documented
#: fallback instead (docs/architecture.md's table of what differs between backends)
GROUPS_WITH_FALLBACK = ("fusion", "inplace", "reduce_dtype", "binary_dtype")

#: the methods of each optional group (``BackendStorage``'s, and ``FusionDevice``'s
#: ``compile_fused``): a device that declares the group implements all of them
#: (tools/gen_array_api_doc.py and the conformance report read this table)
OPTIONAL_PRIMITIVES = {
    "linalg": ("cholesky", "qr", "svd", "eigh", "eig", "solve", "inv", "det", "slogdet"),
    "fft": ("fft", "rfft", "irfft", "fftn", "rfftn"),
    "fusion": ("compile_fused",),  # a device method (``FusionDevice``), not a storage one
    "custom_kernels": ("raw_kernel", "elementwise_kernel", "reduction_kernel"),  # device methods too
    "inplace": ("unary_into", "binary_into", "binary_scalar_into", "compare_into",
                "compare_scalar_into", "where_into"),
    "reduce_dtype": ("reduce_as", "scan_as"),
    "binary_dtype": ("binary_as",),
}

PHILOX = """
Random numbers: Philox-4x32-10 (Salmon et al., SC'11), identical on every backend.

key = (seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF); constants M0=0xD2511F53,
M1=0xCD9E8D57, W0=0x9E3779B9, W1=0xBB67AE85. One block maps the 128-bit counter
(c0, c1, c2, c3) to four 32-bit words with 10 rounds of
  hi0,lo0 = mulhilo(M0, c0); hi1,lo1 = mulhilo(M1, c2)
  c = (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0); k0 += W0; k1 += W1
(the key is bumped after each round, the output is c after round 10).
The stream of 32-bit words for a call with ``counter`` is: block b (b = 0, 1, ...)
uses counter (lo32(counter + b), hi32(counter + b), 0, 0) and contributes words
4b .. 4b+3 in order. Element i of the output (C order) uses:
  float64:                 words 2i, 2i+1 -> u = ((w[2i] << 21) ^ (w[2i+1] >> 11)) * 2**-53
  float32/float16/bfloat16: word i        -> u = (w[i] >> 8) * 2**-24, computed in f32
``rand_uniform`` returns low + (high - low) * u, rounded once to the dtype.
``rand_normal`` (Box-Muller) pairs elements 2j, 2j+1 of the uniform stream above
(uniforms u1, u2 in the compute precision; float64 for float64, else float32):
  r = sqrt(-2 log(1 - u1)); out[2j] = mean + std * r cos(2 pi u2),
  out[2j+1] = mean + std * r sin(2 pi u2)   (an odd tail element uses the cos branch).
Uniform words are bit-identical across backends; transformed values agree within
rounding of the transcendental functions. A float32 ``rand_uniform`` over [0, 2**24) is
exactly ``w[i] >> 8`` (a whole number, whatever the order of the arithmetic):
``candlewick.random`` makes its integer draws, choices and permutations of three such
words an element, so they are the same numbers on every backend.
"""


@runtime_checkable
class BackendStorage(Protocol):
    """A typed flat buffer on one device, with the primitives that read it.

    Attributes: ``dtype`` (DType), ``device`` (the BackendDevice that owns it),
    ``size`` (number of elements in the buffer).
    """

    dtype: Any
    device: Any
    size: int

    # --- host transfer -----------------------------------------------------
    def to_host(self, layout) -> Any:
        """A new NumPy array (owning, C-contiguous) holding the elements ``layout`` views.
        dtype is ``self.dtype.numpy``. Synchronizes with pending device work."""

    # --- in-place ----------------------------------------------------------
    def assign(self, dst_layout, src, src_layout) -> None:
        """*In-place*: write ``src`` viewed by ``src_layout`` into ``self`` viewed by
        ``dst_layout``. Same dtype, same shape (src may be broadcast: stride 0). ``src`` may
        be ``self`` with an overlapping layout: the result is as if src were copied first."""

    def fill(self, layout, value) -> None:
        """*In-place*: set every element ``layout`` views to the scalar ``value``."""

    def scatter(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place* put-along-axis: for every position p of ``idx_layout.shape`` (equal to
        ``src_layout.shape``, same ndim as dst), ``dst[p with p[axis] = idx[p]] = src[p]``.
        ``indices`` is an int64 storage; values in ``[-n, n)`` with n = dst shape[axis],
        negatives counting from the end; others raise IndexError. When several positions
        write one element, which write wins is unspecified."""

    def scatter_add(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place*: as ``scatter`` but adds, and every contribution is accumulated."""

    def index_add(self, dst_layout, indices, idx_layout, src, src_layout, axis) -> None:
        """*In-place*: ``indices`` is 1-D (int64, length k, same rules as scatter);
        src shape is dst shape with ``shape[axis] = k``; for each j,
        ``dst[..., idx[j], ...] += src[..., j, ...]`` along ``axis``; duplicates accumulate."""

    # --- element-wise ------------------------------------------------------
    def copy(self, layout) -> "BackendStorage":
        """A contiguous copy of the viewed elements."""

    def unary(self, op: UnaryOp, layout) -> "BackendStorage":
        """``op`` applied to each element; result dtype ``op.result_dtype(dtype)``.
        Rounding: ``round`` is half-to-even; ``sign`` of complex z is z/|z| (0 for 0).
        ``gelu`` is the erf form x*(1+erf(x/sqrt 2))/2; ``silu`` is x*sigmoid(x)."""

    def binary(self, op: BinaryOp, lhs_layout, rhs, rhs_layout) -> "BackendStorage":
        """``op(self[lhs_layout], rhs[rhs_layout])`` elementwise; same dtype and shape."""

    def binary_scalar(self, op: BinaryOp, layout, scalar, reflected) -> "BackendStorage":
        """``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``; result dtype is x's."""

    def compare(self, op: CompareOp, lhs_layout, rhs, rhs_layout) -> "BackendStorage":
        """Elementwise comparison; bool result. NaN compares unequal to everything."""

    def compare_scalar(self, op: CompareOp, layout, scalar, reflected) -> "BackendStorage":
        """``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``; bool result. The
        Python ``scalar`` is first converted to x's dtype (the front end only passes one
        that fits), so the result equals ``compare`` against a full array of it."""

    def where(self, cond_layout, x, x_layout, y, y_layout) -> "BackendStorage":
        """``self`` is a bool condition; ``x``/``y`` share a dtype; all three one shape."""

    def astype(self, layout, dtype) -> "BackendStorage":
        """Convert to ``dtype`` with NumPy's casting rules (floats to ints truncate toward
        zero; NaN/inf/out-of-range floats to ints are unspecified but must not fault;
        anything to bool is ``!= 0``; complex to real is never asked)."""

    def affine(self, layout, mul, add) -> "BackendStorage":
        """``x * mul + add`` in the storage's dtype (float16/bfloat16 computed in f32)."""

    def clip(self, layout, lo, hi) -> "BackendStorage":
        """``min(max(x, lo), hi)`` with ``lo``/``hi`` scalars or None; NaN stays NaN."""

    # --- optional group "inplace": element-wise results written into ``self`` ----------
    # Each writes ``self`` viewed by ``dst_layout`` and nothing else: any strides and
    # offset, never a stride-0 axis longer than 1 (the front end refuses to write through
    # broadcast views). Operands have ``dst_layout.shape`` (broadcast ones with stride 0)
    # and the dtype ``op`` takes; ``self.dtype`` is ``op.result_dtype`` of it (bool for the
    # comparisons). An operand may be ``self`` itself, through the same or any other
    # layout: the result is NumPy's, as if every operand were read whole before the first
    # write (``x[1:] += x[:-1]``, ``x += x.T``). Values are those of the out-of-place
    # primitive of the same name, element for element. One call is one update of the
    # destination: calls into one storage from several threads must not lose each other's
    # writes (cpu: a lock per storage; a GPU backend: its calls run in order on one stream).
    # A device that does not declare the group gets the front end's path: the out-of-place
    # primitive, then ``assign`` (a temporary the size of the result).
    def unary_into(self, op: UnaryOp, dst_layout, src, src_layout) -> None:
        """*In-place*: ``self[dst_layout] = op(src[src_layout])`` (``unary``'s values)."""

    def binary_into(self, op: BinaryOp, dst_layout, lhs, lhs_layout, rhs, rhs_layout) -> None:
        """*In-place*: ``self[dst_layout] = op(lhs[lhs_layout], rhs[rhs_layout])``; lhs and
        rhs share a dtype (``binary``'s values)."""

    def binary_scalar_into(self, op: BinaryOp, dst_layout, src, src_layout, scalar, reflected) -> None:
        """*In-place*: ``op(x, scalar)``, or ``op(scalar, x)`` when ``reflected``, of
        ``x = src[src_layout]`` into ``self[dst_layout]`` (``binary_scalar``'s values)."""

    def compare_into(self, op: CompareOp, dst_layout, lhs, lhs_layout, rhs, rhs_layout) -> None:
        """*In-place*: the comparison of lhs and rhs (one dtype) into the bool ``self``."""

    def compare_scalar_into(self, op: CompareOp, dst_layout, src, src_layout, scalar, reflected) -> None:
        """*In-place*: ``compare_scalar``'s result of ``src[src_layout]`` into the bool ``self``."""

    def where_into(self, dst_layout, cond, cond_layout, x, x_layout, y, y_layout) -> None:
        """*In-place*: ``self[dst_layout] = where(cond, x, y)``; ``cond`` bool, ``x`` and
        ``y`` of ``self``'s dtype (``x[mask] = v`` is this with ``y`` the destination).
        ``x`` may be a Python scalar with ``x_layout`` None (``x[mask] = 0.5``): the value
        is stored as ``full`` stores it, with no device array made for it."""

    # --- optional group "binary_dtype": operands of two dtypes -----------------------
    # ``x - mean`` with x float32 and the mean float64 (scikit-learn's StandardScaler):
    # NumPy's ufunc casts x a buffer at a time. Each operand is converted to ``dtype`` as
    # it is read, as ``astype`` converts it, and the op runs in ``dtype`` with ``binary``'s
    # values, with no converted copy of either operand. ``dtype`` is float32, float64,
    # complex64 or complex128 and differs from at least one operand's dtype; ``op``
    # accepts it. A device that does not declare the group gets the front end's path:
    # ``astype`` of the narrower operand, then ``binary`` (a temporary of its size).
    def binary_as(self, op: BinaryOp, lhs_layout, rhs, rhs_layout, dtype) -> "BackendStorage":
        """``binary(op, ...)`` of ``self[lhs_layout]`` and ``rhs[rhs_layout]`` (one shape,
        any dtypes) converted to ``dtype``: a storage of ``op.result_dtype(dtype)``."""

    # --- reductions and scans ------------------------------------------------
    def reduce(self, op: ReduceOp, layout, axes) -> "BackendStorage":
        """Reduce over ``axes`` (sorted, unique, non-negative). Output shape is the input
        shape with those axes removed. ``argmin``/``argmax`` take exactly one axis and give
        the first index of the extreme (the first NaN if any). Empty reductions give 0 for
        sum, 1 for prod, False for any, True for all; the front end never asks
        min/max/argmin/argmax of an empty set. sum/prod keep the input dtype (float16 and
        bfloat16 accumulate in float32)."""

    def var(self, layout, axes, correction, root) -> "BackendStorage":
        """The variance over ``axes`` (sorted, unique, non-negative; possibly none):
        ``sum(|x - mean|**2) / (N - correction)``, N the number of elements reduced, or with
        ``root`` its square root (the standard deviation). float32, float64, complex64 and
        complex128 (the front end computes float16/bfloat16 in float32); the result has the
        real dtype (float32 for complex64). Output shape as ``reduce``'s. NaN where
        ``N - correction <= 0``, and where the set holds a NaN or an infinity;
        ``correction`` is an int or float."""

    def scan(self, op: ScanOp, layout, axis) -> "BackendStorage":
        """Inclusive cumulative ``op`` along ``axis``; same shape and dtype."""

    # --- optional group "reduce_dtype": sums and products into a requested dtype --------
    # ``sum(x, dtype=float64)`` of a float32 x (scikit-learn's accumulators, NumPy's
    # ``np.add.reduce(x, dtype=...)``): each element is converted to ``dtype`` as it is
    # read, as ``astype`` converts it, and the sum or product runs in ``dtype`` (its
    # ``reduce``/``scan`` accumulation), with no converted copy of the input. ``dtype`` is
    # numeric, never bool, float16 or bfloat16, complex when ``self.dtype`` is, and differs
    # from ``self.dtype``; ``op`` is SUM or PROD. A device that does not declare the group
    # gets the front end's path: ``astype`` to ``dtype``, then ``reduce``/``scan`` (a
    # temporary the size of the input in ``dtype``, and a pass more over memory).
    def reduce_as(self, op: ReduceOp, layout, axes, dtype) -> "BackendStorage":
        """``reduce(op, ...)`` of ``self[layout]`` converted to ``dtype``: a storage of
        ``dtype``, shape as ``reduce``'s (empty reductions give 0 for sum, 1 for prod)."""

    def scan_as(self, op: ScanOp, layout, axis, dtype) -> "BackendStorage":
        """``scan(op, ...)`` of ``self[layout]`` converted to ``dtype``: a storage of
        ``dtype`` and ``layout``'s shape."""

    # --- indexing ------------------------------------------------------------
    def concat(self, layout, rest, axis) -> "BackendStorage":
        """``self[layout]`` followed by each ``(storage, layout)`` of the sequence ``rest``
        along ``axis``: one contiguous result. Every operand has ``self``'s dtype and ndim
        and the same sizes on every other axis."""

    def compress(self, layout, mask, mask_layout) -> "tuple[BackendStorage, int]":
        """The rows (entries of the leading axis) of ``self[layout]`` where the 1-D bool
        ``mask`` (length ``layout.shape[0]``) is True, in order: (a contiguous storage of
        shape ``(count,) + layout.shape[1:]``, ``count``). Reads the count on the host."""

    def nonzero(self, layout) -> "tuple[tuple[BackendStorage, ...], int]":
        """Where ``self[layout]`` (at least 1-D) is non-zero (``!= 0``: NaN counts, and a
        complex element with either part non-zero), in C order: (a tuple of ``ndim`` int64
        storages of ``count`` elements, the k-th holding the coordinates along axis k,
        ``count``). Reads the count on the host."""

    def index_select(self, layout, indices, idx_layout, axis) -> "BackendStorage":
        """Take along one axis: output shape ``shape[:axis] + idx_shape + shape[axis+1:]``.
        ``indices``: int64 storage, values in ``[-n, n)`` (negatives from the end); others
        raise IndexError."""

    def gather(self, layout, indices, idx_layout, axis) -> "BackendStorage":
        """Take-along-axis: idx has the input's ndim and equal sizes on every other axis;
        ``out[p] = x[p with p[axis] = idx[p]]``; output shape is the index shape.
        ``indices``: int64, same rules as ``index_select`` (``[-n, n)``, others raise IndexError)."""

    # --- ordering ------------------------------------------------------------
    def sort(self, layout, axis, descending, stable) -> "tuple[BackendStorage, BackendStorage]":
        """Sort along ``axis``: (values, int64 indices). NaN orders above +inf (last when
        ascending, first when descending); ``stable`` keeps equal elements in their
        original order in both directions. Complex is not asked."""

    def sort_values(self, layout, axis, descending, stable) -> "BackendStorage":
        """The values of ``sort`` alone (same order rules). Without ``stable``, equal
        elements may come out in any order (e.g. -0.0 and 0.0, or NaNs of different
        payloads): a backend may use its fastest unstable sort."""

    def argsort(self, layout, axis, descending, stable) -> "BackendStorage":
        """The int64 indices of ``sort`` alone (same order rules). Without ``stable``, the
        indices of equal elements may come out in any order."""

    def searchsorted(self, layout, values, values_layout, right) -> "BackendStorage":
        """``self`` viewed 1-D and sorted ascending (NaN last); int64 insertion indices for
        each of ``values`` (same dtype, any shape): the first index i such that
        ``x[i] >= v`` (``> v`` when ``right``)."""

    def isin(self, layout, other, other_layout, invert) -> "BackendStorage":
        """A bool storage of ``layout.shape``: True where the element of ``self[layout]``
        equals (``==``) some element of ``other[other_layout]`` (same dtype, any shape; either
        may be empty), negated with ``invert``. NaN is in nothing; -0.0 and 0.0 are equal.
        Bool, integer and real floating dtypes (complex is not asked)."""

    def unique(self, layout, indices, inverse, counts) -> "tuple":
        """The distinct elements of ``self[layout]`` read in C order (n >= 1 of them: the
        front end never asks of an empty array), equal meaning ``==``: every NaN is distinct,
        -0.0 and 0.0 are one. Returns ``(values, count, first, inverse, counts)``:
        ``values`` the ``count`` distinct elements ascending (NaN last; bool False first;
        complex by real part, then imaginary part, NaN last in each), ``count`` read on the
        host; then three int64 storages, each None unless its flag is True: ``first``
        (``count``) the C-order position of each value's first occurrence, ``inverse`` (n)
        each element's index in ``values``, ``counts`` (``count``) each value's number of
        elements. Each value is one of its elements (with ``indices``: the first)."""

    # --- linear algebra ------------------------------------------------------
    def matmul(self, rhs, lhs_layout, rhs_layout) -> "BackendStorage":
        """Batched matrix product: lhs ``(*B, M, K)``, rhs ``(*B, K, N)`` with identical
        batch shape ``B`` (broadcast batch dims arrive with stride 0); output ``(*B, M, N)``.
        Every numeric dtype; integers wrap; float16/bfloat16 accumulate in float32."""

    # --- neural-network ops (input/weight same dtype, floating) --------------
    def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups) -> "BackendStorage":
        """x ``(N, Cin, L)``, weight ``(Cout, Cin/groups, K)`` -> ``(N, Cout, Lout)`` with
        ``Lout = (L + 2*padding - dilation*(K-1) - 1)//stride + 1`` (cross-correlation)."""

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups) -> "BackendStorage":
        """As conv1d in two dims; ``stride``, ``padding``, ``dilation`` are (h, w) pairs."""

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups) -> "BackendStorage":
        """x ``(N, Cin, L)``, weight ``(Cin, Cout/groups, K)``; the gradient of conv1d
        w.r.t. its input: ``Lout = (L-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1``."""

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding,
                         dilation, groups) -> "BackendStorage":
        """As conv_transpose1d in two dims (all parameters are (h, w) pairs)."""

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad) -> "BackendStorage":
        """x ``(N, C, H, W)``; mean over each window (pairs for kernel/stride/padding);
        padded cells are zeros counted in the divisor iff ``count_include_pad``."""

    def max_pool2d(self, layout, kernel, stride, padding, dilation) -> "BackendStorage":
        """x ``(N, C, H, W)``; max over each window, padding is -inf; NaN propagates."""

    def upsample_nearest2d(self, layout, out_h, out_w) -> "BackendStorage":
        """x ``(N, C, H, W)`` -> ``(N, C, out_h, out_w)``, source index ``floor(dst*in/out)``."""

    # --- optional group "linalg" (float32/64, complex64/128; batched over leading dims) ---
    def cholesky(self, layout, upper) -> "BackendStorage":
        """Lower (or upper) Cholesky factor; LinAlgError if not positive definite."""

    def qr(self, layout, complete) -> "tuple[BackendStorage | tuple[BackendStorage, Layout], BackendStorage]":
        """(Q, R); reduced shapes (M,K),(K,N) with K=min(M,N), complete (M,M),(M,N). Q may
        be a ``(storage, layout)`` pair, the layout a dense permutation of Q's shape over
        exactly that storage (column-major matrices, as LAPACK's orgqr leaves them: no copy
        of Q, which PyTorch's Q does not make either)."""

    def svd(self, layout, full_matrices) -> "tuple[BackendStorage | tuple[BackendStorage, Layout], BackendStorage, BackendStorage | tuple[BackendStorage, Layout]]":
        """(U, S, Vh), S real and descending; U and Vh may each be a ``(storage, layout)``
        pair, as qr's Q."""

    def eigh(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(eigenvalues ascending, real; eigenvectors as columns) of Hermitian matrices."""

    def eig(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(eigenvalues ``(..., n)``, right eigenvectors ``(..., n, n)`` as columns) of
        general square matrices, both complex64 for float32/complex64 input and
        complex128 for float64/complex128; each eigenvector of unit 2-norm, as LAPACK's
        geev gives it (in geev's order; LinAlgError where geev fails to converge)."""

    def solve(self, layout, rhs, rhs_layout) -> "BackendStorage":
        """X with A X = B; A ``(*B, n, n)``, B ``(*B, n, k)`` (same batch shape);
        LinAlgError for a singular A."""

    def inv(self, layout) -> "BackendStorage":
        """Inverse; LinAlgError for a singular matrix."""

    def det(self, layout) -> "BackendStorage":
        """Determinants, shape ``B``."""

    def slogdet(self, layout) -> "tuple[BackendStorage, BackendStorage]":
        """(sign, log|det|); sign 0 and logabsdet -inf for a singular matrix; logabsdet real."""

    # --- optional group "fft" (complex64/128 in; unnormalized in both directions) ---
    # A device that declares ``fft_norm = True`` (``FFTNormDevice``) is also given the
    # keyword ``norm`` by each of them: NumPy's scaling, done in the transform.
    def fft(self, layout, axis, inverse) -> "BackendStorage":
        """Complex-to-complex DFT along ``axis``; exponent sign + when ``inverse``; no scaling."""

    def rfft(self, layout, axis) -> "BackendStorage":
        """Real (float32/64) to complex along ``axis``; length n//2+1; no scaling."""

    def irfft(self, layout, axis, n) -> "BackendStorage":
        """Complex (Hermitian half) to real of length ``n`` along ``axis``; no scaling."""

    def fftn(self, layout, axes, inverse) -> "BackendStorage":
        """``fft`` along each of ``axes`` (distinct ints), as one call: a backend may
        transform them together (one multi-dimensional plan); no scaling."""

    def rfftn(self, layout, axes) -> "tuple[BackendStorage, Layout]":
        """``rfft`` along the last of ``axes`` (distinct ints), then ``fft`` along the
        others, as one call; no scaling. Returns the result and its layout in that storage:
        shape x's with the last of ``axes`` halved (n//2+1), over exactly that many elements,
        any order of its axes (a dense permutation; ``Layout.contiguous(shape)`` for a
        C-contiguous result). The order is the backend's because the fastest GPU libraries'
        complex passes after the real one write their transforms' elements together
        (PyTorch's rfft2 is such a permuted view)."""


@runtime_checkable
class BackendDevice(Protocol):
    """One device of a backend. candlewick keeps one instance per device (so identity
    is equality) and uses it as the ``device`` attribute of arrays.

    Attributes: ``backend`` (backend name, e.g. "rocm"), ``ordinal`` (int),
    ``name`` (``"cpu"`` or ``"rocm:0"``), ``dtypes`` (the DTypes it supports),
    ``capabilities`` (subset of ``OPTIONAL_CAPABILITIES``).
    """

    backend: str
    ordinal: int
    name: str
    dtypes: Any
    capabilities: Any

    def storage_from_host(self, array) -> BackendStorage:
        """Copy a C-contiguous NumPy array (dtype ``DType.numpy``) into a new storage."""

    def zeros(self, shape, dtype) -> BackendStorage: ...
    def ones(self, shape, dtype) -> BackendStorage: ...

    def full(self, shape, dtype, value) -> BackendStorage:
        """A contiguous storage of ``prod(shape)`` elements equal to ``value``."""

    def empty(self, shape, dtype) -> BackendStorage:
        """Uninitialized contiguous storage (reading it gives arbitrary values)."""

    def arange(self, start, step, size, dtype) -> BackendStorage:
        """``start + i * step`` for i in ``range(size)``, computed in float64 for floating
        dtypes (in int64 for integers) and cast once."""

    def rand_uniform(self, shape, dtype, seed, counter, low, high) -> BackendStorage:
        """Philox-4x32-10 uniform numbers in [low, high) per ``PHILOX`` (floating dtypes)."""

    def rand_normal(self, shape, dtype, seed, counter, mean, std) -> BackendStorage:
        """Philox-4x32-10 + Box-Muller normal numbers per ``PHILOX`` (floating dtypes)."""

    def synchronize(self) -> None:
        """Wait for all work queued on this device."""

    def memory_info(self) -> "tuple[int, int]":
        """(free bytes, total bytes) of the device memory; free includes what the
        backend's own allocator caches and would release before failing (candlewick's
        size check before allocating compares with it)."""

    def same_device(self, other) -> bool: ...


@runtime_checkable
class Backend(Protocol):
    """The object an entry point of group ``candlewick.backends`` resolves to.

    Importing the package that holds it must be cheap and must not fail when the
    hardware or runtime is missing: ``probe()`` says so instead.
    """

    name: str

    def probe(self) -> "tuple[bool, str]":
        """(available, reason): reason is '' when available, else the runtime's own words."""

    def device_count(self) -> int: ...

    def device(self, ordinal: int) -> BackendDevice:
        """The device with this ordinal (called once per ordinal; candlewick caches it)."""

    def details(self) -> "dict[str, str]":
        """Extra facts for ``candlewick.backends()`` (e.g. which nn path is active)."""
