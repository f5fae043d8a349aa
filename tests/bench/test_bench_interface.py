"""bench/ and tools/gpu_run.sh on a CPU: the benchmarks' one interface, the runner's list of
benchmarks, the naming of bench/results/, and the GPU benchmarks end to end against the
fake HIP runtime (tests/rocm/host/fake_hip.py; its figures mean nothing, its records' shape does),
and the CPU benchmark cubed_out_of_core end to end on a small array.
"""

import importlib.util
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
RUNNER = ROOT / "tools" / "gpu_run.sh"
SUPPORT = {"harness", "timing", "peak_memory", "diagnostics", "launch_floor", "namespace_cases", "op_profile",
           "sort_sweep", "rocm_sort", "lazy_pairs", "lazy_procs", "pydata_cases"}  # bench/ modules that are no benchmark
# bench/results/ records of tools/gpu_run.sh's suites, of tools/reliability_fuzz.py, tools/array_api_thorough.py
# and tools/pydata_suites.py
TEST_RUN_RECORDS = {"rocm_gpu_tests", "shim_tests", "conformance_tracing_over_rocm", "reliability", "array_api_thorough",
                    "pydata_suites"}
INPLACE_CASES = ("x += y", "x *= 2.0", "x[mask] = v", "x[::2] += 1", "np.add(x, y, out=x)")
RECORD_KEYS = {"benchmark", "device", "device_kind", "date", "commit", "peers", "figures", "headline"}

