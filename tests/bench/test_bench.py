"""The benchmark suites run on a CPU machine (timings there mean little; the
rows, ratios and files must all be there)."""
import csv

import pytest

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


def test_qr_tables_and_least_squares_cli(ctx, tmp_path, capsys):
    """`glgpgpu qr` on shrunken seed-004 shapes and a tiny Table 2: both methods, CSVs written."""
    import csv

    assert main(["qr", "--table", "both", "--scale", "0.02", "--repeat", "1", "--out", str(tmp_path)]) == 0
    (tables,) = tmp_path.glob("qr-tables-*.csv")
    rows = list(csv.DictReader(open(tables)))
    assert {r["method"] for r in rows} == {"paper", "blocked"} and len(rows) == 12
    assert all(float(r["gflops_canonical"]) > 0 for r in rows)
    assert main(["qr", "--table", "ls", "--sizes", "16", "--out", str(tmp_path)]) == 0
    (ls,) = tmp_path.glob("qr-vs-normal-*.csv")
    rows = list(csv.DictReader(open(ls)))
    assert {r["solver"] for r in rows} == {"normal", "qr"}
    assert all(r["status"] == "converged" for r in rows)


def test_lssvm_experiments_cli(ctx, tmp_path, capsys):
    """`glgpgpu lssvm`: the thesis's Fig. 7.8 and progress runs at tiny N, and
    Cholesky vs CG vs SVC on breast_cancer; CSVs written, accuracies sane."""
    import csv

    assert main(["lssvm", "--thesis", "fig7.8", "--sizes", "8,16", "--out", str(tmp_path)]) == 0
    (f,) = tmp_path.glob("lssvm-fig78-*.csv")
    rows = list(csv.DictReader(open(f)))
    assert len(rows) == 16 and all(r["status"] == "ok" for r in rows if r["N"] == "8" or r["matrix"] == "conditioned")
    assert all(float(r["rel_frobenius_error"]) < 1e-2 for r in rows if r["matrix"] == "conditioned" and r["jitter"] == "0")
    assert main(["lssvm", "--thesis", "progress", "--sizes", "8,12", "--out", str(tmp_path)]) == 0
    (f,) = tmp_path.glob("lssvm-progress-*.csv")
    assert len(list(csv.DictReader(open(f)))) == 10
    assert main(["lssvm", "--dataset", "breast_cancer", "--out", str(tmp_path)]) == 0
    (f,) = [p for p in tmp_path.glob("lssvm-breast_cancer-*.csv") if "cg-drift" not in p.name]
    rows = list(csv.DictReader(open(f)))
    assert {r["solver"].split()[0] for r in rows} >= {"cholesky/blocked", "cholesky/paper", "cg", "sklearn"}
    assert all(float(r["test_acc"]) > 0.9 for r in rows)


def test_end_to_end_reports_kernel_and_transfer_floor(ctx):
    """Every public call end to end, beside the measured transfer floor and its
    kernel alone (issue 14's columns; wls: the sum of its parts)."""
    from glgpgpu.bench.endtoend import end_to_end

    rows = end_to_end(ctx, sizes=(12,), repeat=1)
    calls = {(r["call"], r["method"], r["layout"]) for r in rows}
    for method in ("paper", "blocked"):
        for call in ("adat", "cholesky", "cho_solve", "solve_triangular", "wls"):
            assert (call, method, "full") in calls
    assert ("adat", "paper", "packed") in calls and ("cholesky", "paper", "packed") in calls
    for r in rows:
        assert r["end_to_end_s"] > 0 and r["transfer_floor_s"] > 0
        assert r["kernel_s"] > 0 and r["over_floor"] > 0


def test_host_overhead_separates_host_from_driver_time(ctx):
    """bench host: every public call's host seconds (Python + numpy) apart from the time
    inside moderngl, per GB moved -- visible without a GPU."""
    from glgpgpu.bench.host import host_overhead

    rows = host_overhead(ctx, sizes=(12,), repeat=1)
    assert {r["call"] for r in rows} == {"adat", "cholesky", "cho_solve", "wls"}
    for r in rows:
        assert 0 <= r["host_s"] <= r["total_s"] and r["gl_s"] >= 0
        assert r["host_s_per_gb"] == pytest.approx(r["host_s"] / (r["bytes"] / 1e9))


