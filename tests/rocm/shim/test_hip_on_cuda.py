"""The HIP-on-CUDA shim driven through hip-python: runtime, memory, streams,
events, hipRTC, modules and kernel launches, and HIP's error codes.

Runs on an NVIDIA GPU with ROCM_PATH pointing at tools/hip_on_cuda's build
(tools/gpu_run.sh); skips elsewhere.
"""

import ctypes

import numpy as np
import pytest

from .conftest import ok, status

pytestmark = pytest.mark.gpu

# hipError_t numbers ROCm returns
SUCCESS, INVALID_VALUE, OUT_OF_MEMORY = 0, 1, 2
INVALID_DEVICE, NOT_FOUND, NOT_READY = 101, 500, 600


def rng():
    return np.random.default_rng()


# ---------------------------------------------------------------- device


def test_device_properties_say_nvidia(hip):
    count = ok(hip.hipGetDeviceCount())
    assert count >= 1
    props = ok(hip.hipGetDeviceProperties(0))
    assert props.name
    assert props.gcnArchName.startswith("sm_"), props.gcnArchName
    assert props.gcnArchName == f"sm_{props.major}{props.minor}"
    assert props.warpSize == 32
    assert props.multiProcessorCount > 0
    assert props.totalGlobalMem > 1 << 30
    assert props.maxThreadsPerBlock >= 1024
    assert props.sharedMemPerBlock >= 48 * 1024
    A = hip.hipDeviceAttribute_t
    for attr, expect in [
        (A.hipDeviceAttributeWarpSize, props.warpSize),
        (A.hipDeviceAttributeMultiprocessorCount, props.multiProcessorCount),
        (A.hipDeviceAttributeComputeCapabilityMajor, props.major),
        (A.hipDeviceAttributeComputeCapabilityMinor, props.minor),
        (A.hipDeviceAttributeMaxThreadsPerBlock, props.maxThreadsPerBlock),
        (A.hipDeviceAttributeMaxSharedMemoryPerBlock, props.sharedMemPerBlock),
        (A.hipDeviceAttributeL2CacheSize, props.l2CacheSize),
        (A.hipDeviceAttributeMaxBlockDimX, props.maxThreadsDim[0]),
        (A.hipDeviceAttributeMaxGridDimX, props.maxGridSize[0]),
    ]:
        assert ok(hip.hipDeviceGetAttribute(attr, 0)) == expect, attr


def test_properties_match_cuda_runtime(hip):
    cupy = pytest.importorskip("cupy")
    ref = cupy.cuda.runtime.getDeviceProperties(0)
    props = ok(hip.hipGetDeviceProperties(0))
    for field in ("multiProcessorCount", "warpSize", "major", "minor", "maxThreadsPerBlock",
                  "sharedMemPerBlock", "totalGlobalMem", "l2CacheSize", "regsPerBlock",
                  "maxThreadsPerMultiProcessor", "sharedMemPerMultiprocessor", "pciBusID"):
        assert getattr(props, field) == ref[field], field
    assert props.name == ref["name"].decode()


def test_versions_and_device_selection(hip):
    assert ok(hip.hipDriverGetVersion()) >= 12000
    assert ok(hip.hipRuntimeGetVersion()) > 0
    ok(hip.hipSetDevice(0))
    assert ok(hip.hipGetDevice()) == 0
    ok(hip.hipDeviceSynchronize())


def test_invalid_device_is_101_and_sticks_as_last_error(hip):
    count = ok(hip.hipGetDeviceCount())
    ok(hip.hipGetLastError())  # clear
    assert status(hip.hipSetDevice(count)) == INVALID_DEVICE
    assert status(hip.hipDeviceGetAttribute(hip.hipDeviceAttribute_t.hipDeviceAttributeWarpSize,
                                            count + 5)) == INVALID_DEVICE
    assert status(hip.hipPeekAtLastError()) == INVALID_DEVICE
    assert status(hip.hipGetLastError()) == INVALID_DEVICE
    assert status(hip.hipGetLastError()) == SUCCESS
    assert ok(hip.hipGetDevice()) == 0


def test_error_names_are_hip_names(hip):
    E = hip.hipError_t
    assert str(ok(hip.hipGetErrorName(E.hipErrorOutOfMemory))) == "hipErrorOutOfMemory"
    assert str(ok(hip.hipGetErrorName(E.hipErrorInvalidDevice))) == "hipErrorInvalidDevice"
    assert str(ok(hip.hipGetErrorName(E.hipErrorNotReady))) == "hipErrorNotReady"
    assert "out of memory" in str(ok(hip.hipGetErrorString(E.hipErrorOutOfMemory)))


