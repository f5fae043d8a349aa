"""examples/host_backend, the host-memory backend docs/writing-a-backend.md walks (issue 35,
item 3): registered as an installed package is (an entry point in a dist-info), its users
get what cpu's get (NumPy reading its arrays, NumPy functions candlewick lacks, np.save,
DLPack both ways, ``x.device == "host:0"``, NumPy's printing), its first conformance
stages pass, and the guide's code is the example's code."""

import os
import pathlib
import re
import subprocess
import sys
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "host_backend"
GUIDE = REPO / "docs" / "writing-a-backend.md"

USERS = '''
import io
import numpy as np
import candlewick as cw

x = cw.asarray([3.0, 1.0, 2.0], device="host")
assert x.device == "host:0" and hash(x.device) == hash("host:0") and x.device != "cpu"
assert np.asarray(x).tolist() == [3.0, 1.0, 2.0] and np.array(x * 2).tolist() == [6.0, 2.0, 4.0]
assert float(np.median(x)) == 2.0 and float(np.percentile(x, 50)) == 2.0
buf = io.BytesIO(); np.save(buf, x); buf.seek(0)
assert np.load(buf).tolist() == [3.0, 1.0, 2.0]
t = np.from_dlpack(x)
t[0] = 9.0
assert x.tolist() == [9.0, 1.0, 2.0] and x.__dlpack_device__() == (1, 0)
assert str(x) == "[9. 1. 2.]"
a = np.arange(4.0)
with cw.default_device("host"):
    y = cw.from_dlpack(a)
a[1] = -1.0
assert y.device == "host:0" and y.tolist() == [0.0, -1.0, 2.0, 3.0]
z = cw.asarray([1 + 2j, 3 - 4j], device="host")
cw.real(z)[...] = 0.5  # real/imag are views of the complex memory (real_view)
assert z.tolist() == [0.5 + 2j, 0.5 - 4j]
try:
    import torch
except ImportError:
    torch = None
if torch is not None:
    tt = torch.from_dlpack(x)
    tt.mul_(2)
    assert x.tolist() == [18.0, 2.0, 4.0]
print("ok")
'''


def _registered(tmp_path):
    info = tmp_path / "candlewick_host_backend-0.1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: candlewick-host-backend\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[candlewick.backends]\nhost = host_backend:BACKEND\n")
    return dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(EXAMPLE), str(tmp_path)]))


def test_its_users_get_what_cpu_users_get(tmp_path):
    done = subprocess.run([sys.executable, "-c", USERS], env=_registered(tmp_path), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_it_passes_the_first_conformance_stages(tmp_path):
    tests = "test_device or test_complex_parts"
    done = subprocess.run([sys.executable, "-m", "candlewick.conformance", "host", "--fast", "--", "-q", "-k", tests],
                          env=_registered(tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "0 fail" in done.stdout and "conformance report for backend 'host'" in done.stdout


def _guide_section(title):
    text = GUIDE.read_text()
    start = text.index(f"## {title}")
    return text[start:text.index("\n## ", start + 1)]


def _lines(code):
    """The non-blank lines of ``code``, stripped: indentation differs between a method in a
    class and the same lines quoted in Markdown."""
    return "\n".join(line.strip() for line in code.splitlines() if line.strip())


@pytest.mark.parametrize("block", re.findall(r"```python\n(.*?)```", _guide_section("7. A host-memory backend"),
                                             re.S)[:-1])  # the last block is the users' (run above)
def test_the_guides_code_is_the_examples(block):
    source = "\n".join(_lines(p.read_text()) for p in sorted((EXAMPLE / "host_backend").glob("*.py")))
    assert _lines(block) in source, f"docs/writing-a-backend.md quotes code examples/host_backend does not hold:\n{block}"
