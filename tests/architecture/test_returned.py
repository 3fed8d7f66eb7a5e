"""What the operations return is declared (methods/contract.py: NormalSystem, KernelFactor,
QRFactor, FrontStore) -- these tests build each method's returned objects, in each form a
method may return (one texture, tiles past the texture limit, points for a sparse A), and
check them against the declaration: every declared member there with the declared
parameters, the optional features' flags booleans on NormalSystemBase, a feature that is off
refused by name, and what the calls return of the declared shape and dtype."""
import inspect

import numpy as np
import pytest
import scipy.sparse as sp

from glgpgpu import limits
from glgpgpu.dispatch import IMPLEMENTATIONS, implementation
from glgpgpu.methods import contract, points
from glgpgpu.methods.resident import NormalSystemBase
from glgpgpu.solvers.sparse_fronts import HostQR, front_spec
from glgpgpu.symbolic import analyze
from glgpgpu.tiled.kernels import TileKernels

FLAGS = ("takes_row_scale", "keeps_low_part", "reads_lower", "float64_normal")


def _params(fn):
    return [(p.name, p.kind) for p in inspect.signature(fn).parameters.values() if p.name != "self"]


def _declared(obj, protocol):
    """Every callable the protocol declares, on obj with the protocol's parameters."""
    assert isinstance(obj, protocol), f"{type(obj).__name__} lacks a member of {protocol.__name__}"
    for name, member in vars(protocol).items():
        if callable(member) and not name.startswith("_"):
            got = getattr(obj, name)
            assert _params(got) == _params(member), \
                f"{type(obj).__name__}.{name}{inspect.signature(got)} is not {protocol.__name__}'s " \
                f"{inspect.signature(member)}"


def _problem(m, n, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n)).astype(np.float32)
    return A, rng.uniform(0.5, 2.0, n).astype(np.float32)


def _check_normal_system(N, A, d):
    m = A.shape[0]
    _declared(N, contract.NormalSystem)
    assert isinstance(N, NormalSystemBase)
    assert all(isinstance(getattr(N, f), bool) for f in FLAGS) and isinstance(N.assembly_name, str)
    pivots = N.factor(d, row_scale=np.ones(m, np.float32)) if N.takes_row_scale else N.factor(d)
    assert np.asarray(pivots).shape[0] >= m
    x = N.solve(np.ones(m))
    C = (A.astype(np.float64) * d) @ A.T.astype(np.float64)
    assert x.dtype == np.float64 and x.shape == (m,)
    assert np.linalg.norm(C @ x - 1.0) <= 1e-3 * np.linalg.norm(C) * np.linalg.norm(x)
    if N.reads_lower:
        L = N.lower()
        assert L.shape[0] >= m and np.allclose(np.tril(L[:m, :m]) @ np.tril(L[:m, :m]).T, C, atol=1e-3 * abs(C).max())
    else:
        with pytest.raises(NotImplementedError, match="reads_lower"):
            N.lower()
    if not N.keeps_low_part:
        with pytest.raises(NotImplementedError, match="keeps_low_part"):
            N.keep_low_part(np.zeros_like(A))
    if not N.float64_normal:
        with pytest.raises(NotImplementedError, match="float64_normal"):
            N.float64_factor(np.eye(m))
    if not N.takes_row_scale:
        with pytest.raises(ValueError, match="takes_row_scale"):
            N.factor(d, row_scale=np.ones(m, np.float32))


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
@pytest.mark.parametrize("form", ["one texture", "tiles", "sparse"])
def test_normal_system_is_what_the_contract_declares(ctx, name, form, monkeypatch):
    A, d = _problem(37, 53, 1)
    impl = implementation(name)
    if form == "sparse":
        A = np.where(np.abs(A) > 1.2, A, 0).astype(np.float32) + np.eye(37, 53, dtype=np.float32)
        given = sp.csc_matrix(A)
        monkeypatch.setattr(points, "POINT_COST", 1)          # the points pay: the fragment methods' SparseNormal
    else:
        given = A
    with limits.override({"gl.context.TEXTURE_SIZE": 16, "gl.context.STORAGE_BLOCK": 2048}
                         if form == "tiles" else {}):
        N = impl.normal_system(given, packed=False, variant="outer", ctx=ctx, watch=None)
        try:
            assert ("Tiled" in type(N).__name__) == (form == "tiles")
            assert (N.assembly_name == "points") == (form == "sparse" and name != "compute")
            _check_normal_system(N, A, d)
        finally:
            N.release()
            N.release()                                   # safe twice


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
def test_normal_factor_kernel_factor_and_qr_factor_are_declared(ctx, name):
    impl = implementation(name)
    A, d = _problem(23, 31, 2)
    F = impl.normal_factor(A, d, packed=False, ctx=ctx, watch=None)
    try:
        _declared(F, contract.NormalSystem)
        x = F.solve(np.ones(23))
        assert x.dtype == np.float64 and x.shape == (23,)
    finally:
        F.release()
    X = A[:, :5].copy()
    K = impl.kernel_factor(X, kernel="rbf", gamma=0.3, degree=3, coef0=0.0, diag=2.0, packed=False, ctx=ctx,
                           watch=None)
    try:
        _declared(K, contract.KernelFactor)
        assert K.solve(np.ones((23, 2))).shape == (23, 2)
    finally:
        K.release()
    Q = impl.qr_factor(A.T.copy(), ctx=ctx, watch=None)            # 31 x 23: tall
    try:
        _declared(Q, contract.QRFactor)
        y = np.arange(31, dtype=np.float64)
        z = Q.q(y, trans=True)
        assert z.shape[0] >= 23
        assert np.linalg.norm(Q.q(z) - y) <= 1e-4 * np.linalg.norm(y)
    finally:
        Q.release()


