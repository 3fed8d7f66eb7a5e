"""The benchmark pictures: a panel per table there is (no empty panel), a legend that
never hides the data (beside the axes past LEGEND_INSIDE entries), an error of exactly 0
marked rather than drawn as missing on the log axis."""
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")


def test_qr_tables_draw_one_panel_per_table(tmp_path):
    from PIL import Image
    from glgpgpu.bench import qr
    rows = [dict(table=1, m=m, n=4 * m, method="paper", gflops_canonical=1.0 * m, host_gflops=5.0,
                 seed_canonical_gflops=20.0) for m in (64, 128)]
    one = Image.open(qr.plot_tables(rows, tmp_path / "one.png")).size
    both = Image.open(qr.plot_tables(rows + [dict(r, table=2) for r in rows], tmp_path / "two.png")).size
    assert one[0] < 0.75 * both[0]


def test_a_long_legend_goes_beside_the_axes():
    from glgpgpu.bench.common import LEGEND_INSIDE, legend
    from glgpgpu.teach.plotting import subplots
    for n, outside in ((LEGEND_INSIDE, False), (LEGEND_INSIDE + 1, True)):
        fig, ax = subplots()
        for i in range(n):
            ax.plot([1, 2], [i, i + 1], label=f"v{i}")
        legend(ax)
        anchor = ax.get_legend().get_bbox_to_anchor().transformed(ax.transAxes.inverted())
        assert (anchor.x0 > 1.0) == outside


def test_fig78_marks_an_exact_zero(tmp_path):
    from glgpgpu.bench import lssvm
    rows = [dict(matrix="thesis", N=n, jitter=0.0, rel_frobenius_error=0.0 if n == 64 else 1e-6,
                 float64_rel_error=1e-15) for n in (64, 128)]
    assert Path(lssvm.plot_fig78(rows, tmp_path / "f.png")).stat().st_size > 0
