"""A diag(d2) A^T on the cluster: each lower tile made on its owner's GPU from A's two row
bands (A's rows travel, C's tiles stay), as the one-process tiled product makes it -- the same
column chunks and the same kernel calls, so the same bits as `glgpgpu.adat` with that tile order."""
from __future__ import annotations

import numpy as np

from .. import validate as check
from ..layouts.scaling import exponent, scaled, unscaled
from . import worker as w
from .schedule import _as_dask, is_dask_array, made_and_read, plan


def adat(A, d2, *, client=None, tile: int | None = None, method: str = "compute", poll: float = 0.5):
    """C = A diag(d2) A^T as `glgpgpu.adat` returns it (float32 (m, m), lower triangle, upper
    part zero), its tiles made on the cluster's workers.  A (m, n): numpy (C numpy), or a
    dask.array (C a dask.array whose tiles stay on the workers; A's row bands are made there);
    d2 (n,) numpy.  A and d2 are scaled by powers of two where their magnitudes are far from 1,
    as the one-process call does.  tile: the tile order's limit (default: each worker's texture
    limit).  Raises WorkerLostError naming the worker and tile where an owner leaves."""
    from distributed import get_client
    client = client or get_client()
    lazy = is_dask_array(A)
    if lazy:
        import dask.array as da
        if A.ndim != 2:
            raise ValueError(f"A must be 2-D, got shape {A.shape}")
        top_a = float(client.compute(da.max(da.fabs(A))).result())
        if not np.isfinite(top_a):
            raise ValueError("A holds a NaN or an infinity")
    else:
        top = []
        A = check.array(A, "A", 2, magnitude=top)
        top_a = top[0]
    top = []
    d2 = check.column_weights(d2, A.shape[1], top)      # as glgpgpu.adat checks it
    top_d = top[0]
    ea, ed = exponent(top_a), exponent(top_d)
    d2 = scaled(d2, ed)
    name, g, own = plan(client, A.shape[0], tile, method, "outer")
    if lazy:
        # float32 first, then the power of two: as the one-process call rounds and scales
        bands = A.map_blocks(lambda block: scaled(np.asarray(block, np.float32), ea), dtype=np.float32)
        bands = bands.rechunk((g.t, A.shape[1])).to_delayed()[:, 0]
        parts = dict(enumerate(client.compute(list(bands))))
    else:
        As = scaled(A, ea)
        parts = {I: client.scatter(np.ascontiguousarray(As[g.span(I)]), broadcast=True, hash=False) for I in range(g.count)}
    d2_part = client.scatter(d2, broadcast=True, hash=False)

    def make(submit, I, J):
        return submit(w.adat_tile, (I, J), I, J, parts[I], parts[J], d2_part, g.t, name)
    read = made_and_read(client, g, own, "adat", make, poll)
    e = 2 * ea + ed
    if lazy:
        C = _as_dask(read, g)
        return C if not e else C.map_blocks(lambda block: unscaled(block.copy(), e), dtype=np.float32)
    C = np.zeros((g.m, g.m), np.float32)
    for (I, J), fut in read.items():
        C[g.span(I), g.span(J)] = fut.result()
    C = unscaled(C, e)
    if not e and check.sums_of_products_bounded(top_a, top_d, A.shape[1]):
        return C
    return check.finite_result(C, "A diag(d2) A^T")
