"""Mehrotra's predictor-corrector in float64 with bounds handled implicitly --
the mixed-precision solver (precision="mixed").

Problem (bounded.py, scaled):  min c^T x  s.t.  A x = b,  x_j >= 0 (j in L),
x_j <= u_j (j in U, a subset of L), x_j free (j not in L).
Iterates x, s (= u - x on U), y, z >= 0 (on L), w >= 0 (on U) and every residual
and step length are float64.  Each Newton system reduces to the normal equations

    (A D A^T + delta I) dy = r_b + A D r_hat,    D^-1 = Z/X + W/S + rho
                                                 (free columns: D^-1 = rho_free)

solved by normal.MixedNormal: formed and factored on the GPU in float32, solved
to float64 accuracy by refinement / preconditioned CG.  Columns that rho
throttles (z_j/x_j << rho while they still have far to go) get their true D back
through a small bordered system (_border, MixedNormal.newton).  rho and delta are the
primal and dual proximal regularizations (they keep the normal matrix definite
when A D A^T is singular: dependent rows, degenerate optima).

Where the float32 factor stops carrying the solves, every solve goes through the float64
factor from then on (normal.exact: after a refused step, after FLOAT64_AFTER iterations that
needed it, or before a stall is taken as final); where the GPU factors M in float64 itself (the
compute method), or device="cpu64" factors it by the multifrontal factor, from the start
(MixedNormal.float64_throughout).

Termination (like HiGHS/IPX): relative primal infeasibility, dual infeasibility
and objective gap, all measured on the *unscaled* problem, below tol.
Infeasibility / unboundedness: the iterates of an infeasible-start method
diverge along a Farkas ray; a normalized iterate that satisfies the ray's
conditions to within 1e-6 is reported as the certificate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Outcome:
    status: str                       # optimal | infeasible | unbounded | iteration limit | numerical trouble
    x: np.ndarray                     # unscaled, in BoundedLP's columns
    y: np.ndarray
    iterations: int
    log: list = field(default_factory=list)
    message: str = ""
    primal_infeasibility: float = math.inf
    dual_infeasibility: float = math.inf
    gap: float = math.inf
    objective: float = math.nan


RHO = 1e-12       # primal proximal regularization (scaled units).  Each step leaves rho*dx in
                  # the dual residual (what stalled greenbea at 2e-6 before bordering, _border);
                  # without it the float32 preconditioner degrades (stair, finnis fail on the H100)
RHO_FREE = 1e-8   # the same for free columns, which have no barrier term
RHO_FREE_RELATIVE = 1e-5   # free_rho="relative": rho / (1 + |x_j|)^2, relative to the column's own size.
                  # A constant rho leaves rho*dx in the dual residual of a column that must travel far,
                  # and a small one lets nearly dependent free columns stall the primal; the constant
                  # one is tried first (greenbeb needs it), this one if that run fails
STALL_BORDER = 9  # with the host factor's border of long columns: this many iterations without progress end
                  # the run, for the caller's solve with M factored whole (a stall of 15 spent 6 more;
                  # NETLIB's forplan recovers from a shorter one with its border: RESULTS.md, round 33)
DELTA = 1e-12     # dual proximal regularization
MAX_BORDER = 16   # bordered columns at most (each costs one extra solve per factorization)
BORDER_PULL = 50  # ... entering when |rc_j| / z_j exceeds this (greenbea's: 170, 250; pilot's: <= 35)
GONDZIO = 2       # centrality correctors per iteration at most
SOLVE_TOL_MIN, SOLVE_TOL_MAX = 1e-12, 1e-6   # relative residual asked of each normal-equations solve
MU_JUMP = 100.0   # a step raising x^T z this many times is refused and redone with float64 factors
BORDER_JUMP = 100.0  # a bordered step raising x^T z or |A x - b| (past tol) this many times is refused,
                     # and M factored whole from there (RESULTS.md, round 34)
FLOAT64_AFTER = 3  # this many iterations in a row needing the float64 factor: no float32 factor after
STALL = 15        # iterations without progress before the iteration gives up ("numerical trouble") ...
STALL_WITHIN_TOL = 5   # ... or, once its best point is within tol (the stall rule's "optimal"), before it
                  # stops there: dfl001 and pilot87 spent their last 15 iterations not improving it
STALL_FREE = 5    # with free columns under the constant RHO_FREE: this many iterations without progress
                  # go on under RHO_FREE_RELATIVE, rather than a stall of STALL and a solve from the
                  # start.  Only on the host's float64 factor (device="cpu64"): measured there, NETLIB's
                  # 75 taking the same iterations as without it (RESULTS.md, round 33)


class _State:
    def __init__(self, x, s, y, z, w):
        self.x, self.s, self.y, self.z, self.w = x, s, y, z, w

    def copy(self) -> "_State":
        return _State(self.x.copy(), self.s.copy(), self.y.copy(), self.z.copy(), self.w.copy())


@dataclass
class _Measures:
    """Residuals of an iterate and its relative measures on the unscaled problem."""

    rb: np.ndarray
    ru: np.ndarray
    rc: np.ndarray
    pinf: float
    dinf: float
    gap: float
    pobj: float
    dobj: float


class _Iteration:
    """The pieces of one Mehrotra iteration on a scaled BoundedLP, each a named step:
    measures (residuals), newton (one reduced Newton solve), predictor, corrector,
    gondzio (centrality correctors), advance (the step)."""

    def __init__(self, p, normal, free_rho="constant"):
        self.p, self.normal, self.free_rho = p, normal, free_rho
        self.m, self.n = p.A.shape
        self.U = np.isfinite(p.u)
        self.L = ~p.free                                       # columns with a lower bound (0)
        self.all_L = bool(self.L.all())
        self.Ls = slice(None) if self.all_L else self.L       # what selects them: views where it is all
        self.uU = p.u[self.U]
        rs, cs = p.row_scale, p.col_scale
        b0 = p.b / rs                                          # the unscaled data, for relative measures
        c0 = p.c / cs
        u0 = (p.u * cs)[self.U]
        self.nb = 1 + np.abs(b0).max(initial=0) + (np.abs(u0).max(initial=0))
        self.nc = 1 + np.abs(c0).max(initial=0)
        self.N = int(self.L.sum()) + int(self.U.sum())
        self.solve_tol = 1e-10           # inexact Newton: each solve as accurate as progress needs
        self.border = np.zeros(0, int)

    def measures(self, st: _State) -> _Measures:
        p, U = self.p, self.U
        rs, cs = p.row_scale, p.col_scale
        rb = p.b - self.normal.A @ st.x
        ru = self.uU - st.x[U] - st.s
        wf = np.zeros(self.n)
        wf[U] = st.w
        rc = p.c - self.normal.At @ st.y - st.z + wf
        pinf = max(np.abs(rb / rs).max(initial=0), np.abs(ru * cs[U]).max(initial=0)) / self.nb
        dinf = np.abs(rc / cs).max(initial=0) / self.nc
        pobj = float(p.c @ st.x) + p.const
        dobj = float(p.b @ st.y - self.uU @ st.w) + p.const
        gap = abs(pobj - dobj) / (1 + abs(pobj))
        return _Measures(rb, ru, rc, pinf, dinf, gap, pobj, dobj)

    def mu(self, st: _State) -> float:
        L = self.Ls
        return (st.x[L] @ st.z[L] + st.s @ st.w) / max(self.N, 1)

    def newton(self, st, rb, ru, rc, rxz, rsw, Dinv):
        """Solve the reduced Newton system for one right-hand side."""
        L, U = self.Ls, self.U
        D = 1.0 / Dinv
        rhat = rc.copy()
        rhat[L] -= rxz[L] / st.x[L]
        rhat[U] += (rsw - st.w * ru) / st.s
        dy, dx = self.normal.newton(rb, rhat, D, self.solve_tol)
        ds = ru - dx[U]
        dz = np.zeros(self.n)
        dz[L] = (rxz[L] - st.z[L] * dx[L]) / st.x[L]
        dw = (rsw - st.w * ds) / st.s
        return dx, ds, dy, dz, dw

    def steps(self, st, d):
        """The longest primal and dual steps (at most 1) keeping x, s, z, w >= 0."""
        dx, ds, _, dz, dw = d
        L = self.Ls
        return (min(_max_step(st.x[L], dx[L]), _max_step(st.s, ds)),
                min(_max_step(st.z[L], dz[L]), _max_step(st.w, dw)))

    def factor(self, st: _State, me: _Measures, tol: float):
        """D^-1 = Z/X + W/S + rho, the bordered columns chosen, the normal matrix factored."""
        L, U = self.L, self.U
        if self.free_rho == "relative":
            Dinv = RHO_FREE_RELATIVE / (1.0 + np.abs(st.x)) ** 2
        else:
            Dinv = np.full(self.n, RHO_FREE)
        Dinv[self.Ls] = st.z[self.Ls] / st.x[self.Ls] + RHO
        Dinv[U] += st.w / st.s
        self.border = _border(self.border, st, me.rc, self.p.col_scale, self.nc, L, U, tol)
        self.normal.factor(1.0 / Dinv, DELTA, border=self.border,
                           d_border=st.x[self.border] / st.z[self.border])
        return Dinv

    def predictor(self, st, me, mu, Dinv):
        """The affine-scaling direction and Mehrotra's centring parameter sigma."""
        xz, sw = st.x * st.z, st.s * st.w            # xz is 0 on free columns (z = 0 there)
        dx, ds, dy, dz, dw = self.newton(st, me.rb, me.ru, me.rc, -xz, -sw, Dinv)
        ap, ad = self.steps(st, (dx, ds, dy, dz, dw))
        mu_aff = (((st.x + ap * dx) @ (st.z + ad * dz)) + (st.s + ap * ds) @ (st.w + ad * dw)) / max(self.N, 1)
        sigma = min(1.0, (mu_aff / mu) ** 3) if mu > 0 else 0.0
        return (dx, ds, dy, dz, dw), sigma

    def corrector(self, st, me, mu, Dinv, affine, sigma):
        """The combined direction, with the same factor."""
        dx, ds, _, dz, dw = affine
        xz, sw = st.x * st.z, st.s * st.w
        rxz = sigma * mu - xz - dx * dz
        if not self.all_L:
            rxz = np.where(self.L, rxz, 0.0)
        rsw = sigma * mu - sw - ds * dw
        d = self.newton(st, me.rb, me.ru, me.rc, rxz, rsw, Dinv)
        return d, self.steps(st, d)

    def gondzio(self, st, me, mu, Dinv, d, ap, ad, sigma):
        """Gondzio's multiple centrality correctors: aim at a longer step whose
        complementarity products lie in [0.1, 10] sigma mu (same factor, one solve each)."""
        dx, ds, dy, dz, dw = d
        for _ in range(GONDZIO):
            a_try = min(1.0, 1.5 * min(ap, ad) + 0.1)
            vxz = (st.x + a_try * dx) * (st.z + a_try * dz)
            vsw = (st.s + a_try * ds) * (st.w + a_try * dw)
            lo, hi = 0.1 * sigma * mu, 10.0 * sigma * mu
            txz, tsw = _toward(vxz, lo, hi), _toward(vsw, lo, hi)
            if not self.all_L:
                txz = txz * self.L
            cx, cs_, cy, cz, cw = self.newton(st, np.zeros_like(me.rb), np.zeros_like(me.ru), np.zeros_like(me.rc),
                                              txz, tsw, Dinv)
            nd = (dx + cx, ds + cs_, dy + cy, dz + cz, dw + cw)
            ap2, ad2 = self.steps(st, nd)
            if min(ap2, ad2) < 1.01 * min(ap, ad) + 0.01:
                break
            (dx, ds, dy, dz, dw), ap, ad = nd, ap2, ad2
        return (dx, ds, dy, dz, dw), ap, ad

    def advance(self, st, d, ap, ad) -> None:
        """Take the step, kept strictly interior against rounding."""
        dx, ds, dy, dz, dw = d
        L = self.Ls
        st.x = st.x + ap * dx
        st.s = st.s + ap * ds
        st.y = st.y + ad * dy
        st.z = st.z + ad * dz
        st.w = st.w + ad * dw
        st.x[L] = np.maximum(st.x[L], 1e-300)
        st.s = np.maximum(st.s, 1e-300)
        st.z[L] = np.maximum(st.z[L], 1e-300)
        st.w = np.maximum(st.w, 1e-300)


