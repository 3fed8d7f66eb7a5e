"""Every exception glgpgpu raises on purpose, in one place.

Layers below the API (gl/, paper/, blocked/, solvers/) raise these; none of
them imports another layer just to reach an error class.
"""
from __future__ import annotations

import numpy as np


class GLUnavailableError(RuntimeError):
    """No usable OpenGL 3.3+ context could be created on this machine."""


class GLResourceError(RuntimeError):
    """The driver could not create a GL object (out of GPU memory, usually)."""


class ShaderCompileError(RuntimeError):
    """A kernel's shader did not compile; the message names its file and line."""


class GLDebugError(RuntimeError):
    """GLGPGPU_DEBUG=1 found a GL error after a draw or dispatch, or a declared uniform never set."""


class ContextThreadError(RuntimeError):
    """A GL context (or a texture of it) was used from a thread it does not belong to."""


class NotPositiveDefiniteError(np.linalg.LinAlgError):
    """The matrix is not (numerically) positive definite; `.pivot` is 0-based."""

    def __init__(self, pivot: int, m: int, precision: str = "float32"):
        self.pivot = pivot
        super().__init__(
            f"Matrix is not positive definite: pivot {pivot} (0-based; the leading minor of "
            f"order {pivot + 1} of the {m}x{m} matrix) is not positive in {precision}.")

    @classmethod
    def check(cls, pivots: np.ndarray, m: int, precision: str = "float32") -> np.ndarray:
        """Raise at the first pivot that is not a positive finite number; else return them."""
        bad = np.flatnonzero(~(pivots > 0) | ~np.isfinite(pivots))
        if bad.size:
            raise cls(int(bad[0]), m, precision)
        return pivots


class SingularMatrixError(np.linalg.LinAlgError):
    """A triangular matrix has a zero (or non-finite) diagonal entry; `.index` is 0-based."""

    def __init__(self, index: int, value: float, name: str = "L"):
        self.index = index
        what = "zero" if value == 0 else f"not finite ({value})"
        super().__init__(f"singular matrix: diagonal entry {index} (0-based) of {name} is {what}; "
                         "the triangular system has no unique solution")


class NonFiniteResultError(FloatingPointError):
    """A result computed from finite input overflowed float32 (inf or NaN)."""


class MissingFileError(FileNotFoundError, ValueError):
    """An input file does not exist (a FileNotFoundError and a ValueError both)."""


class GPUMemoryError(MemoryError):
    """A request that will not fit in the GPU's memory, refused before allocating
    (gl/memory.py): names the bytes needed and available."""


class HostMemoryError(MemoryError):
    """A request whose host-side arrays (the result, its float32 copy) will not fit in
    the host's available memory, refused before any work: names the bytes."""


class OrderingUnavailableError(RuntimeError):
    """A sparse ordering's system library (COLAMD) is not installed; the message
    names the package and the orderings that need nothing."""


class MissingExtraError(ImportError):
    """An optional dependency is not installed; the message names the extra to install."""


def optional_import(module: str, extra: str, what: str):
    """Import an optional dependency, or raise MissingExtraError saying which extra
    brings it (`pip install 'glgpgpu[EXTRA]'`)."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError(
            f"{what} needs the Python package {module.split('.')[0]!r}, which is not installed: "
            f"pip install 'glgpgpu[{extra}]'", name=module) from None
