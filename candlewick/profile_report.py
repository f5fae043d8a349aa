"""What a profile reports (``candlewick.profile``, docs/gpu.md): its records, one per
primitive call, and their totals as a table and a timeline plot. ``profiler`` records
them; this module reads them only.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import Any

__all__ = ["ProfileReport", "Record"]


@dataclass(frozen=True)
class Record:
    """One primitive call. Times in milliseconds; ``start_ms`` on the host clock from the
    profile's start, ``device_start_ms`` on the device's clock from its first record in the
    profile (None where the device has no streams or the call could not be timed)."""

    primitive: str
    op: str
    dtype: str
    shapes: tuple
    device: str
    stream: str
    thread: int
    start_ms: float
    host_ms: float
    device_ms: float | None
    device_start_ms: float | None


class ProfileReport:
    """The reports of a list of ``Record``: ``totals()``, ``table()``, ``plot()``."""

    records: list[Record]

    def totals(self) -> list[dict]:
        """Per (primitive, op, dtype): calls, host and device milliseconds (total), the
        most frequent operand shapes; the most device time first (host time without it)."""
        groups: dict = collections.OrderedDict()
        for r in self.records:
            g = groups.setdefault((r.primitive, r.op, r.dtype),
                                  {"primitive": r.primitive, "op": r.op, "dtype": r.dtype, "calls": 0,
                                   "host_ms": 0.0, "device_ms": None, "shapes": collections.Counter()})
            g["calls"] += 1
            g["host_ms"] += r.host_ms
            if r.device_ms is not None:
                g["device_ms"] = (g["device_ms"] or 0.0) + r.device_ms
            g["shapes"][r.shapes] += 1
        rows = []
        for g in groups.values():
            g["shapes"] = g["shapes"].most_common(1)[0][0]
            rows.append(g)
        rows.sort(key=lambda g: (-(g["device_ms"] if g["device_ms"] is not None else -1), -g["host_ms"]))
        return rows

    def table(self, limit: int | None = None) -> str:
        """The totals as a text table (``limit`` rows at most), with a total line."""
        rows = self.totals()[:limit]
        head = ("primitive", "op", "dtype", "calls", "host ms", "host us/call", "device ms", "device us/call",
                "shapes")
        body = []
        for g in rows:
            dev = g["device_ms"]
            body.append((g["primitive"], g["op"], g["dtype"], str(g["calls"]), f"{g['host_ms']:.3f}",
                         f"{1e3 * g['host_ms'] / g['calls']:.1f}", "-" if dev is None else f"{dev:.3f}",
                         "-" if dev is None else f"{1e3 * dev / g['calls']:.1f}",
                         ", ".join(str(s) for s in g["shapes"]) or "-"))
        host = sum(r.host_ms for r in self.records)
        device = [r.device_ms for r in self.records if r.device_ms is not None]
        body.append(("total", "", "", str(len(self.records)), f"{host:.3f}", "", f"{sum(device):.3f}" if device
                     else "-", "", ""))
        widths = [max(len(row[i]) for row in [head] + body) for i in range(len(head))]

        def line(row):
            return "  ".join(c.ljust(w) if i in (0, 1, 2, 8) else c.rjust(w)
                             for i, (c, w) in enumerate(zip(row, widths))).rstrip()

        return "\n".join([line(head), line(tuple("-" * w for w in widths))] + [line(r) for r in body])

    def __str__(self) -> str:
        return self.table()

    def plot(self, ax: Any = None) -> Any:
        """A timeline: each call as a bar on its thread's host lane and its stream's device
        lane, colored by primitive; returns the matplotlib Figure (matplotlib is imported
        here: it is needed for the plot only)."""
        import matplotlib.pyplot as plt  # optional library, loaded lazily (the plot only)

        lanes: list[tuple[str, float, float, str]] = []
        for r in self.records:
            lanes.append((f"host {r.thread:x}", r.start_ms, r.host_ms, r.primitive))
            if r.device_ms is not None and r.device_start_ms is not None:
                lanes.append((f"{r.device} {r.stream}", r.device_start_ms, r.device_ms, r.primitive))
        names = list(dict.fromkeys(lane for lane, *_ in lanes))
        prims = list(dict.fromkeys(p for *_, p in lanes))
        colors = {p: plt.cm.tab20(i % 20) for i, p in enumerate(prims)}
        if ax is None:
            fig, ax = plt.subplots(figsize=(10, 1 + 0.5 * max(len(names), 1)))
        else:
            fig = ax.figure
        for lane, start, width, prim in lanes:
            ax.broken_barh([(start, max(width, 1e-4))], (names.index(lane) - 0.4, 0.8), color=colors[prim])
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("ms (host lanes: host clock from the profile's start; device lanes: device clock "
                      "from its first call)")
        handles = [plt.Rectangle((0, 0), 1, 1, color=colors[p]) for p in prims]
        if handles:
            ax.legend(handles, prims, loc="upper left", bbox_to_anchor=(1.01, 1), fontsize="small")
        ax.invert_yaxis()
        fig.tight_layout()
        return fig
