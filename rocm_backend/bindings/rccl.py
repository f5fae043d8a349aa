"""[bindings] RCCL, the collective communication library, through hip-python's own binding
(``hip.rccl``: the ``rocm-bindings-systems`` wheel, ``pip install 'hip-python[systems]'``),
imported lazily.

Importing this module never fails where RCCL or its binding is missing: ``probe()`` says
why. Each function below is one RCCL call whose status goes through ``error.check``
(``ncclResult_t`` has 0 for success and a ``.name``, as HIP's statuses). RCCL keeps NCCL's
API and numbering (the HIP-on-CUDA shim's ``librccl.so`` forwards to NCCL on that ground).
Buffers are device addresses (ints); streams are hip-python's handles.
"""

import ctypes

from ..error import RcclError, RocmError, check
from .hip_python import opened

_api = None

#: candlewick dtype names -> ncclDataType_t numbers (RCCL's and NCCL's enum)
DATATYPES = {"int8": 0, "uint8": 1, "int32": 2, "uint32": 3, "int64": 4, "uint64": 5, "float16": 6,
             "float32": 7, "float64": 8, "bfloat16": 9}
#: reduction names -> ncclRedOp_t numbers
REDUCTIONS = {"sum": 0, "prod": 1, "max": 2, "min": 3, "avg": 4}

_INSTALL = "pip install 'hip-python[systems]' (the rocm-bindings-systems wheel holds hip-python's RCCL binding)"


def rccl_api():
    """hip-python's ``rccl`` module (imported on first use)."""
    global _api
    if _api is None:
        _api = opened("rccl")
    return _api


def probe():
    """(available, reason): reason is '' when RCCL answers, else why not and what to install."""
    try:
        rccl_api()
    except ImportError as exc:
        return False, f"hip-python's RCCL binding is not installed ({exc}); {_INSTALL}"
    try:
        version()
    except RuntimeError as exc:  # hip-python's dlopen of librccl.so failed, or RCCL's status
        return False, f"librccl.so not usable: {exc}; install RCCL or set ROCM_PATH to the folder holding lib/"
    except Exception as exc:
        return False, f"ncclGetVersion raised {type(exc).__name__}: {exc}"
    return True, ""


def _check(call, result):
    """``error.check`` for an RCCL call: its failures are RcclError."""
    try:
        return check(call, result)
    except RocmError as exc:
        raise RcclError(call, exc.status) from None


def version():
    """RCCL's version code (e.g. 22203 for 2.22.3)."""
    return int(_check("ncclGetVersion", rccl_api().ncclGetVersion()))


def unique_id():
    """A new ncclUniqueId, as bytes (to hand to every rank of a process group)."""
    uid = _check("ncclGetUniqueId", rccl_api().ncclGetUniqueId())
    return ctypes.string_at(int(uid), uid.c_sizeof())


def unique_id_size():
    return int(rccl_api().NCCL_UNIQUE_ID_BYTES)


def comm_init_rank(nranks, uid, rank):
    """The communicator of ``rank`` in a group of ``nranks`` joined through ``uid`` (bytes)
    on the current device; returns once every rank has joined."""
    api = rccl_api()
    return _check("ncclCommInitRank", api.ncclCommInitRank(nranks, api.ncclUniqueId.fromObj(bytearray(uid)), rank))


def comm_init_all(ordinals):
    """One communicator per device of ``ordinals`` (rank i on ordinals[i]), in one process."""
    api = rccl_api()
    handles = (ctypes.c_void_p * len(ordinals))()
    _check("ncclCommInitAll", api.ncclCommInitAll(ctypes.addressof(handles), len(ordinals), list(ordinals)))
    return [api.ncclComm.fromObj(int(h or 0)) for h in handles]


def comm_destroy(comm):
    _check("ncclCommDestroy", rccl_api().ncclCommDestroy(comm))


def comm_abort(comm):
    """Tear a communicator down at once, cancelling what it has queued."""
    _check("ncclCommAbort", rccl_api().ncclCommAbort(comm))


def comm_count(comm):
    return int(_check("ncclCommCount", rccl_api().ncclCommCount(comm)))


def comm_device(comm):
    return int(_check("ncclCommCuDevice", rccl_api().ncclCommCuDevice(comm)))


def comm_user_rank(comm):
    return int(_check("ncclCommUserRank", rccl_api().ncclCommUserRank(comm)))


def group_start():
    _check("ncclGroupStart", rccl_api().ncclGroupStart())


def group_end():
    _check("ncclGroupEnd", rccl_api().ncclGroupEnd())


def _dtype(api, name):
    return api.ncclDataType_t(DATATYPES[name])


def all_reduce(send, recv, count, dtype, op, comm, stream):
    api = rccl_api()
    _check("ncclAllReduce", api.ncclAllReduce(send, recv, count, _dtype(api, dtype), api.ncclRedOp_t(REDUCTIONS[op]),
                                              comm, stream))


def broadcast(send, recv, count, dtype, root, comm, stream):
    api = rccl_api()
    _check("ncclBroadcast", api.ncclBroadcast(send, recv, count, _dtype(api, dtype), root, comm, stream))


def all_gather(send, recv, sendcount, dtype, comm, stream):
    api = rccl_api()
    _check("ncclAllGather", api.ncclAllGather(send, recv, sendcount, _dtype(api, dtype), comm, stream))


def reduce_scatter(send, recv, recvcount, dtype, op, comm, stream):
    api = rccl_api()
    _check("ncclReduceScatter", api.ncclReduceScatter(send, recv, recvcount, _dtype(api, dtype),
                                                      api.ncclRedOp_t(REDUCTIONS[op]), comm, stream))


def send(buf, count, dtype, peer, comm, stream):
    api = rccl_api()
    _check("ncclSend", api.ncclSend(buf, count, _dtype(api, dtype), peer, comm, stream))


def recv(buf, count, dtype, peer, comm, stream):
    api = rccl_api()
    _check("ncclRecv", api.ncclRecv(buf, count, _dtype(api, dtype), peer, comm, stream))
