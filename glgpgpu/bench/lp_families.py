"""LPs of the kinds users bring, generated at any size: each family's member is a GeneralLP of
about `n` columns, feasible and bounded by construction, the same for the same (n, seed).

    transportation      S sources x T sinks, supplies cover the demands (rows S + T, columns S T)
    multicommodity      K commodities routed over a grid network whose arcs they share
    random_sparse       a random sparse A with x0 inside, box bounds
    staircase           production over T periods, each period's block linked to the last
    set_cover           the LP relaxation of covering every row at least once (0 <= x <= 1)
    set_packing         the LP relaxation of packing weighted columns (max, A x <= 1)
    network_side        min-cost flow on a random network, with a few dense side constraints
    l1_regression       least absolute deviations (scipy's and scikit-learn's LAD as an LP)
    quantile_regression scikit-learn's QuantileRegressor (tau 0.3, alpha 0.01) as an LP

`solve_beside_highs` times glgpgpu's solve and HiGHS's interior point (no crossover,
netlib.highs_ipm) on the same GeneralLP in one process; benchmarks/lp_families.py runs the sizes and writes the CSV.
"""
from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ..solvers.lp.problem import GeneralLP, from_linprog, highs_model
from ..solvers.lp.solver import solve_general
from .netlib import highs_ipm


def _rng(n, seed, family):
    return np.random.default_rng([int(seed), int(n), sum(map(ord, family))])