# ---------------------------------------------------------------- memory


def test_malloc_free_and_mem_info(hip):
    free0, total = ok(hip.hipMemGetInfo())
    assert 0 < free0 <= total
    nbytes = 512 << 20
    ptr = ok(hip.hipMalloc(nbytes))
    free1, _ = ok(hip.hipMemGetInfo())
    assert free0 - free1 >= nbytes - (64 << 20)  # allocator granularity aside
    ok(hip.hipFree(ptr))
    assert int(ok(hip.hipMalloc(0)) or 0) == 0  # zero bytes: null pointer, success
    ok(hip.hipFree(None))


def test_malloc_one_petabyte_is_out_of_memory(hip):
    ok(hip.hipGetLastError())
    err, _ = hip.hipMalloc(1 << 50)
    assert int(err) == OUT_OF_MEMORY
    assert status(hip.hipGetLastError()) == OUT_OF_MEMORY
    ok(hip.hipDeviceSynchronize())  # the failure left the context usable


def test_copies_of_every_kind(hip):
    K = hip.hipMemcpyKind
    x = rng().standard_normal(1 << 16).astype(np.float32)
    n = x.nbytes
    a, b = ok(hip.hipMalloc(n)), ok(hip.hipMalloc(n))
    ok(hip.hipMemcpy(a, x, n, K.hipMemcpyHostToDevice))
    ok(hip.hipMemcpy(b, a, n, K.hipMemcpyDeviceToDevice))
    out = np.zeros_like(x)
    ok(hip.hipMemcpy(out, b, n, K.hipMemcpyDeviceToHost))
    np.testing.assert_array_equal(out, x)
    y = rng().standard_normal(x.size).astype(np.float32)
    ok(hip.hipMemcpy(a, y, n, K.hipMemcpyDefault))          # host -> device, inferred
    ok(hip.hipMemcpy(b, a, n, K.hipMemcpyDefault))          # device -> device, inferred
    ok(hip.hipMemcpy(out, b, n, K.hipMemcpyDefault))        # device -> host, inferred
    np.testing.assert_array_equal(out, y)
    h2h = np.zeros_like(x)
    ok(hip.hipMemcpy(h2h, x, n, K.hipMemcpyHostToHost))
    np.testing.assert_array_equal(h2h, x)
    ok(hip.hipMemcpyHtoD(a, x, n))
    ok(hip.hipMemcpyDtoD(b, a, n))
    out[:] = 0
    ok(hip.hipMemcpyDtoH(out, b, n))
    np.testing.assert_array_equal(out, x)
    ok(hip.hipFree(a))
    ok(hip.hipFree(b))


def test_async_copies_on_streams_with_pinned_memory(hip):
    K = hip.hipMemcpyKind
    n_el = 1 << 20
    nbytes = n_el * 8
    host = ok(hip.hipHostMalloc(nbytes, 0))
    src = np.ctypeslib.as_array(ctypes.cast(int(host), ctypes.POINTER(ctypes.c_double)),
                                shape=(n_el,))
    src[:] = rng().standard_normal(n_el)
    expect = src.copy()
    s1 = ok(hip.hipStreamCreate())
    s2 = ok(hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking))
    a, b = ok(hip.hipMalloc(nbytes)), ok(hip.hipMalloc(nbytes))
    ok(hip.hipMemcpyAsync(a, host, nbytes, K.hipMemcpyHostToDevice, s1))
    ok(hip.hipMemcpyDtoDAsync(b, a, nbytes, s1))
    ok(hip.hipStreamSynchronize(s1))
    src[:] = 0
    ok(hip.hipMemcpyDtoHAsync(host, b, nbytes, s2))
    ok(hip.hipStreamSynchronize(s2))
    np.testing.assert_array_equal(src, expect)
    ok(hip.hipMemcpyHtoDAsync(a, host, nbytes, s2))
    ok(hip.hipMemcpyAsync(host, a, nbytes, K.hipMemcpyDefault, s2))
    ok(hip.hipStreamSynchronize(s2))
    assert status(hip.hipStreamQuery(s2)) == SUCCESS
    np.testing.assert_array_equal(src, expect)
    for p in (a, b):
        ok(hip.hipFree(p))
    ok(hip.hipHostFree(host))
    ok(hip.hipStreamDestroy(s1))
    ok(hip.hipStreamDestroy(s2))


