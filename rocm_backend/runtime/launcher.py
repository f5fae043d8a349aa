"""[runtime] The one launcher: every kernel of the backend is queued through
``Launcher.launch`` or ``Launcher.launch_fields``, on the calling thread's current stream
of its device (``runtime/streams.py``; the launch marks it used); a launch decided once
and repeated is a ``PreparedLaunch``, kept in the device's one bounded ``LaunchMemo``.

Kernels take one argument struct by value, passed through hipModuleLaunchKernel's
``extra`` (HIP_LAUNCH_PARAM_BUFFER_POINTER / SIZE / END). Each struct's declaration
(``abi/structs.py``) owns one preallocated launch buffer, its ``extra`` array and a
lock; a launch packs its values into the buffer under the lock and the runtime copies
them before hipModuleLaunchKernel returns. The call goes to the runtime hip-python
loaded when it can (``bindings/hip_ctypes.py`` says why): from C through
``candlewick._native.launch`` where that module was built (ctypes' argument conversion
cost about 1.5 us of a 7-8 us eager op), else through ctypes; without that runtime,
through hip-python. A launch whose struct is decided but for a few 8-byte int fields
(a prepared launch's pointers and offsets, the element-wise contiguous path's) goes
through ``Launcher.stream_launch`` there (``candlewick._native.StreamLaunch``): its struct
packed once, the fields written, the stream found and marked and the kernel launched in
C, no lock (the struct's bytes are the call's own); the reductions' launch cost about 1 us
less on the host than packing its 29 values per call, and the Python frames of the
element-wise contiguous launch (``RocmDevice.ew_contiguous``) 0.7 us of x + y's 2.5 us
host path (tools/rocm_host_steps.py's fake runtime).
"""

import ctypes
import functools

from ..bindings import hip, hip_ctypes
from ..error import error_for

try:  # candlewick's optional compiled module (absent where no C compiler was found)
    from candlewick._native import StreamLaunch
    from candlewick._native import launch as _c_launch
except ImportError:
    _c_launch = StreamLaunch = None

_c_void_p = ctypes.c_void_p
_current = hip.current


class BoundKernel:
    """One loaded kernel of one device, with everything a launch needs pre-converted."""

    __slots__ = ("spec", "name", "fn", "fn_arg", "fn_int", "block", "items")

    def __init__(self, spec, fn):
        self.spec = spec
        self.name = spec.name
        self.fn = fn  # hip-python's handle (the path without ctypes and the occupancy query use it)
        self.fn_arg = _c_void_p(int(fn)) if hip_ctypes.has_int(fn) else None
        self.fn_int = int(fn) if self.fn_arg is not None else None  # for the launch from C
        self.block = spec.block
        self.items = spec.items  # elements a thread a step on the contiguous path (sizes its grid)


class Launcher:
    """Launches on one device's current stream, with that device current (a kernel
    handle belongs to the device whose module it came from)."""

    def __init__(self, streams, ordinal):
        self._current = streams.current  # per thread: the stream record launches go to
        self._allocator = streams.device.allocator  # whose clock marks the stream used
        self.ordinal = ordinal
        self.raw = hip_ctypes.raw_launch_function()
        if streams.default.arg is None:  # a runtime whose handles are not addresses
            self.raw = None
        # the launch from C: candlewick._native.launch and the runtime function's address
        self.c_launch = _c_launch if self.raw is not None else None
        self.raw_address = ctypes.cast(self.raw, _c_void_p).value if self.c_launch is not None else None
        self.stream_launch = self.make_stream_launch()

    def make_stream_launch(self):
        """A launch of a struct decided up to a few 8-byte int fields, written and launched
        in C on the calling thread's stream (``candlewick._native.StreamLaunch``, called
        ``(kernel, gx, gy, gz, bx, by, bz, template, offsets, *fills)``: the struct's bytes,
        the fields' byte offsets and values), where candlewick._native was built and the
        runtime's handles are addresses; else None (such launches pack, launch_fields)."""
        if self.c_launch is None or StreamLaunch is None:
            return None
        return StreamLaunch(self.raw_address, _current, self.ordinal, self._current, self._allocator, hip.set_device,
                            _failed)

    def launch(self, kernel, grid, block, args, values, shared_mem=0):
        """Queue ``kernel`` over ``grid`` blocks (an int or 3 ints) of ``block`` threads
        (None: the kernel's own; an int or 3 ints) with every field of the argument
        struct ``args`` packed from ``values`` and ``shared_mem`` bytes of dynamic
        shared memory."""
        if isinstance(grid, int):
            grid = (grid, 1, 1)
        if block is None:
            block = (kernel.block, 1, 1)
        elif isinstance(block, int):
            block = (block, 1, 1)
        self.launch_fields(kernel, grid[0], grid[1], grid[2], block[0], block[1], block[2], args, args.struct,
                           values, shared_mem)

    def launch_fields(self, kernel, gx, gy, gz, bx, by, bz, args, packer, values, shared_mem=0):
        """Queue ``kernel`` with ``packer`` (``args.struct``, or a ``args.packer(names)``
        that writes some fields and zeros the rest) packing ``values`` into the launch
        buffer of ``args``: the hot path of every small op (one pack, one call).
        ``args`` is a struct of ``abi/structs.py`` or a RawKernel's ``abi/kernel_params.py``
        buffer (which alone asks for ``shared_mem`` bytes of dynamic shared memory)."""
        if getattr(_current, "ordinal", None) != self.ordinal:  # hip.use_device, inlined
            hip.set_device(self.ordinal)
        record = self._current.stream
        record.last_use = self._allocator.clock
        lock = args.lock
        lock.acquire()  # acquire/release rather than `with`: half the cost
        try:
            packer.pack_into(args.buffer, 0, *values)
            c_launch = self.c_launch
            raw = self.raw
            if c_launch is not None and kernel.fn_int is not None:
                status = c_launch(self.raw_address, kernel.fn_int, gx, gy, gz, bx, by, bz, shared_mem, record.ptr,
                                  args.extra_address)
            elif raw is not None and kernel.fn_arg is not None:
                status = raw(kernel.fn_arg, gx, gy, gz, bx, by, bz, shared_mem, record.arg, None, args.extra_arg)
            else:
                status = 0
                hip.module_launch_kernel(kernel.fn, gx, gy, gz, bx, by, bz, record.handle, args.extra_address,
                                         kernel.name, shared_mem)
        finally:
            lock.release()
        if status:
            raise _failed(kernel, status)


