"""Triangular solves with a factor that lives on the cluster: L as the dask.array that
`glgpgpu.distributed.cholesky` returns (or numpy, cut into tiles), B numpy or a dask.array.

The substitution runs where L's tiles lie, on the workers' hosts, by dask.array's own
blocked `solve_triangular` (a maintained one: each diagonal tile's substitution and each
off-diagonal tile's product a task beside that tile).  A solve reads every entry of L once
per right-hand side block, O(m^2) against the factor's O(m^3): the tiles the factorization
left in the workers' memory serve it without a trip back to a GPU."""
from __future__ import annotations

import numpy as np

from .. import validate as check
from .schedule import array_of, is_dask_array, scatter_blocks


def _checked(M, ndim, what: str):
    """M as it came where it is a dask.array (checked as it is computed), else numpy checked as
    glgpgpu checks every input (finite, real, not empty), float32 kept, other reals float64."""
    if is_dask_array(M):
        return M
    M = M if isinstance(M, np.ndarray) else np.asarray(M)
    dtype = np.result_type(M.dtype, np.float32) if M.dtype.kind in "iuf" else np.float64
    return check.array(M, what, ndim, dtype)


def on_workers(M: np.ndarray, chunks, client):
    """numpy M as a dask.array of the given chunks, each block scattered to the workers
    (schedule.scatter_blocks), not embedded in the graph."""
    import itertools

    from dask.array.core import normalize_chunks
    chunks = normalize_chunks(chunks, M.shape, dtype=M.dtype)
    cuts = [np.cumsum((0,) + c) for c in chunks]
    index = itertools.product(*[range(len(c)) for c in chunks])
    blocks = {ix: M[tuple(slice(cuts[d][i], cuts[d][i + 1]) for d, i in enumerate(ix))] for ix in index}
    return array_of(scatter_blocks(client, blocks), chunks, "on-workers", M.dtype)


def solve_triangular(L, B, *, lower: bool = True, trans: bool = False, client=None, tile: int = 4096):
    """X with L X = B (L^T X = B with trans=True), L (m x m) lower (or upper: lower=False)
    triangular, numpy or a dask.array (numpy is cut into tile x tile chunks), B (m,) or (m, k),
    numpy or a dask.array.  X: numpy where B is numpy, else a dask.array (not computed);
    float64 where either is float64, as scipy's.  Raises numpy.linalg.LinAlgError naming the
    first zero or non-finite diagonal entry of L (a singular L), ValueError for shapes that do
    not fit."""
    import dask.array as da
    from distributed import get_client
    client = client or get_client()
    check.integer(tile, "tile", 1)
    L, B = _checked(L, 2, "L"), _checked(B, (1, 2), "B")
    if L.ndim != 2 or L.shape[0] != L.shape[1]:
        raise ValueError(f"L must be a square matrix, got shape {L.shape}")
    m = L.shape[0]
    if B.ndim not in (1, 2) or B.shape[0] != m:
        raise ValueError(f"B must have {m} rows (L is {m} x {m}), got shape {B.shape}")
    lazy = is_dask_array(B)
    Ld = L if is_dask_array(L) else on_workers(L, tile, client)
    rows = Ld.chunks[0]
    if Ld.chunks[1] != rows:
        Ld = Ld.rechunk((rows, rows))
    Bd = (B if lazy else on_workers(B, (rows,) + B.shape[1:], client)).rechunk((rows,) + B.shape[1:])
    d = client.compute(da.diagonal(Ld)).result()
    bad = np.flatnonzero(~np.isfinite(d) | (d == 0))
    if bad.size:
        raise np.linalg.LinAlgError(f"L is singular: its diagonal entry {bad[0]} is {d[bad[0]]}; a triangular "
                                    f"solve needs every diagonal entry finite and nonzero")
    X = da.linalg.solve_triangular(Ld.T if trans else Ld, Bd, lower=lower != trans)
    return X if lazy else client.compute(X).result()


def cho_solve(L, B, *, client=None, tile: int = 4096):
    """X with L L^T X = B: L the lower Cholesky factor as `glgpgpu.distributed.cholesky`
    returns it (a dask.array on the workers) or numpy, B numpy or a dask.array; both
    substitutions one graph on the workers (solve_triangular's).  X in B's form."""
    from distributed import get_client
    client = client or get_client()
    lazy = is_dask_array(B)
    B = _checked(B, (1, 2), "B")
    Bd = B if lazy else on_workers(B, (min(tile, B.shape[0]),) + B.shape[1:], client)
    Y = solve_triangular(L, Bd, lower=True, client=client, tile=tile)
    X = solve_triangular(L, Y, lower=True, trans=True, client=client, tile=tile)
    return X if lazy else client.compute(X).result()