def test_memset_variants(hip):
    n = 4096
    d = ok(hip.hipMalloc(n * 4))
    out = np.empty(n * 4, np.uint8)
    ok(hip.hipMemset(d, 0xAB, n * 4))
    ok(hip.hipMemcpyDtoH(out, d, n * 4))
    assert (out == 0xAB).all()
    ok(hip.hipMemsetD32(d, 0x12345678, n))
    ok(hip.hipMemcpyDtoH(out, d, n * 4))
    assert (out.view(np.uint32) == 0x12345678).all()
    ok(hip.hipMemsetD16(d, 0xBEEF, n * 2))
    ok(hip.hipMemcpyDtoH(out, d, n * 4))
    assert (out.view(np.uint16) == 0xBEEF).all()
    ok(hip.hipMemsetD8(d, 7, n))
    s = ok(hip.hipStreamCreate())
    ok(hip.hipMemsetAsync(d, 9, 16, s))
    ok(hip.hipMemsetD32Async(d, 3, 2, s))
    ok(hip.hipStreamSynchronize(s))
    ok(hip.hipMemcpyDtoH(out, d, n * 4))
    assert (out[:8].view(np.uint32) == 3).all() and (out[8:16] == 9).all()
    assert (out[16:n] == 7).all() and (out[n:].view(np.uint16) == 0xBEEF).all()
    ok(hip.hipStreamDestroy(s))
    ok(hip.hipFree(d))


def test_stream_ordered_allocation(hip):
    s = ok(hip.hipStreamCreate())
    p = ok(hip.hipMallocAsync(1 << 20, s))
    ok(hip.hipMemsetAsync(p, 1, 1 << 20, s))
    ok(hip.hipFreeAsync(p, s))
    ok(hip.hipStreamSynchronize(s))
    ok(hip.hipStreamDestroy(s))


def test_pointer_attributes(hip):
    d = ok(hip.hipMalloc(1024))
    attr = ok(hip.hipPointerGetAttributes(d))
    assert int(attr.type) == hip.hipMemoryType.hipMemoryTypeDevice
    assert attr.device == 0
    h = ok(hip.hipHostMalloc(1024, 0))
    attr = ok(hip.hipPointerGetAttributes(h))
    assert int(attr.type) == hip.hipMemoryType.hipMemoryTypeHost
    ok(hip.hipHostFree(h))
    ok(hip.hipFree(d))


# ---------------------------------------------------------------- events


def test_events_elapsed_time_and_cross_stream_wait(hip):
    nbytes = 256 << 20
    d = ok(hip.hipMalloc(nbytes))
    s1, s2 = ok(hip.hipStreamCreate()), ok(hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking))
    start, stop = ok(hip.hipEventCreate()), ok(hip.hipEventCreateWithFlags(0))
    ok(hip.hipEventRecord(start, s1))
    for v in range(8):
        ok(hip.hipMemsetAsync(d, v, nbytes, s1))
    ok(hip.hipEventRecord(stop, s1))
    ok(hip.hipStreamWaitEvent(s2, stop, 0))
    ok(hip.hipMemsetD8Async(d, 42, 1, s2))  # ordered after the memsets through the event
    ok(hip.hipStreamSynchronize(s2))
    assert status(hip.hipEventQuery(stop)) == SUCCESS
    ok(hip.hipEventSynchronize(stop))
    ms = ok(hip.hipEventElapsedTime(start, stop))
    assert 0.0 < ms < 10_000.0
    out = np.empty(2, np.uint8)
    ok(hip.hipMemcpyDtoH(out, d, 2))
    assert out.tolist() == [42, 7]
    no_timing = ok(hip.hipEventCreateWithFlags(hip.hipEventDisableTiming))
    ok(hip.hipEventRecord(no_timing, None))
    ok(hip.hipEventSynchronize(no_timing))
    for e in (start, stop, no_timing):
        ok(hip.hipEventDestroy(e))
    ok(hip.hipStreamDestroy(s1))
    ok(hip.hipStreamDestroy(s2))
    ok(hip.hipFree(d))


def test_stream_query_reports_not_ready_while_busy(hip):
    nbytes = 1 << 30
    d = ok(hip.hipMalloc(nbytes))
    s = ok(hip.hipStreamCreate())
    for _ in range(20):
        ok(hip.hipMemsetAsync(d, 1, nbytes, s))
    seen = status(hip.hipStreamQuery(s))
    ok(hip.hipStreamSynchronize(s))
    assert seen in (NOT_READY, SUCCESS)  # NOT_READY unless 20 GB of memset beat us
    assert seen == NOT_READY
    assert status(hip.hipStreamQuery(s)) == SUCCESS
    ok(hip.hipStreamDestroy(s))
    ok(hip.hipFree(d))


