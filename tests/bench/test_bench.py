"""The benchmark suites run on a CPU machine (timings there mean little; the
rows, ratios and files must all be there)."""
import csv

from glgpgpu.cli import main


def test_bench_cholesky_and_assembly_on_cpu(ctx, tmp_path, capsys):
    for suite in ("cholesky", "assembly"):
        assert main(["bench", suite, "--sizes", "16,24", "--repeat", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "ceiling: copy" in out and "FMA" in out
    rows = list(csv.DictReader(open(next(tmp_path.glob("cholesky-*.csv")))))
    variants = {r["variant"] for r in rows}
    assert {"outer", "outer-packed", "triad", "inner", "lu", "blocked"} <= variants
    for r in rows:
        assert float(r["seconds"]) > 0 and float(r["host_over_gpu"]) > 0
    assert next(tmp_path.glob("assembly-*.png")).stat().st_size > 1000
