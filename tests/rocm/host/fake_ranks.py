"""Ranks of a process group as threads of one process, on the fake two-device runtime
(fake_devices.py, with host memory behind the devices): the RCCL calls of communicators
joined through one unique id meet across threads as they would across processes.

What it adds to ``MultiDeviceRuntime``: HIP's current device, the open RCCL group and
its queued calls are per thread; each stream runs its work in order, so work queued
behind a collective whose peers have not queued theirs yet waits (copies, memsets and
event records are deferred until it ran); the k-th collective of every rank of a clique
forms one collective, and when the ranks' k-th calls differ (name, count, type,
reduction or root) that collective never finishes, as NCCL's would not. Waiting for a
stream or an event that cannot finish does not hang the test: after ``timeout`` seconds
the wait fails with status ``fakeWouldHang`` and is listed in ``hangs``.
``ncclCommAbort`` ends the communicator's unfinished collectives (the work behind them
runs). ``thread_calls[thread id]`` counts each thread's calls (its synchronizations).
"""

import collections
import threading

import fake_devices
import fake_hip

OK = fake_hip.OK
NOT_READY = fake_hip.Status(600, "hipErrorNotReady")
WOULD_HANG = fake_hip.Status(999, "fakeWouldHang")
_SYNCS = ("hipStreamSynchronize", "hipEventSynchronize", "hipMemcpyDtoHAsync")


class _Clique:
    def __init__(self, size):
        self.size = size
        self.queues = {}  # rank -> [(name, comm, args, stream)] submitted, not yet run


