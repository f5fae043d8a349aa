"""``python -m candlewick.conformance`` from an unrelated directory against the example
backend, registered the way an installed package is (an entry point in its dist-info),
with float64 and the fft group withheld: those cells are "not declared", never failures.
(.ci/conformance_wheel.sh does the same from built wheels in a fresh environment.)"""

import json
import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "tracing_backend"


def _register_tracing(site):
    """A dist-info holding the example's entry point, as pip would install it."""
    info = site / "candlewick_tracing_backend-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: candlewick-tracing-backend\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[candlewick.backends]\ntracing = tracing_backend:BACKEND\n")


def test_cli_reports_undeclared_cells_and_passes(tmp_path):
    site = tmp_path / "site"
    _register_tracing(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(EXAMPLE), str(site)]),
               CANDLEWICK_TRACING_HIDE="float64,fft")
    tests = "test_where or test_fft or test_device_satisfies_protocol or test_declared_dtypes"
    proc = subprocess.run(
        [sys.executable, "-m", "candlewick.conformance", "tracing", "--profile", "smoke",
         "--json", "r.json", "--markdown", "r.md", "--", "-q", "-k", tests],
        cwd=elsewhere, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "conformance report for backend 'tracing'" in proc.stdout
    (backend,) = json.loads((elsewhere / "r.json").read_text())["backends"]
    assert backend["backend"] == "tracing" and "float64" not in backend["declared_dtypes"]
    cells = {row: v["cells"] for row, v in backend["rows"].items()}
    assert cells["where"]["float32"] == {"status": "pass"}
    assert cells["where"]["float64"] == {"status": "not declared"}
    assert cells["fft.fft"]["complex64"] == {"status": "not declared"}
    assert cells["device object"]["no dtype"] == {"status": "pass"}
    assert backend["counts"]["fail"] == 0
    assert "*skipped: not declared by the backend*" in (elsewhere / "r.md").read_text()