def _toward(v, lo, hi):
    """Gondzio's target change of the products v: up to lo where below it, down to hi (by at most
    hi) where above it, 0 between."""
    return np.where(v > hi, np.maximum(hi - v, -hi), np.maximum(lo - v, 0.0))


def _max_step(v, dv):
    """min(1, min of -v_j / dv_j over dv_j < 0): one division where dv < 0, no gathers."""
    r = np.divide(v, dv, out=np.full(v.shape, -np.inf), where=dv < 0)
    return min(1.0, -float(r.max(initial=-np.inf)))


def solve(p, normal, *, tol=1e-8, max_iter=200, callback=None, free_rho="constant", unborder_on_jump=True) -> Outcome:
    """Mehrotra's iteration on the bounded LP p through `normal`'s solves.  unborder_on_jump: a
    step that throws the bordered solves' iterate off course is refused and M factored whole
    from there (False: left to the stall rules, for a caller with a better retry in hand)."""
    if not normal.exact and normal.float64_throughout:
        normal.exact = normal.stats["float64_throughout"] = True
    it_ = _Iteration(p, normal, free_rho)
    st = _start(p, normal, it_.U, it_.L)
    log, best, ahead = [], None, None     # ahead: st's measures where a step's check made them
    status, message = "iteration limit", f"no convergence to tol={tol:g} in {max_iter} iterations"
    stall = streak = 0
    for it in range(max_iter + 1):
        me, ahead = (ahead if ahead is not None else it_.measures(st)), None
        mu = it_.mu(st)
        entry = dict(iter=it, pobj=me.pobj, dobj=me.dobj, rb=me.pinf, rc=me.dinf, gap=me.gap, mu=mu)
        if log:
            entry.update(alpha_p=log[-1].get("next_alpha_p", 0.0), alpha_d=log[-1].get("next_alpha_d", 0.0))
        log.append(entry)
        if callback:
            callback(entry)
        worst = max(me.pinf, me.dinf, 10 * me.gap)        # <= 10 tol: within tol, gap within tol
        if not np.isfinite(worst):
            status, message = "numerical trouble", "a non-finite iterate"
            break
        if best is None or worst < best[0]:
            best = (worst, st.copy(), it, max(me.pinf, me.dinf))
            stall = 0
        else:
            stall += 1
        # the gap a tenth of tol: the objective itself then lands within tol
        if me.pinf <= tol and me.dinf <= tol and me.gap <= 0.1 * tol:
            status, message = "optimal", ""
            break
        cert = _certificate(p, st, it_.U, normal)
        if cert:
            status, message = cert
            break
        if it == max_iter:
            break
        within = best[0] <= 10 * tol and best[3] <= tol    # primal, dual and gap all within tol
        stalled = stall >= STALL or (within and stall >= STALL_WITHIN_TOL)
        early = stall >= STALL_FREE and not within and normal.device == "cpu64"     # measured there only
        if early and it_.free_rho == "constant" and not it_.all_L:
            # the free columns' constant proximal term holds them (a column that must travel far,
            # nearly dependent free columns): on with it relative to their size
            it_.free_rho = "relative"
            normal.stats["free_rho_relative_from"] = it + 1
            log[-1].update(free_rho="relative")
            stall = 0
        elif stall >= STALL_BORDER and not within and normal.bordered:
            # the border's solves lose their accuracy (quantile regression's split coefficients):
            # the caller solves again with M factored whole -- from the start: going on from
            # here with M whole stalled again (its iterate already off course)
            status, message = "numerical trouble", f"no progress for {STALL_BORDER} iterations with the border's solves"
            normal.stats["border_stall_at"] = it
            break
        elif stalled and not normal.exact and normal.device != "cpu64":
            # the float32 factor's solves may be what holds the iterates: before the stall is
            # final, from the best point with every solve float64's
            normal.exact = True
            normal.stats["float64_from_iteration"] = normal.stats["float64_after_stall"] = it + 1
            log[-1].update(float64_after_stall=True)
            st, stall = best[1].copy(), 0
            me, mu = it_.measures(st), it_.mu(st)
            worst = max(me.pinf, me.dinf, 10 * me.gap)
        elif stalled:
            if within:
                status, message = "optimal", f"stalled at a relative gap of {best[0] / 10:.1e} (<= tol)"
                st = best[1]
            else:
                status, message = "numerical trouble", f"no progress for {STALL} iterations (best max residual {best[0]:.2e})"
            break
        it_.solve_tol = min(SOLVE_TOL_MAX, max(SOLVE_TOL_MIN, 1e-3 * worst))
        Dinv = it_.factor(st, me, tol)
        affine, sigma = it_.predictor(st, me, mu, Dinv)
        d, (ap, ad) = it_.corrector(st, me, mu, Dinv, affine, sigma)
        d, ap, ad = it_.gondzio(st, me, mu, Dinv, d, ap, ad, sigma)
        eta = 0.9995 if me.gap < 1e-3 else 0.995
        ap, ad = eta * ap, eta * ad
        log[-1].update(next_alpha_p=ap, next_alpha_d=ad)
        prev = st.copy()
        it_.advance(st, d, ap, ad)
        mu_new = it_.mu(st)
        jump = mu_new > MU_JUMP * mu
        off, ahead = _off_course(it_, normal, st, me, mu, mu_new, tol) if unborder_on_jump else (False, None)
        if off:
            st, ahead = _refused_bordered(it_, normal, prev, it, log), None
        elif jump and not normal.exact:
            st, ahead = _refused_float32(normal, prev, it, log), None
        # the float32 factor no longer carries the solves (dfl001 late: kappa(M) past ~1e8):
        # stop making it -- its factorization, read-back and PCG were spent for nothing
        # (device="cpu64" has no float32 factor: its preconditioner is already float64)
        streak = streak + 1 if normal.needed_float64 else 0
        if streak >= FLOAT64_AFTER and not normal.exact and normal.device != "cpu64":
            normal.exact = True
            normal.stats["float64_from_iteration"] = it + 1
    final = st if status in ("optimal", "infeasible", "unbounded") or best is None else best[1]
    me = it_.measures(final)
    return Outcome(status, final.x * p.col_scale, final.y * p.row_scale, len(log) - 1, log, message,
                   me.pinf, me.dinf, me.gap, me.pobj)


