"""tracing_backend: a candlewick backend that wraps another one and records which
primitives a program asks for, how often, with which dtypes and how many bytes they
touch. Registered as ``tracing`` (entry point group ``candlewick.backends``).

    import candlewick as cw, tracing_backend
    x = cw.ones((1000,), device="tracing")
    (x * 2).sum()
    tracing_backend.print_profile()

``CANDLEWICK_TRACING_WRAPS`` names the wrapped backend (default ``cpu``);
``CANDLEWICK_TRACING_PROFILE=1`` prints the profile when the program exits.
"""

import atexit
import os
import sys

from .device import HIDE_ENV, WRAPS_ENV, TracingBackend, TracingDevice
from .storage import TracingStorage

__all__ = ["BACKEND", "HIDE_ENV", "WRAPS_ENV", "TracingBackend", "TracingDevice", "TracingStorage",
           "print_profile", "profile", "reset"]

BACKEND = TracingBackend()


def profile():
    """The calls recorded so far, as a text table (the most bytes first)."""
    return BACKEND.recorder.format()


def print_profile(file=None):
    print(f"candlewick tracing profile (over {BACKEND.wraps}):", file=file or sys.stdout)
    print(profile(), file=file or sys.stdout)


def reset():
    BACKEND.recorder.reset()


if os.environ.get("CANDLEWICK_TRACING_PROFILE"):
    atexit.register(print_profile, sys.stderr)
