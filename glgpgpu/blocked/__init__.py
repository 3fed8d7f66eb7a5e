"""method="blocked": register-blocked fragment kernels beside the faithful ones.

The faithful kernels do one multiply-add per fragment per pass; they are bound
by fill rate and by the number of dependent passes.  Here, still by drawing
triangles over fragment shaders, each fragment owns a block of the output and
writes it through image load/store (GL 4.3); storage is RGBA32F (layouts.rgba).

sizes       block and panel sizes (from `glgpgpu bench tune`), padding, the GL 4.3 check
adat        A D^2 A^T, full or blocked packed
cholesky    right-looking panels: panel pass, trailing update, copy back; slabs whose
            later columns get one adat product
triangular  one pass per panel of unknowns
tile_kernels  the tile operations (POTRF, TRSM, SYRK/GEMM, solves) glgpgpu.tiled's
            algorithms run for matrices beyond one texture
tiled       adat / cholesky / solve, numpy in and out (one tile when it fits)
kernel_matrix  LS-SVM kernel matrices: the Gram matrix with a kernel-function epilogue
qr          Householder QR: the Factorize / Apply tile kernels of Yeralan et al. (2015)
normal      the solvers' normal-equations operation

method      BlockedMethod: these operations behind the methods' contract
            (methods/contract.py); paper/, blocked/ and compute/ never import each other.
"""
from .adat import adat_texture, product_texture
from .cholesky import diagonal, factor_texture
from .kernel_matrix import kernel_texture
from .method import BlockedMethod
from .sizes import ADAT_BLOCK, P_PANEL, UPDATE_BLOCK, padded, require
from .triangular import substitute_texture
from .tile_kernels import BlockedTiles

__all__ = ["ADAT_BLOCK", "BlockedMethod", "BlockedTiles", "P_PANEL", "UPDATE_BLOCK", "adat_texture", "diagonal",
           "factor_texture", "kernel_texture", "padded", "product_texture", "require", "substitute_texture"]
