"""A fake hip-python with several devices, and a fake RCCL, that record every call acting
on a device whose device is not the current one.

HIP keeps one current device per host thread; a stream, an event, a loaded module and an
allocation belong to the device that was current when they were made, and a call that
uses them with another device current is wrong (through the HIP-on-CUDA shim it fails;
on AMD it may act on the wrong device). ``MultiDeviceRuntime.violations`` lists each such
call, so a CPU test can show that the backend makes each device current before working
on it. Memory is still never read or written (see fake_hip.py).
"""

import bisect
import ctypes
import types

import ml_dtypes
import numpy as np

import fake_hip  # tests/rocm/host is on pytest's pythonpath

OK = fake_hip.OK
NCCL_OK = fake_hip.Status(0, "ncclSuccess")


class _Owned(fake_hip._Handle):
    """A runtime handle with the device it belongs to."""

    def __init__(self, kind, device, name=""):
        super().__init__(kind, name)
        self.device = device


# ncclDataType_t / ncclRedOp_t numbers -> NumPy
_NCCL_DTYPES = {0: np.int8, 1: np.uint8, 2: np.int32, 3: np.uint32, 4: np.int64, 5: np.uint64, 6: np.float16,
                7: np.float32, 8: np.float64, 9: ml_dtypes.bfloat16}
_NCCL_OPS = {0: np.add, 1: np.multiply, 2: np.maximum, 3: np.minimum}


