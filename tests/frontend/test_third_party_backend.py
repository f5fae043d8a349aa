"""A third-party backend is found through its entry point, with no edit to candlewick,
and operands on different devices are refused rather than copied (issue 2)."""

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


def test_entry_point_backend_and_device_mixing(tmp_path):
    (tmp_path / "mirror_backend.py").write_text(textwrap.dedent(MIRROR_PACKAGE))
    dist = tmp_path / "mirror_backend-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: mirror-backend\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[candlewick.backends]\nmirror = mirror_backend:BACKEND\n")
    path = os.pathsep.join([str(tmp_path), str(REPO), os.environ.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=path), timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
