"""``candlewick.RawKernel``: a ``__global__`` function's source, compiled by the device
and launched with a grid, a block and candlewick arrays and scalars (docs/custom_kernels.md)."""

from __future__ import annotations

import threading
from typing import Any

from .._core import ArrayBase
from ..errors import ArgumentTypeError, ArgumentValueError, DTypeError, ReadOnlyError, UnsupportedOperation, short_repr
from ..lazy_gate import before_write
from ..registry import get_device
from .arguments import convert_scalar, one_device, require_contiguous
from .binding import CAPABILITY
from .elementwise_kernel import check_name, check_options, check_text
from .signature import kernel_params

__all__ = ["RawKernel"]


def _dims(value, label, argname):
    dims = (value,) if isinstance(value, int) else value
    if (not isinstance(dims, (tuple, list)) or not 1 <= len(dims) <= 3
            or not all(isinstance(d, int) and not isinstance(d, bool) and d >= 1 for d in dims)):
        raise ArgumentValueError(f"{label}: {argname} must be a positive int or a tuple of 1 to 3 positive ints, "
                                 f"got {short_repr(value)}")
    return tuple(dims) + (1,) * (3 - len(dims))


class RawKernel:
    """A kernel from its C++ source, as CuPy's ``RawKernel``.

    The source is compiled whole by the device's compiler (hipRTC on rocm) the first
    time the kernel runs on a device, and kept in the kernel cache on disk. Its
    parameters are read from the declaration of ``name``, so each call's arguments are
    checked before the launch: their number, a C-contiguous candlewick array of the
    pointed-to dtype for each pointer (``void*`` takes any), a scalar that fits for
    each scalar parameter, every array on one device.

    Parameters
    ----------
    code : str
        The source, declaring ``extern "C" __global__ void name(...)``.
    name : str
        The kernel function's name.
    options : tuple of str
        Extra compiler options.

    Raises
    ------
    ArgumentValueError
        If the source declares no such ``extern "C" __global__`` function, or one whose
        parameters a launch cannot pass.

    Examples
    --------
    >>> import candlewick as cw
    >>> add = cw.RawKernel('''
    ... extern "C" __global__ void add(const float* x, const float* y, float* z, int n) {
    ...     int i = blockIdx.x * blockDim.x + threadIdx.x;
    ...     if (i < n) z[i] = x[i] + y[i];
    ... }''', "add")
    >>> [p.name for p in add.params]
    ['x', 'y', 'z', 'n']
    """

    def __init__(self, code: str, name: str, options: tuple[str, ...] = ()) -> None:
        self.code = check_text(code, "code")
        self.name = check_name(name)
        self.options = check_options(options)
        self._label = f"kernel {name!r}"
        self.params = kernel_params(code, name, self._label)
        self._launchers: dict[Any, Any] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<RawKernel {self.name!r}>"

    def _launcher(self, device):
        launch = self._launchers.get(device)
        if launch is None:
            if CAPABILITY not in getattr(device, "capabilities", ()):
                raise UnsupportedOperation(
                    "RawKernel", None, device.backend,
                    f"{device.name} does not compile kernels (it declares no '{CAPABILITY}' capability); "
                    f"ElementwiseKernel and ReductionKernel run there in the C subset (docs/custom_kernels.md)")
            with self._lock:
                launch = self._launchers.get(device)
                if launch is None:
                    launch = self._launchers[device] = device.raw_kernel(self.code, self.name, self.params,
                                                                         self.options)
        return launch

    def compile(self, device: Any = None) -> None:
        """Compile the kernel for ``device`` (default: the default device) now rather than
        at its first launch; a source that does not compile raises KernelCompileError."""
        self._launcher(get_device(device))

    def __call__(self, grid: int | tuple[int, ...], block: int | tuple[int, ...], args: tuple[Any, ...], *,
                 shared_mem: int = 0, device: Any = None) -> None:
        """Launch ``grid`` blocks (an int or up to 3 ints) of ``block`` threads with the
        arguments ``args`` (a tuple, one per parameter) and ``shared_mem`` bytes of
        dynamic shared memory, on the device of the array arguments (``device`` when no
        argument is an array; default: the default device)."""
        label = self._label
        grid3, block3 = _dims(grid, label, "grid"), _dims(block, label, "block")
        if not isinstance(args, (tuple, list)):
            raise ArgumentTypeError(f"{label}: args must be a tuple of the kernel's arguments, got {short_repr(args)}")
        if len(args) != len(self.params):
            names = ", ".join(p.name for p in self.params)
            raise ArgumentTypeError(f"{label}: takes {len(self.params)} arguments ({names}), got {len(args)}")
        if not isinstance(shared_mem, int) or isinstance(shared_mem, bool) or shared_mem < 0:
            raise ArgumentValueError(f"{label}: shared_mem must be a non-negative int, got {short_repr(shared_mem)}")
        arrays = []
        for p, a in zip(self.params, args):
            if p.pointer:
                if not isinstance(a, ArrayBase):
                    raise ArgumentTypeError(f"{label}: parameter {p.name!r} ({p.c_type}*) takes a candlewick array, "
                                            f"got {short_repr(a)}")
                arrays.append((p.name, a))
            elif isinstance(a, ArrayBase):
                raise ArgumentTypeError(f"{label}: parameter {p.name!r} ({p.c_type}) takes a scalar, got an array "
                                        f"(pass a Python scalar, e.g. x.item())")
        device = one_device(arrays, label, device)
        launch = self._launcher(device)
        limit = getattr(device, "max_threads_per_block", None)
        if limit is not None and block3[0] * block3[1] * block3[2] > limit:
            raise ArgumentValueError(f"{label}: a block of {block3} threads is more than {device.name}'s {limit}")
        values = []
        for p, a in zip(self.params, args):
            if not p.pointer:
                values.append(convert_scalar(a, p.dtype, label, p.name))
                continue
            if p.dtype is not None and a._dtype is not p.dtype:
                raise DTypeError(f"{label}: parameter {p.name!r} points to {p.c_type} ({p.dtype.name}), got a "
                                 f"{a._dtype.name} array")
            require_contiguous(a, label, p.name)
            if not p.const and getattr(a._storage, "read_only", False):
                raise ReadOnlyError(f"{label}: parameter {p.name!r} ({p.c_type}*, not const) may be written, but its "
                                    f"array's memory is read-only")
            values.append((a._storage, a._layout.offset))
        before_write()  # lazy mode: what is pending runs first (it may read what the kernel writes)
        launch(grid3, block3, shared_mem, values)
