"""[bindings] hipRTC through hip-python: the compiler's version and one compilation."""

from ..error import RocmError, check
from .hip import hip_api


def version():
    """The hipRTC version as text (part of the code-object cache key)."""
    major, minor = check("hiprtcVersion", hip_api().hiprtc.hiprtcVersion())
    return f"hiprtc-{major}.{minor}"


def compile_program(name, source, options, arch):
    """hipRTC-compile ``source`` for ``arch``: the code object bytes; a failed compile
    raises RocmError carrying the compiler's log."""
    hiprtc = hip_api().hiprtc
    prog = check("hiprtcCreateProgram", hiprtc.hiprtcCreateProgram(source.encode(), f"{name}.hip".encode(), 0, [], []))
    try:
        opts = [f"--offload-arch={arch}".encode()] + [o.encode() for o in options]
        (status,) = hiprtc.hiprtcCompileProgram(prog, len(opts), opts)
        if int(status) != 0:
            log = ""
            try:
                size = check("hiprtcGetProgramLogSize", hiprtc.hiprtcGetProgramLogSize(prog))
                buf = bytearray(max(int(size), 1))
                check("hiprtcGetProgramLog", hiprtc.hiprtcGetProgramLog(prog, buf))
                log = bytes(buf).rstrip(b"\0").decode(errors="replace")
            except RocmError:
                pass
            raise RocmError(f"hiprtcCompileProgram({name}, {arch})", status, log[-20000:])
        size = check("hiprtcGetCodeSize", hiprtc.hiprtcGetCodeSize(prog))
        code = bytearray(int(size))
        check("hiprtcGetCode", hiprtc.hiprtcGetCode(prog, code))
        return bytes(code)
    finally:
        hiprtc.hiprtcDestroyProgram(prog.createRef())  # takes hiprtcProgram*