def test_e2e_acceptance_lines_read_the_run():
    """bench e2e prints issue 14's lines from the run's own rows (no GL needed): the
    calls over 1.25 x (kernel + floor) by name, packed against full, and the blocked
    Cholesky / adat against the host at the largest m."""
    from glgpgpu.bench.endtoend import acceptance

    def row(call, method, layout, m, e2e, over, host_over=1.0):
        return {"call": call, "method": method, "layout": layout, "m": m, "end_to_end_s": e2e,
                "over_floor": over, "host_over_gpu": host_over,
                "variant": f"{call}-{method}-{layout}"}

    rows = [row("adat", "blocked", "full", 1024, 0.0080, 1.32), row("adat", "blocked", "packed", 1024, 0.0088, 1.48),
            row("cholesky", "paper", "full", 1024, 0.050, 1.08), row("cholesky", "paper", "packed", 1024, 0.051, 1.1),
            row("cholesky", "blocked", "full", 4096, 0.129, 1.12, 1.81), row("adat", "blocked", "full", 4096, 0.23, 1.0, 0.9)]
    lines = acceptance(rows)
    assert lines[0].startswith("e2e <= 1.25 x (kernel + floor): 4 of 6 calls; over: ")
    assert "adat-blocked-full m=1024 1.32" in lines[0] and "adat-blocked-packed m=1024 1.48" in lines[0]
    assert "packed vs full, adat blocked m=1024: +10.0%  (over 5%)" in lines
    assert "packed vs full, cholesky paper m=1024: +2.0%" in lines
    assert "blocked cholesky m=4096: 1.81 x the host (met 1.5 x)" in lines
    assert "blocked adat m=4096: 0.90 x the host (under 1.0 x)" in lines


def test_e2e_acceptance_reads_the_staged_floor_too():
    """Rows that carry the staged floor get a second line against it; the acceptance's
    own line stays the plain floor's."""
    from glgpgpu.bench.endtoend import acceptance

    rows = [{"call": "adat", "method": "blocked", "layout": "full", "m": 1024, "end_to_end_s": 0.006,
             "over_floor": 1.05, "over_staged_floor": 1.31, "host_over_gpu": 1.0, "variant": "adat-blocked-full"},
            {"call": "cholesky", "method": "blocked", "layout": "full", "m": 1024, "end_to_end_s": 0.009,
             "over_floor": 1.1, "over_staged_floor": 1.2, "host_over_gpu": 1.0, "variant": "cholesky-blocked-full"}]
    lines = acceptance(rows)
    assert lines[0] == "e2e <= 1.25 x (kernel + floor): 2 of 2 calls"
    assert lines[1] == "e2e <= 1.25 x (kernel + staged floor): 1 of 2 calls; over: adat-blocked-full m=1024 1.31"


def test_netlib_summary_counts_autos_host_choices_by_reason():
    """The NETLIB table's last line says how many problems device="auto" left to the host and
    why -- a small factor, or a sparse one far below the GPU's dense factor -- whether or not
    any went to the GPU (blocked: all 75 on the host since the 15x line)."""
    from glgpgpu.bench.netlib import summary

    def row(kind, reason):
        return {"status": "optimal", "rel_obj_error": 0.0, "iteration_ratio": 1.0, "seconds": 1.0,
                "highs_s": 1.0, "device_kind": kind, "device_reason": reason}
    rows = [row("cpu64", "flops")] * 3 + [row("cpu64", "sparse factor")] * 2
    line = summary(rows)
    assert "5 of 5 optimal" in line and "for a small factor: 3, a sparse factor: 2" in line
    assert "for a small factor: 1;" in summary([row("cpu64", "flops"), row("gpu", "flops")]) + ";"
    assert "factored on the host by device='auto' for" not in summary([row("gpu", "flops")])
