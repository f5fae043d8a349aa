"""``CpuStorage``: the CPU backend's ``BackendStorage`` (see candlewick/backend.py), a
routing table.

A storage owns one flat NumPy buffer (``storage_slice``). Its protocol methods are the
families' functions, bound in the class body as RocmStorage binds its own: each takes
the storage first, views its operands through their layouts, hands the views to a kernel
(``ops``' tables, ``indexing``, ``ordering``, ``sets``, ``products``, ``nn``, ``linalg``,
``fft``) and makes its result of the storage's class from the kernel's fresh array,
flattened in C order. Every primitive reports NumPy's MemoryError as DeviceMemoryError
(the hottest inline, the others through ``error.reports_out_of_memory``). Nothing else
lives here.
"""

from . import copies, elementwise, indexing, inplace, joins, ordering, products, reductions, sets, storage_groups

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import ElementAssign as _ElementAssign
except ImportError:
    _ElementAssign = None


class CpuStorage:
    # _parts: real_view's storage, made on first call; _lock: storage_slice.lock_of's,
    # held by every write into the buffer
    __slots__ = ("buf", "dtype", "_parts", "_lock")

    #: the one CPU device; set by cpu_backend.device when it creates it
    device = None

    def __init__(self, buf, dtype):
        self.buf = buf  # 1-D C-contiguous ndarray of dtype.numpy
        self.dtype = dtype

    @property
    def size(self):
        return self.buf.size

    @property
    def read_only(self):
        """True for memory imported from a read-only producer (never written)."""
        return not self.buf.flags.writeable

    def __repr__(self):
        return f"CpuStorage({self.dtype.name}, size={self.buf.size})"

    # --- host transfer, in-place writes, copies ----------------------------------
    to_host = copies.to_host
    host_view = copies.host_view  # optional hook candlewick.backend.HostViewStorage: no copy
    dlpack_view = copies.dlpack_view  # optional hook candlewick.backend.DLPackStorage
    real_view = copies.real_view  # optional hook candlewick.backend.ComplexViewStorage: parts as views
    # one element (a loop's x[i, j] = v) in C where candlewick._native was built
    assign = copies.assign if _ElementAssign is None else _ElementAssign(copies.assign)
    fill = copies.fill
    copy = copies.copy
    scatter = indexing.scatter
    scatter_add = indexing.scatter_add
    index_add = indexing.index_add

    # --- element-wise ------------------------------------------------------------
    unary = elementwise.unary
    binary = elementwise.binary
    binary_as = elementwise.binary_as  # the optional group "binary_dtype"
    compare = elementwise.compare
    binary_scalar = elementwise.binary_scalar
    compare_scalar = elementwise.compare_scalar
    where = elementwise.where
    astype = elementwise.astype
    affine = elementwise.affine
    clip = elementwise.clip

    # --- optional group "inplace": element-wise results written into self ---------
    unary_into = inplace.unary_into
    binary_into = inplace.binary_into
    binary_scalar_into = inplace.binary_scalar_into
    compare_into = inplace.compare_into
    compare_scalar_into = inplace.compare_scalar_into
    where_into = inplace.where_into
    unshared = copies.unshared  # optional hook candlewick.backend.UnsharedStorage: temporary elision

    # --- reductions, indexing, ordering, linear algebra -------------------------
    reduce = reductions.reduce
    var = reductions.var
    scan = reductions.scan
    # the optional group "reduce_dtype": sum, prod and their running forms into a dtype
    reduce_as = reductions.reduce_as
    scan_as = reductions.scan_as
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
    matmul = products.matmul

    # --- nn ----------------------------------------------------------------------
    conv1d = storage_groups.conv1d
    conv2d = storage_groups.conv2d
    conv_transpose1d = storage_groups.conv_transpose1d
    conv_transpose2d = storage_groups.conv_transpose2d
    avg_pool2d = storage_groups.avg_pool2d
    max_pool2d = storage_groups.max_pool2d
    upsample_nearest2d = storage_groups.upsample_nearest2d

    # --- optional groups "linalg" and "fft" --------------------------------------
    cholesky = storage_groups.cholesky
    solve = storage_groups.solve
    inv = storage_groups.inv
    det = storage_groups.det
    slogdet = storage_groups.slogdet
    qr = storage_groups.qr
    svd = storage_groups.svd
    eigh = storage_groups.eigh
    eig = storage_groups.eig

    fft = storage_groups.fft
    rfft = storage_groups.rfft
    irfft = storage_groups.irfft
    fftn = storage_groups.fftn
    rfftn = storage_groups.rfftn

