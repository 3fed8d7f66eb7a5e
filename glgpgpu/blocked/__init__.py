"""method="blocked": register-blocked fragment kernels beside the faithful ones.

The faithful kernels do one multiply-add per fragment per pass; they are bound
by fill rate and by the number of dependent passes.  Here, still by drawing
triangles over fragment shaders, each fragment owns a block of the output and
writes it through image load/store (GL 4.3); storage is RGBA32F (layouts.rgba).

tiles       tile and panel sizes (from `glgpgpu bench tune`), padding, the GL 4.3 check
adat        A D^2 A^T, full or blocked packed
cholesky    right-looking panels: panel pass, trailing update, copy back; slabs whose
            later columns get one adat product
triangular  one pass per panel of unknowns
tile_kernels  the tile operations (POTRF, TRSM, SYRK/GEMM, solves) glgpgpu.tiled's
            algorithms run for matrices beyond one texture
tiled       the public adat / cholesky / solve of the blocked path (one tile when it fits)
kernel_matrix  LS-SVM kernel matrices: the Gram matrix with a kernel-function epilogue
qr          Householder QR: seed 004's Factorize / Apply tile kernels
normal      the solvers' normal-equations operation

The operations `adat`, `cholesky`, `solve`, `NormalFactor`, `ResidentNormal`
have the same signatures as in paper/; the two packages never import each other.
"""
from .adat import adat_texture, product_texture
from .cholesky import diagonal, factor_texture
from .kernel_matrix import KernelFactor, kernel_matrix, kernel_texture
from .normal import NormalFactor, NormalSystem, ResidentNormal
from .qr import QRFactor, apply_q, qr_batched, qr_raw
from .tiles import ADAT_TILE, ADAT_VARIANT, B_TILE, P_PANEL, UPDATE_VARIANT, padded, require
from .triangular import substitute_texture
from .tile_kernels import BlockedTiles
from .tiled import adat, adat_tiled, cholesky, solve

__all__ = ["KernelFactor", "kernel_matrix", "kernel_texture", "adat", "adat_texture", "product_texture", "BlockedTiles", "adat_tiled", "cholesky", "diagonal", "factor_texture",
           "NormalFactor", "NormalSystem", "ResidentNormal", "QRFactor", "apply_q", "qr_batched", "qr_raw", "ADAT_TILE", "ADAT_VARIANT", "B_TILE", "P_PANEL",
           "UPDATE_VARIANT", "padded", "require", "solve", "substitute_texture"]
