"""``candlewick.fft``: the Array API Fourier-transform extension.

The transforms run on the optional "fft" primitives (unnormalized complex-to-complex,
real-to-complex and complex-to-real along one axis); on a device that does not declare
that capability they raise ``UnsupportedOperation``. ``fftfreq``, ``rfftfreq``,
``fftshift`` and ``ifftshift`` are composed from core primitives and run everywhere.
"""

from .helpers import fftfreq, fftshift, ifftshift, rfftfreq
from .complex_transforms import fft, fftn, ifft, ifftn
from .hermitian_transforms import hfft, ihfft
from .real_transforms import irfft, irfftn, rfft, rfftn

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]


def __dir__() -> list[str]:
    """``dir()`` of the module: its public names (``__all__``), not its imports."""
    return sorted(__all__)
