"""glgpgpu: dense linear algebra through the graphics pipeline.

Matrices live in float32 textures, GLSL fragment shaders are the kernels, and
each kernel is launched by drawing triangles whose vertices carry texture
coordinates -- a runnable reproduction of Jung & O'Leary (2006, 2008).

High-level API (numpy in, numpy out; everything in between stays on the GPU):
    adat(A, d2, packed=False)            C = A diag(d2) A^T, lower triangle
    cholesky(C, packed=False, variant=)  L with L L^T = C
    cho_solve(L, B), solve_triangular(L, B, lower=, trans=)
    pack(L), unpack(P, m)                the rectangular packed format
Lower level: Context / get_context, MatrixTexture, PingPong, Kernels.draw,
geometry (the figures' vertex tables), assemble_texture, factor_texture.
"""
from .context import Context, Capabilities, GLUnavailableError, get_context, set_context
from .textures import MatrixTexture, PingPong, TexturePool
from .packed import pack, unpack, packed_shape, FullLayout, PackedLayout, layout_for
from .assemble import adat, assemble_texture
from .cholesky import cholesky, factor_texture, check_pivots, NotPositiveDefiniteError
from .triangular import cho_solve, solve_triangular, substitute_texture
from .wls import wls, WLSInfo
from .lp import linprog, solve_mps, LPResult

__version__ = "0.1.0"

__all__ = [
    "Context", "Capabilities", "GLUnavailableError", "get_context", "set_context",
    "MatrixTexture", "PingPong", "TexturePool",
    "pack", "unpack", "packed_shape", "FullLayout", "PackedLayout", "layout_for",
    "adat", "assemble_texture",
    "cholesky", "factor_texture", "check_pivots", "NotPositiveDefiniteError",
    "cho_solve", "solve_triangular", "substitute_texture", "wls", "WLSInfo", "linprog", "solve_mps", "LPResult",
]
