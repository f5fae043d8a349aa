"""[storage] RocmStorage: the BackendStorage of the ROCm backend, a routing table.

A typed view of a device buffer (``storage_slice.py``) whose protocol methods are
the op families' functions, bound here: each primitive queues kernels on the device
stream and returns at once. The methods that check or reorder their arguments before
routing are written out; nothing else lives here.
"""

from candlewick.composed_primitives import var_in_steps
from candlewick.errors import UnsupportedOperation

from . import rocblas
from .families import copies, dlpack, elementwise, host_copies, indexing, inplace, joins, nn, nn_pool, reductions, scans, sets
from .families import fft as _fft
from .families import fft_scratch as _fft_scratch
from .families import fft_nd as _fft_nd
from .families import linalg as _linalg
from .families import linalg_eig as _eig
from .families import linalg_spectral as _spectral
from .families import sort as ordering
from .storage_slice import StorageSlice


class RocmStorage(StorageSlice):
    """A flat device buffer of one dtype (``size`` elements)."""

    __slots__ = ()

    # --- host transfer, in-place writes, copies ----------------------------------
    to_host = copies.to_host
    assign = copies.assign
    fill = copies.fill
    copy = copies.copy
    to_device = copies.to_device  # optional hook candlewick.backend.DeviceCopyStorage: peer copies
    to_host_async = host_copies.to_host_async  # optional hook AsyncHostCopyStorage: into pinned memory
    real_view = copies.real_view  # optional hook candlewick.backend.ComplexViewStorage: parts as views
    scatter = indexing.scatter
    scatter_add = indexing.scatter_add
    index_add = indexing.index_add

    # --- element-wise ------------------------------------------------------------
    unary = elementwise.unary
    binary = elementwise.binary
    compare = elementwise.compare
    binary_scalar = elementwise.binary_scalar
    compare_scalar = elementwise.compare_scalar
    where = elementwise.where
    astype = elementwise.astype
    affine = elementwise.affine
    clip = elementwise.clip

    # --- optional group "inplace": element-wise results written into a destination ---
    unary_into = inplace.unary_into
    binary_into = inplace.binary_into
    binary_scalar_into = inplace.binary_scalar_into
    compare_into = inplace.compare_into
    compare_scalar_into = inplace.compare_scalar_into
    where_into = inplace.where_into

    # --- reductions, indexing, ordering, linear algebra -------------------------
    reduce = reductions.reduce
    # the optional group "reduce_dtype" (float32 into float64 and the half dtypes: converted as read)
    reduce_as = reductions.reduce_as
    scan_as = reductions.scan_as

    var = var_in_steps  # composed of this backend's reductions and element-wise kernels
    scan = scans.scan
    index_select = indexing.index_select
    gather = indexing.gather
    concat = joins.concat
    compress = joins.compress
    nonzero = sets.nonzero
    sort = ordering.sort
    sort_values = ordering.sort_values
    argsort = ordering.argsort
    searchsorted = ordering.searchsorted
    unique = sets.unique
    isin = sets.isin
    matmul = rocblas.matmul

    # --- nn: MIOpen where it applies, else our kernels (families/nn.py decides) ---
    def conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        return nn.conv1d(self, layout, weight, w_layout, stride, padding, dilation, groups)

    def conv2d(self, layout, weight, w_layout, stride, padding, dilation, groups):
        return nn.conv2d(self, layout, weight, w_layout, tuple(stride), tuple(padding), tuple(dilation), groups)

    def conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        return nn.conv_transpose1d(self, layout, weight, w_layout, stride, padding, output_padding,
                                   dilation, groups)

    def conv_transpose2d(self, layout, weight, w_layout, stride, padding, output_padding, dilation, groups):
        return nn.conv_transpose2d(self, layout, weight, w_layout, tuple(stride), tuple(padding),
                                   tuple(output_padding), tuple(dilation), groups)

    def avg_pool2d(self, layout, kernel, stride, padding, count_include_pad):
        return nn_pool.avg_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), count_include_pad)

    def max_pool2d(self, layout, kernel, stride, padding, dilation):
        return nn_pool.max_pool2d(self, layout, tuple(kernel), tuple(stride), tuple(padding), tuple(dilation))

    upsample_nearest2d = nn_pool.upsample_nearest2d

    # --- optional groups "linalg" (hipSOLVER; eig: our kernel) and "fft" (hipFFT): families/linalg*.py, fft.py
    cholesky = _linalg.cholesky
    solve = _linalg.solve
    inv = _linalg.inv
    det = _linalg.det
    slogdet = _linalg.slogdet
    qr = _spectral.qr
    svd = _spectral.svd
    eigh = _spectral.eigh

    eig = _eig.eig  # our own kernel (hip/eig.hip): hipSOLVER has no geev

    fft = _fft.fft
    rfft = _fft.rfft
    irfft = _fft.irfft
    irfft_scratch = _fft_scratch.irfft_scratch  # optional hook candlewick.backend.IrfftScratchDevice
    fftn = _fft_nd.fftn
    rfftn = _fft_nd.rfftn

    # --- DLPack export (optional hook candlewick.backend.DLPackStorage) ----------
    dlpack_view = dlpack.dlpack_view

