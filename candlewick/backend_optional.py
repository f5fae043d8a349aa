"""The optional declarations of the backend protocol (``candlewick.backend`` re-exports
them): hooks a backend may define on its storage or device class, and the groups it
declares in ``BackendDevice.capabilities``, each with its contract. The front end looks
for them on the class (``holds_host_memory`` and friends); a backend without one gets
the documented fallback (docs/architecture.md's table of what differs between backends).
The GPU runtime's hooks (streams, events, memory statistics, pinned memory, copies that do
not wait, profiler ranges) are in ``backend_runtime``.
"""

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # (backend imports this module: the storage type only for checkers)
    from .backend import BackendStorage

__all__ = [
    "CollectiveDevice", "Communicator", "ComplexViewStorage", "CustomKernelDevice", "DeviceCopyStorage", "DLPackDevice",
    "DLPackStorage", "DescendingSortViewDevice", "FFTNormDevice", "FFTPadDevice", "FusionDevice", "GraphDevice",
    "HostMemoryDevice", "HostViewStorage", "IrfftScratchDevice", "UnsharedStorage", "declares_descending_sort_view", "declares_fft_norm",
    "declares_fft_pad", "holds_host_memory",
]


@runtime_checkable
class DLPackStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``): DLPack export, used by
    ``Array.__dlpack__``/``__dlpack_device__`` (``candlewick.dlpack``)."""

    def dlpack_view(self, layout) -> Any:
        """An object with ``__dlpack__`` and ``__dlpack_device__`` (DLPack's protocol, e.g. a
        NumPy array for host memory) that shares this storage's memory as ``layout`` views
        it, without copying. Raise BufferError if this layout cannot be exported."""

    # A storage that shares memory imported read-only (``storage_from_dlpack`` with
    # ``copy=False``) also declares ``read_only = True``: the front end then refuses every
    # write into it with ReadOnlyError (``candlewick.writes``). Absent means writable.


@runtime_checkable
class DLPackDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): DLPack import, used by
    ``candlewick.from_dlpack``. Without it, host-memory producers are copied in through
    ``storage_from_host``."""

    def storage_from_dlpack(self, obj, copy) -> "tuple[BackendStorage, Any] | None":
        """``(storage, layout)`` viewing the DLPack producer ``obj``, or None when ``obj``'s
        memory is not on this device. Share the memory unless ``copy`` is True; with
        ``copy=False`` raise BufferError if sharing is impossible. The layout may have any
        strides (in elements) and offset within the storage."""


@runtime_checkable
class GraphDevice(Protocol):
    """Optional group ``"graphs"`` (declared in ``capabilities``): recording the work queued
    on the device and replaying it, used by ``candlewick.Graph`` (docs/graphs.md). The
    rules the backend enforces: between ``begin_capture`` and ``end_capture`` every
    primitive is recorded, not run; what needs a result on the host now (``to_host``,
    ``synchronize``, ``storage_from_host``, random numbers) raises
    ``candlewick.errors.GraphCaptureError`` naming the function; storages allocated during
    the capture belong to the graph and keep their memory while it lives; other threads
    must not use the device during a capture."""

    def begin_capture(self) -> None:
        """Start recording (GraphCaptureError when a capture already runs here)."""

    def end_capture(self) -> Any:
        """Stop recording; an object with ``replay()`` (queue the recorded work again, on
        the current contents of the same memory) and ``close()`` (free the graph)."""

    def abort_capture(self) -> None:
        """Stop recording and drop what was recorded (no-op when no capture runs)."""


class FusionDevice(Protocol):
    """The optional ``fusion`` capability (a device that lists ``"fusion"`` in
    ``capabilities``): compiling a graph traced by ``candlewick.fuse``. A device without it
    runs the graph by replaying its primitive calls (``candlewick.fusion.replay``)."""

    def compile_fused(self, graph) -> Any:
        """A callable ``run(storages, scalars) -> list of storages`` for ``graph`` (a
        ``candlewick.fusion.Graph``): ``storages`` are the argument storages in the order
        of ``graph.inputs``, ``scalars`` the values of the graph's run-time scalar
        operands (a scalar operand that is a ``candlewick.opdefs.Param`` is
        ``scalars[param.index]``, converted to the operand's dtype as the eager primitive
        converts its scalar); the result has one storage per entry of ``graph.outputs``,
        holding that node's elements C-contiguously (an output that is an input node
        returns the input's storage). Each element equals what replaying the graph's
        primitives gives, bit for bit for exact operations and within the conformance
        suite's tolerances for the others (floating sums and products may be reassociated).
        Called once per traced signature; ``run`` is called for every call after it.
        Return None for a graph the device does not compile: it is then replayed."""


