"""Which primitive calls lazy mode runs at once instead of recording them (docs/fusion.md,
"Lazy mode").

Recording a call pays only where its graph fuses. A graph that runs replayed (one
primitive call consumed at once, as ``x * y`` read by ``matmul``; a graph the device's
compiler has no plan for, as a column reduction over many rows) makes
the very calls eager mode makes, after recording each (~4-5 us in Python against eager's
~3 us in C) and running the pending graph (~10 us more). Code written eagerly runs the
same graphs again (a loop's iterations, an estimator fitted again), so every call of a
graph run replayed on a fusing device is counted by its key (the primitive, its
operands' dtypes and layouts, its scalars: what its recorded node holds). A call counted
``REPLAYS`` times whose operands are all computed runs at once (``Start``), as eager mode
runs it, and its result is computed; then the calls reading it start their own chains,
so a graph that never fuses runs eagerly from its next run on. A call that was part of
a fused graph is recorded again, its count started over (the same call elsewhere may
fuse again): ``REPLAYS`` replayed runs with no fused run between make it run at once.
The counts are per key, not per place in the code: a chain that fuses in one place
(StandardScaler's ``X -= mean; X /= scale``) may start with a call another place runs
alone (Ridge's ``X -= X_offset``, the same shapes), whose replays made it run at once.
A copy of a plain view its count would run at once is deferred instead (lazy_defer: the
calls that read it plainly, its update among them, read its source, so the copy is never
made; a copy of any other view runs), and recorded again at its ``PROBE``-th such call (its
graph then marked ``probing``): the calls reading its result join its graph (an
element-wise call on a probed plain copy, made on the copy's source, lazy_storage, is
recorded too), and where that graph fuses its calls, the copy's too, are marked and
recorded from then on (StandardScaler's copy, update and division fuse again); where it
replays, one run cost a recording more, and that copy's next probe comes twice as far.
A call of a graph whose result a consumer read as its own input is marked as fused
(``lazy_consume.KeptResults.consume``: ``spectrum * response`` written as irfft's private
copy saves that copy, even where the graph is one call).
Results are eager mode's either way: a replay makes the same primitive calls.
"""

from __future__ import annotations

from .._core import native_lazy_hook, native_start_methods
from ..layout import Layout  # noqa: F401  (read by the C decision among this module's globals)
from .graph import FUSED_REDUCTIONS
# (_NOT_AS_IS and call_key_of too: the C decision reads them here, where tests set them)
from .lazy_keys import _NOT_AS_IS, STORAGE_ARGS, call_key, call_key_of, pair_key  # noqa: F401

__all__ = ["ENDS", "RUN_AHEAD", "Start", "counted_replayed", "defers", "fused", "learn", "pinned_fused", "reset"]

