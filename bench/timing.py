"""The timing loops of bench/: a call's time per call on a device (:func:`timed`, with its
host issue time :func:`issue_time` and its kernels' device time :func:`device_us`), and
the peers timed in turn within each round, the order rotated a round, so that the host's
drift reaches every library alike (:func:`interleaved`, :func:`rotated_rounds`), with the
median and quartiles of two peers' per-round ratio (:func:`paired_ratio`) and a confidence
interval for such a median (:func:`median_interval`).
bench/harness.py writes what they measure into the record."""

import math
import statistics
import time
import timeit

from harness import error_text  # (bench/ is on sys.path wherever a benchmark runs)


def timed(fn, sync, reps=10, batches=5, warmup=2):
    """Median seconds per call of ``fn``: ``batches`` batches of ``reps`` calls queued
    back to back, each batch ended by ``sync`` (host clock), after ``warmup`` calls."""
    for _ in range(warmup):
        fn()
    sync()
    samples = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        samples.append((time.perf_counter() - t0) / reps)
    return statistics.median(samples)


def issue_time(fn, sync, reps=10, batches=5):
    """Median host seconds per call of ``fn`` up to its return (its device work queued, not
    waited for): a batch of ``reps`` calls after a ``sync``, timed before the closing
    ``sync``. Beside ``timed``'s figure it tells a host-bound call (issue time at or above
    the time per call) from a device-bound one."""
    samples = []
    for _ in range(batches):
        sync()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        samples.append((time.perf_counter() - t0) / reps)
    sync()
    return statistics.median(samples)


def calibrate(fn, budget=0.02, timer=timeit.default_timer):
    """Calls per timing run so that one run takes about ``budget`` seconds."""
    fn()
    number = 1
    while timeit.timeit(fn, number=number, timer=timer) < budget / 4 and number < 1 << 20:
        number *= 4
    return number


def interleaved(fns, rounds=9, timer=timeit.default_timer):
    """Seconds per call of each function of ``fns`` ({name: function}): the minimum over
    ``rounds`` runs, the peers measured in turn within each round so that machine drift
    hits them alike (the minimum is the figure least disturbed by other load, as timeit's
    docs advise). ``timer``: the clock (wall time by default; ``time.process_time`` counts
    only this process's CPU time)."""
    return {k: min(times) for k, times in interleaved_rounds(fns, rounds, timer).items()}


def interleaved_rounds(fns, rounds=9, timer=timeit.default_timer):
    """``interleaved``'s runs themselves: {name: [seconds per call in each round]}, the
    k-th entry of every list from the same round (peers in turn, the order rotated by one
    place a round), for figures that pair the peers round by round."""
    numbers = {k: calibrate(f, timer=timer) for k, f in fns.items()}
    times = {k: [] for k in fns}
    order = list(fns)
    for r in range(rounds):
        for k in order[r % len(order):] + order[:r % len(order)]:
            times[k].append(timeit.timeit(fns[k], number=numbers[k], timer=timer) / numbers[k])
    return times


def rotated_rounds(turns, rounds, errors=None, rounds_out=None):
    """The best figure of each turn of ``turns`` ({name: turn}) over ``rounds`` rounds.

    Each round calls every turn once, the order rotated by one place a round, so that the
    host's drift over the run (these hosts' clocks wander by tens of percent within a
    minute) reaches every library alike instead of whichever one runs last. A turn returns
    its figure for the round: seconds, or {label: seconds} for several; the best is the
    smallest (per label). ``errors``: None lets a turn's exception propagate; a dict gets
    the error text under the turn's name, and that turn sits out the later rounds (its
    figures of the earlier rounds stand). ``rounds_out``: a dict that gets every figure
    too, {name: [its figure of each round it ran, in order]}, for ratios paired round by
    round (``paired_ratio``)."""
    best, order = {}, list(turns)
    for r in range(rounds if order else 0):
        shift = r % len(order)
        for name in order[shift:] + order[:shift]:
            if errors is not None and name in errors:
                continue
            try:
                figure = turns[name]()
            except Exception as exc:  # noqa: BLE001 - recorded where the caller asked
                if errors is None:
                    raise
                errors[name] = error_text(exc)
                continue
            if rounds_out is not None:
                rounds_out.setdefault(name, []).append(figure)
            if isinstance(figure, dict):
                held = best.setdefault(name, {})
                for label, value in figure.items():
                    held[label] = min(held.get(label, value), value)
            else:
                best[name] = min(best.get(name, figure), figure)
    return best


def paired_ratio(a, b):
    """(median, lower quartile, upper quartile) of ``a[i] / b[i]``, the figures of two
    peers timed in the same rounds (paired by position, as ``interleaved_rounds`` and
    ``rotated_rounds``' ``rounds_out`` give them; the longer list cut to the shorter): a
    round's drift reaches both figures of that round alike, so their ratio cancels it.
    Quartiles by linear interpolation between the ratios (``statistics.quantiles``'
    "inclusive" method, NumPy's default percentile); None where either list is empty."""
    ratios = [x / y for x, y in zip(a, b)]
    if not ratios:
        return None
    if len(ratios) == 1:  # (statistics.quantiles wants two points before Python 3.13)
        return ratios[0], ratios[0], ratios[0]
    low, median, high = statistics.quantiles(ratios, n=4, method="inclusive")
    return median, low, high


def median_interval(values, confidence=0.95):
    """(low, high): a confidence interval for the median of the distribution ``values``
    were drawn from, distribution-free: the order statistics v(k) and v(n + 1 - k) of the
    n sorted values, k the largest with P(Binomial(n, 1/2) < k) <= (1 - confidence) / 2
    (each value falls below the median with probability one half, whatever the
    distribution's shape: no normality assumed of timing ratios, whose tails are long).
    None where n is too small for any such k (fewer than 6 values at 95 %)."""
    n = len(values)
    tail = (1 - confidence) / 2
    below, k = 0.0, 0  # below: P(Binomial(n, 1/2) < k)
    while k < n:
        step = math.comb(n, k) / 2 ** n  # P(Binomial = k): exact integers, then one division
        if below + step > tail:
            break
        below += step
        k += 1
    if k == 0:
        return None
    ordered = sorted(values)
    return ordered[k - 1], ordered[n - k]


def kernel_times(fn, sync, reps=5):
    """[(device µs per call, launches per call, kernel name)] of ``fn``'s kernels, from
    torch.profiler (CUPTI sees every kernel of the process, candlewick's included);
    None without torch or a CUDA device."""
    try:
        import torch  # optional, loaded only when present
        from torch.profiler import ProfilerActivity, profile
    except Exception:  # noqa: BLE001
        return None
    if not torch.cuda.is_available():  # a CPU-only torch has no CUDA activity to profile
        return None
    fn()
    sync()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        sync()
    rows = []
    for event in prof.key_averages():
        us = getattr(event, "device_time_total", None) or getattr(event, "cuda_time_total", 0)
        if us:
            rows.append((us / reps, event.count // reps, event.key))
    return sorted(rows, reverse=True)


def device_us(fn, sync, reps=5):
    """Device microseconds per call of ``fn`` (the sum of its kernels); None without torch."""
    rows = kernel_times(fn, sync, reps)
    return None if rows is None else sum(row[0] for row in rows)
