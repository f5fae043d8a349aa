"""A kernel fault on the device, as the ROCm backend's Python path meets it (on the fake
HIP runtime: no GPU needed; tests/rocm/gpu/test_faults.py provokes a real one): the
runtime's sticky fault status becomes RocmDeviceFault, which says a kernel faulted and that
the device cannot be used again in this process, at the synchronization that finds it and
at every later call."""

import numpy as np
import pytest

from candlewick.errors import CandlewickError
from candlewick.layout import Layout
from candlewick.opdefs import BinaryOp
from rocm_backend.error import RocmDeviceFault, RocmError, RocmOutOfMemory, error_for

import fake_hip  # tests/rocm/host is on pytest's pythonpath


@pytest.mark.parametrize("code, name, cls", [
    (700, "hipErrorIllegalAddress", RocmDeviceFault),
    (719, "hipErrorLaunchFailure", RocmDeviceFault),
    (710, "hipErrorAssert", RocmDeviceFault),
    (2, "hipErrorOutOfMemory", RocmOutOfMemory),
    (1, "hipErrorInvalidValue", RocmError),
])
def test_each_status_gets_its_class(code, name, cls):
    err = error_for("hipStreamSynchronize", fake_hip.Status(code, name))
    assert type(err) is cls and isinstance(err, CandlewickError)
    assert str(err).startswith(f"hipStreamSynchronize failed: {name}")
    assert ("kernel faulted on the device" in str(err)) == (cls is RocmDeviceFault)


def test_a_fault_is_named_at_the_synchronization_and_at_every_later_call(fake):
    rt, dev = fake
    x = dev.storage_from_host(np.arange(8, dtype=np.float32))
    layout = Layout.contiguous((8,))
    x.binary(BinaryOp.ADD, layout, x, layout)
    dev.synchronize()
    fault = fake_hip.Status(700, "hipErrorIllegalAddress")
    for call in ("hipStreamSynchronize", "hipModuleLaunchKernel", "hipMalloc", "hipMemcpyDtoHAsync"):
        setattr(rt.hip, call, lambda *args: (fault,))  # the runtime keeps the fault
    with pytest.raises(RocmDeviceFault, match="kernel faulted on the device") as info:
        dev.synchronize()
    assert "hipErrorIllegalAddress" in str(info.value) and "cannot be used again" in str(info.value)
    with pytest.raises(RocmDeviceFault, match="cannot be used again"):
        x.binary(BinaryOp.ADD, layout, x, layout)
    with pytest.raises(RocmDeviceFault):
        x.to_host(layout)