# ---------------------------------------------------------------- hipRTC, modules, launches

KERNELS = rb"""
#include <hip/hip_runtime.h>
struct Affine { int n; float scale; double offset; };

extern "C" __global__ void axpy(float a, const float* x, float* y, long long n) {
    long long i = (long long)hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;
    if (i < n) y[i] = a * x[i] + y[i];
}

extern "C" __global__ void affine(Affine p, const float* x, double* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) y[i] = (double)p.scale * x[i] + p.offset;
}

extern "C" __global__ void warp_sum(const float* x, float* out, int n) {
    float v = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        v += x[i];
    for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);
    if (__lane_id() == 0) atomicAdd(out, v);
}

extern "C" __global__ void half_twice(const __half* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * __half2float(x[i]);
}

template <typename T> __global__ void scale(T* x, T s, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= s;
}
"""


def compile_hip(hiprtc, source, name=b"kernels.hip", options=(b"--offload-arch=gfx90a", b"-O3"),
                names=()):
    prog = ok(hiprtc.hiprtcCreateProgram(source, name, 0, [], []))
    for expr in names:
        ok(hiprtc.hiprtcAddNameExpression(prog, expr))
    err = status(hiprtc.hiprtcCompileProgram(prog, len(options), list(options)))
    size = ok(hiprtc.hiprtcGetProgramLogSize(prog))
    log = bytearray(size)
    ok(hiprtc.hiprtcGetProgramLog(prog, log))
    log = log.rstrip(b"\0").decode(errors="replace")
    code, lowered = None, {}
    if err == 0:
        code = bytearray(ok(hiprtc.hiprtcGetCodeSize(prog)))
        ok(hiprtc.hiprtcGetCode(prog, code))
        for expr in names:
            # copied: the name lives in the program, destroyed below
            lowered[expr] = str(ok(hiprtc.hiprtcGetLoweredName(prog, expr))).encode()
    ok(hiprtc.hiprtcDestroyProgram(prog.createRef()))
    return err, log, code, lowered


@pytest.fixture(scope="module")
def module(hip, hiprtc):
    err, log, code, lowered = compile_hip(hiprtc, KERNELS, names=(b"scale<float>",))
    assert err == 0, log
    mod = ok(hip.hipModuleLoadData(code))
    yield mod, lowered
    ok(hip.hipModuleUnload(mod))


def fn(hip, module, name):
    return ok(hip.hipModuleGetFunction(module[0], name))


def test_hiprtc_version_and_log_notes(hiprtc):
    major, minor = ok(hiprtc.hiprtcVersion())
    assert major >= 11
    err, log, code, _ = compile_hip(hiprtc, KERNELS)
    assert err == 0 and code[:4] in (b"\x7fELF", b"//\n/", b"//\n")
    assert "gfx90a" in log and "-O3" in log  # translated options are reported, not dropped


def test_compile_error_returns_the_log(hiprtc):
    err, log, code, _ = compile_hip(
        hiprtc, b'extern "C" __global__ void k(float* x) { x[0] = not_declared; }', b"bad.hip")
    assert err == int(hiprtc.hiprtcResult.HIPRTC_ERROR_COMPILATION)
    assert "not_declared" in log and "bad.hip" in log
    assert code is None


def test_unknown_option_is_refused_with_a_log_line(hiprtc):
    err, log, _, _ = compile_hip(hiprtc, b'extern "C" __global__ void k() {}',
                                 options=(b"-mllvm", b"-amdgpu-early-inline-all=true"))
    assert err == int(hiprtc.hiprtcResult.HIPRTC_ERROR_INVALID_OPTION)
    assert "-mllvm" in log


def launch_1d(hip, f, n, block, kernel_params=None, extra=None, stream=None):
    grid = (n + block - 1) // block
    ok(hip.hipModuleLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, stream, kernel_params, extra))


