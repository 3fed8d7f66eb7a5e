"""Level-1 and level-2 kernels on vectors in n x 1 textures (Jung 2006, section 4.2),
shared by both implementations and the solvers: saxpy, element-wise products,
multipass reductions, the line-search kernels, matrix-vector products."""
from .level12 import Vectors

__all__ = ["Vectors"]
