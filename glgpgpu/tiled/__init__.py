"""Matrices larger than one texture): tile algorithms written once.

A matrix is a grid of t x t tiles (layouts/tiles.py); a symmetric or triangular
one keeps only its lower tiles -- the packed idea at tile granularity.  The
algorithms here ask a method for its tile operations through the `TileKernels`
contract (kernels.py); paper/, blocked/ and compute/ each supply one from their own
kernels, so the same right-looking Cholesky, substitutions and products run on
the papers' kernels, the register-blocked ones and the compute shaders.  A matrix that fits one
texture is the one-tile grid: the same code.

kernels    the TileKernels contract: storage, POTRF, TRSM, SYRK/GEMM, solves
matrix     TiledLower: the lower tiles of a matrix, upload and read-back
cholesky   the right-looking tiled Cholesky; what it needs in GPU memory
solve      tiled forward / backward substitution
products   tiled A D A^T (C tiles x A's column chunks)
normal     TiledNormalSystem: the solvers' normal-equations operation on tiles
"""
from .cholesky import cholesky_bytes, factor, factor_and_read, upload_checked
from .kernels import TileKernels
from .matrix import TiledLower, tile_grid
from .normal import TiledNormalSystem
from .products import adat_bytes, adat_tiled, add_products, band_width
from .solve import TiledFactor, solve_tiled

__all__ = ["TileKernels", "TiledFactor", "TiledLower", "TiledNormalSystem", "adat_bytes", "adat_tiled", "add_products",
           "band_width", "cholesky_bytes", "factor", "factor_and_read", "solve_tiled", "tile_grid", "upload_checked"]