def _failed(kernel, status):
    """The error of a failed launch of ``kernel`` (status: the runtime's code)."""
    return error_for(f"hipModuleLaunchKernel({kernel.name})", hip.status_enum(status))


class PreparedLaunch:
    """One launch of one kernel decided up to a few fields (its pointers, offsets, a
    scalar): the grid and block, the argument struct and its packer, and every other value
    of the struct, so that a repeated call of one problem only fills those fields, packs
    and queues.

    ``run(*fills)`` puts ``fills`` at ``slots`` (positions in the packer's values, in
    order) and queues the launch: a closure, the cheapest call Python makes (a ``__call__``
    method cost about 0.3 µs more per launch), or where the fields are written in C, a
    partial of the launcher's ``stream_launch`` (no Python frame at all)."""

    __slots__ = ("kernel", "dims", "args", "packer", "values", "slots", "run")

    def __init__(self, launcher, kernel, grid, block, args, values, slots, packer=None):
        """``grid``, ``block``: an int or 3 ints (block None: the kernel's own);
        ``packer``: a partial packer of ``args`` (default: every field)."""
        gx, gy, gz = (grid, 1, 1) if isinstance(grid, int) else grid
        block = kernel.block if block is None else block
        bx, by, bz = (block, 1, 1) if isinstance(block, int) else block
        packer = args.struct if packer is None else packer
        self.kernel, self.dims, self.args, self.packer = kernel, (gx, gy, gz, bx, by, bz), args, packer
        self.values, self.slots = list(values), tuple(slots)
        launch_fields = launcher.launch_fields
        first = self.slots[0] if self.slots else 0
        offsets = _filled_offsets(launcher, kernel, args, packer, self.slots)
        if offsets is not None:  # the struct packed once, the fields written in C: run(*fills) is C's
            run = functools.partial(launcher.stream_launch, kernel, gx, gy, gz, bx, by, bz,
                                    packer.pack(*self.values), offsets)
        elif self.slots == tuple(range(first, first + len(self.slots))):  # one run of fields
            head, tail = tuple(self.values[:first]), tuple(self.values[first + len(self.slots):])

            def run(*fills):
                launch_fields(kernel, gx, gy, gz, bx, by, bz, args, packer, head + fills + tail)
        else:
            template, slots = self.values, self.slots

            def run(*fills):
                values = template.copy()
                for slot, value in zip(slots, fills):
                    values[slot] = value
                launch_fields(kernel, gx, gy, gz, bx, by, bz, args, packer, values)

        self.run = run


def _filled_offsets(launcher, kernel, args, packer, slots):
    """The byte offsets of ``slots`` when ``launcher.stream_launch`` can run the launch
    (candlewick._native built, the kernel's handle an int) and each is an 8-byte int field
    of the struct; else None."""
    value_fields = getattr(args, "value_fields", None)  # a RawKernel's parameter buffer has none
    if not slots or value_fields is None or getattr(launcher, "stream_launch", None) is None or kernel.fn_int is None:
        return None
    fields = value_fields(packer)
    if all(fields[slot][1] in "qQ" for slot in slots):
        return tuple(fields[slot][0] for slot in slots)
    return None


def _nothing(*_):
    pass


class _Nothing:
    """The prepared launch of an empty problem: queues nothing."""

    __slots__ = ()
    run = staticmethod(_nothing)


#: the prepared launch of an empty problem (queues nothing)
NOTHING = _Nothing()


class LaunchMemo(dict):
    """A device's prepared launches, and the plans that hold them, by problem: one table
    for every family (keys lead with the family's name), at most ``SIZE`` entries; full,
    it starts over (a workload of more distinct problems than that plans again, a few
    microseconds each). A hit is one ``dict.get``: hot paths call ``get`` and fall back to
    ``prepare``."""

    SIZE = 4096

    def prepare(self, key, make):
        """The entry of ``key``: ``make()``, made and kept the first time."""
        hit = self.get(key)
        if hit is None:
            hit = self.keep(key, make())
        return hit

    def keep(self, key, value):
        """Keep ``value`` as the entry of ``key`` (the table starts over when full)."""
        if len(self) >= self.SIZE:
            self.clear()
        self[key] = value
        return value
