"""The papers' algorithms, kernel for kernel (Jung 2006; Jung & O'Leary 2008).

assemble    Algorithm 3: A D^2 A^T by Kernels 1 and 2 over Figs. 2 / 4
cholesky    Algorithm 5 (Kernels 3-5, Figs. 5-7), index triads, the inner-product form
triangular  multipass forward / backward substitution (2006, level 2)
tile_kernels  the same kernels as tile operations (POTRF, TRSM, SYRK/GEMM, solves)
tiled       adat / cholesky / solve, numpy in and out: one texture, or tiles beyond it
normal      the solvers' normal-equations operation: form, factor, solve on the GPU
kernel_matrix  LS-SVM kernel matrices: the Gram matrix by Algorithm 3, then the kernel function
qr          Householder QR by drawing: four draws per column, an atlas of many matrices
lu          LU without pivoting by rasterization, the comparator of the 2008 Fig. 9
method      PaperMethod: these operations behind the methods' contract (methods/contract.py)

Inputs here are already validated float32 arrays.
"""
from .assemble import Accumulator, assemble_resident, assemble_texture, assembly_geometries
from .cholesky import VARIANTS, check_pivots, factor_geometries, factor_texture
from .kernel_matrix import KERNELS, kernel_texture
from .lu import lu_nopivot, lu_texture
from .method import PaperMethod
from .qr import QRFactor
from .triangular import substitute_texture
from .tile_kernels import PaperTiles

__all__ = ["Accumulator", "assemble_resident", "assemble_texture", "assembly_geometries",
           "VARIANTS", "check_pivots", "factor_geometries", "factor_texture", "KERNELS", "kernel_texture",
           "lu_nopivot", "lu_texture", "PaperMethod", "PaperTiles", "QRFactor", "substitute_texture"]
