"""Process-level faults (issue 21): a third-party backend whose import raises, and
CANDLEWICK_DEVICE naming a device that is unknown or cannot run. Each runs in a fresh
interpreter, as a user's program would meet it."""

import os
import pathlib
import subprocess
import sys
import textwrap

REPO = pathlib.Path(__file__).parents[2]

BROKEN_PACKAGE = '''
raise ImportError("broken_backend needs libwidget.so, which is not installed")
'''

CHECK_BROKEN = '''
import candlewick as cw
from candlewick.errors import BackendUnavailableError

rows = {b.name: b for b in cw.backends()}
assert not rows["broken"].available, rows["broken"]
assert "libwidget.so" in rows["broken"].reason and "ImportError" in rows["broken"].reason, rows["broken"].reason
try:
    cw.get_device("broken")
except BackendUnavailableError as exc:
    assert "libwidget.so" in str(exc), exc
else:
    raise AssertionError("a backend whose import raises gave a device")
assert rows["cpu"].available
assert cw.to_numpy(cw.ones(3) + 1).tolist() == [2.0, 2.0, 2.0]  # the rest works
print("ok")
'''


def _install_broken_backend(tmp_path):
    (tmp_path / "broken_backend.py").write_text(textwrap.dedent(BROKEN_PACKAGE))
    dist = tmp_path / "broken_backend-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-backend\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text("[candlewick.backends]\nbroken = broken_backend:BACKEND\n")
    return os.pathsep.join([str(tmp_path), str(REPO), os.environ.get("PYTHONPATH", "")])


def _run(code, path, **env):
    base = {k: v for k, v in os.environ.items() if k != "CANDLEWICK_DEVICE"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(base, PYTHONPATH=path, **env), timeout=120)


def test_backend_whose_import_raises_is_listed_with_why_and_the_rest_works(tmp_path):
    out = _run(CHECK_BROKEN, _install_broken_backend(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


CHECK_ENV = '''
import candlewick as cw
from candlewick.errors import {cls}

try:
    cw.ones(2)
except {cls} as exc:
    print(exc)
else:
    raise AssertionError("an unusable CANDLEWICK_DEVICE gave an array")
assert cw.to_numpy(cw.ones(2, device="cpu")).tolist() == [1.0, 1.0]  # naming a device still works
'''


def test_candlewick_device_naming_an_unknown_device(tmp_path):
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    for value in ("nope", "cpu:7", "cpu:x"):
        out = _run(CHECK_ENV.format(cls="DeviceError"), path, CANDLEWICK_DEVICE=value)
        assert out.returncode == 0, out.stderr
        assert "CANDLEWICK_DEVICE" in out.stdout and value in out.stdout, out.stdout


def test_candlewick_device_naming_an_unavailable_device(tmp_path):
    out = _run(CHECK_ENV.format(cls="BackendUnavailableError"), _install_broken_backend(tmp_path),
               CANDLEWICK_DEVICE="broken")
    assert out.returncode == 0, out.stderr
    assert "CANDLEWICK_DEVICE" in out.stdout and "libwidget.so" in out.stdout, out.stdout
