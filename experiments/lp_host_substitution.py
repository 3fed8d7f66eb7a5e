"""How should the LP's preconditioner solve against the float32 factor on the host?
Two float32 LAPACK triangular solves read L as it comes back (row-major: through its
transpose, column-oriented as "upper, transposed"), or a Fortran copy of L ("lower"),
or in float64 against L widened once per factorization.  Iterations and seconds per
problem for each, one run.

    python experiments/lp_host_substitution.py NETLIB_DIR [problem ...] [--method blocked]
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import scipy.linalg as sla

import glgpgpu
from glgpgpu.solvers.lp.mixed import normal as N

VARIANTS = ("transpose32", "fortran32", "float64")


def make_precond(variant):
    def precond(self, r):
        rs = self.s * r
        big = float(np.abs(rs).max(initial=0))
        if big == 0 or not np.isfinite(big) or self._L is None:
            return ORIGINAL(self, r)
        rs = rs / big
        L = self._L
        if variant == "transpose32":
            y = sla.solve_triangular(L.T, rs.astype(np.float32), lower=False, trans=1, check_finite=False)
            out = sla.solve_triangular(L.T, y, lower=False, check_finite=False)
        else:
            if getattr(self, "_variant_src", None) is not L:     # a new factorization (not id(): reused)
                self._variant_L = np.asfortranarray(L, np.float64 if variant == "float64" else np.float32)
                self._variant_src = L
            F = self._variant_L
            y = sla.solve_triangular(F, rs.astype(F.dtype), lower=True, check_finite=False)
            out = sla.solve_triangular(F, y, lower=True, trans=1, check_finite=False)
        return self.s * (big * out.astype(np.float64)) / self.dmax
    return precond


ORIGINAL = N.MixedNormal.precond


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder")
    ap.add_argument("problems", nargs="*", default=["cycle", "pilot87", "greenbea", "80bau3b"])
    ap.add_argument("--method", default="blocked")
    args = ap.parse_args()
    for name in args.problems:
        for variant in VARIANTS:
            N.MixedNormal.precond = make_precond(variant)
            t0 = time.perf_counter()
            res = glgpgpu.solve_mps(Path(args.folder) / f"{name}.mps.gz", method=args.method)
            print(f"{name:<9} {variant:<12} {res.status:<10} it {res.iterations:>3}  {time.perf_counter() - t0:7.2f} s  "
                  f"pcg {res.stats.get('pcg_iterations')}  host fallbacks {res.stats.get('host_fallbacks')}", flush=True)
    N.MixedNormal.precond = ORIGINAL


if __name__ == "__main__":
    main()