#: how many replayed runs of a graph holding a call make it run at once (one replay may
#: be a chain cut short once: the same call later fuses)
REPLAYS = 2
#: a copy run at once for its count is recorded again at its PROBE-th such run (0: never),
#: so that a chain it starts here fuses though the same copy and update elsewhere
#: replayed. Only the copy: what is done to a copy's result (written in place, as
#: scikit-learn's ``copy=True`` is) makes whether it fuses, so its key says little;
#: another call's key holds its own work, and probing those (StandardScaler's statistics,
#: whose fused runs on small results cannot be kept) cost ~1 % of its call on the fake
#: runtime (tests/rocm/host/pydata_fake.py). Each probe
#: puts the next one twice as far, up to PROBE << PROBE_DOUBLINGS runs, until the copy's
#: answer changes (a fused probe marks it): a probe that teaches nothing (Ridge's, whose
#: graphs replay; scipy.signal.fftconvolve's, whose copy rfft reads) costs a recording and
#: a graph run more than the copy at once, which at every 16th call cost fftconvolve
#: 1.5 % of its time on an H200 host (2026-12-04, bench/results/rocm_gpu_tests)
PROBE = 16
PROBE_DOUBLINGS = 2
#: a call whose operands are all computed and each hold fewer bytes runs at once: what
#: fusing its chain saves is device traffic (a write and a read of each intermediate, ~4 us
#: per 8 MiB on an H200), what recording it costs is host time (about an eager launch's
#: more per call); bench/pydata_e2e's KMeans-like loop on (200000, 8) distances ran 17 %
#: slower recorded than eager on the H200 (2026-11-29)
RECORD_BYTES = 1 << 23
#: the least bytes of a pending result whose consumer makes a private copy of it (irfft,
#: lazy_consume.consume_irfft) for the graph to write that copy: the copy's pass saved
#: is device time (~0.5 us per MB of spectrum on an H200), the recording and the run of
#: the graph host time (~29 us a call more than eager mode's there, measured on
#: irfft(rfft(x) * h)), so it pays only where eager's device time outlasts the path's
#: host time. H200, 2026-12-01, lazy / eager of irfft(rfft(x) * h) with the path against
#: without it (the graph run, then the primitive): 25.6 MB spectra 1.04 against 0.96,
#: 32 MB 0.85 / 0.98, 38.4 MB 0.82 / 0.99 (but scipy.signal.fftconvolve's ~39 MB 1.00 /
#: 0.96), 44.8 MB 0.80 / 0.99 (fftconvolve 0.90 / 0.98), 51 MB 0.80 / 0.99; bench/
#: pydata_e2e's 12.8 MB 1.57 / 0.94 (host-bound)
CONSUME_BYTES = 40 << 20
#: a graph that ran on a fusing device runs ahead of its consumer the next time its
#: recording reaches the same nodes (lazy_ahead). The tests that pin what stays pending
#: set it False (tests/conftest.py)
RUN_AHEAD = True
#: a ``with lazy():`` statement (where candlewick._native is built: _native_lazy_sites.c)
#: whose block runs no compiled graph (``fused``) times SITE_RUNS recorded runs and as many
#: quiet ones (eagerly: lazy mode on, nothing recorded) in turn, and the
#: faster of the two modes (each one's least time of a run, from its entry to the
#: statement's next entry, so that what the block left the device shows in the caller's
#: wait; on SITE_CLOCK: None, a monotonic clock; a test gives a callable of seconds; the
#: recorded mode only where it was over 1 % faster) runs its next SITE_QUIET entries; a
#: decision that stands at the next comparison holds twice as long, up to SITE_QUIET <<
#: SITE_DOUBLINGS (256) entries (each switch of mode costs a run more than the runs
#: after it), until three of a decision's blocks in a row take over twice
#: or under half its mode's least in the deciding window (its work changed: the learning
#: starts over). A block in which a compiled graph ran records, its learning started
#: over: fusing is what lazy mode is for. A recorded block no call of which was given a
#: graph (a device without "fusion", as cpu, or every operand below RECORD_BYTES) ran eager
#: mode's calls and its checks: its statement decides quiet at the exit, timing nothing.
#: Code that fuses nothing may win in lazy mode (PCA full's deferred copy of X: lazy /
#: eager 0.987 on the H100) or lose (Ridge, host-bound: 57-90 us of checks on a 12 ms fit
#: on the H100 and H200 hosts, bench/results/rocm_gpu_tests, session 37; fftconvolve's
#: saved irfft copy on a host-bound 0.18 ms call, 1.011 on the H100). A statement is a
#: place, not a computation: a helper that opens one block for any work
#: (bench/lazy_pairs.call) learns from all of it (0: never learn)
SITE_RUNS = 3
SITE_QUIET = 8
SITE_DOUBLINGS = 5
SITE_CLOCK = None
#: the keys kept (all dropped past it: the dict stays a small lookup)
MAX_KEYS = 4096
_FUSES = -1
#: the mark of a binary call irfft read alone (lazy_defer: deferred, not recorded)
_DEFERS = -2

_counts: dict = {}  # call key -> replayed runs counted, or _FUSES
#: where graphs ran (lazy_ahead: (device id, node count, last node key) -> (every node key,
#: the indices of the nodes run)), kept here so that ``reset`` forgets them too
ENDS: dict = {}
_ripe: set = set()  # the primitives of the keys counted REPLAYS times (no key made for the others)
#: key -> (its runs at once since its last probe, its probes) (the path without
#: candlewick._native; the C decision keeps them with each kept answer,
#: _native_lazy_memo.c). A change of another key's count leaves them (a fused run
#: elsewhere would otherwise restart every count to a probe); a change of its own drops it
_tallies: dict = {}
#: bumped each time a call marked fusing is counted again (a graph holding it ran
#: replayed): a run marked as having nothing left to teach (``run.pinned``, this value
#: when marked; never 0, so that a marked run's mark is true) learns again, so that a
#: call that fuses again is marked again
recounts = 1
#: bumped at each change of _counts: the C decision (_native_lazy_key.c) keeps the answer
#: of a call's last key while this stands
_generation = 0


def reset() -> None:
    """Forget every count and what every ``lazy()`` statement learned (tests start from a
    clean state)."""
    global _generation
    _counts.clear()
    _ripe.clear()
    _tallies.clear()
    ENDS.clear()
    _forget_sites()
    _generation += 1


