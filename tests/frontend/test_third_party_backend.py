"""A third-party backend is found through its entry point, with no edit to candlewick,
and operands on different devices are refused rather than copied (issue 2); what a
backend's memory allows (NumPy conversion, DLPack landing) is its own declaration
(issue 16)."""

import os
import pathlib
import subprocess
import sys
import textwrap

REPO = pathlib.Path(__file__).parents[2]

MIRROR_PACKAGE = '''
"""A backend whose device computes with the cpu backend's primitives under another name."""
from cpu_backend import CPU_DEVICE


class MirrorDevice:
    backend = "mirror"
    ordinal = 0
    name = "mirror"
    dtypes = CPU_DEVICE.dtypes
    capabilities = frozenset()

    def __getattr__(self, attr):
        return getattr(CPU_DEVICE, attr)

    def same_device(self, other):
        return other is self


class MirrorBackend:
    name = "mirror"

    def probe(self):
        return True, ""

    def device_count(self):
        return 1

    def device(self, ordinal):
        return MirrorDevice()

    def details(self):
        return {"computes with": "cpu_backend"}


BACKEND = MirrorBackend()
'''

CHECK = '''
import candlewick as cw
from candlewick.errors import DeviceMismatchError

rows = {b.name: b for b in cw.backends()}
assert rows["mirror"].available and "entry point" in rows["mirror"].source, rows["mirror"]
x = cw.asarray([1.0, 2.0])
y = cw.asarray([10.0, 20.0], device="mirror")
assert y.device.name == "mirror" and y.device is not x.device
for mixed in (lambda: x + y, lambda: cw.where(x > 1, x, y), lambda: cw.concat([x, y]), lambda: x @ y):
    try:
        mixed()
    except DeviceMismatchError as exc:
        assert "different devices" in str(exc) or "device" in str(exc), exc
    else:
        raise AssertionError("mixing devices did not raise")
z = y.to_device("cpu") + x
assert cw.to_numpy(z).tolist() == [11.0, 22.0]
moved = cw.asarray(x, device="mirror")
assert moved.device is y.device and cw.to_numpy(moved + y).tolist() == [11.0, 22.0]
print("ok")
'''


def _run_with_backends(tmp_path, module, source, entry_points, check):
    """Install ``module`` (``source``) as a distribution whose ``candlewick.backends``
    entry points are ``entry_points`` (name -> attribute), then run ``check`` in a fresh
    interpreter that sees it; return that interpreter's stdout."""
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
    dist = tmp_path / f"{module}-0.1.dist-info"
    dist.mkdir()
    name = module.replace("_", "-")
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    lines = "".join(f"{ep} = {module}:{attr}\n" for ep, attr in entry_points.items())
    (dist / "entry_points.txt").write_text("[candlewick.backends]\n" + lines)
    path = os.pathsep.join([str(tmp_path), str(REPO), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", check], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=path), timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_entry_point_backend_and_device_mixing(tmp_path):
    out = _run_with_backends(tmp_path, "mirror_backend", MIRROR_PACKAGE, {"mirror": "BACKEND"}, CHECK)
    assert out.strip() == "ok"


HOST_PACKAGES = '''
"""Two test-only backends computing with the cpu backend's primitives: ``hostmem``
declares that its memory is host memory, ``sealed`` declares nothing."""
from cpu_backend import CPU_DEVICE

# the protocol's device methods plus the DLPack import hook; nothing else is forwarded,
# so neither device inherits the cpu device's declarations
FORWARDED = frozenset({
    "storage_from_host", "zeros", "ones", "full", "empty", "arange", "rand_uniform",
    "rand_normal", "synchronize", "memory_info", "storage_from_dlpack",
})


class ForwardingDevice:
    ordinal = 0
    dtypes = CPU_DEVICE.dtypes
    capabilities = frozenset()

    def __getattr__(self, attr):
        if attr in FORWARDED:
            return getattr(CPU_DEVICE, attr)
        raise AttributeError(attr)

    def same_device(self, other):
        return other is self


class HostMemoryDevice(ForwardingDevice):
    backend = name = "hostmem"
    host_memory = True


class SealedDevice(ForwardingDevice):
    backend = name = "sealed"


class OneDeviceBackend:
    def __init__(self, device_class):
        self.name = device_class.name
        self._device = device_class()

    def probe(self):
        return True, ""

    def device_count(self):
        return 1

    def device(self, ordinal):
        return self._device

    def details(self):
        return {}


HOSTMEM = OneDeviceBackend(HostMemoryDevice)
SEALED = OneDeviceBackend(SealedDevice)
'''

HOST_CHECK = '''
import numpy as np
import candlewick as cw

x = cw.asarray([[1.0, 2.0], [3.0, 4.0]], device="hostmem")
assert x.device.name == "hostmem"
assert np.asarray(x).tolist() == [[1.0, 2.0], [3.0, 4.0]]
assert np.asarray(x.T, dtype=np.float32).dtype == np.float32
assert np.asarray(x.T).tolist() == [[1.0, 3.0], [2.0, 4.0]]

# to NumPy through DLPack (the storage's dlpack_view), and back onto hostmem, shared
host = np.from_dlpack(x[:, 1])
assert host.tolist() == [2.0, 4.0]
source = np.arange(6, dtype=np.int32).reshape(2, 3)
y = cw.from_dlpack(source, device="hostmem")
assert y.device is x.device and y.dtype == cw.int32 and np.asarray(y).tolist() == source.tolist()
source[0, 0] = 100
assert int(y[0, 0]) == 100, "from_dlpack with copy=None shares host memory"
assert int(cw.from_dlpack(source, device="hostmem", copy=True)[0, 0]) == 100

# host memory lands on the default device when that device holds host memory
assert cw.from_dlpack(source).device.name == "cpu"
with cw.default_device("hostmem"):
    assert cw.from_dlpack(source).device is x.device
with cw.default_device("sealed"):
    assert cw.from_dlpack(source).device.name == "cpu"

# a device that declares nothing is not host-readable: implicit conversion is refused
z = cw.asarray([1, 2, 3], device="sealed")
try:
    np.asarray(z)
except TypeError as exc:
    assert "implicit conversion of a sealed array" in str(exc) and "to_numpy" in str(exc), exc
else:
    raise AssertionError("np.asarray of a sealed array did not raise")
assert cw.to_numpy(z).tolist() == [1, 2, 3]
# ... unless implicit host copies are on (cubed's Zarr writes), for the whole process
cw.set_implicit_host_copy(True)
assert np.asarray(z).tolist() == [1, 2, 3] and np.asarray(z[1:], dtype=np.float64).tolist() == [2.0, 3.0]
cw.set_implicit_host_copy(False)
try:
    np.asarray(z)
except TypeError:
    pass
else:
    raise AssertionError("implicit host copies stayed on")
try:
    cw.set_implicit_host_copy("yes")
except cw.errors.ArgumentTypeError as exc:
    assert "set_implicit_host_copy" in str(exc) and "allowed" in str(exc), exc
else:
    raise AssertionError("set_implicit_host_copy took a string")
assert cw.from_dlpack(source, device="sealed").device is z.device
print("ok")
'''


def test_host_memory_backend_not_named_cpu(tmp_path):
    """What differs between backends is declared by the backend (issue 16): a host-memory
    backend of any name converts implicitly to NumPy and takes host DLPack producers; a
    backend that declares nothing keeps the refusal."""
    out = _run_with_backends(tmp_path, "host_backends", HOST_PACKAGES,
                             {"hostmem": "HOSTMEM", "sealed": "SEALED"}, HOST_CHECK)
    assert out.strip() == "ok"
