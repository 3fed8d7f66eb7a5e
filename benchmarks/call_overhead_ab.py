"""The same public calls from two source trees, interleaved call by call, so that
what one change costs end to end is measured apart from the GPU's drift:

    python benchmarks/call_overhead_ab.py BEFORE_DIR [--sizes 1024,4096] [--rounds 21]
        [--calls adat,cholesky,cho_solve,solve_triangular,kernel_matrix,wls] [--out DIR]

BEFORE_DIR holds an earlier commit's `glgpgpu/` and `shaders/`, e.g.
`mkdir before && git archive REV glgpgpu shaders | tar -x -C before`; "now" is this
checkout.  Two worker processes (one per tree, each with its own GL context) get
the same calls in turn: each round times every call once in each tree, in
alternating order, after a warm-up.  Reported per call and size: the median over
the rounds of each tree and their ratio now / before, with the spread of the
per-round ratios (25th..75th percentile).  Inputs as `glgpgpu bench e2e`'s
(A m x 2m, an SPD C and its factor, kernel_matrix of m points in 16 dimensions).
Writes call-overhead-<device>-<date>.csv."""
import sys

if {"-h", "--help"} & set(sys.argv[1:]) or len(sys.argv) < 2:       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
CALLS = ("adat", "cholesky", "cho_solve", "solve_triangular", "kernel_matrix", "wls")

WORKER = r"""
import json, sys, time
import numpy as np
import glgpgpu
from glgpgpu.gl import resolve
ctx = resolve(None)
folder = sys.argv[1]
inputs = {}
def case(name, m):
    if m not in inputs:
        inputs[m] = dict(np.load(f"{folder}/m{m}.npz"))
    v = inputs[m]
    return {"adat": lambda: glgpgpu.adat(v["A"], v["d2"]),
            "cholesky": lambda: glgpgpu.cholesky(v["C"]),
            "cho_solve": lambda: glgpgpu.cho_solve(v["L"], v["b"]),
            "solve_triangular": lambda: glgpgpu.solve_triangular(v["L"], v["b"]),
            "kernel_matrix": lambda: glgpgpu.kernel_matrix(v["P"], kernel="rbf"),
            "wls": lambda: glgpgpu.wls(v["A"], v["d2"], v["bw"])}[name]
print(json.dumps({"renderer": ctx.caps.renderer, "version": glgpgpu.__version__}), flush=True)
for line in sys.stdin:
    name, m = line.split()
    fn = case(name, int(m))
    t0 = time.perf_counter()
    fn()
    ctx.finish()
    print(time.perf_counter() - t0, flush=True)
"""


def write_inputs(folder: Path, sizes) -> None:
    """Both trees get the same arrays: `glgpgpu bench e2e`'s inputs (this tree's
    call_inputs) and m points in 16 dimensions, one .npz per size."""
    from glgpgpu.bench.common import call_inputs
    for m in sizes:
        rng = np.random.default_rng(14)
        A, d2, C, L, b, bw = call_inputs(rng, m)
        np.savez(folder / f"m{m}.npz", A=A, d2=d2, C=C, L=L, b=b, bw=bw,
                 P=rng.standard_normal((m, 16)).astype(np.float32))


class Worker:
    def __init__(self, tree: Path, folder: Path):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tree)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
        self.p = subprocess.Popen([sys.executable, "-c", WORKER, str(folder)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env, cwd=str(tree))
        line = self.p.stdout.readline()
        if not line.startswith("{"):
            raise RuntimeError(f"the worker for {tree} did not start: {line!r}")
        self.info = json.loads(line)

    def time(self, name: str, m: int) -> float:
        self.p.stdin.write(f"{name} {m}\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"the worker for {name} m={m} exited")
        return float(line)

    def close(self):
        self.p.stdin.close()
        self.p.wait()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before", type=Path)
    ap.add_argument("--sizes", default="1024,4096")
    ap.add_argument("--rounds", type=int, default=21)
    ap.add_argument("--calls", default=",".join(CALLS))
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", ROOT / "benchmarks" / "results")))
    a = ap.parse_args()
    if not (a.before / "glgpgpu" / "__init__.py").is_file():
        sys.exit(f"{a.before} holds no glgpgpu/ (make it with: git archive REV glgpgpu shaders | tar -x -C DIR)")
    sizes = [int(v) for v in a.sizes.split(",")]
    folder = Path(tempfile.mkdtemp(prefix="call-overhead-"))
    write_inputs(folder, sizes)
    trees = {"before": Worker(a.before.resolve(), folder), "now": Worker(ROOT, folder)}
    renderer = trees["now"].info["renderer"]
    print(renderer, time.strftime("%Y-%m-%d"), {k: w.info["version"] for k, w in trees.items()})
    rows = []
    try:
        for m in sizes:
            for name in a.calls.split(","):
                for w in trees.values():                # warm-up: programs, pool, caches
                    w.time(name, m), w.time(name, m)
                t = {"before": [], "now": []}
                for r in range(a.rounds):
                    order = ("before", "now") if r % 2 == 0 else ("now", "before")
                    for k in order:
                        t[k].append(trees[k].time(name, m))
                before, now = np.array(t["before"]), np.array(t["now"])
                ratios = now / before
                row = dict(call=name, m=m, rounds=a.rounds, before_s=float(np.median(before)),
                           now_s=float(np.median(now)), ratio=float(np.median(now) / np.median(before)),
                           ratio_q25=float(np.percentile(ratios, 25)), ratio_q75=float(np.percentile(ratios, 75)),
                           before_min_s=float(before.min()), now_min_s=float(now.min()))
                rows.append(row)
                print(f"{name:17s} m={m:5d}  before {row['before_s']:.5f} s  now {row['now_s']:.5f} s  "
                      f"now/before {row['ratio']:.3f}  (per-round {row['ratio_q25']:.3f}..{row['ratio_q75']:.3f})",
                      flush=True)
    finally:
        for w in trees.values():
            w.close()
        shutil.rmtree(folder, ignore_errors=True)
    from glgpgpu.bench.common import write_csv
    slug = "".join(c if c.isalnum() else "-" for c in renderer.lower()).strip("-")[:40]
    print(write_csv(rows, a.out / f"call-overhead-{slug}-{time.strftime('%Y-%m-%d')}.csv"))


if __name__ == "__main__":
    main()
