"""Dask with one worker process per GPU (``local_gpu_cluster``), as dask-cuda's
``LocalCUDACluster`` does for CuPy (docs/scaling.md).

Each worker is a process of its own (a dask Nanny) that sees one GPU: its environment
holds ``HIP_VISIBLE_DEVICES`` (and ``CUDA_VISIBLE_DEVICES``, which the HIP-on-CUDA shim's
runtime reads) set to that GPU's id, so that GPU is ``rocm:0`` there, and
``CANDLEWICK_DEVICE=rocm``, so the chunks its tasks create land on it. Every worker
preloads ``candlewick.dask_dispatch`` (Dask joins candlewick chunks with candlewick's
``concat``). Without a GPU, one worker runs with the environment as it is (cpu chunks).

Dask and dask.distributed are optional (the ``ecosystem`` extra): they are imported when
a cluster is made, never by importing this module.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence
from typing import Any

from .errors import ArgumentTypeError, ArgumentValueError, short_repr
from .registry import backends

__all__ = ["local_gpu_cluster", "visible_gpus", "worker_environment"]

#: the variables that pin a worker to one GPU (HIP's; CUDA's for the HIP-on-CUDA shim)
PIN_VARIABLES = ("HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")


def visible_gpus() -> list[str]:
    """The ids of the GPUs this process may use: ``HIP_VISIBLE_DEVICES`` (else
    ``CUDA_VISIBLE_DEVICES``) where set, else ``0 .. n-1`` for the rocm backend's ``n``
    devices (none where it is unavailable)."""
    for name in PIN_VARIABLES:
        value = os.environ.get(name)
        if value is not None:
            return [v.strip() for v in value.split(",") if v.strip()]
    for info in backends():
        if info.name == "rocm" and info.available:
            return [str(i) for i in range(info.device_count)]
    return []


def worker_environment(gpu: str | None) -> dict[str, str]:
    """The environment variables a worker pinned to ``gpu`` starts with (none for None:
    a worker without a GPU)."""
    if gpu is None:
        return {}
    return {**{name: str(gpu) for name in PIN_VARIABLES}, "CANDLEWICK_DEVICE": "rocm"}


def _gpu_ids(devices):
    if devices is None:
        return visible_gpus()
    if isinstance(devices, (str, bytes)) or not isinstance(devices, Sequence):
        raise ArgumentTypeError(f"local_gpu_cluster: devices must be a sequence of GPU ids (ints or strings), got "
                                f"{short_repr(devices)}")
    ids = []
    for d in devices:
        if isinstance(d, bool) or not isinstance(d, (int, str)) or str(d).strip() in ("", "-1"):
            raise ArgumentTypeError(f"local_gpu_cluster: each of devices must be a GPU id (an int or a string "
                                    f"such as 0 or 'GPU-uuid'), got {short_repr(d)}")
        ids.append(str(d).strip())
    if len(set(ids)) != len(ids):
        raise ArgumentValueError(f"local_gpu_cluster: each GPU may appear once in devices, got {ids}")
    return ids


_cluster_class: Any = None


def _gpu_cluster_class():
    """``LocalCluster`` whose new workers each take the next unused GPU (made on first use)."""
    global _cluster_class
    if _cluster_class is None:
        from distributed import LocalCluster  # optional library, loaded lazily

        class LocalGPUCluster(LocalCluster):
            """A LocalCluster of worker processes, each pinned to one GPU (``gpus``)."""

            def __init__(self, gpus, **kwargs):
                self.gpus = list(gpus)
                super().__init__(n_workers=0, processes=True, **kwargs)
                self.scale(max(1, len(self.gpus)))

            def new_worker_spec(self):
                ((name, spec),) = super().new_worker_spec().items()
                spec = copy.deepcopy(spec)
                taken = {s.get("options", {}).get("env", {}).get(PIN_VARIABLES[0]) for s in self.worker_spec.values()}
                free = [g for g in self.gpus if g not in taken]
                options = spec.setdefault("options", {})
                options["env"] = {**options.get("env", {}), **worker_environment(free[0] if free else None)}
                return {name: spec}

        _cluster_class = LocalGPUCluster
    return _cluster_class


def local_gpu_cluster(devices: Sequence[int | str] | None = None, *, threads_per_worker: int = 1,
                      memory_limit: str | int | float | None = "auto", preload: Sequence[str] = (),
                      timeout: float = 120.0, **cluster_options: Any) -> Any:
    """A ``dask.distributed.LocalCluster`` with one worker process per GPU, each pinned to
    its GPU (``HIP_VISIBLE_DEVICES`` / ``CUDA_VISIBLE_DEVICES``, where it is ``rocm:0``) with
    ``rocm`` as its default device, so chunks its tasks create live on its GPU.

    Parameters
    ----------
    devices
        The GPU ids to start workers on (default: ``visible_gpus()``, every GPU this
        process may use). With none, one worker runs without a pin (cpu chunks, or the
        device ``CANDLEWICK_DEVICE`` names).
    threads_per_worker
        Threads of each worker (default 1: one stream of work per GPU).
    memory_limit
        Host memory limit of each worker, as ``LocalCluster`` takes it.
    preload
        Modules every worker imports at start, besides ``candlewick.dask_dispatch``.
    timeout
        Seconds to wait for every worker to start.
    **cluster_options
        Passed to ``LocalCluster`` (``dashboard_address``, ``scheduler_port``, ...).

    Returns
    -------
    distributed.LocalCluster
        Started, every worker up: connect with ``distributed.Client(cluster)``; close it
        (or use ``with``) to stop the workers.
    """
    gpus = _gpu_ids(devices)
    if isinstance(threads_per_worker, bool) or not isinstance(threads_per_worker, int) or threads_per_worker < 1:
        raise ArgumentValueError(f"local_gpu_cluster: threads_per_worker must be an int >= 1, got "
                                 f"{short_repr(threads_per_worker)}")
    cluster = _gpu_cluster_class()(gpus, threads_per_worker=threads_per_worker, memory_limit=memory_limit,
                                   preload=["candlewick.dask_dispatch", *preload], **cluster_options)
    try:
        cluster.wait_for_workers(max(1, len(gpus)), timeout=timeout)
    except BaseException:
        cluster.close()
        raise
    return cluster