# by path: bench/ is no package
_spec = importlib.util.spec_from_file_location("bench_harness", BENCH / "harness.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)


def child_env(**extra):
    """This environment with this interpreter first on PATH (the runner calls python3)."""
    path = os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin")
    return dict(os.environ, PATH=path, **extra)


def benchmarks():
    return sorted(p.stem for p in BENCH.glob("*.py") if p.stem not in SUPPORT)


def runner_steps():
    listed = subprocess.run(["bash", str(RUNNER), "--list"], capture_output=True, text=True, check=True).stdout
    return [line.split() for line in listed.splitlines() if line.strip()]


@pytest.mark.parametrize("model, kind", [
    ("NVIDIA H100 80GB HBM3", "nvidia-h100"),
    ("NVIDIA H200", "nvidia-h200"),
    ("AMD Instinct MI300X", "amd-instinct-mi300x"),
    ("Intel(R) Xeon(R) Platinum 8480+", "intel-xeon-platinum-8480"),
    ("AMD EPYC 9654 96-Core Processor", "amd-epyc-9654"),
    ("AMD EPYC", "amd-epyc"),
])
def test_device_kind_is_the_model_up_to_its_number(model, kind):
    assert harness.slug(model) == kind


def test_record_is_named_by_benchmark_and_device_kind(tmp_path, monkeypatch):
    monkeypatch.setenv("CANDLEWICK_DEVICE_KIND", "nvidia-h200")
    monkeypatch.setenv("CANDLEWICK_COMMIT", "abc1234")
    json_path, md_path = harness.write_record(tmp_path, "demo", "gpu", "NVIDIA H200", {"torch": "2.11"},
                                              {"x": 1.5}, ["| a |"], ["x 1.5"])
    assert (json_path.name, md_path.name) == ("demo_nvidia-h200.json", "demo_nvidia-h200.md")
    record = json.loads(json_path.read_text())
    assert RECORD_KEYS <= set(record)
    assert (record["commit"], record["peers"], record["figures"]) == ("abc1234", {"torch": "2.11"}, {"x": 1.5})
    text = md_path.read_text()
    assert "abc1234" in text and "torch 2.11" in text and text.rstrip().endswith("| a |")


def test_runner_runs_every_benchmark_and_only_those():
    steps = runner_steps()
    # a step may set variables before its command (CANDLEWICK_DEVICE=rocm run_bench NAME)
    listed = sorted({cmd[cmd.index("run_bench") + 1] for stages, name, needs, limit, *cmd in steps if "run_bench" in cmd})
    assert listed == benchmarks()
    for stages, name, needs, limit, *cmd in steps:
        assert needs in ("gpu", "any") and int(limit) > 0, (name, needs, limit)


def test_results_hold_one_record_per_benchmark_and_device_kind():
    names = set(benchmarks()) | TEST_RUN_RECORDS
    pattern = re.compile(r"(?P<name>[a-z][a-z0-9_]*?)_(?P<kind>(cpu-)?[a-z0-9]+(-[a-z0-9]+)*)\.(md|json)")
    for path in (BENCH / "results").iterdir():
        match = pattern.fullmatch(path.name)
        # tools/pydata_suites.py names a run of some of its libraries after them (pydata_suites_scipy)
        name = match and re.sub(r"^(pydata_suites)(_[a-z]+)+$", r"\1", match["name"])
        assert match and name in names, f"{path.name}: not NAME_<device-kind>.md/.json of a benchmark"
        if match["name"] in benchmarks():
            assert path.with_suffix(".md").exists() and path.with_suffix(".json").exists(), path.name


FAKE_RUN = """
import importlib.util, os, sys
spec = importlib.util.spec_from_file_location("rocm_fake_hip", {fake!r})
fake = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fake)
fake.install()  # a fresh interpreter: the fake stays out of the test session
sys.path.insert(0, {bench!r})
import {name} as bench
{patch}
bench.main(["--out", {out!r}] + {args!r})
"""
SMALL = {  # each GPU benchmark with its problems made small
    "rocm_ops": ("", ["--sizes", "10", "--gemm-size", "64", "--sort-sizes", "10,12", "--sort-rows", "8x600",
                      "--sort-dtype-sizes", "10,11"]),
    "linalg_fft": ("bench.BATCH, bench.SMALL = 4, 8", ["--cases", "solve@batched,cholesky@batched"]),
    "rocm_graphs": ("", ["--ops", "6", "--reps", "2"]),
    "rocm_host_path": ("", ["--reps", "3"]),
    "rocm_transfers": ("", ["--sizes-mib", "1", "--reps", "2"]),
    "rocm_streams": ("", ["--gemm", "64", "--gemms", "2", "--copy-mib", "1", "--copies", "2", "--compute", "exp"]),
    "fusion": ("", ["--log2-size", "10", "--rows", "16", "--cols", "64"]),
    # the lazy pairs' fresh processes install the fake runtime too
    "pydata_e2e": ("import lazy_procs; lazy_procs.PRELUDE = " + repr(
                       f"import importlib.util; spec = importlib.util.spec_from_file_location('rocm_fake_hip', "
                       f"{str(ROOT / 'tests' / 'rocm' / 'host' / 'fake_hip.py')!r}); "
                       "fake = importlib.util.module_from_spec(spec); spec.loader.exec_module(fake); fake.install()"),
                   ["--device", "rocm", "--samples", "512", "--features", "16", "--rounds", "1",
                    "--sample-s", "0.001", "--lazy-pairs", "2", "--lazy-procs", "6"]),
    "inplace": ("", ["--log2-sizes", "10", "--backends", "rocm"]),
    "rocm_nn": ("bench.CASES = [(n, k, (2, 8, 9, 9), (8, 8) + w[2:] if k == 'conv' else w, s, p)"
                " for n, k, _, w, s, p in bench.CASES]", ["--reps", "2"]),
    # two fake devices (tests/rocm/host/fake_devices.py); the two-process section needs real ones
    "multi_gpu": (f"sys.path.insert(0, {str(ROOT / 'tests' / 'rocm' / 'host')!r}); import fake_devices; "
                  "fake.install(runtime=fake_devices.MultiDeviceRuntime(devices=2)); "
                  "bench.two_processes = lambda sizes, reps: {'error': 'not run on the fake runtime'}",
                  ["--sizes-mib", "1,2", "--reps", "2"]),
}


# the GPU benchmarks whose record holds peak_memory.PeakTable's per-case peaks (pydata_e2e keeps its
# peaks in its case rows: tests/bench/test_peak_memory.py)
PEAKS = {"rocm_ops", "linalg_fft", "rocm_host_path", "rocm_transfers", "rocm_streams", "rocm_graphs", "fusion",
         "rocm_nn"}


@pytest.mark.parametrize("name", sorted(SMALL))
def test_gpu_benchmark_writes_its_record_on_the_fake_runtime(name, tmp_path):
    patch, args = SMALL[name]
    script = FAKE_RUN.format(fake=str(ROOT / "tests" / "rocm" / "host" / "fake_hip.py"), bench=str(BENCH), name=name,
                             patch=patch, out=str(tmp_path), args=args)
    env = child_env(PYTHONPATH=str(ROOT), CANDLEWICK_DEVICE_KIND="fake", CANDLEWICK_COMMIT="test",
                    CANDLEWICK_KERNEL_CACHE=str(tmp_path / "kc"))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    record = json.loads((tmp_path / f"{name}_fake.json").read_text())
    assert RECORD_KEYS <= set(record) and record["benchmark"] == name
    assert (tmp_path / f"{name}_fake.md").exists()
    if name in PEAKS:  # issue 39 item 6: each case's peak device memory, candlewick's allocator counted
        peaks = record["figures"]["peak_bytes"]
        assert peaks, record["figures"]
        for case, row in peaks.items():
            mine = {lib: v for lib, v in row.items() if lib.startswith("candlewick")}
            assert mine, (case, row)
            # bytes, or the error of a call the fake runtime cannot make (linalg_fft: no hipSOLVER)
            assert all(isinstance(v, int) and v >= 0 or isinstance(v, str) and name == "linalg_fft"
                       for v in mine.values()), (case, row)
        if name != "linalg_fft":
            assert any(isinstance(v, int) and v > 0 for row in peaks.values() for v in row.values()), peaks
        assert "Peak device memory" in (tmp_path / f"{name}_fake.md").read_text()
    if name == "multi_gpu":
        for section in ("one_process", "peer_copy"):
            assert set(record["figures"][section]["candlewick"]) == {"1", "2"}, record["figures"][section]
        assert "not run" in record["figures"]["two_processes"]["error"]
    elif name == "rocm_ops":
        assert set(record["figures"]["tiny"]["candlewick"]) == {"add", "sum", "slice x[1:3]", "where"}
        # bench/diagnostics.py reached the backend internals it lists
        assert set(record["figures"]["compile"]) == {"binary_float32", "reduce_float32"}, record["figures"]["compile"]
        sort = record["figures"]["sort"]
        others = ("float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool")
        assert set(sort) == {"float32 2^10", "float32 2^12", *(f"{d} rows 8x600" for d in ("float32",) + others),
                             *(f"{d} 2^{k}" for d in others for k in (10, 11))}, sort
        assert all({"candlewick_sort_ms", "candlewick_argsort_ms"} <= set(row) for row in sort.values()), sort
    elif name == "linalg_fft":  # the fake runtime has no hipSOLVER: each case records its error
        assert set(record["figures"]["cases"]) == {"solve@batched:float32", "cholesky@batched:float32"}
    elif name == "rocm_host_path":
        rows = record["figures"]["candlewick"]
        assert record["figures"]["stages_error"] is None  # bench/diagnostics.py reached its internals
        assert set(rows) == {"add", "sum", "where"}
        for row in rows.values():  # the fake runtime launches through hip-python: no bare ctypes call
            assert {"namespace call", "primitive", "allocate and free the result", "pack and launch"} <= set(row)
            assert row["launch call"] is None and row["HIP launch from C"] is None
        assert "hip-python" in record["figures"]["launch_floor_error"]  # no ctypes launch function to call from C
    elif name == "rocm_transfers":  # the fake runtime moves no bytes: each copy's check records its error
        row = record["figures"]["libraries"]["candlewick"]["1"]
        assert set(row) == {"h2d pageable", "h2d pinned", "d2h pageable", "d2h pinned"}, row
        assert set(record["figures"]["peak_bytes"]["the whole run"]) == {"candlewick"}
    elif name == "rocm_streams":
        row = record["figures"]["libraries"]["candlewick"]
        assert {"compute_ms", "copies_ms", "serial_ms", "overlapped_ms", "overlap"} <= set(row), row
    elif name == "inplace":
        rows = record["figures"]["rocm"]
        assert [r["case"] for r in rows] == list(INPLACE_CASES), rows
        assert all("candlewick_ms" in r and "candlewick_extra_bytes" in r for r in rows), rows
    elif name == "rocm_graphs":
        row = record["figures"]["libraries"]["candlewick"]
        assert {"eager_us", "replay_us", "replay_equals_eager"} <= set(row), row
    elif name == "fusion":
        cases = record["figures"]["cases"]
        for case in ("gelu", "softmax", "logsumexp"):
            assert {"candlewick eager", "candlewick fused", "candlewick lazy"} <= set(cases[case]), cases[case]
            assert all("GBps" in row for name, row in cases[case].items() if name.startswith("candlewick")), cases
    elif name == "pydata_e2e":  # every case recorded, with its time or its error, per library
        cases = record["figures"]["cases"]
        assert len(cases) == 9 and all({"candlewick", "candlewick lazy"} <= set(row) for row in cases.values()), cases
        assert all("s" in v or "error" in v for row in cases.values() for v in row.values()), cases
        for row in cases.values():  # one count of calls per sample, the same for every library timed
            assert len({v["calls_per_sample"] for v in row.values() if "s" in v}) <= 1, row
            # every round's figure kept (--rounds 1), its best the time recorded
            assert all(v["rounds_s"] == [v["s"]] for v in row.values() if "s" in v), row
        # each case the two modes ran: 6 fresh processes of 2 pairs each, an interval across them, a verdict
        pairs = record["figures"]["lazy_pairs"]
        assert set(pairs) == {name for name, row in cases.items() if "s" in row["candlewick"] and
                              "s" in row["candlewick lazy"]}, (pairs, cases)
        assert all(p["procs"] == 6 and p["pairs"] == 2 and not p["errors"] and len(p["ratios"]) == 6 and
                   p["interval"][0] <= p["ratio"] <= p["interval"][1] and p["verdict"] for p in pairs.values()), pairs
    else:
        pool = [r for r in record["figures"]["rows"] if r["case"].startswith("maxpool")]
        assert pool and all(r["candlewick_fallback"].get("path") == "fallback" for r in pool), pool


@pytest.mark.skipif(shutil.which("gcc") is None, reason="the runner's shim build needs gcc")
@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="a GPU machine: this checks the CPU dry run")
def test_runner_dry_run_without_gpu_skips_gpu_steps(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(["bash", str(RUNNER), str(out), "shim"], capture_output=True, text=True, timeout=300,
                          env=child_env(CANDLEWICK_COMMIT="test"))
    assert done.returncode == 0, done.stdout + done.stderr
    summary = (out / "summary.txt").read_text()
    assert "shim: built into" in summary and "shim: SKIPPED (needs a GPU" in summary, summary
    assert sorted(p.name for p in out.iterdir()) == ["results.tar.gz", "summary.txt"]
    with tarfile.open(out / "results.tar.gz") as tar:
        assert {"gpu_run/env.txt", "gpu_run/shim_build.log", "gpu_run/summary.txt"} <= set(tar.getnames())


def test_runner_refuses_an_unknown_stage(tmp_path):
    done = subprocess.run(["bash", str(RUNNER), str(tmp_path), "bogus"], capture_output=True, text=True)
    assert done.returncode == 64 and "unknown stage 'bogus'" in done.stderr


@pytest.mark.skipif(importlib.util.find_spec("cubed") is None, reason="cubed is not installed")
def test_cubed_out_of_core_records_both_namespaces(tmp_path):
    """The CPU benchmark end to end on a small array: one record, candlewick and NumPy chunks."""
    args = ["--rows", "400", "--cols", "20", "--chunk-rows", "100", "--executor", "single-threaded"]
    done = subprocess.run([sys.executable, str(BENCH / "cubed_out_of_core.py"), "--out", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=300,
                          env=child_env(PYTHONPATH=str(ROOT), CANDLEWICK_DEVICE_KIND="fake",
                                        CANDLEWICK_COMMIT="test"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    record = json.loads((tmp_path / "cubed_out_of_core_fake.json").read_text())
    assert RECORD_KEYS <= set(record) and {"cubed", "zarr", "numpy"} <= set(record["peers"])
    runs = record["figures"]["runs"]
    assert set(runs) == {"candlewick", "numpy"}
    for namespace, run in runs.items():
        checked = {step: s["equals_numpy"] for step, s in run["steps"].items() if "equals_numpy" in s}
        assert checked == {"sum over axis 0": True, "max": True, "x.T @ x": True}, (namespace, run)
        assert {s["result_type"] for s in run["steps"].values() if "result_type" in s} == {namespace}
    assert "| x.T @ x | numpy |" in (tmp_path / "cubed_out_of_core_fake.md").read_text()


@pytest.mark.skipif(importlib.util.find_spec("distributed") is None, reason="dask.distributed is not installed")
def test_multi_gpu_dask_records_one_cpu_worker_without_a_gpu(tmp_path):
    """The Dask benchmark end to end without a GPU (one cpu worker; about 15-25 s on the
    2-core CI machine, most of it the worker process's start): a record whose results
    equal NumPy's. On a GPU machine (tools/gpu_run.sh multigpu) it runs per GPU."""
    args = ["--blocks-per-gpu", "2", "--rows", "256", "--cols", "32", "--reps", "1"]
    env = child_env(PYTHONPATH=str(ROOT), CANDLEWICK_DEVICE_KIND="fake", CANDLEWICK_COMMIT="test",
                    HIP_VISIBLE_DEVICES="")  # no GPU visible, whatever this machine has
    done = subprocess.run([sys.executable, str(BENCH / "multi_gpu_dask.py"), "--out", str(tmp_path), *args],
                          capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    record = json.loads((tmp_path / "multi_gpu_dask_fake.json").read_text())
    assert RECORD_KEYS <= set(record)
    (run,) = record["figures"]["runs"].values()
    assert run["workers"] == 1 and run["worker_devices"] == ["cpu"], run
    assert run["column_sums_match"] and run["gram_match"], run


def test_inplace_records_cpu_time_and_peak_memory_beside_numpy(tmp_path):
    """bench/inplace.py's cpu part end to end on small arrays: every case, both libraries,
    a peak measured in a fresh process (0 above the inputs for candlewick's updates)."""
    done = subprocess.run([sys.executable, str(BENCH / "inplace.py"), "--out", str(tmp_path), "--log2-sizes", "20",
                           "--backends", "cpu"], capture_output=True, text=True, timeout=300,
                          env=child_env(PYTHONPATH=str(ROOT), CANDLEWICK_DEVICE_KIND="fake", CANDLEWICK_COMMIT="test"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    rows = json.loads((tmp_path / "inplace_fake.json").read_text())["figures"]["cpu"]
    assert [r["case"] for r in rows] == list(INPLACE_CASES)
    for row in rows:
        assert row["numpy_ms"] > 0 and row["candlewick_ms"] > 0, row
        assert isinstance(row["candlewick_extra_bytes"], int), row
        assert row["candlewick_extra_bytes"] < row["input_bytes"] // 4, row