def _refused_float32(normal, prev, it, log):
    """The step refused (prev goes on): no step of Mehrotra's raises the complementarity
    MU_JUMP-fold, so the direction is wrong in some component the ratio test does not bound (a
    solve accurate in M's residual, not in D A^T dy: pilot87 under the compute method, mu 1e-7
    -> 2e2); from here every solve goes through the float64 factor."""
    normal.exact = True
    normal.stats["refused_steps"] += 1
    normal.stats["float64_from_iteration"] = it + 1
    log[-1].update(refused=True)
    return prev


def _off_course(it_, normal, st, me, mu, mu_new, tol):
    """(whether the step to st, made by the border's solves, threw the iterate off course: x^T z
    or |A x - b| (past tol) up BORDER_JUMP-fold; st's measures where they were made for it, else
    None).  With free columns, only while their proximal term is constant or the product form not
    yet taken: after both the stall rules decide (an L1 regression's later jumps pass)."""
    if not normal.bordered or not (it_.all_L or it_.free_rho == "constant" or not normal.product_form):
        return False, None
    if mu_new > BORDER_JUMP * mu:
        return True, None
    new = it_.measures(st)
    return new.pinf > max(BORDER_JUMP * me.pinf, tol), new


def _refused_bordered(it_, normal, prev, it, log):
    """The step refused (prev goes on): the border's solves lost their accuracy on the way
    (quantile regression a step from its optimum: A x - b from 2e-16 to 4e-7, then 1e-1).  From
    here the free columns' proximal term goes relative to their size (an L1 regression's free
    coefficients: the border kept, its factors cheap), or, with none, M is factored whole -- not
    the whole solve again from the start (mixed.solve's retry, for a border that stalls without
    such a jump)."""
    normal.stats["refused_steps"] += 1
    log[-1].update(refused=True)
    if not it_.all_L and it_.free_rho == "constant":
        it_.free_rho = "relative"
        normal.stats["free_rho_relative_from"] = it + 1
    elif not normal.product_form:
        normal.to_product_form()
        normal.stats["product_form_at"] = it + 1
    else:
        normal.unborder()
        if normal.float64_throughout:
            normal.exact = normal.stats["float64_throughout"] = True
        normal.stats["unbordered_at"] = it + 1
    return prev


