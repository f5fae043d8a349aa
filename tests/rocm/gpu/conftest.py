"""Fixtures of the rocm GPU tests: skipped cleanly where no rocm device is usable.

``rocm``: the rocm:0 device. ``torch``, ``cupy``: the peer library, skipped where it is
not importable or sees no GPU. ``nn_path``: each nn path in turn ("miopen", "fallback"),
selected through CANDLEWICK_ROCM_NN for the test's duration; "miopen" skips with the
reason when libMIOpen.so (or the cuDNN behind the HIP-on-CUDA shim) is unusable.
"""

import pytest

from candlewick import registry


def _rocm_info():
    for info in registry.backends():
        if info.name == "rocm":
            return info
    return None


@pytest.fixture(scope="session")
def rocm():
    info = _rocm_info()
    if info is None or not info.available:
        pytest.skip(f"no rocm device: {info.reason if info else 'backend not registered'}")
    return registry.get_device("rocm:0")


@pytest.fixture(scope="session")
def cpu():
    return registry.get_device("cpu")


@pytest.fixture(scope="session")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no GPU")
    return torch


@pytest.fixture(scope="session")
def cupy():
    cupy = pytest.importorskip("cupy")
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        pytest.skip(f"cupy sees no GPU: {exc}")
    return cupy


@pytest.fixture(params=["miopen", "fallback"])
def nn_path(request, rocm, monkeypatch):
    from rocm_backend import miopen
    from rocm_backend.families import nn_paths

    if request.param == "miopen":
        state = rocm.miopen
        if not isinstance(state, miopen.DeviceMIOpen):
            pytest.skip(f"MIOpen unusable: {state}")
    monkeypatch.setenv(nn_paths.ENV, request.param)
    return request.param
