"""[runtime] Two devices of one host: direct (peer) access between them, enabled once per
pair, the ordering of their streams around work that touches both, and peer copies.

A copy between devices is queued on the destination's stream, between two stream waits
(the barrier PyTorch puts around its cross-device copies): the destination waits for the
work already queued on the source (which may still be writing what is copied), and the
source waits for the copy (so a later write into the source, or the reuse of its block by
the source's allocator, cannot overtake the copy). Neither device's host thread waits.
"""

from ..bindings import hip


def peer_access(device, peer):
    """Whether ``device`` can read ``peer``'s memory directly; the first call for a pair
    asks the runtime (hipDeviceCanAccessPeer) and enables it (hipDeviceEnablePeerAccess),
    remembered as ``device``'s state."""
    return device.family_state(("peer_access", peer.ordinal), lambda _: _enable(device, peer))


def _enable(device, peer):
    usable = hip.can_access_peer(device.ordinal, peer.ordinal)
    if usable:
        device.make_current()
        hip.enable_peer_access(peer.ordinal)
    return usable


def wait_for(consumer, producer):
    """Queue on ``consumer``'s stream a wait for everything queued so far on
    ``producer``'s stream (an event; the host does not wait)."""
    producer.make_current()
    event = hip.event_create()
    try:
        hip.event_record(event, producer.stream)
        consumer.make_current()
        hip.stream_wait_event(consumer.stream, event)
    finally:
        producer.make_current()
        hip.event_destroy(event)


def copy(dst, src, nbytes, src_offset=0):
    """Queue a copy of ``nbytes`` from byte ``src_offset`` of buffer ``src`` into the start
    of buffer ``dst``, on another device (hipMemcpyPeerAsync on dst's stream, ordered
    both ways as the module says)."""
    target, source = dst.device, src.device
    dst.version += 1
    if not nbytes:
        return
    wait_for(target, source)
    target.make_current()
    hip.memcpy_peer_async(dst.ptr, target.ordinal, src.ptr + src_offset, source.ordinal, nbytes, target.stream)
    wait_for(source, target)