class MultiDeviceRuntime(fake_hip.FakeRuntime):
    """``real_memory``: allocations are host memory and copies, memsets and the RCCL
    collectives really move and reduce bytes (kernels still do nothing), so that
    transfers and collectives can be checked by value."""

    def __init__(self, devices=2, peer_access=True, real_memory=False):
        self.devices = devices
        self.peer_access = peer_access
        self.real_memory = real_memory
        self._host_blocks = []
        self.current = 0
        self.violations = []  # (call, what was wrong)
        self.log = []  # (call, current device, stream's device) of the calls on a stream
        self._blocks = []  # sorted (start, end, device) of device allocations
        self.enabled_peers = []  # (device, peer) of hipDeviceEnablePeerAccess
        super().__init__()
        self.hip.hipEventDisableTiming = 2
        self.rccl = self._rccl_module()

    # --- ownership checks ------------------------------------------------------------
    def _expect(self, call, what, device):
        if device != self.current:
            self.violations.append((call, f"{what} of device {device} used with device {self.current} current"))

    def _owner(self, ptr):
        i = bisect.bisect_right(self._blocks, (ptr, float("inf"), 0)) - 1
        if i >= 0 and self._blocks[i][0] <= ptr < self._blocks[i][1]:
            return self._blocks[i][2]
        return None  # host memory

    def _on_stream(self, call, stream, *ptrs):
        self.log.append((call, self.current, stream.device))
        self._expect(call, "stream", stream.device)
        for ptr in ptrs:
            owner = self._owner(int(ptr))
            if owner is not None:
                self._expect(call, f"memory 0x{int(ptr):x}", owner)

    # --- hip ---------------------------------------------------------------------------
    def _set_device(self, ordinal):
        if not 0 <= ordinal < self.devices:
            return (fake_hip.Status(101, "hipErrorInvalidDevice"),)
        self.current = ordinal
        return (OK,)

    def _malloc(self, size):
        if self.real_memory:
            block = ctypes.create_string_buffer(max(size, 1))
            self._host_blocks.append(block)
            status, ptr = OK, ctypes.addressof(block)
        else:
            status, ptr = super()._malloc(size)
        bisect.insort(self._blocks, (ptr, ptr + max(size, 1), self.current))
        return status, ptr

    def _hip_functions(self):
        fns = super()._hip_functions()
        on_stream = self._on_stream
        fns.update({
            "hipGetDeviceCount": lambda: (OK, self.devices),
            "hipSetDevice": self._set_device,
            "hipStreamCreateWithFlags": lambda f: (OK, _Owned("stream", self.current)),
            "hipMalloc": self._malloc,
            "hipMemcpyHtoDAsync": lambda d, h, n, s: on_stream("hipMemcpyHtoDAsync", s, d) or self._copy(d, h, n),
            "hipMemcpyDtoHAsync": lambda h, d, n, s: on_stream("hipMemcpyDtoHAsync", s, d) or self._copy(h, d, n),
            "hipMemcpyDtoDAsync": lambda d, src, n, s: (on_stream("hipMemcpyDtoDAsync", s, d, src)
                                                        or self._copy(d, src, n)),
            "hipMemsetAsync": lambda d, b, n, s: on_stream("hipMemsetAsync", s, d) or self._memset(d, b, n),
            "hipStreamSynchronize": lambda s: on_stream("hipStreamSynchronize", s) or (OK,),
            "hipModuleLoadData": lambda code: (OK, _Owned("module", self.current)),
            "hipModuleGetFunction": self._get_function,
            "hipDeviceCanAccessPeer": lambda dev, peer: (OK, int(self.peer_access)),
            "hipDeviceEnablePeerAccess": self._enable_peer,
            "hipMemcpyPeerAsync": self._memcpy_peer,
            "hipEventCreateWithFlags": lambda flags: (OK, _Owned("event", self.current)),
            "hipEventRecord": self._event_record,
            "hipStreamWaitEvent": lambda s, e, flags: on_stream("hipStreamWaitEvent", s) or (OK,),
            "hipEventDestroy": lambda e: (OK,),
            "hipEventSynchronize": lambda e: (OK,),
        })
        return fns

    def _copy(self, dst, src, n):
        if self.real_memory and n:
            ctypes.memmove(int(dst), int(src), n)
        return (OK,)

    def _memset(self, dst, byte, n):
        if self.real_memory and n:
            ctypes.memset(int(dst), byte, n)
        return (OK,)

    def _array(self, ptr, count, dtype):
        """``count`` elements of ``dtype`` at ``ptr`` (real memory), as a NumPy view."""
        dtype = np.dtype(dtype)
        raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(ptr))
        return np.frombuffer(raw, dtype=dtype)

    def _get_function(self, module, name):
        self._expect("hipModuleGetFunction", "module", module.device)
        return (OK, _Owned("function", module.device, name.decode() if isinstance(name, bytes) else name))

    def _launch(self, fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra):
        self._on_stream("hipModuleLaunchKernel", stream)
        self._expect("hipModuleLaunchKernel", f"kernel {fn.name}", fn.device)
        return super()._launch(fn, gx, gy, gz, bx, by, bz, shmem, stream, params, extra)

    def _enable_peer(self, peer, flags):
        if (self.current, peer) in self.enabled_peers:
            return (fake_hip.Status(704, "hipErrorPeerAccessAlreadyEnabled"),)
        self.enabled_peers.append((self.current, peer))
        return (OK,)

    def _memcpy_peer(self, dst, dst_dev, src, src_dev, n, stream):
        self.log.append(("hipMemcpyPeerAsync", self.current, stream.device))
        self._expect("hipMemcpyPeerAsync", "stream", stream.device)
        if self._owner(dst) != dst_dev or self._owner(src) != src_dev:
            self.violations.append(("hipMemcpyPeerAsync", "a pointer is not on the device named for it"))
        return self._copy(dst, src, n)

    def _event_record(self, event, stream):
        self._on_stream("hipEventRecord", stream)
        if event.device != stream.device:
            self.violations.append(("hipEventRecord", "event and stream of different devices"))
        return (OK,)

    def _run_collectives(self):
        """Carry out the queued calls of one group (real memory only): the k-th call of
        each kind on every rank form one collective; a send meets the receive of its pair."""
        calls, self.pending = self.pending, []
        if not self.real_memory:
            return
        by_kind = {}
        for name, comm, args in calls:
            by_kind.setdefault(name, []).append((comm, args))
        for name in ("ncclAllReduce", "ncclReduceScatter", "ncclAllGather", "ncclBroadcast"):
            members = sorted(by_kind.get(name, []), key=lambda item: item[0].rank)
            if not members:
                continue
            size = members[0][0].size
            if name == "ncclAllReduce":
                inputs = [self._array(a[0], a[2], _NCCL_DTYPES[a[3]]) for _, a in members]
                op = members[0][1][4]
                total = inputs[0].copy()
                for x in inputs[1:]:
                    total = _NCCL_OPS[op](total, x) if op in _NCCL_OPS else total + x
                if op == 4:  # avg
                    total = (total / len(inputs)).astype(total.dtype)
                for _, a in members:
                    self._array(a[1], a[2], _NCCL_DTYPES[a[3]])[:] = total
            elif name == "ncclReduceScatter":
                n = members[0][1][2]
                dtype, op = _NCCL_DTYPES[members[0][1][3]], members[0][1][4]
                inputs = [self._array(a[0], n * size, dtype) for _, a in members]
                total = inputs[0].copy()
                for x in inputs[1:]:
                    total = _NCCL_OPS[op](total, x) if op in _NCCL_OPS else total + x
                if op == 4:
                    total = (total / len(inputs)).astype(dtype)
                for comm, a in members:
                    self._array(a[1], n, dtype)[:] = total[comm.rank * n:(comm.rank + 1) * n]
            elif name == "ncclAllGather":
                n, dtype = members[0][1][2], _NCCL_DTYPES[members[0][1][3]]
                parts = np.concatenate([self._array(a[0], n, dtype) for _, a in members])
                for _, a in members:
                    self._array(a[1], n * size, dtype)[:] = parts
            else:
                n, dtype, root = members[0][1][2], _NCCL_DTYPES[members[0][1][3]], members[0][1][4]
                source = next(self._array(a[0], n, dtype) for comm, a in members if comm.rank == root).copy()
                for _, a in members:
                    self._array(a[1], n, dtype)[:] = source
        sends = [(comm.rank, a) for comm, a in by_kind.get("ncclSend", [])]
        for comm, a in by_kind.get("ncclRecv", []):
            k = next(i for i, (src, s) in enumerate(sends) if src == a[3] and s[3] == comm.rank)
            _, s = sends.pop(k)
            self._copy(a[0], s[0], a[1] * np.dtype(_NCCL_DTYPES[a[2]]).itemsize)

    # --- rccl ------------------------------------------------------------------------
    def _rccl_module(self):
        mod = types.ModuleType("hip.rccl")
        runtime = self
        runtime.group_depth = 0
        runtime.collectives = []  # (call, comm's device, rank, inside a group)

        class ncclComm:
            @staticmethod
            def fromObj(value):
                return runtime.comms[int(value)]

        class ncclUniqueId:
            @staticmethod
            def fromObj(buffer):
                return bytes(buffer)

        runtime.comms = {}
        runtime.uid_buffers = []

        def new_comm(device, rank, size):
            handle = _Owned("comm", device)
            handle.rank, handle.size = rank, size
            address = 0x7000 + 16 * len(runtime.comms)
            runtime.comms[address] = handle
            return address, handle

        def init_all(address, n, devlist):
            slots = (ctypes.c_void_p * n).from_address(address)
            for rank, dev in enumerate(devlist):
                slots[rank] = new_comm(dev, rank, n)[0]
            return (NCCL_OK,)

        def init_rank(n, uid, rank):
            return (NCCL_OK, new_comm(runtime.current, rank, n)[1])

        def unique_id():
            buf = ctypes.create_string_buffer(b"fake-unique-id".ljust(128, b"\0"), 128)
            runtime.uid_buffers.append(buf)
            return (NCCL_OK, _Address(ctypes.addressof(buf)))

        runtime.pending = []  # (name, comm, arguments) queued in the open group

        def collective(name):
            def call(*args):
                comm, stream = args[-2], args[-1]
                runtime._on_stream(name, stream)
                runtime._expect(name, "communicator", comm.device)
                runtime.collectives.append((name, comm.device, comm.rank, runtime.group_depth > 0))
                runtime.pending.append((name, comm, args[:-2]))
                if runtime.group_depth == 0:
                    runtime._run_collectives()
                return (NCCL_OK,)
            return call

        def group(delta):
            def call():
                runtime.group_depth += delta
                if runtime.group_depth == 0:
                    runtime._run_collectives()
                return (NCCL_OK,)
            return call

        funcs = {
            "ncclGetVersion": lambda: (NCCL_OK, 22203),
            "ncclGetUniqueId": unique_id,
            "ncclCommInitAll": init_all,
            "ncclCommInitRank": init_rank,
            "ncclCommDestroy": lambda comm: (NCCL_OK,),
            "ncclCommAbort": lambda comm: (NCCL_OK,),
            "ncclGroupStart": group(1),
            "ncclGroupEnd": group(-1),
        }
        for name in ("ncclAllReduce", "ncclBroadcast", "ncclAllGather", "ncclReduceScatter", "ncclSend",
                     "ncclRecv"):
            funcs[name] = collective(name)
        for name, fn in funcs.items():
            setattr(mod, name, self._counted(name, fn))
        mod.ncclComm, mod.ncclUniqueId = ncclComm, ncclUniqueId
        mod.ncclDataType_t = mod.ncclRedOp_t = int
        mod.NCCL_UNIQUE_ID_BYTES = 128
        return mod


class _Address:
    """What ncclGetUniqueId returns: an address (``int()``) and a size."""

    def __init__(self, address):
        self.address = address

    def __int__(self):
        return self.address

    def c_sizeof(self):
        return 128