def _border(prev, st, rc, cs, nc, L, U, tol):
    """Columns whose Newton step the proximal term rho throttles: z_j/x_j far
    below rho, so each step moves x_j by only rc_j/rho and leaves rho dx_j in the
    dual residual.  greenbea's nearly antiparallel column pairs must grow to
    x ~ 1e10: without this the dual residual stalls at 2e-6, 1.3e-3 off the optimum.
    Their true D = x/z is given back through the bordered system
    (normal.MixedNormal.newton); once bordered a column stays so.

    A column enters only while it holds one of the worst dual residuals and
    wants to move far (|rc_j| > BORDER_PULL z_j: the unthrottled step x_j rc_j/z_j
    is many times x_j); bordering every throttled column with rc_j > tol made
    pilot fail on the H100 (its float32-preconditioned solves of M^-1 A_F are
    poor).  Bordering only after the iterates stall was tried too: by then M
    is too ill-conditioned for the border's solves, and greenbea failed again.
    At most MAX_BORDER, the worst first."""
    score = np.abs(rc / cs) / nc
    cand = L & ~U & (st.z < 0.1 * RHO * st.x) & (np.abs(rc) > BORDER_PULL * st.z)
    cand &= score > max(tol, 0.1 * score.max(initial=0))
    score = np.where(cand, score, 0.0)
    score[prev] = np.inf
    new = np.flatnonzero(score > 0)
    new = new[np.argsort(-score[new])][:MAX_BORDER]
    return np.sort(new)


