"""The command line: every subcommand's options have help text (defaults shown), and
bad values stop with exit status 2 and a message before any work is done."""
import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from glgpgpu.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]


def subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


@pytest.mark.parametrize("name", sorted(subparsers()))
def test_every_option_has_help(name):
    sub = subparsers()[name]
    missing = [a.dest for a in sub._actions if not isinstance(a, argparse._HelpAction) and not a.help]
    assert not missing, f"glgpgpu {name}: options without help text: {missing}"
    assert issubclass(sub.formatter_class, argparse.ArgumentDefaultsHelpFormatter)


@pytest.mark.parametrize("argv, words", [
    (["qr", "--scale", "0"], "positive"),
    (["qr", "--scale", "-1"], "positive"),
    (["qr", "--repeat", "0"], "positive integer"),
    (["bench", "cholesky", "--repeat", "-3"], "positive integer"),
    (["bench", "cholesky", "--sizes", "64,x"], "integers"),
    (["lp", "/nonexistent.mps"], "no such file"),
    (["lp", "afirox"], "nor a NETLIB problem"),
    (["lp", "data/netlib/afiro.mps.gz", "--tol", "5"], "(0, 1)"),
    (["lp", "--netlib", "/nonexistent"], "no such folder"),
    (["trace", "cholesky", "--m", "0"], "positive integer"),
    (["wls", "--table", "1", "--sizes", "64,,64"], "no empty entry"),
    (["wls", "--table", "1", "--sizes", "100000000"], "GiB of host memory"),
    (["bench", "cholesky", "--sizes", "3000000"], "GiB of host memory"),
    (["lp", "data/netlib/afiro.mps.gz", "--max-rows", "3"], "--max-rows select"),
    (["lp", "data/netlib/afiro.mps.gz", "--problems", "afiro"], "--problems select"),
    (["lp", "--netlib", "tests"], "no MPS files"),
])
def test_bad_values_exit_2_before_any_work(argv, words):
    proc = subprocess.run([sys.executable, "-m", "glgpgpu.cli", *argv], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert words in proc.stderr
    assert proc.stdout == ""                     # nothing printed: no work started


def test_lp_takes_a_shipped_problem_by_name(tmp_path):
    """`glgpgpu lp afiro` from any folder: the name of a NETLIB problem that ships in data/netlib."""
    from glgpgpu.cli.lp import mps_file
    assert Path(mps_file("afiro")).name == "afiro.mps.gz"
    assert mps_file(str(ROOT / "data/netlib/sc50b.mps.gz")).endswith("sc50b.mps.gz")


def test_lp_says_where_auto_factored():
    """`glgpgpu lp afiro`: device auto factors it on the host (a few hundred flops), and says so."""
    proc = subprocess.run([sys.executable, "-m", "glgpgpu.cli", "lp", "afiro"], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "status: optimal" in proc.stdout and "factored on the host, float64 (device auto" in proc.stdout


@pytest.mark.parametrize("out", ["/dev/null", "README.md", "README.md/below", "x" * 300])
def test_out_is_checked_before_any_work(out, capsys):
    """--out that is a file, below a file, or a name past 255 bytes: exit 2 and one line why,
    before any work (tables, benchmarks, the demo)."""
    from glgpgpu.cli import main
    for argv in (["qr", "--table", "1", "--out", out], ["demo", "--out", out], ["bench", "cholesky", "--out", out]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert "--out" in capsys.readouterr().err


def test_huge_generated_matrices_are_refused_at_once(capsys):
    import time
    from glgpgpu.cli import main
    t = time.perf_counter()
    assert main(["sparseqr", "grid9d_7"]) == 2
    assert time.perf_counter() - t < 1.0 and "nonzeros" in capsys.readouterr().err


def test_version_and_python_dash_m():
    import subprocess
    import sys
    import glgpgpu
    for cmd in ([sys.executable, "-m", "glgpgpu", "--version"],):
        out = subprocess.run(cmd, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == f"glgpgpu {glgpgpu.__version__}"
    out = subprocess.run([sys.executable, "-m", "glgpgpu", "--help"], capture_output=True, text=True, check=True)
    assert "sparseqr" in out.stdout


def test_sparseqr_reads_an_array_format_matrix_market_file(tmp_path, capsys):
    import numpy as np
    import scipy.io
    from glgpgpu.cli import main
    scipy.io.mmwrite(str(tmp_path / "dense.mtx"), np.random.default_rng(0).random((7, 4)))
    assert main(["sparseqr", str(tmp_path / "dense.mtx"), "--out", str(tmp_path)]) == 0
    assert "7 x 4" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["lp", "wls", "trace", "demo", "qr", "bench"])
def test_help_shows_each_default_once(name, capsys):
    from glgpgpu.cli import main
    with pytest.raises(SystemExit):
        main([name, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text