class RanksRuntime(fake_devices.MultiDeviceRuntime):
    def __init__(self, devices=2, timeout=5.0):
        self._local = threading.local()
        self.cond = threading.Condition(threading.RLock())
        self.timeout = timeout
        self.hangs = []  # (call, thread name) of waits that could never have ended
        self.cliques = {}  # unique id -> _Clique
        self.thread_calls = collections.defaultdict(collections.Counter)
        super().__init__(devices=devices, real_memory=True)
        self._patch_rccl()

    # per-thread state the parent keeps as plain attributes
    current = property(lambda self: getattr(self._local, "current", 0),
                       lambda self, v: setattr(self._local, "current", v))
    group_depth = property(lambda self: getattr(self._local, "depth", 0),
                           lambda self, v: setattr(self._local, "depth", v))
    pending = property(lambda self: self._local.__dict__.setdefault("pending", []),
                       lambda self, v: setattr(self._local, "pending", v))

    def _counted(self, name, fn):
        inner = super()._counted(name, fn)

        def call(*args):
            self.thread_calls[threading.get_ident()][name] += 1
            return inner(*args)

        return call

    def syncs(self, ident=None):
        """Synchronizing calls made by thread ``ident`` (default: the calling one)."""
        counts = self.thread_calls[threading.get_ident() if ident is None else ident]
        return sum(counts[n] for n in _SYNCS)

    # --- streams that run in order ---------------------------------------------------
    @staticmethod
    def _state(stream):
        if not hasattr(stream, "backlog"):
            stream.backlog, stream.blocker = [], None
        return stream

    def _later(self, stream, work):
        """Run ``work`` now, or after what blocks ``stream``."""
        with self.cond:
            s = self._state(stream)
            if s.blocker is None and not s.backlog:
                work()
            else:
                s.backlog.append(("work", work))

    def _hip_functions(self):
        fns = super()._hip_functions()
        on_stream, later = self._on_stream, self._later

        def copy(name):
            def call(dst, src, n, stream):
                on_stream(name, stream, dst if name != "hipMemcpyDtoHAsync" else src)
                later(stream, lambda: self._copy(dst, src, n))
                return (OK,)
            return call

        def memset(dst, byte, n, stream):
            on_stream("hipMemsetAsync", stream, dst)
            later(stream, lambda: self._memset(dst, byte, n))
            return (OK,)

        def record(event, stream):
            on_stream("hipEventRecord", stream)
            event.done = False
            later(stream, lambda: setattr(event, "done", True))
            return (OK,)

        fns.update({name: copy(name) for name in ("hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync", "hipMemcpyDtoDAsync")})
        fns.update({"hipMemsetAsync": memset, "hipEventRecord": record,
                    "hipStreamSynchronize": self._stream_sync, "hipEventSynchronize": self._event_sync,
                    "hipEventQuery": lambda e: (OK,) if getattr(e, "done", True) else (NOT_READY,)})
        return fns

    def _wait(self, call, ready):
        with self.cond:
            if self.cond.wait_for(ready, self.timeout):
                return (OK,)
            self.hangs.append((call, threading.current_thread().name))
            return (WOULD_HANG,)

    def _stream_sync(self, stream):
        self._on_stream("hipStreamSynchronize", stream)
        s = self._state(stream)
        return self._wait("hipStreamSynchronize", lambda: s.blocker is None and not s.backlog)

    def _event_sync(self, event):
        return self._wait("hipEventSynchronize", lambda: getattr(event, "done", True))

    # --- collectives across threads ----------------------------------------------------
    def _patch_rccl(self):
        mod, runtime = self.rccl, self

        def init_rank(n, uid, rank):
            with runtime.cond:
                clique = runtime.cliques.setdefault(bytes(uid), _Clique(n))
                address = 0x9000 + 16 * len(runtime.comms)
                comm = fake_devices._Owned("comm", runtime.current)
                comm.rank, comm.size, comm.clique, comm.aborted = rank, n, clique, False
                runtime.comms[address] = comm
                clique.queues[rank] = []
            return (fake_devices.NCCL_OK, comm)

        def abort(comm):
            with runtime.cond:
                comm.aborted = True
                comm.clique.queues[comm.rank] = []
                for s in {id(x): x for x in runtime._streams_of(comm)}.values():
                    if s.blocker is not None and s.blocker[1] is comm:
                        s.blocker = None
                    s.backlog = [item for item in s.backlog if not (item[0] == "coll" and item[1][1] is comm)]
                runtime._progress()
                runtime.cond.notify_all()
            return (fake_devices.NCCL_OK,)

        mod.ncclCommInitRank = self._counted("ncclCommInitRank", init_rank)
        mod.ncclCommAbort = self._counted("ncclCommAbort", abort)
        self._all_streams = []

    def _streams_of(self, comm):
        return [s for s in self._all_streams if s.device == comm.device]

    def _run_collectives(self):
        calls = self.pending
        mine = [c for c in calls if getattr(c[1], "clique", None) is not None]
        if len(mine) != len(calls):
            return super()._run_collectives()
        self.pending = []
        stream = self._local.stream  # a process group's calls are on its one device's stream
        with self.cond:
            s = self._state(stream)
            if s not in self._all_streams:
                self._all_streams.append(s)
            for name, comm, args in mine:
                s.backlog.append(("coll", (name, comm, args, s)))
            self._progress()
            self.cond.notify_all()

    def _on_stream(self, call, stream, *ptrs):
        self._local.stream = stream
        return super()._on_stream(call, stream, *ptrs)

    def _progress(self):
        """Run what can run: each stream's backlog up to its first unfinished collective,
        and every collective whose ranks have all submitted theirs."""
        changed = True
        while changed:
            changed = False
            for s in self._all_streams:
                while s.blocker is None and s.backlog:
                    kind, item = s.backlog.pop(0)
                    if kind == "work":
                        item()
                    else:
                        s.blocker = item
                        item[1].clique.queues[item[1].rank].append(item)
                    changed = True
            for clique in {id(c.clique): c.clique for c in self.comms.values() if hasattr(c, "clique")}.values():
                queues = clique.queues
                while len(queues) == clique.size and all(queues.values()):
                    heads = [queues[r][0] for r in sorted(queues)]
                    if len({(name, tuple(args[2:])) for name, _, args, _ in heads}) > 1:
                        break  # the ranks' calls differ: NCCL's would never finish
                    self._run_batch([(name, comm, args) for name, comm, args, _ in heads])
                    for r in sorted(queues):
                        _, _, _, stream = queues[r].pop(0)
                        stream.blocker = None
                    changed = True

    def _run_batch(self, batch):
        saved, self.pending = self.pending, batch
        try:
            fake_devices.MultiDeviceRuntime._run_collectives(self)
        finally:
            self.pending = saved
