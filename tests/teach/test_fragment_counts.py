"""Fragments the GPU actually generated (occlusion queries, via the draw recorder)
against the 2006 paper's Table 1 formulas, and packed against full."""
import pytest

from glgpgpu.teach import counts, runs


def per_kernel(rec):
    out = {}
    for d in rec.draws:
        out[d.kernel] = out.get(d.kernel, 0) + d.fragments
    return out


@pytest.mark.parametrize("m", [1, 2, 5, 6, 7, 8])
@pytest.mark.parametrize("packed", [False, True])
def test_assembly_fragments(ctx, m, packed):
    n = 3
    rec = runs.record("assembly", m, packed=packed, n=n)
    want = counts.assembly(m, n)
    got = per_kernel(rec)
    assert got["column_scaling"] == want["column_scaling"]["fragments"] == n * m
    # the triangle covers exactly the lower half, diagonal included
    assert got["outer_product_add"] == want["outer_product_add"]["fragments"] == n * m * (m + 1) // 2
    assert rec.count() == counts.draws_assembly(n)


@pytest.mark.parametrize("m", [1, 2, 5, 6, 7, 8, 11])
def test_cholesky_fragments_full_and_packed(ctx, m):
    full = runs.record("cholesky", m)
    packed = runs.record("cholesky", m, packed=True)
    # Fragments per draw are the same in both formats: the packed layout costs nothing.
    assert [d.fragments for d in full.draws] == [d.fragments for d in packed.draws]
    assert [d.kernel for d in full.draws] == [d.kernel for d in packed.draws]
    got = per_kernel(full)
    want = counts.cholesky(m)
    assert got["sqrt"] == m
    assert got.get("normalize", 0) == want["normalize"]["fragments"] == (m - 1) * m // 2
    assert got.get("copy", 0) == want["copy (diagonal)"]["fragments"] + want["copy (column)"]["fragments"]
    # Table 1(d): the triangular submatrix update is (m-1) m (m+1) / 6 fragments
    assert got.get("outer_product_sub", 0) == (m - 1) * m * (m + 1) // 6
    assert full.count() == counts.draws_cholesky(m)


@pytest.mark.parametrize("m", [2, 6, 7])
def test_inner_and_lu_fragments(ctx, m):
    inner = per_kernel(runs.record("cholesky-inner", m))
    assert inner.get("inner_product_sub", 0) == counts.cholesky(m, "inner")["inner_product_sub"]["fragments"]
    lu = per_kernel(runs.record("lu", m))
    # Table 1(a) / (c): over the square domain, (m-1) m (2m-1) / 6 -- twice the triangle's
    assert lu["lu_elimination"] == (m - 1) * m * (2 * m - 1) // 6


def test_trace_command(ctx, capsys):
    from glgpgpu.cli import main

    assert main(["trace", "cholesky", "--m", "6", "--packed"]) == 0
    out = capsys.readouterr().out
    assert "Fig. 6(a)" in out and "Fig. 6(b)" in out and "26 draws" in out
    assert "V(-0.5, 0) T0(0.5, 7) T1(7.5, 0.5)" in out      # Fig. 6(a) vertex 6 at k = 0
