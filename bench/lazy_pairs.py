"""Lazy mode against eager mode over many paired rounds: bench/pydata_e2e.py's figure for
issue 39's item 4 ("the e2e cases at least as fast in lazy mode as without").

Where lazy mode makes the very launches eager mode makes (nothing in the case fuses), the
two modes' times differ by lazy mode's host work alone, a fraction of a percent, while one
sample's time wanders by a percent or more between rounds: the 21 rounds that rank the
libraries leave such a case's ratio of minimums anywhere within that noise. Here only
the two modes run, ``pairs`` times each, a pair's two samples back to back in ABBA order
(eager first in even pairs, lazy first in odd ones, so that neither mode always follows
the other), and the figure is the median over the pairs of lazy / eager within a pair,
with a 95 % confidence interval for that median (``timing.median_interval``:
distribution-free). The verdict reads the interval: **below** (lazy faster: the interval
under 1), **above** (lazy slower: over 1), else **at eager's time** (the interval holds 1:
no difference this run can tell). That interval covers one process's own noise only:
bench/lazy_procs.py runs these pairs in several fresh processes and judges each case by
the spread across them. Beside it, each mode's median host time to issue a call
(until the call returns, before its synchronize): where it nears the time per call the
case is bound by the host, and lazy mode's extra host work shows there.
"""

import statistics

import candlewick as cw
import timing  # (bench/ is on sys.path wherever a benchmark runs)

CONFIDENCE = 0.95


def call(fn, data, lazy):
    """``fn(data)`` in lazy mode where ``lazy``, else eagerly."""
    if not lazy:
        return fn(data)
    with cw.lazy():
        return fn(data)


def sampler(call, data, sync, calls, clock):
    """A function of ``lazy`` giving one sample: (seconds per call, host seconds per call
    to issue it), over ``calls`` calls each ended by ``sync``, after one untimed call
    where ``calls`` is more than one (as bench/pydata_e2e's rounds)."""
    def sample(lazy):
        if calls > 1:
            call(data, lazy)
            sync()
        wall = issue = 0.0
        for _ in range(calls):
            t0 = clock()
            call(data, lazy)
            t1 = clock()
            sync()
            t2 = clock()
            wall += t2 - t0
            issue += t1 - t0
        return wall / calls, issue / calls
    return sample


def measure(sample, pairs):
    """The figures of ``pairs`` pairs of ``sample(False)`` (eager) and ``sample(True)``
    (lazy), in ABBA order: {"pairs", "ratio" (median of lazy / eager), "interval",
    "verdict", "eager_us" / "lazy_us" (median time per call),
    "eager_issue_us" / "lazy_issue_us" (median host time to issue one)}."""
    figures = {False: [], True: []}
    for i in range(pairs):
        for lazy in ((False, True) if i % 2 == 0 else (True, False)):
            figures[lazy].append(sample(lazy))
    ratios = [lz[0] / eg[0] for lz, eg in zip(figures[True], figures[False])]
    row = {"pairs": pairs, "ratio": statistics.median(ratios) if ratios else None,
           "interval": timing.median_interval(ratios, CONFIDENCE)}
    row["verdict"] = verdict(row["interval"])
    for lazy, name in ((False, "eager"), (True, "lazy")):
        if figures[lazy]:
            row[f"{name}_us"] = statistics.median(f[0] for f in figures[lazy]) * 1e6
            row[f"{name}_issue_us"] = statistics.median(f[1] for f in figures[lazy]) * 1e6
    return row


def verdict(interval):
    """The verdict on the interval of lazy / eager: "below", "above" or "at eager's time"
    (None: too few pairs to tell)."""
    if interval is None:
        return None
    low, high = interval
    return "below" if high < 1 else "above" if low > 1 else "at eager's time"


def met(rows):
    """Item 4's target over ``rows`` ({case: a row with a "verdict", as ``measure`` and
    lazy_procs.combine give}): no case above eager's time
    (None where no case has an interval)."""
    verdicts = [row.get("verdict") for row in rows.values() if row.get("verdict")]
    return None if not verdicts else "above" not in verdicts


def us(value):
    """A time in microseconds as a table shows it."""
    if value is None:
        return "-"
    return f"{value / 1e3:.2f} ms" if value >= 1e3 else f"{value:.1f} us"
