"""HIP graphs through the shim on a GPU: stream capture (relaxed mode), instantiation,
replay and HIP's capture errors, forwarded to CUDA graphs. Skips without a GPU
(test_fake_driver.py checks the forwarding on a stand-in libcuda)."""

import ctypes

import numpy as np
import pytest

from .conftest import ok, status
from .test_hip_on_cuda import KERNELS, compile_hip

pytestmark = pytest.mark.gpu

CAPTURE_UNSUPPORTED, CAPTURE_INVALIDATED = 900, 901


@pytest.fixture(scope="module")
def axpy(hip, hiprtc):
    err, log, code, _ = compile_hip(hiprtc, KERNELS)
    assert err == 0, log
    mod = ok(hip.hipModuleLoadData(code))
    yield ok(hip.hipModuleGetFunction(mod, b"axpy"))
    ok(hip.hipModuleUnload(mod))


@pytest.fixture
def stream(hip):
    s = ok(hip.hipStreamCreateWithFlags(hip.hipStreamNonBlocking))
    yield s
    ok(hip.hipStreamDestroy(s))


def _capture(hip, s):
    ok(hip.hipStreamBeginCapture(s, hip.hipStreamCaptureMode.hipStreamCaptureModeRelaxed))


def test_captured_launches_replay_on_current_buffer_contents(hip, shim_lib, axpy, stream):
    n = 4099
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.zeros(n, np.float32)
    dx, dy = ok(hip.hipMalloc(x.nbytes)), ok(hip.hipMalloc(y.nbytes))
    ok(hip.hipMemcpyHtoD(dx, x, x.nbytes))
    ok(hip.hipMemcpyHtoD(dy, y, y.nbytes))
    _capture(hip, stream)
    assert int(ok(hip.hipStreamIsCapturing(stream))) == 1
    for _ in range(10):
        ok(hip.hipModuleLaunchKernel(axpy, (n + 255) // 256, 1, 1, 256, 1, 1, 0, stream, None,
                                     [ctypes.c_float(0.5), dx, dy, ctypes.c_longlong(n)]))
    graph = ok(hip.hipStreamEndCapture(stream))
    assert int(ok(hip.hipStreamIsCapturing(stream))) == 0
    count = ctypes.c_size_t(0)
    assert shim_lib.hipGraphGetNodes(ctypes.c_void_p(int(graph)), None, ctypes.byref(count)) == 0
    assert count.value == 10
    out = np.empty_like(y)
    ok(hip.hipStreamSynchronize(stream))
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    assert not out.any(), "captured launches ran during the capture"
    gexec = ok(hip.hipGraphInstantiateWithFlags(graph, 0))
    ok(hip.hipGraphDestroy(graph))  # the executable graph lives on
    for _ in range(3):
        ok(hip.hipGraphLaunch(gexec, stream))
    ok(hip.hipStreamSynchronize(stream))
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_allclose(out, 15 * x, rtol=1e-5, atol=1e-6)
    x2 = np.ones(n, np.float32)  # new contents of the same buffer: the replay reads them
    ok(hip.hipMemcpyHtoD(dx, x2, x2.nbytes))
    ok(hip.hipGraphLaunch(gexec, stream))
    ok(hip.hipStreamSynchronize(stream))
    ok(hip.hipMemcpyDtoH(out, dy, out.nbytes))
    np.testing.assert_allclose(out, 15 * x + 5, rtol=1e-5, atol=1e-5)
    ok(hip.hipGraphExecDestroy(gexec))
    ok(hip.hipFree(dx))
    ok(hip.hipFree(dy))


def test_malloc_is_allowed_in_a_relaxed_capture(hip, stream):
    _capture(hip, stream)
    ptr = ok(hip.hipMalloc(1 << 20))
    graph = ok(hip.hipStreamEndCapture(stream))
    ok(hip.hipGraphDestroy(graph))
    ok(hip.hipFree(ptr))


def test_synchronizing_a_capturing_stream_invalidates_the_capture(hip, stream):
    ok(hip.hipGetLastError())
    _capture(hip, stream)
    assert status(hip.hipStreamSynchronize(stream)) == CAPTURE_UNSUPPORTED
    assert status(hip.hipStreamEndCapture(stream)) == CAPTURE_INVALIDATED
    assert int(ok(hip.hipStreamIsCapturing(stream))) == 0
    # HIP keeps the last failure as the thread's last error; reading it clears it
    assert status(hip.hipGetLastError()) == CAPTURE_INVALIDATED
    ok(hip.hipGetLastError())


def test_bad_arguments_are_invalid_value(hip, shim_lib, stream):
    ok(hip.hipGetLastError())
    assert shim_lib.hipStreamBeginCapture(ctypes.c_void_p(int(stream)), 3) == 1
    assert status(hip.hipGraphLaunch(None, stream)) == 1
    assert status(hip.hipGetLastError()) == 1  # the last failure, cleared by reading it
    ok(hip.hipGetLastError())
