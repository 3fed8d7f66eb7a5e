"""LS-SVM on handwritten digits, trained on the GPU's rasterized Cholesky -- and
the PLSSVM thesis's comparison with conjugate gradients.

The LS-SVM replaces the SVM's quadratic program by one linear system,
[0 1^T; 1 K + I/C] [b; alpha] = [0; y].  glgpgpu forms K over the lower triangle
only (a triangle of fragments: half the work of the full matrix), factors
K + I/C by Cholesky on the GPU in float32 and refines every solve to float64;
one factorization serves all ten one-vs-all classifiers.  CG (PLSSVM's solver)
runs on the GPU too, and its drift -- the recursive residual it watches against
the true one -- is printed.

    python examples/lssvm_digits.py
"""
import sys
import time
import warnings

import numpy as np

import glgpgpu
from glgpgpu.bench.lssvm import load_dataset


def main() -> int:
    Xtr, Xte, ytr, yte = load_dataset("digits")
    gamma = 1.0 / (Xtr.shape[1] * Xtr.var())
    print(f"digits: {len(ytr)} training / {len(yte)} test images of 8x8 pixels, 10 classes")
    t0 = time.perf_counter()
    model = glgpgpu.LSSVC(gamma=gamma, C=10.0).fit(Xtr, ytr)
    t = time.perf_counter() - t0
    acc = model.score(Xte, yte)
    print(f"Cholesky on the GPU: trained in {t:.2f} s ({len(model.info_['refinement'])} refinement steps), "
          f"test accuracy {acc:.3f}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cg = glgpgpu.LSSVC(gamma=gamma, C=10.0, solver="cg", cg_tol=1e-6, cg_max_iter=300)
        cg.fit(Xtr, np.where(ytr == 3, 1, -1), track=True)
    ci = cg.info_["cg"][1]
    print(f"CG on the GPU (digit 3 vs rest): {ci.iterations} iterations; recursive residual "
          f"{ci.residuals[-1]:.1e}, true residual {ci.true_residuals[-1]:.1e} -- the drift the thesis asks about")
    return 0 if acc > 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