def test_launch_scalar_and_pointers_through_extra(hip, module):
    n = 100_003
    x = rng().standard_normal(n).astype(np.float32)
    y = rng().standard_normal(n).astype(np.float32)
    dx, dy = ok(hip.hipMalloc(x.nbytes)), ok(hip.hipMalloc(y.nbytes))
    ok(hip.hipMemcpyHtoD(dx, x, x.nbytes))
    ok(hip.hipMemcpyHtoD(dy, y, y.nbytes))
    extra = [ctypes.c_float(2.5), dx, dy, ctypes.c_longlong(n)]
    launch_1d(hip, fn(hip, module, b"axpy"), n, 256, extra=extra)
    ok(hip.hipDeviceSynchronize())
    out = np.empty_like(y)
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    # the GPU fuses a*x+y (one rounding); NumPy rounds twice: allow one ulp
    np.testing.assert_array_max_ulp(out, (2.5 * x.astype(np.float64) + y).astype(np.float32), 1)
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dy))


class Affine(ctypes.Structure):
    _fields_ = [("n", ctypes.c_int), ("scale", ctypes.c_float), ("offset", ctypes.c_double)]


def test_launch_struct_argument_through_extra_and_kernel_params(hip, module):
    n = 5000
    x = rng().standard_normal(n).astype(np.float32)
    dx, dy = ok(hip.hipMalloc(x.nbytes)), ok(hip.hipMalloc(n * 8))
    ok(hip.hipMemcpyHtoD(dx, x, x.nbytes))
    f = fn(hip, module, b"affine")
    out = np.empty(n, np.float64)
    expect = 3.0 * x.astype(np.float64) - 0.25
    p = Affine(n, 3.0, -0.25)
    launch_1d(hip, f, n, 128, extra=[p, dx, dy])
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_array_equal(out, expect)
    ok(hip.hipMemset(dy, 0, n * 8))
    args = [Affine(n, 3.0, -0.25), ctypes.c_uint64(int(dx)), ctypes.c_uint64(int(dy))]
    launch_1d(hip, f, n, 128, kernel_params=[ctypes.addressof(a) for a in args])
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_array_equal(out, expect)
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dy))


def test_warp_shuffle_reduction_uses_warp_size(hip, module):
    n = 1 << 20
    x = rng().integers(-8, 8, n).astype(np.float32)  # exact in float32 in any order
    dx, dout = ok(hip.hipMalloc(x.nbytes)), ok(hip.hipMalloc(4))
    ok(hip.hipMemcpyHtoD(dx, x, x.nbytes))
    ok(hip.hipMemset(dout, 0, 4))
    s = ok(hip.hipStreamCreate())
    launch_1d(hip, fn(hip, module, b"warp_sum"), 256 * 120, 256,
              extra=[dx, dout, ctypes.c_int(n)], stream=s)
    ok(hip.hipStreamSynchronize(s))
    out = np.empty(1, np.float32)
    ok(hip.hipMemcpyDtoH(out, dout, 4))
    assert out[0] == x.sum(dtype=np.float64)
    ok(hip.hipStreamDestroy(s))
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dout))


def test_half_header_and_name_expressions(hip, module):
    n = 4097
    xh = rng().standard_normal(n).astype(np.float16)
    dx, dy = ok(hip.hipMalloc(xh.nbytes)), ok(hip.hipMalloc(n * 4))
    ok(hip.hipMemcpyHtoD(dx, xh, xh.nbytes))
    launch_1d(hip, fn(hip, module, b"half_twice"), n, 256, extra=[dx, dy, ctypes.c_int(n)])
    out = np.empty(n, np.float32)
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_array_equal(out, 2.0 * xh.astype(np.float32))
    lowered = module[1][b"scale<float>"]
    f = ok(hip.hipModuleGetFunction(module[0], lowered))
    launch_1d(hip, f, n, 256, extra=[dy, ctypes.c_float(0.5), ctypes.c_int(n)])
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_array_equal(out, xh.astype(np.float32))
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dy))


def test_function_attributes_and_missing_function(hip, module):
    f = fn(hip, module, b"axpy")
    A = hip.hipFunction_attribute
    assert ok(hip.hipFuncGetAttribute(A.HIP_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f)) >= 256
    assert ok(hip.hipFuncGetAttribute(A.HIP_FUNC_ATTRIBUTE_NUM_REGS, f)) > 0
    err, _ = hip.hipModuleGetFunction(module[0], b"no_such_kernel")
    assert int(err) == NOT_FOUND


def test_bad_extra_list_is_invalid_value(hip, module):
    f = fn(hip, module, b"axpy")
    bogus = (ctypes.c_void_p * 3)(7, 0, 3)  # unknown tag 7
    err = hip.hipModuleLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, None, None, ctypes.addressof(bogus))
    assert status(err) == INVALID_VALUE
    assert status(hip.hipGetLastError()) == INVALID_VALUE