class CustomKernelDevice(Protocol):
    """The optional ``custom_kernels`` capability (a device that lists ``"custom_kernels"``
    in ``capabilities``): compiling the kernels users write in C++ through
    ``candlewick.RawKernel``, ``ElementwiseKernel`` and ``ReductionKernel``
    (docs/custom_kernels.md). The front end has checked every argument before any of these runs
    (count, dtypes, one device, pointers only to C-contiguous memory, writable outputs);
    a source the device's compiler refuses raises
    ``candlewick.errors.KernelCompileError`` carrying the compiler's log and the line of
    the user's text it names. Each method is called once per kernel and signature; the
    callable it returns is called for every launch and queues the work on the device
    without waiting. Without the capability, ``RawKernel`` raises UnsupportedOperation
    and the other two run their C-subset bodies as graphs of the device's primitives."""

    def raw_kernel(self, source, name, params, options) -> Any:
        """``launch(grid, block, shared_mem, args)`` for the ``extern "C" __global__``
        function ``name`` of ``source`` (compiled whole, with the extra compiler
        ``options``). ``params``: its parameters as read from the source
        (``candlewick.custom_kernels.definition.RawParam``: ``pointer``, ``dtype`` or
        None for a pointer to any type, ``c_type``). ``grid`` and ``block``: 3 ints;
        ``shared_mem``: bytes of dynamic shared memory; ``args``: per parameter a
        ``(storage, element offset)`` pair for a pointer (the address of that element)
        or a NumPy scalar of the parameter's dtype."""

    def elementwise_kernel(self, kernel) -> Any:
        """``run(shape, operands)`` for ``kernel`` (a
        ``candlewick.custom_kernels.definition.KernelDefinition`` of kind
        ``"elementwise"``, every dtype decided): the body runs once per element of
        ``shape``, ``i`` its flat C-order index, each parameter bound by its ``role``.
        ``operands``, one per parameter: ``(storage, layout)`` with the layout over
        ``shape`` (broadcast: strides 0) for ``"in"`` and ``"out"`` (any strides; an out
        layout never reaches an element twice), ``(storage, layout)`` of a C-contiguous
        array for ``"raw_in"``/``"raw_out"`` (a pointer to its first element), a NumPy
        scalar for ``"scalar"``. Values of float16/bfloat16 parameters are seen as
        float; every other parameter as its dtype's C type; placeholders name those
        types (``kernel.types``). Called only for a non-empty shape."""

    def reduction_kernel(self, kernel) -> Any:
        """``run(shape, axes, operands)`` for ``kernel`` (kind ``"reduction"``): for each
        element of the kept shape (``shape`` without ``axes``), ``map_expr`` at every
        element reduced into it, converted to ``kernel.reduce_type``, combined by
        ``reduce_expr`` (over ``a`` and ``b``) from ``identity``, then ``post_map_expr``
        with the result as ``a`` sets the out parameters. In operands' layouts are over
        ``shape``, out operands' over the kept shape; scalars and raw operands as for
        ``elementwise_kernel``. Called only when the kept shape has elements."""


class DeviceCopyStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``): a copy to another device of the same
    backend that does not pass through host memory (a peer copy between two GPUs of one
    host), used by ``Array.to_device``."""

    def to_device(self, layout, device) -> "BackendStorage | None":
        """A new contiguous storage on ``device`` holding the elements ``layout`` views, or
        None when this storage cannot be copied there directly; the front end then copies
        through the host (``to_host``, then ``device.storage_from_host``)."""


class ComplexViewStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``): a complex storage seen as its real
    components without a copy, used by ``candlewick.real``/``imag`` (views, as NumPy's,
    CuPy's and PyTorch's). Declared by defining ``real_view`` on the storage's class; an
    instance ``__getattr__`` that forwards to a wrapped storage declares nothing (it would
    hand out the wrapped backend's storage). Without it ``real``/``imag`` copy the parts
    through ``unary`` (``UnaryOp.REAL``/``IMAG``)."""

    def real_view(self) -> "BackendStorage | None":
        """For a complex storage: a storage of the real component dtype
        (``dtypes.real_dtype_of(self.dtype)``), ``2 * self.size`` elements, on the same
        device, sharing this storage's memory: element 2k is the real part of element k and
        2k+1 its imaginary part (C's and NumPy's complex layout). The front end views it
        through the complex layout with strides and offset doubled (+1 for ``imag``:
        ``candlewick.complex_parts.part_layout``), and every primitive must accept such a
        layout on it. Writes into either storage are seen by the other; a ``read_only``
        storage gives a ``read_only`` one. Repeated calls may return one object. Return None
        where this storage cannot be shared so (the front end then copies the parts)."""


