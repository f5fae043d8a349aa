"""What a program asked of a backend: calls, dtypes and bytes per primitive."""

import threading
from dataclasses import dataclass


@dataclass
class Tally:
    calls: int = 0
    bytes_read: int = 0
    bytes_written: int = 0


class Recorder:
    """Counts per ``(primitive, op, dtype)``: ``op`` is the op enum member of
    unary/binary/compare/reduce/scan calls (else ""), ``dtype`` the input's dtype name."""

    def __init__(self):
        self._lock = threading.Lock()
        self._tallies = {}

    def record(self, primitive, op, dtype, bytes_read, bytes_written):
        key = (primitive, op, dtype)
        with self._lock:
            tally = self._tallies.setdefault(key, Tally())
            tally.calls += 1
            tally.bytes_read += bytes_read
            tally.bytes_written += bytes_written

    def reset(self):
        with self._lock:
            self._tallies.clear()

    def rows(self):
        """``[(primitive, op, dtype, Tally)]``, the most bytes first."""
        with self._lock:
            items = [(k, Tally(t.calls, t.bytes_read, t.bytes_written)) for k, t in self._tallies.items()]
        items.sort(key=lambda kv: (-(kv[1].bytes_read + kv[1].bytes_written), kv[0]))
        return [(*key, tally) for key, tally in items]

    def format(self):
        """The profile as a text table, with totals."""
        rows = self.rows()
        head = ("primitive", "op", "dtype", "calls", "bytes read", "bytes written")
        body = [(p, o, d, str(t.calls), f"{t.bytes_read:,}", f"{t.bytes_written:,}") for p, o, d, t in rows]
        totals = [sum(t.calls for *_, t in rows), sum(t.bytes_read for *_, t in rows),
                  sum(t.bytes_written for *_, t in rows)]
        body.append(("total", "", "", str(totals[0]), f"{totals[1]:,}", f"{totals[2]:,}"))
        widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
        def line(r):
            return "  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        return "\n".join([line(head), line(tuple("-" * w for w in widths))] + [line(r) for r in body])
