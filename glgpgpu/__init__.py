"""glgpgpu: dense linear algebra through the graphics pipeline.

Matrices live in float32 textures, GLSL fragment shaders are the kernels, and
each kernel is launched by drawing triangles whose vertices carry texture
coordinates -- a runnable reproduction of Jung & O'Leary (2006, 2008).

High-level API (numpy in, numpy out; everything in between stays on the GPU):
    adat(A, d2, packed=False)            C = A diag(d2) A^T, lower triangle
    cholesky(C, packed=False, variant=)  L with L L^T = C
    cho_solve(L, B), solve_triangular(L, B, lower=, trans=)
    qr(A, mode=), apply_q(F, tau, C), lstsq(A, b)   Householder QR, least squares
    sparse_qr(A, b=), sparse_lstsq(A, b)  multifrontal QR of a scipy.sparse A (Yeralan et al. 2015)
    wls(A, d2, b), linprog(c, ...), solve_mps(path)
    pack(L), unpack(P, m)                the rectangular packed format
The layers (docs/ARCHITECTURE.md): gl/ (the GL engine), layouts/, figures/
(the vertex tables), scheduling/, methods/ (the contract every method meets),
paper/, blocked/ and compute/ (three implementations of it), api.py + dispatch.py
(validation and the method= rule), solvers/, teach/, bench/, cli/.
"""
from . import limits
from .api import adat, apply_q, cho_solve, cholesky, kernel_matrix, qr, qr_batched, solve_triangular
from .errors import GLUnavailableError, NotPositiveDefiniteError
from .gl import Capabilities, Context, MatrixTexture, PingPong, TexturePool, get_context, set_context
from .layouts import FullLayout, PackedLayout, layout_for, pack, packed_shape, unpack
from .paper import assemble_texture, check_pivots, factor_texture, substitute_texture
from .solvers import LPResult, LstsqInfo, WLSInfo, linprog, solve_mps
from .solvers.lstsq import lstsq
from . import linalg  # noqa: F401 -- scipy.linalg's signatures (glgpgpu.linalg)
from .solvers.wls import wls
from .solvers.sparse_lstsq import sparse_lstsq, sparse_qr
from .solvers import lp  # noqa: F401 -- glgpgpu.lp: the LP package (problem, presolve, solver)

limits.from_environment()          # GLGPGPU_LIMITS: internal size limits made small (glgpgpu/limits.py)

from importlib.metadata import PackageNotFoundError, version as _version

try:
    __version__ = _version("glgpgpu")          # the one place: pyproject.toml
except PackageNotFoundError:                  # a checkout that is not installed
    __version__ = "0+unknown"

__all__ = [
    "Context", "Capabilities", "GLUnavailableError", "get_context", "set_context",
    "MatrixTexture", "PingPong", "TexturePool",
    "pack", "unpack", "packed_shape", "FullLayout", "PackedLayout", "layout_for",
    "adat", "assemble_texture", "kernel_matrix",
    "cholesky", "factor_texture", "check_pivots", "NotPositiveDefiniteError",
    "cho_solve", "solve_triangular", "qr", "apply_q", "qr_batched", "lstsq", "LstsqInfo", "substitute_texture",
    "sparse_qr", "sparse_lstsq",
    "wls", "WLSInfo", "linprog", "solve_mps", "LPResult", "LSSVC", "LSSVR",
]


def __getattr__(name):
    """LSSVC and LSSVR on first use (scikit-learn, when installed, is imported then), and
    glgpgpu.optimize (scipy.optimize's result type)."""
    if name in ("LSSVC", "LSSVR"):
        from .solvers import estimators

        return getattr(estimators, name)
    if name == "optimize":
        import importlib

        return importlib.import_module(".optimize", __name__)
    raise AttributeError(f"module 'glgpgpu' has no attribute {name!r}")