def _start(p, normal, U, L):
    """Mehrotra's starting point, with the upper bounds: least-norm x and
    least-squares y from A A^T (factored on the GPU), shifted inside."""
    A, b, c, u = p.A, p.b, p.c, p.u
    n = A.shape[1]
    normal.factor(np.ones(n), DELTA)
    x = normal.At @ normal.solve(b)
    y = normal.solve(normal.A @ c)
    zr = c - normal.At @ y
    x[L] = x[L] + max(-1.5 * x[L].min(initial=0), 0.0)
    uU = u[U]
    xU = x[U]
    inside = (xU > 0.05 * uU) & (xU < 0.95 * uU)
    x[U] = np.where(inside, xU, 0.5 * uU)
    s = uU - x[U]
    lower_only = L & ~U
    z = np.zeros(n)
    z[lower_only] = zr[lower_only] + max(-1.5 * zr[lower_only].min(initial=0), 0.0)
    z[U] = np.maximum(zr[U], 0.0)
    w = np.maximum(-zr[U], 0.0)
    # Mehrotra's second correction: balance the complementarity products
    xz = x[L] @ z[L] + s @ w
    if xz > 0:
        dx = 0.5 * xz / max(z.sum() + w.sum(), 1e-300)
        dz = 0.5 * xz / max(x[L].sum() + s.sum(), 1e-300)
        x[lower_only] += dx
        z[L] += dz
        w += dz
    # nothing at zero: a floor relative to the typical size of each vector
    fx = 1e-2 * max(1.0, float(np.mean(x[L]))) if L.any() else 1.0
    fz = 1e-2 * max(1.0, float(np.mean(np.concatenate([z[L], w])))) if L.any() else 1.0
    x[lower_only] = np.maximum(x[lower_only], fx)
    x[U] = np.clip(x[U], np.minimum(fx, 0.5 * uU), np.maximum(uU - fx, 0.5 * uU))
    s = uU - x[U]
    z[L] = np.maximum(z[L], fz)
    w = np.maximum(w, fz)
    return _State(x, s, y, z, w)