@pytest.mark.parametrize("name", sorted(IMPLEMENTATIONS))
def test_front_store_and_tile_kernels_are_declared(ctx, name):
    impl = implementation(name)
    store = impl.sparse_fronts(ctx=ctx)
    assert store is not None                   # every GPU method has one (HostQR has none)
    try:
        _declared(store, contract.FrontStore)
        assert store.panel is None or (isinstance(store.panel, int) and store.panel > 0)
        rng = np.random.default_rng(3)
        A = sp.random(30, 12, density=0.3, random_state=rng, format="csc") + sp.eye(30, 12, format="csc")
        an = analyze(A, "natural")
        AP = A[:, an.perm].tocsr().astype(np.float32)
        leaves = [f for f in range(an.n1, an.nfronts) if not an.children[f] and an.fm[f]]
        specs = [front_spec(an, f, AP, 1.0) for f in leaves]
        assert all(isinstance(s, contract.FrontSpec) for s in specs)
        for s, R in zip(specs, store.round(specs)):
            assert R.dtype == np.float32 and R.shape == (s.fr, s.n)
    finally:
        store.release()
        store.release()
    assert HostQR().sparse_fronts(ctx=None) is None
    T = impl.tile_kernels(ctx, variant="outer")
    assert isinstance(T, TileKernels) and T.ctx is ctx
    assert T.fits(ctx, 8, 8) and not T.fits(ctx, ctx.max_texture_size + 1)      # one piece, or tiles


def test_the_checks_can_fail():
    """A normal system missing a declared method, or with a drifted parameter, is caught."""
    class Missing(NormalSystemBase):
        m = n = 1
        assembly_name = "dense"

        def factor(self, d32, *, pivot_floor=None, regularize=False, row_scale=None):
            pass
    with pytest.raises(AssertionError):
        _declared(Missing(), contract.NormalSystem)

    class Drifted(Missing):
        def solve(self, b, where="solve"):
            pass

        def release(self):
            pass
    with pytest.raises(AssertionError, match="solve"):
        _declared(Drifted(), contract.NormalSystem)