#: ``fused()``: count one compiled graph that ran, for the ``lazy()`` statement running it
#: (SITE_RUNS: such a statement records). A copy deferred, or written by a graph as a
#: consumer's input (irfft's), does not count: what it saves shows, where it does, in the
#: time between the statement's entries, which decides its mode. Without candlewick._native
#: no statement learns: nothing to count
fused = native_lazy_hook("lazy_fused") or (lambda: None)
_forget_sites = native_lazy_hook("lazy_sites_forget") or (lambda: None)


def learn(run, device, calls, made):
    """What a run of ``calls`` (a pending graph's, run by ``run`` of lazy_run.compiled on
    a fusing device; ``made``: node index -> the index of the call that recorded it)
    teaches: replayed, its calls are counted (a call marked fusing from one again);
    fused, they are marked, recorded from now on (``run`` is then marked with
    ``recounts``, so that its next runs ask nothing until a call marked fusing is counted
    again); split (lazy_split), the
    calls of the nodes it replays are counted and the others recorded from now on, so
    that the replayed reductions soon run at once, as eager mode runs them, and leave the
    compiled part a graph of its own. A fused graph of small arrays pays too: its one
    launch replaces a launch per call, each costing more host time than recording the
    call (H200, 2026-11-29: StandardScaler's statistics of 256 columns run eagerly took
    11 % more time than recorded)."""
    if run.replayed:
        replayed = _replayed_calls(run.replayed, len(calls), made)
        counted = counted_replayed(device, [c for k, c in enumerate(calls) if k in replayed])
        pinned = pinned_fused(device, [c for k, c in enumerate(calls) if k not in replayed])
        if not (counted or pinned):
            # nothing left to learn of this graph (its replayed calls counted REPLAYS times,
            # the others marked): its later runs ask nothing, and the counts' generation
            # stays, so the decisions kept in C stand (a bump makes every later call on
            # a computed array work its answer out again)
            run.pinned = recounts
    elif run.fused:
        pinned_fused(device, calls)
        run.pinned = recounts
    else:
        counted_replayed(device, calls)


def _replayed_calls(nodes, count, made):
    """The indices of the calls (of ``count``) that recorded the nodes ``nodes`` (``made``:
    node -> call). A call that recorded no node of its own (``reduce_as``, recorded as its
    ``astype`` and ``reduce``, each listed as a call after it) goes with the next call
    that did."""
    owners = {made.get(i) for i in nodes}
    recorders = set(made.values())
    out, waiting = set(), []
    for k in range(count):
        if k not in recorders:
            waiting.append(k)
            continue
        if k in owners:
            out.add(k)
            out.update(waiting)
        waiting = []
    return out


def counted_replayed(device, calls):
    """Count each call of a graph that ran replayed (``calls``: (name, dtype, plain args)),
    once per run however often the graph holds it (``y = y + 1`` in a loop), up to
    ``REPLAYS``. Returns whether a count changed."""
    keys = {}
    for name, dtype, args in calls:
        try:
            keys[call_key(device, name, dtype, args)] = name
        except TypeError:  # an unhashable argument: never counted
            pass
    global recounts
    counts = _counts
    changed = [(key, name) for key, name in keys.items() if _FUSES <= counts.get(key, 0) < REPLAYS]
    if changed:  # (not _DEFERS, nor counted enough)
        _changing()
        recount = False
        for key, name in changed:
            _tallies.pop(key, None)
            seen = counts.get(key, 0)
            if seen == _FUSES:  # a fused call's count starts again
                recount, seen = True, 0
            counts[key] = seen = seen + 1
            if seen >= REPLAYS:
                _ripe.add(name)
        if recount:
            recounts += 1
    return bool(changed)


def pinned_fused(device, calls):
    """Mark each call of a graph that fused: recorded, until graphs holding it run
    replayed ``REPLAYS`` times (``counted_replayed``). Returns whether a mark
    changed."""
    keys = []
    for name, dtype, args in calls:
        try:
            keys.append(call_key(device, name, dtype, args))
        except TypeError:
            pass
    counts = _counts
    changed = [key for key in keys if counts.get(key) != _FUSES]
    if changed:
        _changing()
        for key in changed:
            _tallies.pop(key, None)
            counts[key] = _FUSES
    return bool(changed)


def _changing():
    """Before a change of the counts: the generation bumped (the C decisions' answers kept
    stand only while it does), or every count forgotten past ``MAX_KEYS``."""
    global _generation
    if len(_counts) > MAX_KEYS:
        reset()  # (its bump stands for this change too)
    else:
        _generation += 1


