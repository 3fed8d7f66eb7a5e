"""The GPU correctness sweep's quick form (benchmarks/gpu_check.py --quick: llvmpipe's sizes
with every internal limit made small) runs in CI: every public operation x every method
within its float32 / float64 bound, exit status 0, one CSV row a case."""
import csv
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_quick_sweep_has_no_miss(tmp_path):
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gpu_check.py"), "--quick", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    (path,) = tmp_path.glob("gpu-check-*-quick.csv")
    rows = list(csv.DictReader(open(path)))
    assert len(rows) > 150 and all(r["within"] == "yes" for r in rows)
    ops = {r["op"] for r in rows}
    assert {"adat", "cholesky", "qr", "apply_q", "qr_batched", "lstsq", "wls", "kernel_matrix", "LSSVC+LSSVR",
            "sparse_qr", "sparse_lstsq", "linprog", "linalg", "cholesky tiled"} <= ops
    assert {r["method"] for r in rows} == {"paper", "blocked", "compute"}
