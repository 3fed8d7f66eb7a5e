"""The paper path uploads only the lower triangle of L / C (MatrixTexture.write_lower)
and leaves what lies above it as the pooled texture held it.  Its kernels read only
i >= j and its read-backs zero the rest, so NaN there changes nothing: the same
bits as from a clean texture, for every variant, layout and solve."""
import numpy as np
import pytest

import glgpgpu


def _poison_pool(ctx, m):
    """Put NaN-filled m x m R32F textures into the pool, to be taken next."""
    texs = [ctx.pool.take(m, m, "poison") for _ in range(3)]
    for t in texs:
        t.write(np.full((m, m), np.nan, np.float32))
    ctx.pool.give(*texs)


@pytest.mark.parametrize("m", [1, 3, 33, 64])
@pytest.mark.parametrize("packed", [False, True])
def test_nan_above_the_uploaded_triangle_changes_nothing(ctx, m, packed):
    rng = np.random.default_rng(m)
    X = rng.standard_normal((m, m)).astype(np.float32)
    C = (X @ X.T + m * np.eye(m, dtype=np.float32)).astype(np.float32)
    b = rng.standard_normal(m).astype(np.float32)
    ctx.pool.trim()
    clean = {}
    for variant in ("outer", "triad", "inner"):
        clean[variant] = glgpgpu.cholesky(C, packed=packed, variant=variant, method="paper")
    L = clean["outer"]
    clean["cho"] = glgpgpu.cho_solve(L, b, packed=packed, method="paper")
    clean["tri"] = glgpgpu.solve_triangular(L, b, trans=True, packed=packed, method="paper")
    for variant in ("outer", "triad", "inner"):
        _poison_pool(ctx, m)
        assert np.array_equal(glgpgpu.cholesky(C, packed=packed, variant=variant, method="paper"), clean[variant])
    _poison_pool(ctx, m)
    assert np.array_equal(glgpgpu.cho_solve(L, b, packed=packed, method="paper"), clean["cho"])
    _poison_pool(ctx, m)
    assert np.array_equal(glgpgpu.solve_triangular(L, b, trans=True, packed=packed, method="paper"), clean["tri"])
