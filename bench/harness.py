"""What every benchmark of bench/ shares: its command line and the record it writes.

Every benchmark runs as ``python bench/NAME.py --out DIR`` and writes
``DIR/NAME_<device-kind>.json`` and ``DIR/NAME_<device-kind>.md`` through
:func:`write_record`: device, device kind, date, commit, the peers measured in the same
run, and the figures. The device kind names the machine the figures belong to
(``nvidia-h200``, ``cpu-amd-epyc``...), so bench/results/ holds one current record per
benchmark and kind. How the figures are taken is bench/timing.py's (the timing loops) and
bench/peak_memory.py's (each case's peak device memory). This module uses no candlewick
and loads without it (tools/gpu_run.sh asks it for the commit and the device kind).
"""

import argparse
import datetime
import json
import os
import platform
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def parse_args(doc, add_arguments=None, argv=None):
    """The common command line (``--out DIR``) plus the benchmark's own options."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="folder for NAME_<device-kind>.json and .md")
    if add_arguments is not None:
        add_arguments(parser)
    return parser.parse_args(argv)


def slug(model):
    """``"NVIDIA H100 80GB HBM3"`` -> ``"nvidia-h100"``: the words up to the first one
    holding a digit (the model number), lower case, trademarks and punctuation dropped."""
    words = re.sub(r"\((R|TM|C)\)", " ", model, flags=re.IGNORECASE).replace("-", " ").split()
    kept = []
    for word in words:
        word = re.sub(r"[^a-z0-9]", "", word.lower())
        if word in ("", "processor", "cpu"):
            continue
        kept.append(word)
        if any(ch.isdigit() for ch in word):
            break
    return "-".join(kept) or "unknown"


def gpu_name():
    """The first GPU's product name, from nvidia-smi (else torch); None without one."""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
        names = done.stdout.strip().splitlines()
        if done.returncode == 0 and names:
            return names[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    torch = gpu_peers().get("torch")
    return torch.cuda.get_device_name(0) if torch is not None else None


def cpu_name():
    """The host processor's model name (/proc/cpuinfo on Linux)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def device_kind(kind):
    """The record's device kind: ``$CANDLEWICK_DEVICE_KIND`` if set, else from the GPU's
    name (``kind="gpu"``) or the processor's (``kind="cpu"``, prefixed ``cpu-``)."""
    if os.environ.get("CANDLEWICK_DEVICE_KIND"):
        return os.environ["CANDLEWICK_DEVICE_KIND"]
    if kind == "gpu":
        return slug(gpu_name() or "no-gpu")
    return "cpu-" + slug(cpu_name())


def commit():
    """``$CANDLEWICK_COMMIT`` (for a copy without .git), else git's short HEAD, with
    ``+dirty`` when the tree differs from it."""
    if os.environ.get("CANDLEWICK_COMMIT"):
        return os.environ["CANDLEWICK_COMMIT"]
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=30)
        if head.returncode != 0:
            return "unknown"
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True, timeout=30).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_record(out, name, kind, device, peers, figures, markdown_body, headline=()):
    """Write ``out/NAME_<device-kind>.json`` and ``.md``; return the two paths.

    ``kind``: "gpu" or "cpu" (see :func:`device_kind`); ``device``: the device in words;
    ``peers``: {library: version} measured in the same run; ``figures``: the results
    (JSON-serializable); ``markdown_body``: the .md's lines after its header;
    ``headline``: a few short lines for a run's summary (also printed as ``HEADLINE:``).
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    record = {
        "benchmark": name, "device": device, "device_kind": device_kind(kind),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit(), "host": f"{cpu_name()}, {os.cpu_count()} cores",
        "python": platform.python_version(), "peers": dict(peers), "headline": list(headline),
        "figures": figures,
    }
    stem = out / f"{name}_{record['device_kind']}"
    json_path, md_path = stem.with_suffix(".json"), stem.with_suffix(".md")
    json_path.write_text(json.dumps(record, indent=1, default=str) + "\n")
    peer_text = ", ".join(f"{k} {v}" for k, v in record["peers"].items()) or "none"
    header = [f"# {name} on {device} ({record['device_kind']})", "",
              f"date: {record['date']}; commit: {record['commit']}; host: {record['host']}; "
              f"python {record['python']}", "", f"Peers measured in the same run: {peer_text}.", ""]
    md_path.write_text("\n".join(header + list(markdown_body)) + "\n")
    for line in headline:
        print(f"HEADLINE: {name}: {line}", flush=True)
    return json_path, md_path


def gpu_peers():
    """{name: module} of the GPU libraries usable here (torch with CUDA, CuPy)."""
    found = {}
    try:
        import torch  # optional peer, loaded only when present

        if torch.cuda.is_available():
            found["torch"] = torch
    except Exception:  # noqa: BLE001 - any failure means "not a peer here"
        pass
    try:
        import cupy  # optional peer, loaded only when present

        cupy.cuda.runtime.getDeviceCount()
        found["cupy"] = cupy
    except Exception:  # noqa: BLE001
        pass
    return found


def error_text(exc, limit=300):
    return f"{type(exc).__name__}: {exc}"[:limit]
