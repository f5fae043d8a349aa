"""No-device behaviour with AMD's real HIP runtime (layer 3 of
docs/verification.md): on a machine without a GPU, candlewick reports the
rocm backend unavailable with the runtime's own reason, and asking for it
raises BackendUnavailableError naming rocm and that reason.

Needs AMD's libamdhip64 (Debian: libamdhip64-dev) and hip-python; runs only
when CANDLEWICK_AMD_RUNTIME_TEST=1 (.ci/amd_gate.sh sets it).  The checks run
in a fresh interpreter so that ROCM_PATH is fixed before hip-python loads a
runtime and no earlier probe result is reused.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.skipif(
    os.environ.get("CANDLEWICK_AMD_RUNTIME_TEST") != "1",
    reason="set CANDLEWICK_AMD_RUNTIME_TEST=1 on a machine with AMD's libamdhip64 and no GPU",
)

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/tools")
import amd_compile_gate
rocm_path = amd_compile_gate.prepare_environment()   # AMD's libamdhip64 behind ROCM_PATH
import candlewick
from candlewick.errors import BackendUnavailableError
from hip import hip
rows = {b.name: {"available": b.available, "reason": b.reason} for b in candlewick.backends()}
err, count = hip.hipGetDeviceCount()
result = {"rocm_path": rocm_path, "rows": rows, "runtime": [err.name, count]}
try:
    candlewick.asarray([1.0], device="rocm")
    result["raised"] = None
except BackendUnavailableError as exc:
    result["raised"] = ["BackendUnavailableError", str(exc)]
except Exception as exc:
    result["raised"] = [type(exc).__name__, str(exc)]
print("RESULT " + json.dumps(result))
"""


@pytest.fixture(scope="module")
def outcome():
    env = dict(os.environ)
    env.pop("ROCM_PATH", None)
    env.pop("CANDLEWICK_AMD_ROCM_PATH", None)
    proc = subprocess.run([sys.executable, "-c", PROBE, str(ROOT)], capture_output=True,
                          text=True, env=env, timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert proc.returncode == 0 and lines, f"probe failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(lines[-1][len("RESULT "):])


def test_amd_runtime_itself_says_no_device(outcome):
    name, count = outcome["runtime"]
    assert name == "hipErrorNoDevice" and count == 0


def test_rocm_listed_unavailable_with_the_runtimes_reason(outcome):
    rows = outcome["rows"]
    assert rows["cpu"]["available"] is True
    rocm = rows["rocm"]
    assert rocm["available"] is False
    assert "hipErrorNoDevice" in rocm["reason"], rocm["reason"]


def test_asking_for_rocm_raises_backend_unavailable(outcome):
    kind, message = outcome["raised"]
    assert kind == "BackendUnavailableError", message
    assert "rocm" in message
    assert outcome["rows"]["rocm"]["reason"] in message
