"""Mehrotra's predictor-corrector primal-dual interior-point method
(Jung 2006, section 4 and Algorithm 3, after Wright 1997, ch. 10).

Per iteration, with D^2 = X S^-1 and the normal equations (4.12)-(4.14):
  residuals rb = b - A x, rc = c - A^T lam - s; mu = x^T s / n
  terminate when (6.1) ||rb||_inf/(1+||b||_inf), (6.2) ||rc||_inf/(1+||c||_inf)
    and (6.3) |c^T x - b^T lam|/(1+|c^T x|) are all <= eps
  form and factor A D^2 A^T (GPU: Algorithm 3 then Algorithm 5)
  affine direction: rxs = X S e
  step lengths alpha_aff by the ratio test; mu_aff; sigma = (mu_aff / mu)^3
  centering-corrector direction: rb = rc = 0, rxs = dX_aff dS_aff e - sigma mu e
  direction = affine + corrector; steps by Mehrotra's heuristic; update.
The initial point is Mehrotra's heuristic.  All vectors stay in the backend
(GPU textures); only the scalars above are read back.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

GAMMA_F = 0.01          # Mehrotra's step heuristic (Wright 1997, p. 205)
PIVOT_REL = 1e-14       # tiny-pivot rule, relative to max diag(A D^2 A^T)
REFINE = 1              # refinement steps per normal-equations solve
D2_RANGE = (1e-25, 1e25)  # D^2 = X S^-1 clamped into float32's comfortable range
STALL = 4               # iterations without a better iterate before giving up


@dataclass
class IPMResult:
    status: str                  # optimal | iteration limit | infeasible | unbounded | numerical trouble
    x: np.ndarray
    lam: np.ndarray
    s: np.ndarray
    iterations: int
    log: list = field(default_factory=list)
    message: str = ""


def _normal_solve(be, out, r):
    """Solve A D^2 A^T out = r with the float32 factor, plus REFINE steps of
    iterative refinement in working precision (residual by two matvecs: C is
    never needed again), which repairs what rounding and dropped pivots cost."""
    be.solve(out, r)
    for _ in range(REFINE):
        be.Aty("rf_n", out)
        be.mul("rf_n", "rf_n", "d2")
        be.Ax("rf_m", "rf_n")
        be.axpy("rf_m", -1.0, "rf_m", r)
        be.solve("rf_c", "rf_m")
        be.axpy(out, 1.0, "rf_c", out)


def _direction(be, rxs, rb, rc, dx, dlam, ds):
    """Solve (4.12)-(4.14) for right-hand sides (rb, rc, rxs); rb/rc may be None (zero)."""
    # u = (rxs + x .* rc) ./ s
    if rc is not None:
        be.mul("t_n", "x", rc)
        be.axpy("t_n", 1.0, "t_n", rxs)
        be.div("u", "t_n", "s")
    else:
        be.div("u", rxs, "s")
    be.Ax("r_m", "u")
    if rb is not None:
        be.axpy("r_m", 1.0, "r_m", rb)
    _normal_solve(be, dlam, "r_m")               # A D^2 A^T dlam = rb + A u
    be.Aty("t_n", dlam)
    if rc is not None:
        be.axpy(ds, -1.0, "t_n", rc)             # ds = rc - A^T dlam
    else:
        be.axpy(ds, -1.0, "t_n")
    be.mul("t_n", "x", ds)
    be.axpy("t_n", 1.0, "t_n", rxs)
    be.div("t_n", "t_n", "s")
    be.axpy(dx, -1.0, "t_n")                     # dx = -(rxs + x .* ds) ./ s


def initial_point(be, n):
    """Mehrotra's heuristic: least-squares x and (lam, s), shifted positive."""
    be.axpy("d2", 1.0, "ones")
    be.factor("d2", PIVOT_REL)                   # A A^T
    _normal_solve(be, "t_m", "b")
    be.Aty("x", "t_m")                           # x~ = A^T (A A^T)^-1 b
    be.Ax("t_m", "c")
    _normal_solve(be, "lam", "t_m")                       # lam~ = (A A^T)^-1 A c
    be.Aty("t_n", "lam")
    be.axpy("s", -1.0, "t_n", "c")               # s~ = c - A^T lam~
    dx = max(-1.5 * be.vmin("x"), 0.0)
    ds = max(-1.5 * be.vmin("s"), 0.0)
    be.axpy("x", dx, "ones", "x")
    be.axpy("s", ds, "ones", "s")
    xs = be.dot("x", "s")
    sx, ss = be.vsum("x"), be.vsum("s")
    dxh = 0.5 * xs / ss if ss > 0 else 1.0
    dsh = 0.5 * xs / sx if sx > 0 else 1.0
    # guard the degenerate case x^T s = 0 (e.g. b = 0): keep the point interior
    dxh, dsh = max(dxh, 1e-2), max(dsh, 1e-2)
    be.axpy("x", dxh, "ones", "x")
    be.axpy("s", dsh, "ones", "s")