@runtime_checkable
class Communicator(Protocol):
    """What ``CollectiveDevice`` hands out: this process's members of a group of ``size``
    ranks, used by ``candlewick.distributed``. Member i is rank ``ranks[i]`` on
    ``devices[i]``. Every method queues its work on the members' devices and returns
    without waiting for it. Inputs are contiguous storages, one per member, already
    checked by the front end to agree on every rank (one dtype, one element count
    ``count``); results are new contiguous storages, one per member."""

    size: int
    ranks: tuple
    devices: tuple
    closed: bool

    def all_reduce(self, storages, count, op) -> list:
        """Elementwise ``op`` ("sum", "prod", "max", "min", "avg") over the ranks' inputs."""

    def reduce_scatter(self, storages, count, op) -> list:
        """Inputs of ``size * count`` elements reduced elementwise; rank r keeps block r."""

    def broadcast(self, storages, count, root) -> list:
        """Rank ``root``'s input on every rank (the other inputs are only read for size)."""

    def all_gather(self, storages, count) -> list:
        """``size * count`` elements: every rank's input in rank order."""

    def send_recv(self, sends, recvs) -> list:
        """Point to point, queued together: ``sends`` are (member index, storage, count,
        peer rank), ``recvs`` (member index, dtype, count, peer rank); the received storages."""

    def close(self) -> None:
        """Wait for the queued work and release the group (idempotent)."""

    # Optional (looked up with getattr): the cheap cross-rank check of a group of processes
    # (candlewick.distributed_checks.agree_by_rounds). Without them every checked call
    # gathers every rank's record and reads it on the host.
    #
    # def signature_round(self, words, check=None):
    #     """Queue an all-reduce (max) of the int64 ``words`` (the same length on every
    #     rank) before the next collective. Without ``check``: wait for it alone and return
    #     the reduced words. With ``check``: return None at once; before anything next
    #     waits for a member's device (a host read, a synchronization, close), wait for
    #     the round alone and call ``check(reduced words)``, whose error propagates there."""
    #
    # def abort(self):
    #     """Release the group at once, ending what it queued (a collective whose ranks
    #     differed, which would never finish); ``aborted`` is True afterwards."""


@runtime_checkable
class CollectiveDevice(Protocol):
    """Optional hook (not part of ``BackendDevice``): collectives between devices of this
    backend (``candlewick.distributed``). Raise UnsupportedOperation or
    BackendUnavailableError, saying why, when the library behind them is missing."""

    def collective_group(self, devices) -> Communicator:
        """A group of ``devices`` (this backend's, this device among them) driven by this
        process, rank i on devices[i]."""

    def collective_unique_id(self) -> bytes:
        """A new id for ``collective_join``, to be handed to every process of the group."""

    def collective_join(self, unique_id, size, rank) -> Communicator:
        """This process's ``rank`` on this device of a group of ``size`` processes; returns
        once every rank has joined with the same ``unique_id``."""


@runtime_checkable
class HostMemoryDevice(Protocol):
    """Optional declaration (not part of ``BackendDevice``): a device whose storages live in
    the host's memory sets ``host_memory = True``. candlewick then lets NumPy read its
    arrays implicitly (``np.asarray(x)``, ``x.__array__()``) and lands host-memory DLPack
    producers (kDLCPU) on it when it is the default device (``candlewick.dlpack``). A
    device that does not declare it is taken as not host-readable: implicit conversion
    raises and ``candlewick.to_numpy`` copies explicitly."""

    host_memory: bool