def _certificate(p, st, U, normal):
    """A Farkas ray in the iterate, if its normalized form proves infeasibility
    (A^T y + z - w ~ 0, b^T y - u^T w > 0) or unboundedness (A x ~ 0, c^T x < 0)."""
    b, c, u = p.b, p.c, p.u
    ny = max(np.abs(st.y).max(initial=0), np.abs(st.z).max(initial=0), np.abs(st.w).max(initial=0))
    if ny > 1e8 * (1 + np.abs(c).max(initial=0)):
        wf = np.zeros(len(c))
        wf[U] = st.w
        resid = np.abs(normal.At @ st.y + st.z - wf).max(initial=0) / ny
        value = (b @ st.y - u[U] @ st.w) / ny
        if resid <= 1e-6 and value > 1e-6 * (1 + np.abs(b).max(initial=0)):
            return "infeasible", (f"primal infeasible: a Farkas ray y (|A^T y + z - w| / |y| = {resid:.1e}, "
                                  f"b^T y - u^T w > 0)")
    nx = np.abs(st.x).max(initial=0)
    if nx > 1e8 * (1 + np.abs(b).max(initial=0) + np.abs(u[U]).max(initial=0)):
        resid = np.abs(normal.A @ st.x).max(initial=0) / nx
        value = (c @ st.x) / nx
        if resid <= 1e-6 and value < -1e-6 * (1 + np.abs(c).max(initial=0)):
            return "unbounded", f"dual infeasible: a ray x >= 0 with A x ~ 0 ({resid:.1e}) and c^T x < 0"
    return None