def _mehrotra_alpha(be, alpha_max, idx, v, dv, w, dw, alpha_other, mu_full):
    """Mehrotra's step heuristic for one side (primal: v = x, w = s)."""
    if idx is None:
        return 1.0
    vi, dvi = be.element(v, idx), be.element(dv, idx)
    wi, dwi = be.element(w, idx), be.element(dw, idx)
    denom = wi + alpha_other * dwi
    if denom <= 0 or alpha_max * dvi == 0:
        return (1 - GAMMA_F) * alpha_max
    f = (GAMMA_F * mu_full / denom - vi) / (alpha_max * dvi)
    return min(1.0, max(1 - GAMMA_F, f) * alpha_max)


def _diverging(e, e0, tol, factor):
    """Infeasibility / unboundedness evidence (no homogeneous embedding here):
    the dual objective running to +inf with the dual residual small while the
    primal one stays put means no feasible x; the primal objective running to
    -inf with x growing while the dual residual stays put means unbounded."""
    if e["iter"] < 2:
        return None
    if (e["lmax"] > factor * (1 + e0["lmax"]) and e["dobj"] > factor * (1 + abs(e0["dobj"]))
            and e["rb"] > 10 * tol):
        return "infeasible", "the dual objective grows without bound while A x = b stays violated: no feasible x"
    if (e["xmax"] > factor * (1 + e0["xmax"]) and e["pobj"] < -factor * (1 + abs(e0["pobj"]))
            and e["rc"] > 10 * tol):
        return "unbounded", "x grows without bound while c^T x decreases: the LP is unbounded"
    # complementarity gone while a residual stays: the iterates converge to the
    # closest infeasible point (Zhang's LIPSOL rule, in spirit)
    if e["iter"] >= 5 and e["mu"] < 1e-8 * e0["mu"]:
        if e["rb"] > 10 * tol and e["rb"] > 1e-2 * e0["rb"]:
            return "infeasible", "x^T s -> 0 but A x = b stays violated: no feasible x"
        if e["rc"] > 10 * tol and e["rc"] > 1e-2 * e0["rc"]:
            return "unbounded", "x^T s -> 0 but the dual stays infeasible: the LP is unbounded"
    return None


def _keep_positive(be, v, dv, alpha):
    """Shrink alpha until v + alpha dv > 0 holds in working (float32) precision:
    rounding can zero a component the ratio test let through."""
    for _ in range(30):
        be.axpy("t_n", alpha, dv, v)
        if be.vmin("t_n") > 0:
            return alpha
        alpha *= 0.9
    return 0.0


