"""The host memory this process may still take: the machine's available memory, capped by
the limits set on the process (its address-space and data limits, ``RLIMIT_AS`` and
``RLIMIT_DATA``: ``ulimit -v``) and on its control group (cgroup v2 ``memory.max``, v1
``memory.limit_in_bytes``, at every level up to the root).

A backend whose memory is host memory (cpu) reports this as its free memory, so that
``allocation.check_allocation`` refuses a result the process could not hold under its
limits, before the allocator fails or the operating system's OOM killer ends it. Linux
only (``/proc``, ``/sys/fs/cgroup``); elsewhere, and for a limit that cannot be read, the
machine's figures stand.
"""

import os
import resource

_CGROUP_ROOT = "/sys/fs/cgroup"
_UNLIMITED = 2**62  # cgroup v1 writes "no limit" as a number near 2**63


def machine_memory():
    """(available, total) bytes of the machine: /proc/meminfo, else sysconf."""
    try:
        fields = {}
        with open("/proc/meminfo") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in ("MemTotal", "MemAvailable"):
                    fields[key] = int(rest.split()[0]) * 1024  # reported in kB
        return fields["MemAvailable"], fields["MemTotal"]
    except (OSError, ValueError, KeyError, IndexError):
        page = os.sysconf("SC_PAGE_SIZE")
        return os.sysconf("SC_AVPHYS_PAGES") * page, os.sysconf("SC_PHYS_PAGES") * page


def process_limits():
    """[(room left, limit)] for each limit set on this process: the address-space and
    data rlimits against the process's own use, and each cgroup level's memory limit
    against that group's use."""
    limits = []
    status = _status_fields(("VmSize", "VmData"))
    for which, field in ((resource.RLIMIT_AS, "VmSize"), (getattr(resource, "RLIMIT_DATA", None), "VmData")):
        if which is None:
            continue
        soft = resource.getrlimit(which)[0]
        if soft != resource.RLIM_INFINITY and field in status:
            limits.append((max(soft - status[field], 0), soft))
    return limits + _cgroup_limits()


def available_memory():
    """(available, total) bytes this process may use: ``machine_memory`` capped by every
    limit of ``process_limits``."""
    available, total = machine_memory()
    try:
        limits = process_limits()
    except (OSError, ValueError):
        limits = []
    for room, limit in limits:
        available, total = min(available, room), min(total, limit)
    return available, total


def _status_fields(names):
    fields = {}
    try:
        with open("/proc/self/status") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in names:
                    fields[key] = int(rest.split()[0]) * 1024  # reported in kB
    except (OSError, ValueError, IndexError):
        pass
    return fields


def _read_int(path):
    try:
        with open(path) as f:
            text = f.read().strip()
    except OSError:
        return None
    if text == "max":
        return None
    try:
        value = int(text)
    except ValueError:
        return None
    return None if value >= _UNLIMITED else value


def _cgroup_limits():
    """(room, limit) for each level of this process's memory cgroup with a limit set."""
    try:
        with open("/proc/self/cgroup") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":  # v2: one unified hierarchy
            base, limit_file, usage_file = _CGROUP_ROOT, "memory.max", "memory.current"
            if os.path.isdir(os.path.join(_CGROUP_ROOT, "unified")):  # hybrid: v2 mounted beside v1
                base = os.path.join(_CGROUP_ROOT, "unified")
        elif "memory" in controllers.split(","):
            base, limit_file, usage_file = os.path.join(_CGROUP_ROOT, "memory"), "memory.limit_in_bytes", \
                "memory.usage_in_bytes"
        else:
            continue
        levels = path.strip("/").split("/") if path.strip("/") else []
        for depth in range(len(levels), -1, -1):  # the process's own group first, then each parent
            group = os.path.join(base, *levels[:depth])
            limit = _read_int(os.path.join(group, limit_file))
            if limit is None:
                continue
            usage = _read_int(os.path.join(group, usage_file)) or 0
            found.append((max(limit - usage, 0), limit))
    return found