def defers(device, call):
    """Mark ``call`` ((name, dtype, plain args), a ``binary`` call) as deferred from now on
    where its operands are computed: an inverse real FFT read its result alone, on a
    device whose irfft takes a caller-made input (``lazy_defer``: the call and the
    transform's scale then run as one kernel into that input, and a deferred call costs
    less host time than a recorded one, or than eager mode's own call and copy)."""
    if getattr(type(device), "irfft_scratch_factor", None) is None:
        return
    name, dtype, args = call
    try:
        key = call_key(device, name, dtype, args)
    except TypeError:  # an unhashable argument: never counted
        return
    counts = _counts
    if counts.get(key) == _DEFERS:
        return
    _changing()
    counts[key] = _DEFERS
    _ripe.add(name)  # (so that the decision makes its key)


def _probed(key):
    """Whether this run at once of the call of ``key`` is a probe (then recorded): its
    ``PROBE << min(probes, PROBE_DOUBLINGS)``-th since its last probe."""
    if PROBE <= 0:
        return False
    tally, probes = _tallies.get(key, (0, 0))
    tally += 1
    if tally < PROBE << min(probes, PROBE_DOUBLINGS):
        _tallies[key] = (tally, probes)
        return False
    _tallies[key] = (0, probes + 1)
    return True


class Start:
    """The storage an element-wise call on a computed array (no pending result) is made
    on in lazy mode: the call runs at once on ``real`` where its key was counted
    ``REPLAYS`` times and every operand is computed, else it is recorded on ``real``'s
    input node of the pending graph. Any other attribute is ``real``'s."""

    __slots__ = ("pending", "real")

    def __init__(self, pending, real):
        self.pending = pending
        self.real = real

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.real, name)


#: Start's methods in C (None: the module is not built)
_StartMethod = native_start_methods(Start, globals())


def _start(name, pair=False, only=None, probe=False):
    """Start's method for primitive ``name``: the one policy of a call on a computed
    array, its key made by ``pair_key`` where ``pair`` (the binary and compare calls,
    which the C element-wise path makes: no copy of their arguments), else by
    ``call_key_of``; ``only``: the ops (its first argument) it may record, any other run
    at once (reduce's argmin and the like: never recorded); ``probe``: a call run at once
    for its count is recorded at its ``PROBE``-th such run (copy's). Where
    candlewick._native is built the method is its ``StartMethod`` (_native_lazy_start.c:
    the same policy in C, reading this module's globals at each call); the Python one
    below is the path without it."""
    positions = STORAGE_ARGS.get(name, ())
    if _StartMethod is not None:
        return _StartMethod(name, positions, pair, only, probe)
    key_of = pair_key if pair else call_key_of

    def method(self, *args):
        real = self.real
        if only is not None and args and args[0] not in only:
            return getattr(real, name)(*args)
        small = real.size * real.dtype.itemsize < RECORD_BYTES
        ripe = name in _ripe  # (a key is made only for a primitive that has a ripe one)
        if small or ripe:
            pending = self.pending
            lazy_type = pending.lazy_type
            call_args = args
            for i in positions:
                a = args[i]
                if type(a) is lazy_type:
                    a = a.real
                    if a is None:  # a pending operand: the call joins its graph
                        return getattr(pending.tracer(real), name)(*args)
                    if call_args is args:
                        call_args = list(args)
                    call_args[i] = a
                if small and a.size * a.dtype.itemsize >= RECORD_BYTES:
                    small = False
            if small:
                return getattr(real, name)(*call_args)
            if ripe:
                try:
                    key = key_of(pending.device, name, real.dtype, call_args)
                    seen = _counts.get(key, 0)
                except TypeError:  # an unhashable argument: never counted
                    seen = 0
                if seen >= REPLAYS:
                    if not probe:
                        return getattr(real, name)(*call_args)
                    if not _probed(key):  # a copy: deferred where its readers may read its source (lazy_copy)
                        if call_args[0].dense_size >= 0:
                            return pending.defer(name, real, *call_args)
                        return getattr(real, name)(*call_args)
                    pending.probing = True  # a probe: recorded
                if seen == _DEFERS:
                    return pending.defer(name, real, *call_args)
        return getattr(self.pending.tracer(real), name)(*args)

    method.__name__ = method.__qualname__ = name
    return method


for _name in ("unary", "binary_as", "binary_scalar", "compare_scalar", "where", "astype", "affine", "clip", "var",
              "reduce_as"):
    setattr(Start, _name, _start(_name))
Start.copy = _start("copy", probe=True)  # type: ignore[attr-defined]
for _name in ("binary", "compare"):
    setattr(Start, _name, _start(_name, pair=True))
del _name
# (argmin/argmax and the like: never recorded)
Start.reduce = _start("reduce", only=FUSED_REDUCTIONS)  # type: ignore[attr-defined]
