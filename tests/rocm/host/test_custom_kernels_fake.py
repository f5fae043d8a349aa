"""Custom kernels on the fake HIP runtime (fake_hip.py): the bytes a launch hands
hipModuleLaunchKernel (a RawKernel's parameters at the compiler's offsets, the
``cw_kernel_args`` of generated kernels), the checks refused before any launch, hipRTC's
log turned into KernelCompileError at the user's line, and the code-object cache."""

import ctypes
import struct

import pytest

import candlewick as cw
import fake_devices
import fake_hip
from candlewick.errors import (ArgumentValueError, DeviceMismatchError, DTypeError, KernelCompileError,
                               OutOfRangeError, ReadOnlyError)
from rocm_backend import RocmBackend, kernels
from rocm_backend.abi.kernel_params import KernelParams
from rocm_backend.abi.structs import CONTIGUOUS, INDEX32, KERNEL_ARGS, MAX_DIMS


class _Recorder:
    """Wraps the fake's launch: each launch's kernel, geometry, shared memory and argument bytes."""

    def __init__(self, runtime):
        self.launches = []
        inner = runtime.hip.hipModuleLaunchKernel

        def launch(fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
            words = ctypes.cast(extra, ctypes.POINTER(ctypes.c_void_p))
            size = ctypes.cast(words[3], ctypes.POINTER(ctypes.c_size_t))[0]
            self.launches.append((fn.name, (gx, gy, gz), (bx, by, bz), shmem, ctypes.string_at(words[1], size)))
            return inner(fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)

        runtime.hip.hipModuleLaunchKernel = launch


@pytest.fixture
def rec(fake):
    runtime, device = fake
    return _Recorder(runtime), device, runtime


PACK = cw.RawKernel(r'''
extern "C" __global__ void pack(double* out, char c, double d, short s, unsigned long long u, bool b,
                                float f, long long q, __half h, const float* x) { }''', "pack")


def test_raw_kernel_arguments_are_laid_out_as_the_compiler_lays_them(rec):
    recorder, device, _ = rec
    out = cw.zeros((8,), dtype=cw.float64, device=device)
    x = cw.zeros((10,), dtype=cw.float32, device=device)
    PACK((2, 3), (64, 2), (out, -5, 2.5, -300, 2**64 - 1, True, 0.75, -(2**40), 1.5, x[3:]), shared_mem=512)
    name, grid, block, shmem, data = recorder.launches[-1]
    assert (name, grid, block, shmem) == (b"pack", (2, 3, 1), (64, 2, 1), 512)
    offsets, size = KernelParams(PACK.params).offsets, KernelParams(PACK.params).size
    assert offsets == (0, 8, 16, 24, 32, 40, 44, 48, 56, 64) and size == 72 and len(data) == size
    assert struct.unpack_from("<Q", data, 0)[0] == out._storage.ptr
    assert struct.unpack_from("<b", data, 8)[0] == -5
    assert struct.unpack_from("<d", data, 16)[0] == 2.5
    assert struct.unpack_from("<h", data, 24)[0] == -300
    assert struct.unpack_from("<Q", data, 32)[0] == 2**64 - 1
    assert data[40] == 1
    assert struct.unpack_from("<f", data, 44)[0] == 0.75
    assert struct.unpack_from("<q", data, 48)[0] == -(2**40)
    assert struct.unpack_from("<e", data, 56)[0] == 1.5
    assert struct.unpack_from("<Q", data, 64)[0] == x._storage.ptr + 3 * 4  # the view's first element


def test_raw_kernel_arguments_are_checked_before_any_launch(rec):
    recorder, device, runtime = rec
    out = cw.zeros((8,), dtype=cw.float64, device=device)
    x = cw.zeros((10,), dtype=cw.float32, device=device)
    good = [out, 1, 2.0, 3, 4, True, 0.5, 6, 1.0, x]
    cases = [
        (0, out[::2], ArgumentValueError, "parameter 'out' is a pointer .* not C-contiguous"),
        (9, cw.zeros((4,), dtype=cw.float64, device=device), DTypeError, "parameter 'x' points to float \\(float32\\)"),
        (1, 300, OutOfRangeError, "parameter 'c'"),
        (4, -1, OutOfRangeError, "parameter 'u'"),
        (6, 1j, DTypeError, "parameter 'f' takes float32"),
        (1, 2.5, DTypeError, "parameter 'c' takes int8"),
        (9, cw.zeros((4,), dtype=cw.float32), DeviceMismatchError, "parameter 'x' is on cpu"),
    ]
    for index, value, error, match in cases:
        args = list(good)
        args[index] = value
        with pytest.raises(error, match=match):
            PACK(1, 64, tuple(args))
    with pytest.raises(ArgumentValueError, match="more than rocm:0's 1024"):
        PACK(1, (64, 32), tuple(good))
    assert recorder.launches == []
    PACK(1, 64, tuple(good))
    assert len(recorder.launches) == 1


def test_a_non_const_pointer_to_read_only_memory_is_refused(rec, monkeypatch):
    recorder, device, _ = rec
    out = cw.zeros((8,), dtype=cw.float64, device=device)
    monkeypatch.setattr(type(out._storage), "read_only", True, raising=False)
    with pytest.raises(ReadOnlyError, match="parameter 'out'"):
        PACK(1, 64, (out, 1, 2.0, 3, 4, True, 0.5, 6, 1.0, cw.zeros((2,), dtype=cw.float32, device=device)))
    assert recorder.launches == []


def test_arrays_of_two_devices_are_refused_naming_the_parameter(monkeypatch, tmp_path):
    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    fake_hip.install(monkeypatch, fake_devices.MultiDeviceRuntime(devices=2))
    backend = RocmBackend()
    d0, d1 = backend.device(0), backend.device(1)
    add = cw.ElementwiseKernel("T x, T y", "T z", "z = x + y;", "add2")
    with pytest.raises(DeviceMismatchError, match="parameter 'y' is on rocm:1, the one for 'x' is on rocm:0"):
        add(cw.zeros((3,), dtype=cw.float32, device=d0), cw.zeros((3,), dtype=cw.float32, device=d1))


def _kernel_args(data):
    return dict(zip([f[0] for f in KERNEL_ARGS.flat], _unflat(KERNEL_ARGS.struct.unpack(data))))


def _unflat(values):
    out, it = [], iter(values)
    for _, kind, count, _, _ in KERNEL_ARGS.flat:
        out.append(next(it) if count == 1 or kind == "raw" else [next(it) for _ in range(count)])
    return out


def test_elementwise_launches_fill_cw_kernel_args(rec):
    recorder, device, _ = rec
    k = cw.ElementwiseKernel("T x, float32 s, raw T t", "T y", "y = x * s + t[0];", "affine_k")
    x = cw.zeros((6, 8), dtype=cw.float32, device=device)
    t = cw.zeros((4,), dtype=cw.float32, device=device)
    y = k(x, 2.5, t)
    a = _kernel_args(recorder.launches[-1][4])
    assert a["n"] == 48 and a["base"] == 0 and a["flags"] == CONTIGUOUS | INDEX32
    assert a["ptr"][:3] == [x._storage.ptr, t._storage.ptr, y._storage.ptr]
    assert a["scalar"][:4] == struct.pack("<f", 2.5)
    assert y._storage.buffer.version == 1  # written by the launch

    k(x.T, 1.0, t, cw.zeros((16, 6), dtype=cw.float32, device=device)[::2])  # strided: shape and strides passed
    a = _kernel_args(recorder.launches[-1][4])
    assert a["flags"] == INDEX32 and a["ndim"] == 2 and a["shape"][:2] == [8, 6]
    assert a["strides"][0:2] == [1, 8] and a["strides"][2 * MAX_DIMS:2 * MAX_DIMS + 2] == [12, 1]


def test_more_than_eight_dimensions_split_on_the_host_with_the_flat_index_carried(rec):
    recorder, device, _ = rec
    k = cw.ElementwiseKernel("T x", "T y", "y = x + i;", "index_k")
    base = cw.zeros((2,) * 10, dtype=cw.float32, device=device)
    x = cw.permute_dims(base, tuple(range(9, -1, -1)))  # no two axes merge
    before = len(recorder.launches)
    k(x)
    pieces = [_kernel_args(data) for _, _, _, _, data in recorder.launches[before:]]
    # ten axes, none mergeable: two leading ones looped on the host, four pieces of eight
    assert [p["base"] for p in pieces] == [0, 256, 512, 768] and all(p["ndim"] == 8 for p in pieces)


def test_reductions_pass_kept_and_reduced_strides(rec):
    recorder, device, _ = rec
    k = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "colsum")
    x = cw.zeros((5, 7), dtype=cw.float64, device=device)
    k(x, axis=0)
    name, grid, block, _, data = recorder.launches[-1]
    a = _kernel_args(data)
    assert name.endswith(b"_block") and grid == (7, 1, 1) and block == (256, 1, 1)
    assert (a["n"], a["n_red"], a["ndim"], a["red_ndim"]) == (7, 5, 1, 1)
    assert a["strides"][0] == 1 and a["red_strides"][0] == 7 and a["strides"][MAX_DIMS] == 1


