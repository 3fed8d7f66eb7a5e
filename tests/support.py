"""Helpers several test folders use (not fixtures): running a call on a fresh thread, an LP-like
staircase matrix, the LP float64 sums at a given term count."""
import threading

import numpy as np


def run_in_thread(fn, *args):
    """fn(*args) on a new thread (which gets its own GL context); its result or its exception."""
    box = {}

    def target():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:          # hand it to the caller's thread
            box["error"] = exc

    t = threading.Thread(target=target)
    t.start()
    t.join(timeout=300)
    if "error" in box:
        raise box["error"]
    return box["value"]


def untracked_files(root) -> set:
    """Files in the checkout that git neither tracks nor ignores (empty set without git):
    what a run left behind."""
    import shutil
    import subprocess
    if shutil.which("git") is None or not (root / ".git").exists():
        return set()
    out = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=root, capture_output=True,
                         text=True, timeout=60).stdout
    return set(out.split())


def staircase(blocks, rows, rng):
    """Diagonal blocks of rows x 2 rows (3% dense) and one linking column per block: an LP's
    staircase (scipy CSR), whose fill-reducing order leaves tiles of L zero."""
    import scipy.sparse as sp
    A = sp.block_diag([sp.random(rows, 2 * rows, density=0.03, random_state=rng) + sp.eye(rows, 2 * rows)
                       for _ in range(blocks)]).tocsr()
    link = sp.random(A.shape[0], blocks, density=2.0 / A.shape[0], random_state=rng)
    return sp.hstack([A, link]).tocsr()


def float64_sums_case(ctx, rng, n: int, summed: bool) -> None:
    """An LP normal matrix whose first entry sums n terms, on the GPU's float64 sums: refused by
    name where `summed` is False (past compute.float64.SUM_TERMS), else every term summed."""
    import pytest
    import scipy.sparse as sp

    from glgpgpu.compute.float64 import EntryPlaces, Float64Cholesky, NormalValues
    from glgpgpu.solvers.lp.mixed.normal_pattern import NormalPattern
    rows = np.vstack([rng.uniform(0.5, 1.5, n), np.zeros(n)])
    rows[1, 0] = 1.0
    P = NormalPattern(sp.csc_matrix(rows), border=False)
    assert P.sums[P.diagonal_at[0]].nnz == n
    if not summed:
        with pytest.raises(ValueError, match="terms"):
            EntryPlaces(ctx, 2, P.col_of, P.row_of, sums=P.sums)
        return
    places = EntryPlaces(ctx, 2, P.col_of, P.row_of, sums=P.sums)
    d = rng.uniform(0.5, 2.0, n)
    try:
        F = Float64Cholesky(ctx, NormalValues(d, np.ones(2), 0.0, 0.0), places)
        L = F.L.get(ctx)
        F.release()
    finally:
        places.give()
    assert L[0, 0] ** 2 == pytest.approx(P.data(d)[P.diagonal_at[0]], rel=1e-14)


def reference_decision(X, Y, Xt, kernel, gamma, degree, coef0, C):
    """The LS-SVM's decision values in float64: the bordered system [0 1^T; 1 K + I/C]
    [b; alpha] = [0; y] solved by LAPACK, per target column (kernel_functions.kernel64:
    rbf distances summed directly where the expansion would cancel)."""
    from glgpgpu.kernel_functions import kernel64
    N = X.shape[0]
    M = np.zeros((N + 1, N + 1))
    M[0, 1:] = M[1:, 0] = 1
    M[1:, 1:] = kernel64(X, X, kernel, gamma, degree, coef0) + np.eye(N) / C
    sol = np.linalg.solve(M, np.vstack([np.zeros((1, Y.shape[1])), Y]))
    return kernel64(Xt, X, kernel, gamma, degree, coef0) @ sol[1:] + sol[0]