@runtime_checkable
class UnsharedStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``) of a storage on a device that declares
    the group "inplace": whether an operator may write its result into the memory of a
    temporary operand (``-2 * (a @ b)``: candlewick.elision, NumPy's temporary elision).
    Without it every result is a new array."""

    def unshared(self) -> bool:
        """True where nothing but this storage refers to its memory (no view, export,
        import or other storage), and the memory is writable; False where unsure."""


@runtime_checkable
class IrfftScratchDevice(Protocol):
    """Optional hook pair (not part of ``BackendDevice``/``BackendStorage``) of a device whose
    ``irfft`` transforms a private copy of its input (a C2R that may overwrite what it
    reads): a caller that computes the input anyway (lazy mode's pending ``spectrum *
    response``, candlewick.fusion.lazy_consume) writes that copy itself, so the copy's
    launch, its pass over the spectrum and its buffer go. Without it irfft of a pending
    result runs the graph and then the primitive."""

    def irfft_scratch_factor(self, dtype, shape, axis, n, norm=None) -> Any:
        """Where ``irfft`` of a C-contiguous input of ``dtype`` and ``shape`` (``axis``, ``n``,
        ``norm`` as the primitive takes them) would transform a copy laid out as that input
        itself: the factor that copy carries (``norm``'s scale; 1.0 unnormalized); else None
        (the input is padded, truncated or transposed for the transform)."""

    # The storage of such a device defines ``irfft_scratch(layout, axis, n)``: the
    # unnormalized irfft of this storage (``layout`` C-contiguous, of a shape the device
    # answered a factor for, the values already multiplied by it), which the caller gives
    # up: the transform may overwrite it.


@runtime_checkable
class HostViewStorage(Protocol):
    """Optional hook (not part of ``BackendStorage``) of a storage on a device that declares
    ``host_memory``: NumPy's view of its memory, used by ``Array.__array__``, so that
    ``numpy.asarray(x)`` shares x's memory as it shares a NumPy array's (NumPy 2's
    ``copy=None``) and ``copy=False`` can be honoured. Without it (or where it returns
    None) ``copy=None`` copies and ``copy=False`` raises ``CopyRequiredError``."""

    def host_view(self, layout) -> Any:
        """A NumPy array of dtype ``self.dtype.numpy`` and ``layout.shape`` viewing the
        elements ``layout`` views, sharing this storage's memory (a write through it lands
        in the storage; read-only where the storage is), or None where the memory cannot
        be viewed so."""


def holds_host_memory(device):
    """Whether ``device`` declares ``host_memory = True`` (False when it declares nothing)."""
    return getattr(device, "host_memory", False) is True


class FFTNormDevice(Protocol):
    """Optional declaration (not part of ``BackendDevice``): a device whose "fft" primitives
    scale their results themselves sets ``fft_norm = True``. Each of ``fft``, ``rfft``,
    ``irfft``, ``fftn`` and ``rfftn`` then takes a keyword ``norm``: None (the default) for
    the unnormalized transform, or NumPy's ``"backward"``, ``"ortho"`` or ``"forward"``
    (the forward transforms scaled by 1, 1/sqrt(n) or 1/n, the inverse ones by 1/n,
    1/sqrt(n) or 1; n the transform's length, the product of the lengths for fftn and
    rfftn, irfft's ``n``), the scaling done in the transform (NumPy's and pocketfft's
    ``norm=``, a GPU library's scale factor or the kernel's last pass), so the front end's
    pass that multiplies the result is not made. A device that does not declare it is
    given no ``norm``: the front end multiplies the unnormalized result (one more pass over
    it, a temporary its size)."""

    fft_norm: bool


def declares_fft_norm(device):
    """Whether ``device`` declares ``fft_norm = True`` (False when it declares nothing)."""
    return getattr(device, "fft_norm", False) is True


class FFTPadDevice(Protocol):
    """Optional declaration (not part of ``BackendDevice``): a device whose ``fft`` and
    ``rfft`` zero-pad their input themselves sets ``fft_pad = True``. Each then takes a
    keyword ``n``, given only where it is longer than the input along ``axis``: the
    transform of the input padded with zeros to ``n`` there (NumPy's ``n=``; the result's
    axis ``n`` long, ``n//2 + 1`` for rfft; ``fft_norm``'s scaling by that ``n``), the
    padded copy being the one the transform reads. A device that does not declare it is
    given a padded array the front end made (a buffer of zeros and a copy into it: on a
    GPU, two launches where the transform's own copy is one)."""

    fft_pad: bool


def declares_fft_pad(device):
    """Whether ``device`` declares ``fft_pad = True`` (False when it declares nothing)."""
    return getattr(device, "fft_pad", False) is True


class DescendingSortViewDevice(Protocol):
    """Optional declaration (not part of ``BackendDevice``): a device whose ``sort_values``
    of x read backwards along the axis (a layout with a negative stride there) costs what
    its descending sort of x costs less a pass over the result sets
    ``descending_sort_view = True``. The front end then makes ``sort(x, descending=True)``
    the ascending sort of x reversed along the axis, viewed reversed: the same values and
    order (a stable sort's included: equal elements of x reversed come out in reverse order,
    read backwards in x's), no pass to reverse them, the result a view with a negative
    stride (as NumPy's ``np.flip(np.sort(x))``). A device that does not declare it is asked
    for the descending sort and gives a C-contiguous result."""

    descending_sort_view: bool


def declares_descending_sort_view(device):
    """Whether ``device`` declares ``descending_sort_view = True`` (False when it declares
    nothing)."""
    return getattr(device, "descending_sort_view", False) is True
