"""MatrixTexture.write_lower (issue 14): only a square matrix's lower triangle goes
up, in row bands straight from the caller's array; the texture's lower triangle
equals the array's bit for bit, and what lies above the bands is left as it was
(RGBA and non-contiguous arrays go up whole)."""
import numpy as np
import pytest


@pytest.mark.parametrize("m", [1, 2, 3, 4, 17, 37, 64])
@pytest.mark.parametrize("components", [1, 4])
def test_write_lower_uploads_the_lower_triangle(ctx, m, components):
    if components == 4 and m % 4:
        m = -(-m // 4) * 4
    M = np.random.default_rng(m).standard_normal((m, m)).astype(np.float32)
    tex = ctx.pool.take(m, m // components, "lower", components=components)
    try:
        shape = (m, m) if components == 1 else (m, m // 4, 4)
        tex.write(np.full(shape, np.nan, np.float32))
        tex.write_lower(M.reshape(shape))
        got = tex.read().reshape(m, m)
        assert np.array_equal(np.tril(got), np.tril(M))
        upper = np.triu(np.ones((m, m), bool), 1)
        assert np.all(np.isnan(got[upper]) | (got[upper] == M[upper]))
        if m >= 32:                                        # above the first band: untouched (R32F)
            assert np.isnan(got[0, -1]) == (components == 1)
        tex.write_lower(M.T.reshape(shape))                # a view, not C-contiguous: goes up whole
        assert np.array_equal(tex.read().reshape(m, m), M.T)
    finally:
        ctx.pool.give(tex)
