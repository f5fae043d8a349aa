"""tools/rocm_host_steps.py, the rocm backend's host steps timed without a GPU: it runs on the
fake HIP runtime end to end and says what its launches go through and how many each call queues."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_host_steps_times_every_case_and_counts_launches():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "rocm_host_steps.py"), "--reps", "3", "--batches", "1"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("host steps only, on the fake HIP runtime: launches ")
    rows = {cells[1].strip(): cells[2:4] for cells in (line.split("|") for line in lines[3:]) if len(cells) > 4}
    assert set(rows) == {"add", "sum", "where", "x[1:3]", "100 adds in a loop (per op)", "add: primitive",
                         "sum: primitive", "allocate and free a result", "add: pack and launch",
                         "sum: pack and launch"}
    assert all(float(us) > 0 for us, _ in rows.values())
    launches = {case: n.strip() for case, (_, n) in rows.items()}
    assert launches["x[1:3]"] == "0" and launches["allocate and free a result"] == "0"  # a view launches nothing
    assert all(launches[case] == "1" for case in ("add", "sum", "where", "add: pack and launch", "sum: pack and launch"))
