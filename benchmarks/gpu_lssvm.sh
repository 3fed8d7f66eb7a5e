#!/usr/bin/env bash
# The LS-SVM run on a GPU machine (benchmarks/README.md; scikit-learn installed):
# the thesis's Fig. 7.8 and
# progress experiments, Cholesky vs CG vs SVC on digits and breast_cancer, a
# synthetic N = 8192 training, the LS-SVM tests; everything into $OUT.
case "${1:-}" in -h|--help) sed -n "2,/^set -u/p" "$0" | grep "^#" | cut -c3-; exit 0;; esac
set -u
OUT=${OUT:-benchmarks/results}
python3 -m glgpgpu.cli lssvm --thesis fig7.8 --sizes 64,128,256,512,1024,2048,4096 --out "$OUT" 2>/dev/null
python3 -m glgpgpu.cli lssvm --thesis progress --sizes 256,512,1024,2048,4096,8192 --out "$OUT" 2>/dev/null
python3 -m glgpgpu.cli lssvm --dataset digits --out "$OUT" 2>/dev/null
python3 -m glgpgpu.cli lssvm --dataset breast_cancer --out "$OUT" 2>/dev/null
python3 - <<'PY'
import time, warnings, numpy as np, glgpgpu
rng = np.random.default_rng(0)
N, d = 8192, 32
X = rng.standard_normal((N, d)); y = (X[:, 0] + 0.5 * X[:, 1] ** 2 > 0.5).astype(int)
glgpgpu.LSSVC(gamma=1 / d).fit(X[:64], y[:64])
for kw in (dict(method="blocked"), dict(method="paper"), dict(solver="cg", cg_tol=1e-3)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = time.perf_counter(); m = glgpgpu.LSSVC(gamma=1 / d, C=10.0, **kw).fit(X, y); t = time.perf_counter() - t
    it = m.info_.get("iterations", len(m.info_.get("refinement", [])))
    print(f"synthetic N={N} d={d} {kw}: train {t:.2f} s, train accuracy {m.score(X, y):.4f}, "
          f"{'CG iterations' if 'cg' in m.info_ else 'refinement steps'} {it}, times {m.info_['times']}")
PY
python3 -m pytest -q -p no:cacheprovider tests/solvers/test_lssvm.py tests/api/test_kernel_matrix.py tests/vectors 2>&1 | tail -2
