"""method="compute": the operations on the GL compute stage (OpenGL 4.3).

The papers drew triangles because in 2005-2008 the fragment stage was the only
programmable stage with float output; GL 4.3 (2012) added compute shaders with
shared memory, and on a datacenter GPU that stage is the whole chip.  Same
operations, same contract, one kernel per file in shaders/compute/:

blas    storage buffers, the tiled product (gemm.comp: 128 x 128 per workgroup, 8 x 8
        per thread, k through shared memory) and the triangular kernels
dense   A D A^T, Cholesky (blocked right-looking: potrf.comp, trsm_rows.comp, gemm),
        triangular solves with many right-hand sides, the kernel matrix
qr      Householder QR, blocked with the compact WY factor (qr_panel, qr_t, qr_vtc,
        qr_update)
normal  the normal equations, the LS-SVM kernel factor, the float32 LP's resident form
float64 the same Cholesky kernels in float64 (real.glsl's FP64): the LP's last-resort
        factor, kept on the GPU for solves
method  ComputeMethod: all of it behind the methods' contract
"""
from .blas import require
from .method import ComputeMethod

__all__ = ["ComputeMethod", "require"]
