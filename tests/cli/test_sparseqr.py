"""glgpgpu sparseqr: a matrix from a file or the generators, and the paper's Table IV,
Table V and Fig. 15 from a measured CSV."""
import csv

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from glgpgpu.bench import sparse_tables
from glgpgpu.cli import main

FIELDS = ["matrix", "m", "n", "nnz", "flops", "intensity", "seconds", "spqr_seconds"]


def _csv(path):
    rows = [("a", 10, 5, 20, 1e9, 5.0, 1.0, 0.5), ("b", 10, 5, 20, 2e9, 12.0, 1.0, 2.0),
            ("c", 10, 5, 20, 4e9, 50.0, 2.0, 1.0), ("ch7-8-b3", 58800, 11760, 235200, 3.5e12, 529.0, 60.0, 30.0),
            ("nospqr", 1, 1, 1, 1.0, 1.0, 1.0, "")]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(FIELDS)
        w.writerows(rows)
    return path


def test_table5_bins_the_speedups(tmp_path):
    rows = sparse_tables.read(_csv(tmp_path / "r.csv"))
    assert len(rows) == 4                                    # the row without SuiteSparseQR's time is left out
    bins = sparse_tables.table5(rows)
    assert [b[2] for b in bins] == [1, 1, 0, 1]
    assert bins[0][4] == 2.0 and bins[1][4] == 0.5 and bins[3][4] == 0.5


def test_tables_and_figure_from_the_command_line(tmp_path, capsys):
    src = str(_csv(tmp_path / "r.csv"))
    assert main(["sparseqr", "--table", "5", "--from", src]) == 0
    out = capsys.readouterr().out
    assert "| 10–30 | 1 | 2.00 / 2.00 / 2.00 |" in out and "1 matrices below intensity 10" in out
    assert main(["sparseqr", "--table", "4", "--from", src]) == 0
    assert "| ch7-8-b3 | 58800 × 11760 |" in capsys.readouterr().out
    assert main(["sparseqr", "--table", "fig15", "--from", src, "--out", str(tmp_path)]) == 0
    assert list(tmp_path.glob("sparse-qr-fig15-*.png"))


def test_a_matrix_market_file_is_factored(ctx, tmp_path, capsys):
    A = sp.random(30, 9, density=0.3, random_state=np.random.default_rng(2)) + sp.eye(30, 9)
    scipy.io.mmwrite(str(tmp_path / "a.mtx"), A)
    assert main(["sparseqr", str(tmp_path / "a.mtx"), "--method", "paper", "--check"]) == 0
    out = capsys.readouterr().out
    err = float(out.split("||A||_F^2 = ")[1].split()[0])
    assert "A: 30 x 9" in out and "rank 9" in out and err < 1e-6


@pytest.mark.parametrize("argv, words", [(["sparseqr", "nope"], "no generated matrix"),
                                         (["sparseqr", "missing.mtx"], "no such matrix file"),
                                         (["sparseqr", "--table", "5"], "--from"),
                                         (["sparseqr"], "give a matrix")])
def test_bad_requests_are_named(argv, words, capsys):
    assert main(argv) == 2
    assert words in capsys.readouterr().err