def transportation(n: int, seed: int = 0) -> GeneralLP:
    rng = _rng(n, seed, "transportation")
    S = max(2, int(round(np.sqrt(n) / 4)))
    T = max(2, n // S)
    demand = rng.uniform(1.0, 10.0, T)
    supply = rng.uniform(0.5, 1.5, S)
    supply *= 1.2 * demand.sum() / supply.sum()
    i, j = np.divmod(np.arange(S * T), T)               # column k = (source i, sink j)
    ones = np.ones(S * T)
    A_ub = sp.csr_matrix((ones, (i, np.arange(S * T))), shape=(S, S * T))
    A_eq = sp.csr_matrix((ones, (j, np.arange(S * T))), shape=(T, S * T))
    cost = rng.uniform(1.0, 20.0, S * T)
    return from_linprog(cost, A_ub, supply, A_eq, demand, (0, None))


def _grid_arcs(g: int):
    """Both directions of every edge of a g x g grid: (tail, head) node indices."""
    node = np.arange(g * g).reshape(g, g)
    pairs = np.concatenate([np.stack([node[:, :-1].ravel(), node[:, 1:].ravel()], 1),
                            np.stack([node[:-1, :].ravel(), node[1:, :].ravel()], 1)])
    return np.concatenate([pairs, pairs[:, ::-1]])


def multicommodity(n: int, seed: int = 0, commodities: int = 8) -> GeneralLP:
    rng = _rng(n, seed, "multicommodity")
    K = commodities
    g = max(3, int(round(np.sqrt(n / (4 * K)))) + 1)
    arcs = _grid_arcs(g)
    E, V = arcs.shape[0], g * g
    inc = sp.csr_matrix((np.r_[-np.ones(E), np.ones(E)], (np.r_[arcs[:, 0], arcs[:, 1]], np.r_[np.arange(E),
                                                                                                   np.arange(E)])),
                        shape=(V, E))                    # node-arc incidence: -1 out, +1 in
    index = {tuple(a): e for e, a in enumerate(arcs)}
    load = np.zeros(E)
    rhs = []
    for _ in range(K):                                    # each commodity routed on an L-shaped path first
        (r0, c0), (r1, c1) = rng.integers(0, g, 2), rng.integers(0, g, 2)
        while (r0, c0) == (r1, c1):
            r1, c1 = rng.integers(0, g, 2)
        d = rng.uniform(1.0, 5.0)
        path = [(r0, c) for c in range(c0, c1, 1 if c1 > c0 else -1)] + [(r, c1) for r in range(r0, r1, 1 if r1 > r0
                                                                                                  else -1)]
        path.append((r1, c1))
        for (ra, ca), (rb, cb) in zip(path, path[1:]):
            load[index[(ra * g + ca, rb * g + cb)]] += d
        b = np.zeros(V)
        b[r0 * g + c0], b[r1 * g + c1] = -d, d
        rhs.append(b)
    A_eq = sp.block_diag([inc] * K, format="csr")
    A_ub = sp.hstack([sp.eye(E, format="csr")] * K, format="csr")     # the arcs' shared capacity
    capacity = load + rng.uniform(0.5, 3.0, E)
    cost = np.tile(rng.uniform(1.0, 10.0, E), K)
    return from_linprog(cost, A_ub, capacity, A_eq, np.concatenate(rhs), (0, None))


def random_sparse(n: int, seed: int = 0) -> GeneralLP:
    rng = _rng(n, seed, "random_sparse")
    m = max(2, int(n / 2.5))
    A = sp.random(m, n, density=min(1.0, 6.0 / m), random_state=rng, format="csr") + sp.eye(m, n, format="csr")
    x0 = rng.uniform(1.0, 5.0, n)
    b = A @ x0 + rng.uniform(0.0, 1.0, m)
    return from_linprog(rng.standard_normal(n), A, b, None, None, (0, 10))


def staircase_matrix(periods: int, k: int, rng) -> tuple:
    """(A, b, c) of a multi-period production LP, A x = b, x >= 0: T K rows, 2 T K columns,
    period t's block linked to period t - 1's by -I (benchmarks/lp_staircase.py runs it too)."""
    blocks = []
    for t in range(periods):
        B = sp.random(k, 2 * k, density=min(1.0, 4.0 / k), random_state=rng, format="csr") + sp.eye(k, 2 * k)
        row = [None] * periods
        row[t] = B
        if t:
            row[t - 1] = -sp.eye(k, 2 * k)
        blocks.append(row)
    A = sp.bmat(blocks, format="csr")
    x0 = rng.uniform(0.5, 1.5, A.shape[1])
    return A, A @ x0, rng.uniform(1.0, 2.0, A.shape[1])


def staircase(n: int, seed: int = 0, k: int = 100) -> GeneralLP:
    """staircase_matrix with T = n / 2K periods."""
    k = min(k, max(2, n // 4))
    A, b, c = staircase_matrix(max(2, n // (2 * k)), k, _rng(n, seed, "staircase"))
    return from_linprog(c, None, None, A, b, (0, None))


def _cover_matrix(rng, m, n, per_column=3):
    """Each column covers `per_column` random rows; each row at least two columns."""
    rows = rng.integers(0, m, (n, per_column))
    cols = np.repeat(np.arange(n), per_column)
    extra = np.arange(2 * m) % m, rng.integers(0, n, 2 * m)
    A = sp.csr_matrix((np.ones(n * per_column + 2 * m), (np.r_[rows.ravel(), extra[0]], np.r_[cols, extra[1]])),
                      shape=(m, n))
    A.data[:] = 1.0                                        # duplicates summed, then 0/1
    return A


def set_cover(n: int, seed: int = 0) -> GeneralLP:
    rng = _rng(n, seed, "set_cover")
    m = max(2, n // 4)
    A = _cover_matrix(rng, m, n)
    return from_linprog(rng.uniform(1.0, 10.0, n), -A, -np.ones(m), None, None, (0, 1))


def set_packing(n: int, seed: int = 0) -> GeneralLP:
    rng = _rng(n, seed, "set_packing")
    m = max(2, n // 4)
    A = _cover_matrix(rng, m, n)
    return from_linprog(-rng.uniform(1.0, 10.0, n), A, np.ones(m), None, None, (0, 1))


def network_side(n: int, seed: int = 0, side: int = 5) -> GeneralLP:
    rng = _rng(n, seed, "network_side")
    V = max(3, n // 5)
    cycle = np.stack([np.arange(V), (np.arange(V) + 1) % V], 1)       # strongly connected
    rest = rng.integers(0, V, (max(0, n - V), 2))
    rest = rest[rest[:, 0] != rest[:, 1]]
    arcs = np.concatenate([cycle, rest])
    E = arcs.shape[0]
    inc = sp.csr_matrix((np.r_[-np.ones(E), np.ones(E)], (np.r_[arcs[:, 0], arcs[:, 1]], np.r_[np.arange(E),
                                                                                                   np.arange(E)])),
                        shape=(V, E))
    supply = rng.uniform(-5.0, 5.0, V)
    supply -= supply.mean()                                         # balanced: sum zero
    # a feasible flow: around the cycle, each arc carrying the running sum (shifted nonnegative)
    run = np.cumsum(-supply)
    flow = np.zeros(E)
    flow[:V] = run - run.min() + 1.0
    S = sp.random(side, E, density=0.5, random_state=rng, format="csr")
    S.data = rng.uniform(0.5, 1.5, S.nnz)
    cap = 2.0 * flow.max() + 10.0
    return from_linprog(rng.uniform(1.0, 10.0, E), S, 1.5 * (S @ flow) + 1.0, inc, inc @ flow, (0, cap))


def _regression_data(rng, N, p):
    X = rng.standard_normal((N, p))
    y = X @ rng.standard_normal(p) + rng.standard_t(3, N)
    return X, y


def l1_regression(n: int, seed: int = 0, features: int = 20) -> GeneralLP:
    """min sum |y - X beta|: beta free, r+ r- >= 0, X beta + r+ - r- = y (columns p + 2N)."""
    rng = _rng(n, seed, "l1_regression")
    p = features
    N = max(p + 1, (n - p) // 2)
    X, y = _regression_data(rng, N, p)
    A = sp.hstack([sp.csr_matrix(X), sp.eye(N), -sp.eye(N)], format="csr")
    c = np.r_[np.zeros(p), np.ones(2 * N)]
    return from_linprog(c, None, None, A, y, [(None, None)] * p + [(0, None)] * (2 * N))


def quantile_regression(n: int, seed: int = 0, features: int = 20, tau: float = 0.3,
                        alpha: float = 0.01) -> GeneralLP:
    """scikit-learn's QuantileRegressor LP: beta = beta+ - beta-, the pinball loss's tau r+ +
    (1 - tau) r- over N points plus alpha N |beta| (its L1 penalty), X (beta+ - beta-) + r+ - r- = y."""
    rng = _rng(n, seed, "quantile_regression")
    p = features
    N = max(p + 1, (n - 2 * p) // 2)
    X, y = _regression_data(rng, N, p)
    Xs = sp.csr_matrix(X)
    A = sp.hstack([Xs, -Xs, sp.eye(N), -sp.eye(N)], format="csr")
    c = np.r_[np.full(2 * p, alpha * N), np.full(N, tau), np.full(N, 1.0 - tau)]
    return from_linprog(c, None, None, A, y, (0, None))


FAMILIES = {f.__name__: f for f in (transportation, multicommodity, random_sparse, staircase, set_cover,
                                    set_packing, network_side, l1_regression, quantile_regression)}


def solve_beside_highs(family: str, n: int, seed: int = 0, **solve) -> dict:
    """One member solved by glgpgpu (solve_general's keywords) and by HiGHS's IPM: a CSV row."""
    lp = FAMILIES[family](n, seed)
    t0 = time.perf_counter()
    res = solve_general(lp, **solve)
    seconds = time.perf_counter() - t0
    h_seconds, h_obj, h_status = highs_ipm(highs_model(lp))
    return {"family": family, "n": n, "seed": seed, "rows": lp.shape[0], "cols": lp.shape[1],
            "nnz": int(sp.csr_matrix(lp.A).nnz), "status": res.status, "iterations": res.iterations,
            "objective": res.objective, "highs_status": h_status, "highs_objective": h_obj,
            "rel_obj_error": abs(res.objective - h_obj) / max(1.0, abs(h_obj)), "seconds": seconds,
            "highs_s": h_seconds, "time_ratio": seconds / h_seconds if h_seconds > 0 else float("nan"),
            "device_kind": res.stats.get("device", ""), "device_reason": res.stats.get("device_reason", ""),
            "factor_flops": res.stats.get("factor_flops", float("nan"))}
