"""Several GPUs, and several machines, through Dask's distributed scheduler.

    from glgpgpu.distributed import LocalGLCluster, cholesky
    with LocalGLCluster() as cluster, cluster.get_client() as client:   # one worker per GPU
        L = cholesky(A, client=client, tile=8192)

    # or the whole way on the workers (import dask.array as da; kernel_matrix, cho_solve from
    # here): K's tiles made there from X, K + lam I factored, the system solved with L's tiles
    K = kernel_matrix(X, client=client, kernel="rbf", tile=8192)        # a dask.array
    L = cholesky(K + lam * da.eye(len(X), chunks=8192), client=client, tile=8192)
    alpha = cho_solve(L, y, client=client)                             # numpy, as y

The tiled Cholesky's tasks (POTRF, TRSM, SYRK/GEMM per tile: glgpgpu.tiled's schedule)
run on the workers that own their tiles (2-D block-cyclic), on tiles that stay in that
worker's GPU memory; only a finished tile another worker needs travels, worker to
worker (between the workers of one machine through shared memory, shared.py: Dask moves
a file's name, not the tile; else as Dask moves any result).  The tile operations are the one-process code's, so
the factor has the same bits as `glgpgpu.cholesky` with the same tile order.  Any Dask
cluster serves (`GLDevicePlugin` binds its workers to GPUs); a worker lost mid-factor
ends the call with `WorkerLostError` naming it and the tile, never a hang.

`cho_solve` and `solve_triangular` substitute with L's tiles where they lie (dask.array's
blocked solve on the workers' hosts); `kernel_matrix` and `adat` make K's and A D A^T's tiles
on their owners' GPUs from X's or A's rows.  Needs the [distributed] extra (dask, distributed)."""
from __future__ import annotations

try:
    import distributed as _distributed  # noqa: F401
except ImportError as exc:              # named, with the extra to install
    from ..errors import MissingExtraError
    raise MissingExtraError("glgpgpu.distributed needs Dask's distributed scheduler: "
                            "pip install 'glgpgpu[distributed]' (dask, distributed)") from exc

from .schedule import WorkerLostError, cholesky, owners
from .cluster import GLDevicePlugin, LocalGLCluster
from .kernel import kernel_matrix
from .products import adat
from .solve import cho_solve, solve_triangular

__all__ = ["LocalGLCluster", "GLDevicePlugin", "cholesky", "cho_solve", "solve_triangular", "kernel_matrix", "adat",
           "owners", "WorkerLostError"]
