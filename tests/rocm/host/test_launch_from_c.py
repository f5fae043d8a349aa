"""The launcher's call of the runtime's hipModuleLaunchKernel: from C through
candlewick._native.launch where that module was built, else through ctypes. Both must
hand the runtime the same arguments; a ctypes callback of the function's signature stands
in for the runtime (no GPU needed)."""

import ctypes
from types import SimpleNamespace

import pytest

from candlewick import dtypes as dt
from rocm_backend.abi import arg_layout, structs
from rocm_backend.bindings import hip
from rocm_backend.error import RocmError
from rocm_backend.runtime import launcher as launcher_module
from rocm_backend.runtime.launcher import BoundKernel, Launcher

LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, *[ctypes.c_uint] * 7, ctypes.c_void_p,
                          ctypes.c_void_p, ctypes.c_void_p)


@pytest.fixture
def runtime():
    """(a launcher over a stand-in runtime function, the calls it saw, its status list)."""
    calls, status = [], [0]

    def launch(kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        packed = structs.EW_ARGS.struct.unpack(bytes(structs.EW_ARGS.buffer))  # the buffer as the runtime reads it
        calls.append(((kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra), packed))
        return status[0]

    fn = LAUNCH(launch)
    record = SimpleNamespace(ptr=0x5000, arg=ctypes.c_void_p(0x5000), handle=None, last_use=0)
    launcher = Launcher.__new__(Launcher)  # its runtime parts are what this test stands in for
    launcher._current = SimpleNamespace(stream=record)
    launcher._allocator = SimpleNamespace(clock=11)
    launcher.ordinal = getattr(hip.current, "ordinal", None)
    launcher.raw = fn  # called from Python, a ctypes function pointer converts as the runtime's does
    launcher.c_launch = launcher_module._c_launch
    launcher.raw_address = ctypes.cast(fn, ctypes.c_void_p).value
    yield launcher, calls, status, record
    del fn


def _kernel(items=8):
    return BoundKernel(SimpleNamespace(name="binary_add_float32", block=256, items=items), 0xC0DE)


def _values(n):
    """EW_ARGS's fields: n, then zeros of each field's kind."""
    zeros = structs.EW_ARGS.struct.unpack(bytes(structs.EW_ARGS.struct.size))
    return [n, *zeros[1:]]


def test_c_and_ctypes_hand_the_runtime_the_same_call(runtime):
    launcher, calls, _, record = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    kernel = _kernel()
    launcher.launch(kernel, (3, 2, 1), 128, structs.EW_ARGS, _values(1000), shared_mem=64)
    launcher.c_launch = None  # the ctypes path
    launcher.launch(kernel, (3, 2, 1), 128, structs.EW_ARGS, _values(1000), shared_mem=64)
    assert len(calls) == 2 and calls[0] == calls[1]
    (fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra), packed = calls[0]
    assert (fn, gx, gy, gz, bx, by, bz, shared, stream, params) == (0xC0DE, 3, 2, 1, 128, 1, 1, 64, 0x5000, None)
    assert extra == structs.EW_ARGS.extra_address and packed[0] == 1000
    assert record.last_use == 11  # the launch marks its stream used


@pytest.mark.parametrize("through_c", [True, False])
def test_a_failed_launch_raises_naming_the_kernel(runtime, through_c):
    launcher, _, status, _ = runtime
    if through_c and launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    if not through_c:
        launcher.c_launch = None
    status[0] = 98  # hipErrorInvalidDeviceFunction
    with pytest.raises(RocmError, match="binary_add_float32"):
        launcher.launch(_kernel(), 1, None, structs.EW_ARGS, _values(1))
    assert not structs.EW_ARGS.lock.locked()  # the struct's buffer is free for the next launch


def test_a_launcher_without_the_runtime_library_has_no_c_launch(fake):
    _, dev = fake
    assert dev.launcher.raw is None and dev.launcher.c_launch is None


def _capturing(launcher):
    """Point ``launcher`` at a stand-in runtime that keeps the argument bytes each launch
    passes through ``extra`` (the struct's pointer and size); returns their list."""
    seen = []

    def launch(kernel, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        words = ctypes.cast(extra, ctypes.POINTER(ctypes.c_void_p))
        size = ctypes.c_size_t.from_address(words[3]).value
        seen.append(((kernel, gx, gy, gz, bx, by, bz, shared, stream, params, words[0], words[2], words[4]),
                     ctypes.string_at(words[1], size)))
        return 0

    fn = LAUNCH(launch)
    launcher.raw, launcher.raw_address, launcher.keep = fn, ctypes.cast(fn, ctypes.c_void_p).value, fn
    return seen


def test_a_prepared_run_filled_in_c_hands_the_runtime_the_bytes_python_packs(runtime):
    """The reductions' prepared launches write their pointers and offsets in C over the
    struct packed once: the runtime must see the bytes, and the call, of the Python path."""
    from rocm_backend.families.reductions import _FLAT, _FLAT_SRC
    from rocm_backend.runtime.launcher import PreparedLaunch

    launcher, _, _, record = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    seen = _capturing(launcher)
    values = list(range(100, 100 + len(structs.REDUCE_ARGS.value_fields(_FLAT))))
    slots = range(_FLAT_SRC, _FLAT_SRC + 4)
    launcher.stream_launch = _stream_launch(launcher)
    in_c = PreparedLaunch(launcher, _kernel(), (5, 1, 1), 256, structs.REDUCE_ARGS, values, slots, _FLAT)
    launcher.stream_launch = None
    in_python = PreparedLaunch(launcher, _kernel(), (5, 1, 1), 256, structs.REDUCE_ARGS, values, slots, _FLAT)
    for fills in [(0x7F00_0000_1000, 3, 0x7F00_0000_2000, 0), (2**64 - 16, -5, 1, 2**63 - 1)]:
        record.last_use = 0
        in_c.run(*fills)
        assert record.last_use == 11  # the launch marks its stream used
        in_python.run(*fills)
        assert seen[-2] == seen[-1]
        (kernel, gx, gy, gz, bx, by, bz, shared, stream, params, *tags), raw = seen[-1]
        assert (kernel, gx, gy, gz, bx, by, bz, shared, stream, params) == (0xC0DE, 5, 1, 1, 256, 1, 1, 0, 0x5000, None)
        assert tags == [arg_layout.HIP_LAUNCH_PARAM_BUFFER_POINTER, arg_layout.HIP_LAUNCH_PARAM_BUFFER_SIZE,
                        arg_layout.HIP_LAUNCH_PARAM_END]
        assert raw == _FLAT.pack(*(values[:_FLAT_SRC] + list(fills) + values[_FLAT_SRC + 4:]))


def test_an_element_wise_plan_writes_its_scalar_words_in_c_as_python_packs_its_bytes(runtime):
    """launch_ew's prepared launches take the scalar slots as four 8-byte words, filled per
    launch with the pointers and offsets: written from C over the struct packed once, the
    runtime must see the struct packed with the scalar as bytes (slot 0, slot 1, both)."""
    from rocm_backend.families import ew_launch
    from rocm_backend.runtime.launcher import PreparedLaunch

    launcher, _, _, _ = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    seen = _capturing(launcher)
    fields = structs.EW_ARGS.value_fields(ew_launch._EW_PLANNED)
    values = list(range(100, 100 + len(fields) - structs.SCALAR_WORDS)) + [0] * structs.SCALAR_WORDS
    op = 3 + structs.MAX_DIMS  # operand 0's pointer, then its offset; operand 2's two fields further
    slots = [op, op + 1, op + 2 * (2 + structs.MAX_DIMS), op + 2 * (2 + structs.MAX_DIMS) + 1]
    slots += range(len(values) - structs.SCALAR_WORDS, len(values))
    launcher.stream_launch = _stream_launch(launcher)
    in_c = PreparedLaunch(launcher, _kernel(), 7, 256, structs.EW_ARGS, values, slots, ew_launch._EW_PLANNED)
    assert in_c.run.func is launcher.stream_launch  # the C fill, scalar words included
    head = values[:-structs.SCALAR_WORDS]
    for scalar in [ew_launch.scalar_bytes(-2.75, dt.float32) + bytes(16),
                   bytes(16) + ew_launch.scalar_bytes(-1 / 3 + 2.5j, dt.complex128),
                   bytes(range(200, 232))]:
        pointers = (0x7F00_0000_1000, 5, 0x7F00_0000_8000, 2**63 - 1)
        in_c.run(*pointers, *ew_launch._SCALAR_WORDS.unpack(scalar))
        want = list(head)
        want[op], want[op + 1], want[slots[2]], want[slots[3]] = pointers
        assert seen[-1][1] == structs.EW_ARGS.struct.pack(*want, scalar)


def test_prepared_launches_on_the_fake_runtime_stay_on_the_python_path(fake):
    """Where the runtime's handles are no addresses (hip-python, the fake) nothing is filled in C."""
    _, dev = fake
    assert dev.launcher.stream_launch is None


def _stream_launch(launcher):
    """``launcher``'s StreamLaunch over its current stand-in runtime, as Launcher.__init__ makes it."""
    return launcher_module.StreamLaunch(launcher.raw_address, hip.current, launcher.ordinal, launcher._current,
                                        launcher._allocator, hip.set_device, launcher_module._failed)


@pytest.mark.parametrize("operands", [1, 2, 3, 4])
@pytest.mark.parametrize("scalar", [None, bytes(range(1, 33))])
@pytest.mark.parametrize("items", [8, 4])
def test_the_contiguous_element_wise_launch_in_c_matches_the_packed_one(runtime, operands, scalar, items):
    """ContiguousLaunch writes n, ndim and flags, each operand's pointer and offset and the
    scalar slots from C over a zero struct: the runtime must see the bytes, and the call,
    of the Python path (launch_contiguous_fields, which packs every field)."""
    from types import SimpleNamespace as NS

    from rocm_backend.families.ew_launch import NO_SCALAR, contiguous_launch, launch_contiguous_fields

    launcher, _, _, record = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    seen = _capturing(launcher)
    launcher.stream_launch = _stream_launch(launcher)
    device = NS(launcher=launcher, ew_grid_cap=2**20 if items == 4 else 4)
    in_c = contiguous_launch(device)
    assert type(in_c).__name__ == "ContiguousLaunch"
    fields = [0x7F00_0000_0000 + 0x100 * k if k % 2 == 0 else k for k in range(2 * operands)]
    packed_scalar = NO_SCALAR if scalar is None else scalar
    for n, flags in [(1000, 0), (2**31 + 5, 0), (77, 1 << 20)]:  # INDEX32, past it, an op's own flag
        record.last_use = 0
        in_c(_kernel(items), n, fields, scalar, flags)
        assert record.last_use == 11  # the launch marks its stream used
        launch_contiguous_fields(device, _kernel(items), n, list(fields), packed_scalar, flags)
        assert seen[-2] == seen[-1] and seen[-1][0][1:5] == (min(device.ew_grid_cap, -(-n // (128 * items))), 1, 1, 128)


def test_the_contiguous_launch_leaves_a_kernel_without_an_address_to_the_packed_path(runtime):
    from types import SimpleNamespace as NS

    from rocm_backend.families.ew_launch import contiguous_launch

    launcher, _, _, _ = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    launcher.stream_launch = _stream_launch(launcher)
    calls = []
    launcher.launch_fields = lambda kernel, *args: calls.append((kernel.name, args[:6]))
    in_c = contiguous_launch(NS(launcher=launcher, ew_grid_cap=4))
    kernel = _kernel()
    kernel.fn_int = None  # hip-python's handles: no address
    in_c(kernel, 5000, (1, 0, 2, 0))
    assert calls == [("binary_add_float32", (4, 1, 1, 128, 1, 1))]


def test_the_stream_launch_switches_to_its_device_and_refuses_bad_fields(runtime, monkeypatch):
    """StreamLaunch makes its device the thread's current one where another is (once), and
    a bad argument reaches no runtime (the bytes it writes: the prepared-run test above)."""
    launcher, calls, _, _ = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    switched = []
    monkeypatch.setattr(hip, "set_device", lambda ordinal: (switched.append(ordinal),
                                                            setattr(hip.current, "ordinal", ordinal)))
    monkeypatch.setattr(hip.current, "ordinal", 1, raising=False)
    launcher.ordinal = 3
    in_c = _stream_launch(launcher)
    template, offsets = bytes(range(40)), (0, 16, 24)
    for fills in [(1, 2, 3), [2**64 - 1, -1, 0x7F00_0000_1000]]:
        in_c(_kernel(), 7, 2, 1, 256, 1, 1, template, offsets, *fills)
    assert switched == [3] and len(calls) == 2  # once: the thread's device is the launcher's after it
    with pytest.raises(ValueError, match="does not fit"):
        in_c(_kernel(), 1, 1, 1, 1, 1, 1, template, (36,), 5)
    assert len(calls) == 2


def test_a_failed_stream_launch_raises_naming_the_kernel(runtime):
    launcher, _, status, _ = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    status[0] = 98  # hipErrorInvalidDeviceFunction
    with pytest.raises(RocmError, match="binary_add_float32"):
        _stream_launch(launcher)(_kernel(), 1, 1, 1, 1, 1, 1, bytes(structs.EW_ARGS.size), (0,), 1)


@pytest.mark.parametrize("aligned", [True, False])
def test_a_fused_graphs_launch_filled_in_c_matches_the_packed_one(runtime, aligned):
    """A compiled fused graph without run-time scalars (lazy mode's: its scalars are
    constants) fills its buffers' addresses from C over its struct packed once per
    alignment flag: the runtime must see the bytes, and the call, of the packed path; a
    graph with a run-time scalar (cw.fuse's float arguments) keeps the packed path."""
    from types import SimpleNamespace as NS

    import numpy as np

    import candlewick as cw
    from rocm_backend.families import fusion

    launcher, _, _, record = runtime
    if launcher.c_launch is None:
        pytest.skip("candlewick._native was not built here (no C compiler)")
    seen = _capturing(launcher)
    spectrum = cw.asarray(np.ones((3, 7), np.complex64))
    response = cw.asarray(np.ones(7, np.complex64))
    # (the first: one result, its buffers the inputs in order and the result, compile_fused's
    # one-launch run; the next two: its general run, the inputs read in another order, two results)
    graphs = {"constant": cw.fuse(lambda s, r: (s * r) * 0.125).graph_for(spectrum, response),
              "reordered": cw.fuse(lambda s, r: (r * s) * 0.125).graph_for(spectrum, response),
              "two results": cw.fuse(lambda s, r: (s * r, s + r)).graph_for(spectrum, response),
              "argument": cw.fuse(lambda s, r, k: (s * r) * k).graph_for(spectrum, response, 0.125)}
    base = 0x7F00_0000_1000 if aligned else 0x7F00_0000_1004  # (an odd address: no vector reads)
    made = iter(())  # (each run's results' addresses: the same for both paths)

    def device(stream_launch):
        launcher.stream_launch = stream_launch
        return NS(kernels=NS(kernel=lambda spec, source, options: _kernel()), launcher=launcher,
                  storage_type=NS(empty=lambda dev, dtype, size: NS(ptr=next(made))), ew_grid_cap=2**20)

    inputs = [NS(ptr=base), NS(ptr=base + 0x100)]
    packed = []
    pack = launcher.launch_fields
    launcher.launch_fields = lambda *args: (packed.append(args[0]), pack(*args))
    for name, graph in graphs.items():
        runs = [fusion.compile_fused(device(_stream_launch(launcher)), graph), fusion.compile_fused(device(None), graph)]
        assert all(run is not None for run in runs), "the generator covers a product and a scaling"
        count = len(seen)
        record.last_use = 0
        made = iter(range(base + 0x10000, base + 0x90000, 0x10000))
        del packed[:]
        results = runs[0](inputs, (0.125,) if name == "argument" else ())
        assert [r.ptr for r in results] == list(range(base + 0x10000, base + 0x10000 * (len(results) + 1), 0x10000))
        assert record.last_use == 11  # the launch marks its stream used
        assert len(packed) == (1 if name == "argument" else 0), name
        made = iter(range(base + 0x10000, base + 0x90000, 0x10000))  # (the same results' addresses again)
        runs[1](inputs, (0.125,) if name == "argument" else ())
        half = (len(seen) - count) // 2
        assert half >= 1 and seen[count:count + half] == seen[count + half:], name
