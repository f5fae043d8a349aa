"""[bindings] hip-python's modules, each library opened once, under one lock.

hip-python opens a library on the first call of any of its functions, and that first call
is not safe between threads: two threads making it together can hand ``dlopen`` a path
whose bytes the other one has just freed (hip-python 10's generated ``__init`` reassigns the
cached path while the first thread's ``dlopen`` reads it without the GIL). It showed as
"failed to dlopen" with a garbage name when four threads made their first hipFFT calls
at once (tests/rocm/gpu/test_streams.py). Each binding module gets its hip-python module
here, which opens the library before the module is handed out.
"""

import importlib
import threading

_lock = threading.Lock()


def opened(name):
    """hip-python's module ``hip.<name>`` (``from hip import <name>``), its library opened.

    Raises ImportError where hip-python or that binding is not installed. A library that
    cannot be opened is left for the first real call to report, in hip-python's words."""
    with _lock:
        module = getattr(importlib.import_module("hip"), name, None)  # optional library, loaded lazily
        if module is None:
            raise ImportError(f"cannot import name {name!r} from 'hip' (its hip-python binding is not installed)")
        has_symbol = getattr(module, "has_symbol", None)  # test doubles have none
        if has_symbol is not None:
            has_symbol(f"{name}GetVersion")  # opens the library; the answer does not matter
        return module
