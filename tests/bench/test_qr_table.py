"""glgpgpu qr --table's printed table: at most 100 characters a line, no column that nobody
measured (torch absent), '-' where a cell does not apply, explained below (no GL)."""
import math

from glgpgpu.bench.qr import format_tables


def _row(method, kernel_s):
    return dict(table=1, m=128, n=2048, method=method, seconds=0.01, gflops_canonical=5.0, frac_fma_ceiling=0.01,
                kernel_s=kernel_s, host_sgeqrf_s=0.02, gpu_over_host=2.0, torch_geqrf_s=math.nan,
                seed_canonical_gflops=89.2)


def test_table_fits_and_says_why_a_cell_is_empty():
    text = format_tables([_row("paper", math.nan), _row("blocked", 0.005)], {"fma_tflop_s": 1.7})
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= 100
    assert "torch" not in lines[1] and "nan" not in text          # torch absent: no column, no 'nan'
    assert lines[2].split()[8] == "-" and "'-' for the paper's method" in text