@pytest.mark.not_compiled
def test_hiprtc_errors_name_the_users_line(rec, monkeypatch):
    _, device, runtime = rec
    log = ["", ""]

    def compile_program(prog, n, opts):
        return (fake_hip.Status(6, "HIPRTC_ERROR_COMPILATION"),)

    def log_size(prog):
        return (fake_hip.OK, len(log[0]) + 1)

    def get_log(prog, buf):
        buf[:len(log[0])] = log[0].encode()
        return (fake_hip.OK,)

    monkeypatch.setattr(runtime.hiprtc, "hiprtcCompileProgram", compile_program)
    monkeypatch.setattr(runtime.hiprtc, "hiprtcGetProgramLogSize", log_size)
    monkeypatch.setattr(runtime.hiprtc, "hiprtcGetProgramLog", get_log)
    x = cw.zeros((3,), dtype=cw.float32, device=device)
    k = cw.ElementwiseKernel("T x", "T y", "T t = x;\ny = t * q;", "broken")
    log[0] = "body:2:9: error: use of undeclared identifier 'q'\n    y = t * q;\n1 error generated."
    with pytest.raises(KernelCompileError, match="undeclared identifier 'q'") as info:
        k(x)
    err = info.value
    assert (err.part, err.line, err.text) == ("body", 2, "y = t * q;") and "1 error generated" in err.log
    raw = cw.RawKernel('extern "C" __global__ void r(float* x) {\n  x[0] = oops;\n}', "r")
    log[0] = 'source(2): error: identifier "oops" is undefined'  # NVRTC's form, through the shim
    with pytest.raises(KernelCompileError) as info:
        raw(1, 1, (x,))
    assert (info.value.part, info.value.line, info.value.text) == ("source", 2, "  x[0] = oops;")