def solve(be, b, c, *, tol=1e-6, max_iter=100, callback=None) -> IPMResult:
    n = be.n
    be.put("b", b)
    be.put("c", c)
    be.put("ones", np.ones(n))
    nb, nc = 1 + np.abs(b).max(initial=0), 1 + np.abs(c).max(initial=0)
    initial_point(be, n)
    log = []
    status, message = "iteration limit", ""
    small_steps = 0
    best = (math.inf, -1)          # (max of the three criteria, iteration) of the best iterate
    for k in range(max_iter + 1):
        t0 = time.perf_counter()
        be.Ax("t_m", "x")
        be.axpy("rb", -1.0, "t_m", "b")
        be.Aty("t_n", "lam")
        be.axpy("t_n", -1.0, "t_n", "c")
        be.axpy("rc", -1.0, "s", "t_n")
        nrb, nrc = be.norm_inf("rb"), be.norm_inf("rc")
        pobj, dobj = be.dot("c", "x"), be.dot("b", "lam")
        mu = be.dot("x", "s") / n
        xmax, lmax = be.norm_inf("x"), be.norm_inf("lam")
        rel_b, rel_c = nrb / nb, nrc / nc
        gap = abs(pobj - dobj) / (1 + abs(pobj))
        entry = dict(iter=k, pobj=pobj, dobj=dobj, rb=rel_b, rc=rel_c, gap=gap, mu=mu)
        score = max(rel_b, rel_c, gap)
        if math.isfinite(score) and score < best[0]:
            best = (score, k)
            for v in ("x", "lam", "s"):
                be.axpy("best_" + v, 1.0, v)
        if not all(map(math.isfinite, (nrb, nrc, pobj, dobj, mu))):
            # a blow-up right after iterates ran away is the divergence itself
            verdict = _diverging(log[-1], log[0], tol, 1e3) if log and best[0] > 1e-2 else None
            status, message = verdict or ("numerical trouble", "non-finite iterate (float32 breakdown)")
            log.append(entry)
            break
        if rel_b <= tol and rel_c <= tol and gap <= tol:
            status = "optimal"
            log.append(entry)
            break
        entry.update(xmax=xmax, lmax=lmax)
        # infeasibility / unboundedness only for runs that never came near an optimum
        verdict = _diverging(entry, log[0] if log else entry, tol, 1e6) if best[0] > 1e-2 else None
        if verdict:
            status, message = verdict
            log.append(entry)
            break
        if k == max_iter:
            log.append(entry)
            break
        if k - best[1] >= STALL and best[0] < 1e-2:
            status = "numerical trouble"
            message = (f"no progress for {STALL} iterations: float32 precision limit near the optimum "
                       f"(best point: max relative residual / gap {best[0]:.3g} > tol {tol:g}; "
                       f"precision='mixed' reaches 1e-8)")
            log.append(entry)
            break
        sigma, alpha_p, alpha_d = _step(be, n, mu)
        entry.update(sigma=sigma, alpha_p=alpha_p, alpha_d=alpha_d, seconds=time.perf_counter() - t0)
        log.append(entry)
        if callback:
            callback(entry)
        small_steps = small_steps + 1 if max(alpha_p, alpha_d) < 1e-6 else 0
        if small_steps >= 5:
            status, message = "numerical trouble", "steps collapsed to zero (float32 cannot make progress)"
            break
    if status in ("iteration limit", "numerical trouble") and best[1] >= 0:
        final = ("best_x", "best_lam", "best_s")       # hand back the best point seen, not the last
        if message:
            message += f"; returning iterate {best[1]}"
    else:
        final = ("x", "lam", "s")
    return IPMResult(status, *(be.get(v) for v in final), k, log, message)


def _step(be, n: int, mu: float) -> tuple:
    """One Mehrotra predictor-corrector step on the backend's vectors (the 2006 paper's
    iteration): the normal matrix factored at D^2 = X S^-1, the affine direction, sigma,
    the centred corrector, the step lengths kept inside the positive orthant; x, lam, s
    updated in place.  (sigma, alpha_p, alpha_d)."""
    be.scaling("d2", "x", "s", *D2_RANGE)
    be.factor("d2", PIVOT_REL)
    # predictor (affine scaling)
    be.mul("rxs", "x", "s")
    _direction(be, "rxs", "rb", "rc", "dx_aff", "dlam_aff", "ds_aff")
    ap, _ = be.max_step("x", "dx_aff")
    ad, _ = be.max_step("s", "ds_aff")
    be.axpy("t_n", ap, "dx_aff", "x")
    be.axpy("u", ad, "ds_aff", "s")
    mu_aff = be.dot("t_n", "u") / n
    sigma = min(1.0, max(0.0, mu_aff / mu)) ** 3 if mu > 0 else 0.0
    # centering-corrector
    be.mul("rxs", "dx_aff", "ds_aff")
    be.axpy("rxs", -sigma * mu, "ones", "rxs")
    _direction(be, "rxs", None, None, "dx", "dlam", "ds")
    be.axpy("dx", 1.0, "dx", "dx_aff")
    be.axpy("dlam", 1.0, "dlam", "dlam_aff")
    be.axpy("ds", 1.0, "ds", "ds_aff")
    apm, ip = be.max_step("x", "dx")
    adm, idd = be.max_step("s", "ds")
    be.axpy("t_n", apm, "dx", "x")
    be.axpy("u", adm, "ds", "s")
    mu_full = be.dot("t_n", "u") / n
    alpha_p = _mehrotra_alpha(be, apm, ip, "x", "dx", "s", "ds", adm, mu_full)
    alpha_d = _mehrotra_alpha(be, adm, idd, "s", "ds", "x", "dx", apm, mu_full)
    alpha_p = _keep_positive(be, "x", "dx", alpha_p)
    alpha_d = _keep_positive(be, "s", "ds", alpha_d)
    be.axpy("x", alpha_p, "dx", "x")
    be.axpy("lam", alpha_d, "dlam", "lam")
    be.axpy("s", alpha_d, "ds", "s")
    return sigma, alpha_p, alpha_d
