"""candlewick._native.launch: a GPU backend's kernel launch through its runtime's launch
function (hipModuleLaunchKernel's signature), called from C. A ctypes callback of that
signature stands in for the runtime here: it sees every argument as the runtime would."""

import ctypes
import struct
import pytest

_native = pytest.importorskip("candlewick._native")

LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                          ctypes.c_void_p, ctypes.c_void_p)


@pytest.fixture
def runtime():
    """(address of a launch function, the calls it saw, a list whose first item is its status)."""
    calls, status = [], [0]

    def launch(kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        calls.append((kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra))
        return status[0]

    fn = LAUNCH(launch)
    yield ctypes.cast(fn, ctypes.c_void_p).value, calls, status
    del fn


def test_every_argument_reaches_the_runtime(runtime):
    address, calls, _ = runtime
    extra = (ctypes.c_void_p * 5)()
    extra_address = ctypes.addressof(extra)
    assert _native.launch(address, 0x1000, 7, 2, 3, 256, 4, 1, 96, 0xBEEF0, extra_address) == 0
    kernel, gx, gy, gz, bx, by, bz, shared, stream, params, seen_extra = calls[0]
    assert (kernel, gx, gy, gz, bx, by, bz) == (0x1000, 7, 2, 3, 256, 4, 1)
    assert (shared, stream, params, seen_extra) == (96, 0xBEEF0, None, extra_address)


def test_the_null_stream_and_the_largest_dimension(runtime):
    address, calls, _ = runtime
    _native.launch(address, 1, 2**32 - 1, 1, 1, 1, 1, 1, 0, 0, 8)
    assert calls[0][1] == 2**32 - 1 and calls[0][8] is None


def test_the_runtime_status_is_returned(runtime):
    address, calls, status = runtime
    status[0] = 98  # hipErrorInvalidDeviceFunction
    assert _native.launch(address, 1, 1, 1, 1, 1, 1, 1, 0, 0, 8) == 98


@pytest.mark.parametrize("args, error, message", [
    ((1, 1, -1, 1, 1, 1, 1, 1, 0, 0, 8), OverflowError, "negative"),
    ((1, 1, 2**32, 1, 1, 1, 1, 1, 0, 0, 8), OverflowError, "32 bits"),
    ((1, 1, 1, 1, 1, 1, 1, 1, 2**32, 0, 8), OverflowError, "32 bits"),
    ((1, 1, 1, 1, 1, 1, 1, 1, 0, None, 8), TypeError, "launch: an address must be an int"),
    ((1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 8.0), TypeError, "launch: an address must be an int"),
    ((1, 1, 1.0, 1, 1, 1, 1, 1, 0, 0, 8), TypeError, "integer"),
    ((1,), TypeError, "takes 11 arguments"),
    ((1, 0, 1, 1, 1, 1, 1, 1, 0, 0, 8), ValueError, "null launch function or kernel"),
])
def test_bad_arguments_are_refused_before_the_call(runtime, args, error, message):
    address, calls, _ = runtime
    args = (address,) + args[1:] if len(args) > 1 else args
    with pytest.raises(error, match=message):
        _native.launch(*args)
    assert calls == []



def _stream_launch(address, seen_ordinals=None):
    """A StreamLaunch over stand-ins of a launcher's parts: the thread's device 0, a stream
    record at 0x5000, an allocator at clock 5; failed(kernel, status) names both."""
    from types import SimpleNamespace as NS

    parts = NS(thread=NS(ordinal=0), record=NS(ptr=0x5000, last_use=0), allocator=NS(clock=5), switched=[])
    streams = NS(stream=parts.record)

    def set_device(ordinal):
        parts.switched.append(ordinal)
        parts.thread.ordinal = ordinal

    def failed(kernel, status):
        return RuntimeError(f"{kernel.name} failed with {status}")

    return _native.StreamLaunch(address, parts.thread, 0, streams, parts.allocator, set_device, failed), parts


def _kernel(handle=0xC0DE):
    from types import SimpleNamespace as NS

    return NS(fn_int=handle, name="binary_add_float32")


def test_stream_launch_writes_each_fill_at_its_offset():
    seen, status = [], [0]

    def launch(kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        words = ctypes.cast(extra, ctypes.POINTER(ctypes.c_void_p))
        size = ctypes.c_size_t.from_address(words[3]).value
        seen.append(((kernel, gx, gy, gz, bx, by, bz, shared, stream, params), (words[0], words[2], words[4]),
                     ctypes.string_at(words[1], size)))
        return status[0]

    fn = LAUNCH(launch)
    run, parts = _stream_launch(ctypes.cast(fn, ctypes.c_void_p).value)
    template = bytes(range(40))
    run(_kernel(), 2, 3, 4, 64, 2, 1, template, (24, 0, 8), 2**64 - 1, -2, 0x0102030405060708)
    call, tags, raw = seen[0]
    assert call == (0xC0DE, 2, 3, 4, 64, 2, 1, 0, 0x5000, None)
    assert tags == (1, 2, 3)  # HIP_LAUNCH_PARAM_BUFFER_POINTER, _SIZE, _END
    assert raw == (struct.pack("<qQ", -2, 0x0102030405060708) + template[16:24] + struct.pack("<Q", 2**64 - 1)
                   + template[32:])
    assert parts.record.last_use == 5 and parts.switched == []  # the stream marked used; device 0 already current
    parts.thread.ordinal = 1  # another device current on this thread: made this launcher's first
    run(_kernel(), 1, 1, 1, 1, 1, 1, template, ())
    assert parts.switched == [0] and len(seen) == 2
    status[0] = 98  # the runtime's failure raises what failed() makes of it
    with pytest.raises(RuntimeError, match="binary_add_float32 failed with 98"):
        run(_kernel(), 1, 1, 1, 1, 1, 1, template, ())


def test_stream_launch_refuses_what_it_cannot_write(runtime):
    address, calls, _ = runtime
    run, _ = _stream_launch(address)
    call = (_kernel(), 1, 1, 1, 64, 1, 1)
    with pytest.raises(ValueError, match="does not fit"):
        run(*call, bytes(16), (0, 9), 1, 2)  # a field past the struct's end
    with pytest.raises(ValueError, match="does not fit"):
        run(*call, bytes(16), (-1,), 1)
    with pytest.raises(ValueError, match="at most 1024"):
        run(*call, bytes(2048), ())
    with pytest.raises(ValueError, match="one offset per fill"):
        run(*call, bytes(16), (0,), 1, 2)
    with pytest.raises(ValueError, match="one offset per fill"):
        run(*call, bytes(16), [0], 1)
    with pytest.raises(TypeError, match="fill must be an int"):
        run(*call, bytes(16), (0,), 1.5)
    with pytest.raises(TypeError, match="template must be bytes"):
        run(*call, bytearray(16), ())
    with pytest.raises(OverflowError):
        run(*call, bytes(16), (0,), 2**64)
    with pytest.raises(TypeError, match="9 positional"):
        run(*call, bytes(16))
    with pytest.raises(TypeError, match="address must be an int"):
        run(_kernel(None), 1, 1, 1, 64, 1, 1, bytes(16), ())
    with pytest.raises(OverflowError, match="32 bits"):
        run(_kernel(), 2**32, 1, 1, 64, 1, 1, bytes(16), ())
    assert calls == []  # nothing refused reached the runtime


def test_contiguous_launch_refuses_what_it_cannot_write(runtime):
    address, calls, _ = runtime
    run, _ = _stream_launch(address)
    general = []
    contiguous = _native.ContiguousLaunch(run, bytes(64), (0, 8, 16, 24), 32, 128, 8, 4, 2**31, 3, 1,
                                          lambda *args: general.append(args))
    with pytest.raises(ValueError, match="at most 2"):
        contiguous(_kernel(), 10, (1, 2, 3))
    with pytest.raises(ValueError, match="scalar must be bytes"):
        contiguous(_kernel(), 10, (1, 2), bytes(40))
    with pytest.raises(TypeError, match="3 to 5 positional"):
        contiguous(_kernel(), 10)
    assert calls == [] and general == []
    contiguous(_kernel(None), 10, (1, 2))  # a kernel without an address: the general launch's
    assert general == [(_kernel(None), 10, (1, 2))]
    with pytest.raises(ValueError, match="out of range"):
        _native.ContiguousLaunch(run, bytes(16), (0, 12), 0, 128, 8, 4, 2**31, 3, 1, print)  # a field past the end


def test_contiguous_launch_sizes_the_grid_by_the_kernels_own_items(runtime):
    """A kernel's ``items`` (elements a thread a step: rocm_backend's KernelSpec.items)
    sizes the grid in place of the launch's default; a bad one is refused unlaunched."""
    from types import SimpleNamespace as NS

    address, calls, _ = runtime
    run, _ = _stream_launch(address)
    contiguous = _native.ContiguousLaunch(run, bytes(64), (0, 8, 16, 24), 32, 128, 8, 2**20, 2**31, 3, 1, print)
    contiguous(_kernel(), 5000, (1, 2))  # no items of its own: 8 a thread
    contiguous(NS(fn_int=0xC0DE, name="binary_add_float32", items=4), 5000, (1, 2))
    assert [c[1] for c in calls] == [-(-5000 // 1024), -(-5000 // 512)]
    for bad in (0, -1, 2**16, 2.0, None):
        with pytest.raises(ValueError, match="items must be an int from 1"):
            contiguous(NS(fn_int=0xC0DE, name="k", items=bad), 5000, (1, 2))
    assert len(calls) == 2


# --- fft_exec: hipfftExec<kind> through its address (a prepared plan's exec, rocm_backend/families/fft.py) ---

EXEC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
EXEC_DIRECTION = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


@pytest.fixture
def exec_functions():
    """(address of an exec without a direction, of one with, the calls they saw, their status list)."""
    calls, status = [], [0]
    plain = EXEC(lambda plan, src, dst: (calls.append((plan, src, dst)), status[0])[1])
    directed = EXEC_DIRECTION(lambda plan, src, dst, d: (calls.append((plan, src, dst, d)), status[0])[1])
    yield ctypes.cast(plain, ctypes.c_void_p).value, ctypes.cast(directed, ctypes.c_void_p).value, calls, status
    del plain, directed


def test_fft_exec_passes_the_plan_pointers_and_direction(exec_functions):
    plain, directed, calls, status = exec_functions
    assert _native.fft_exec(plain, 0x7F00_0000_1230, None, 0x1000_0000_0000, 2**64 - 64) == 0
    assert _native.fft_exec(directed, 0x7F00_0000_1230, 1, 0x10, 0x20) == 0
    assert _native.fft_exec(directed, 0x7F00_0000_1230, -1, 0x10, 0x20) == 0
    status[0] = 6  # HIPFFT_EXEC_FAILED
    assert _native.fft_exec(plain, 1, None, 0x10, 0x20) == 6
    assert calls == [(0x7F00_0000_1230, 0x1000_0000_0000, 2**64 - 64), (0x7F00_0000_1230, 0x10, 0x20, 1),
                     (0x7F00_0000_1230, 0x10, 0x20, -1), (1, 0x10, 0x20)]


@pytest.mark.parametrize("args, error, message", [
    ((1, 1, None, 0x10), TypeError, "takes 5 arguments"),
    ((0, 1, None, 0x10, 0x20), ValueError, "null exec function"),
    ((1, 1, "backward", 0x10, 0x20), TypeError, "direction must be None or an int"),
    ((1, 1, 2**40, 0x10, 0x20), OverflowError, "direction past an int"),
    ((1, 1.5, None, 0x10, 0x20), TypeError, "fft_exec: an address must be an int"),
    ((1, 1, None, 0x10, "dst"), TypeError, "fft_exec: an address must be an int"),
])
def test_fft_exec_refuses_bad_arguments_before_the_call(args, error, message):
    with pytest.raises(error, match=message):
        _native.fft_exec(*args)