def test_kernels_compile_once_per_signature_into_the_disk_cache(fake):
    runtime, device = fake
    k = cw.ElementwiseKernel("T x", "T y", "y = x * 2;", "twice")
    x32 = cw.zeros((3,), dtype=cw.float32, device=device)
    k(x32)
    k(cw.zeros((5, 2), dtype=cw.float32, device=device))  # another shape: the same kernel
    assert runtime.calls["hiprtcCompileProgram"] == 1
    k(cw.zeros((3,), dtype=cw.float64, device=device))  # another dtype: another kernel
    assert runtime.calls["hiprtcCompileProgram"] == 2
    kernels._code_memory.clear()
    RocmBackend().device(0)  # a new process would find the code objects on disk
    again = cw.ElementwiseKernel("T x", "T y", "y = x * 2;", "twice")
    again(cw.zeros((3,), dtype=cw.float32, device=RocmBackend().device(0)))
    assert runtime.calls["hiprtcCompileProgram"] == 2


def test_launches_queue_on_the_stream_without_waiting(fake):
    runtime, device = fake
    k = cw.ElementwiseKernel("T x", "T y", "y = x * 2;", "queued")
    r = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "queued_sum")
    x = cw.zeros((1000,), dtype=cw.float32, device=device)
    k(x), r(x)
    before, launches = runtime.synchronizing_calls, len(runtime.launches)
    for _ in range(10):
        r(k(x))
    assert runtime.synchronizing_calls == before and len(runtime.launches) == launches + 20


def test_custom_kernels_launch_on_the_current_stream(monkeypatch, tmp_path):
    import fake_streams  # tests/rocm/host is on pytest's pythonpath

    monkeypatch.setenv("CANDLEWICK_KERNEL_CACHE", str(tmp_path / "kc"))
    rt = fake_streams.install(monkeypatch)
    device = RocmBackend().device(0)
    k = cw.ElementwiseKernel("T x", "T y", "y = x * 2;", "on_stream")
    r = cw.ReductionKernel("T x", "T y", "x", "a + b", "y = a;", "0", "on_stream_sum")
    x = cw.zeros((300,), dtype=cw.float32, device=device)
    out = cw.zeros((8,), dtype=cw.float64, device=device)
    s = cw.Stream(device)
    before = len(rt.nodes)
    with s:
        r(k(x))
        PACK(1, 64, (out, 1, 2.0, 3, 4, True, 0.5, 6, 1.0, x))
    launched = [rt.nodes[i] for i in range(before, len(rt.nodes)) if rt.nodes[i][1].startswith("kernel")]
    assert len(launched) >= 3 and {n[0] for n in launched} == {s._backend.record.handle}
    before = len(rt.nodes)
    k(x)
    assert {rt.nodes[i][0] for i in range(before, len(rt.nodes))} == {device.streams.default.handle}
