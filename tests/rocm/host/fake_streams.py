"""A fake hip-python that models streams: which queued operation is ordered before which,
and which pairs of operations on the same device memory are not (races).

Every operation queued on a stream (kernel launch, copy, memset, event record) becomes a
node that runs after the stream's previous node, after the events the stream was told to
wait for (``hipStreamWaitEvent``), and after everything the host has waited for
(``hipStreamSynchronize``, ``hipEventSynchronize``, ``hipDeviceSynchronize``: the host
queues nothing before such a wait returns). Copies and memsets name the bytes they read
and write; a node that touches bytes an earlier node wrote (or writes bytes an earlier
node read) without being ordered after it is a race, listed in ``races``. Kernel launches
touch no bytes here (their pointers are packed in argument structs), so tests drive
memory through ``DeviceBuffer.memset`` and device copies.

Nothing runs: memory is never read or written (fake_hip.py).
"""

import fake_hip  # tests/rocm/host is on pytest's pythonpath

OK = fake_hip.OK


class StreamModelRuntime(fake_hip.FakeRuntime):
    def __init__(self):
        self.nodes = []  # (stream, what, reads, writes, deps): reads/writes are (start, end) byte ranges
        self.tail = {}  # stream -> its last node
        self.waits = {}  # stream -> [nodes its next node waits for]
        self.recorded = {}  # event -> the node of its last record
        self.host_done = set()  # nodes the host has waited for
        self.races = []  # (earlier node, later node, what)
        self.synced_streams = []  # every stream hipStreamSynchronize waited for, in order
        super().__init__()

    # --- the model -----------------------------------------------------------------------------
    def node(self, stream, what, reads=(), writes=()):
        deps = set(self.host_done)
        if stream in self.tail:
            deps.add(self.tail[stream])
        deps.update(self.waits.pop(stream, ()))
        index = len(self.nodes)
        self.nodes.append((stream, what, tuple(reads), tuple(writes), frozenset(deps)))
        self.tail[stream] = index
        self._check(index)
        return index

    def ordered(self, before, after):
        """Whether node ``before`` surely runs before node ``after``."""
        seen, todo = set(), [after]
        while todo:
            n = todo.pop()
            for d in self.nodes[n][4]:
                if d == before:
                    return True
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return False

    def host_waited(self, node):
        """Whether the host has waited for ``node`` (a sync on it or on something after it)."""
        return node in self.host_done or any(self.ordered(node, done) for done in self.host_done)

    def _check(self, index):
        _, what, reads, writes, _ = self.nodes[index]
        for j in range(index):
            _, other, r2, w2, _ = self.nodes[j]
            clash = _overlap(writes, r2 + w2) or _overlap(reads, w2)
            if clash and not self.ordered(j, index):
                self.races.append((j, index, f"{other} then {what}"))

    # --- hip ----------------------------------------------------------------------------------
    def _hip_functions(self):
        fns = super()._hip_functions()
        fns.update({
            "hipMemsetAsync": lambda d, b, n, s: self._queued(s, "memset", (), [(int(d), int(d) + n)]),
            "hipMemcpyDtoDAsync": lambda d, src, n, s: self._queued(s, "copy", [(int(src), int(src) + n)],
                                                                    [(int(d), int(d) + n)]),
            "hipMemcpyHtoDAsync": lambda d, h, n, s: self._queued(s, "upload", (), [(int(d), int(d) + n)]),
            "hipMemcpyDtoHAsync": lambda h, d, n, s: self._queued(s, "download", [(int(d), int(d) + n)], ()),
            "hipEventRecord": self._record,
            "hipStreamWaitEvent": self._wait,
            "hipStreamSynchronize": self._sync_stream,
            "hipEventSynchronize": self._sync_event,
            "hipDeviceSynchronize": self._sync_device,
        })
        return fns

    def _queued(self, stream, what, reads, writes):
        self.node(stream, what, reads, writes)
        return (OK,)

    def _launch(self, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        self.node(stream, f"kernel {fn.name}")
        return super()._launch(fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)

    def _record(self, event, stream):
        self.recorded[event] = self.node(stream, "event record")
        return (OK,)

    def _wait(self, stream, event, flags):
        if event in self.recorded:
            self.waits.setdefault(stream, []).append(self.recorded[event])
        return (OK,)

    def _sync_stream(self, stream):
        self.synced_streams.append(stream)
        if stream in self.tail:
            self.host_done.add(self.tail[stream])
        return (OK,)

    def _sync_event(self, event):
        if event in self.recorded:
            self.host_done.add(self.recorded[event])
        return (OK,)

    def _sync_device(self):
        self.host_done.update(self.tail.values())
        return (OK,)


def _overlap(a, b):
    return any(s1 < e2 and s2 < e1 for s1, e1 in a for s2, e2 in b)


def install(monkeypatch):
    """Install a StreamModelRuntime (fake_hip.install's rules) and return it."""
    return fake_hip.install(monkeypatch, runtime=StreamModelRuntime())
