"""LP input and its conversion to the standard form the interior-point method solves.

General form (what MPS files and scipy's linprog describe):
    min c^T x + offset   s.t.  row_lo <= A x <= row_up,   col_lo <= x <= col_up
Standard form (Jung 2006, (4.1)-(4.3)):
    min c_s^T z + const   s.t.  A_s z = b_s,   z >= 0
Rules: a row with two different finite bounds gets a slack with an upper
bound; a one-sided row gets a surplus (>=) or slack (<=); a free row is dropped.
A variable with a finite lower bound is shifted (x = l + p), one with only an
upper bound reflected (x = u - p), a free one split (x = p - q), a fixed one
substituted; every finite upper bound adds a row p + w = u - l.
`StandardForm.recover` maps z back to x and the original objective.
MPS files are read by HiGHS (highspy); no MPS parser is written here.
"""
from __future__ import annotations

import contextlib
import gzip
import numbers
import os
from pathlib import Path
import sys
import tempfile
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ... import validate as check
from ...errors import MissingFileError, optional_import

INF = np.inf


@dataclass
class GeneralLP:
    c: np.ndarray
    A: np.ndarray                 # (rows, cols): dense, or scipy.sparse (from_mps: CSC, never densified)
    row_lo: np.ndarray
    row_up: np.ndarray
    col_lo: np.ndarray
    col_up: np.ndarray
    offset: float = 0.0
    name: str = "lp"

    @property
    def shape(self):
        return self.A.shape


@contextlib.contextmanager
def _quiet_stdout():
    """Send what C code writes to stdout (file descriptor 1) to /dev/null meanwhile: the
    library prints nothing unasked."""
    sys.stdout.flush()
    try:
        saved = os.dup(1)
    except OSError:                           # no stdout to silence
        yield
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(devnull)


def shipped_netlib() -> Path | None:
    """The folder of the NETLIB samples that ship with glgpgpu (afiro, adlittle, ...): inside
    the installed package, or data/netlib of a checkout; None if neither is there."""
    from importlib import resources
    packaged = Path(str(resources.files("glgpgpu"))) / "data" / "netlib"
    checkout = Path(__file__).resolve().parents[3] / "data" / "netlib"
    for folder in (packaged, checkout):
        if folder.is_dir():
            return folder
    return None


def _resolve_mps(path: str) -> str:
    """path itself, or -- where no such file exists and path is a bare name -- the shipped
    NETLIB sample of that name ("afiro": glgpgpu's afiro.mps.gz, from any folder)."""
    if os.path.exists(path) or os.sep in path or path.endswith((".mps", ".gz")):
        return path
    folder = shipped_netlib()
    if folder is not None and (folder / f"{path}.mps.gz").is_file():
        return str(folder / f"{path}.mps.gz")
    return path


def read_model(path: str):
    """HiGHS's model (`highspy.HighsLp`) of an MPS file (plain or .gz); the path is
    checked first (a folder, a missing file, a non-path are named)."""
    highspy = optional_import("highspy", "lp", "reading MPS files")

    if isinstance(path, bytes):                 # os.fspath's other form: a file name in bytes
        path = os.fsdecode(path)
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name, got {type(path).__name__} {path!r}")
    path = _resolve_mps(os.fspath(path))
    if os.path.isdir(path):
        raise ValueError(f"{path} is a folder; pass an MPS file (plain or .gz)")
    if not os.path.isfile(path):
        raise MissingFileError(2, f"no such MPS file: {path}", path)
    with _quiet_stdout():                     # HiGHS prints its banner as it is made, before any option
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    tmp = None
    try:
        read_path = path
        if path.endswith(".gz"):
            # HiGHS reads .gz when built with zlib; unpack ourselves to be sure.
            fd, tmp = tempfile.mkstemp(suffix=".mps")
            try:
                with os.fdopen(fd, "wb") as out, gzip.open(path, "rb") as src:
                    out.write(src.read())
            except (OSError, EOFError) as exc:
                raise ValueError(f"{path} is not a readable gzip'd MPS file ({exc})") from None
            read_path = tmp
        status = h.readModel(read_path)
        if status != highspy.HighsStatus.kOk and status != highspy.HighsStatus.kWarning:
            raise ValueError(f"HiGHS could not read {path} as an MPS file ({status}): is it malformed?")
    finally:
        if tmp:
            os.unlink(tmp)
    return h.getLp()


def from_mps(path: str) -> GeneralLP:
    """Read an MPS file (plain or .gz) with HiGHS."""
    highspy = optional_import("highspy", "lp", "reading MPS files")
    lp = read_model(path)
    path = os.fspath(path)
    ncol, nrow = lp.num_col_, lp.num_row_
    if ncol == 0:
        raise ValueError(f"{path} holds no variables (an empty or malformed MPS file)")
    a = lp.a_matrix_
    start, index, value = np.array(a.start_), np.array(a.index_), np.array(a.value_)
    # HiGHS keeps A column-wise (CSC); duplicates summed, as an MPS reader would
    A = sp.csc_matrix((value, index, start), shape=(nrow, ncol))
    A.sum_duplicates()
    A.eliminate_zeros()
    c = np.array(lp.col_cost_, dtype=float)
    offset = float(lp.offset_)
    for what, arr in (("a constraint coefficient", value), ("an objective coefficient", c),
                      ("a bound or right-hand side", np.concatenate([np.array(lp.row_lower_, float),
                                                                    np.array(lp.row_upper_, float),
                                                                    np.array(lp.col_lower_, float),
                                                                    np.array(lp.col_upper_, float)]))):
        if np.isnan(arr).any() or (what != "a bound or right-hand side" and np.isinf(arr).any()):
            raise ValueError(f"{path}: {what} is not a finite number (NaN or infinity in the MPS file)")
    if lp.sense_ == highspy.ObjSense.kMaximize:
        raise ValueError(f"{path}: maximisation problems are not supported; negate the objective")
    name = os.path.basename(path).split(".")[0]
    return GeneralLP(c, A, np.array(lp.row_lower_, float), np.array(lp.row_upper_, float),
                     np.array(lp.col_lower_, float), np.array(lp.col_upper_, float), offset, name)


def _vector(x, name, n=None):
    v = check.array(x, name, 1, np.float64, any_range=True)     # b beyond 1e20 (per row) is no bound
    if n is not None and v.shape[0] != n:
        raise ValueError(f"{name} has {v.shape[0]} entries but must have {n}")
    return v


def from_linprog(c, A_ub=None, b_ub=None, A_eq=None, b_eq=None, bounds=None) -> GeneralLP:
    """The arguments of scipy.optimize.linprog (default bounds (0, None)); shapes
    must be exact: c (n,), A_ub (k, n) with b_ub (k,), A_eq (l, n) with b_eq (l,)."""
    if c is None or np.size(c) == 0:
        raise ValueError("c is empty: an LP needs at least one variable (c holds one cost per variable)")
    c = _vector(c, "c")
    n = c.size
    if np.any(np.abs(c) >= INFINITE_BOUND):
        j = int(np.flatnonzero(np.abs(c) >= INFINITE_BOUND)[0])
        raise ValueError(f"c[{j}] = {c[j]:g}: a cost of magnitude >= {INFINITE_BOUND:g} is what LP solvers (HiGHS "
                         f"too) take as infinite; rescale the objective")
    rows, lo, up = [], [], []
    for A, b, kind in ((A_ub, b_ub, "ub"), (A_eq, b_eq, "eq")):
        if A is None and b is None:
            continue
        if A is None or b is None:
            raise ValueError(f"A_{kind} and b_{kind} go together; one of them is missing")
        if np.size(A) == 0 and np.size(b) == 0:
            continue
        A = _constraint_matrix(A, f"A_{kind}")
        if A.shape[1] != n:
            raise ValueError(f"A_{kind} has {A.shape[1]} columns but c has {n} entries")
        b = _vector(b, f"b_{kind}", A.shape[0])
        rows.append(A)
        lo.append(np.full(b.size, -INF) if kind == "ub" else b)
        up.append(b)
    if any(sp.issparse(R) for R in rows):          # kept sparse: A D A^T's work follows A's nonzeros
        A = sp.vstack(rows, format="csr", dtype=np.float64)
    else:
        A = np.vstack(rows) if rows else np.zeros((0, n))
    col_lo, col_up = np.zeros(n), np.full(n, INF)
    if bounds is not None:
        if isinstance(bounds, (dict, str)) or np.ndim(bounds) == 0:
            raise ValueError(f"bounds must be a (low, high) pair or a sequence of one pair per variable, as "
                             f"scipy.optimize.linprog takes them, got {type(bounds).__name__} {bounds!r}")
        bl = list(bounds) if not (len(bounds) == 2 and np.ndim(bounds[0]) == 0) else [bounds] * n
        if len(bl) != n:
            raise ValueError(f"bounds has {len(bl)} pairs but c has {n} entries")
        for j, pair in enumerate(bl):
            if pair is None or len(pair) != 2:
                raise ValueError(f"bounds[{j}] must be a pair (low, high) with None for no bound, got {pair!r}")
            lo_j, up_j = pair
            col_lo[j] = _bound(lo_j, f"bounds[{j}][0]", -INF)
            col_up[j] = _bound(up_j, f"bounds[{j}][1]", INF)
    row_lo, row_up = (np.concatenate(v) if v else np.zeros(0) for v in (lo, up))
    # a row bound counts as infinite at 1e20 times the row's largest coefficient (at least 1):
    # 1e30 x1 + 1e30 x2 <= 1e30 is x1 + x2 <= 1, not a free row
    big = np.maximum(1.0, row_magnitudes(A))
    row_lo, row_up = _infinite(row_lo / big, row_up / big)
    return GeneralLP(c, A, row_lo * big, row_up * big, *_infinite(col_lo, col_up))


def row_magnitudes(A) -> np.ndarray:
    """max |a_ij| of each row of A (dense or scipy.sparse; 0 for an empty row)."""
    if A.shape[1] == 0:
        return np.zeros(A.shape[0])
    if sp.issparse(A):
        return abs(sp.csr_matrix(A)).max(axis=1).toarray().ravel()
    return np.abs(A).max(axis=1)


def _constraint_matrix(A, name):
    """A dense 2-D float64 array, or a scipy.sparse matrix kept sparse (CSR float64); either way
    finite, or the error names the entry."""
    if not sp.issparse(A):
        return check.array(A, name, 2, np.float64, any_range=True)   # the mixed solver scales in float64
    if not np.issubdtype(A.dtype, np.number) or np.iscomplexobj(A.data):
        raise TypeError(f"{name} must hold real numbers, got a sparse matrix of {A.dtype}")
    A = sp.csr_matrix(A, dtype=np.float64)
    bad = ~np.isfinite(A.data)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        i = int(np.searchsorted(A.indptr, k, side="right") - 1)
        raise ValueError(f"{name} must be finite; entry ({i}, {int(A.indices[k])}) is {A.data[k]}")
    return A


INFINITE_BOUND = 1e20          # HiGHS's: a bound at least this large is no bound


def _infinite(*bounds):
    """Bounds of magnitude >= 1e20 (1e300 for 'no bound') made infinite, as HiGHS reads them."""
    return [np.where(np.abs(v) >= INFINITE_BOUND, np.copysign(INF, v), v) for v in bounds]


def _bound(v, name, none: float) -> float:
    """A variable's bound: a real number, or `none` (no bound) for None or nan, as scipy's
    linprog reads them (its finite differences of fun perturb an infinite bound into nan)."""
    if v is None:
        return none
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        raise ValueError(f"{name} must be a number, None or nan (no bound), got {v!r}")
    return none if np.isnan(v) else float(v)


@dataclass
class StandardForm:
    A: np.ndarray
    b: np.ndarray
    c: np.ndarray
    const: float
    n_orig: int
    # x_j = shift_j + sum over (k, coef) of coef * z_k
    terms: list = field(default_factory=list)
    shift: np.ndarray = None
    infeasible: str = ""          # set when conversion already proves infeasibility

    def recover(self, z: np.ndarray) -> np.ndarray:
        x = self.shift.copy()
        for j, parts in enumerate(self.terms):
            for k, coef in parts:
                x[j] += coef * z[k]
        return x


def to_standard_form(lp: GeneralLP) -> StandardForm:
    A0 = lp.A.toarray() if sp.issparse(lp.A) else lp.A      # the 2006 solver's form is dense
    nrow, ncol = A0.shape
    if np.any(lp.col_lo > lp.col_up) or np.any(lp.row_lo > lp.row_up):
        sf = StandardForm(np.zeros((0, 0)), np.zeros(0), np.zeros(0), 0.0, ncol, [[] for _ in range(ncol)],
                          np.zeros(ncol))
        sf.infeasible = "a lower bound exceeds its upper bound"
        return sf
    # 1. rows -> equalities with slack columns (bounded where the row is ranged)
    cols_A = [A0[:, j] for j in range(ncol)]
    col_lo, col_up, cost = list(lp.col_lo), list(lp.col_up), list(lp.c)
    keep_rows, rhs = [], []
    for i in range(nrow):
        lo, up = lp.row_lo[i], lp.row_up[i]
        if lo == -INF and up == INF:
            continue                                    # free row
        keep_rows.append(i)
        if lo == up:
            rhs.append(lo)
            continue
        e = np.zeros(nrow)
        if lo > -INF:
            e[i] = -1.0                                 # a x - s = lo,  0 <= s <= up - lo
            rhs.append(lo)
            col_lo.append(0.0)
            col_up.append(up - lo if up < INF else INF)
        else:
            e[i] = 1.0                                  # a x + s = up,  s >= 0
            rhs.append(up)
            col_lo.append(0.0)
            col_up.append(INF)
        cols_A.append(e)
        cost.append(0.0)
    Ag = np.array(cols_A).T[keep_rows] if cols_A else np.zeros((len(keep_rows), 0))
    bg = np.array(rhs, float)
    nvar = Ag.shape[1]
    # 2. variables -> z >= 0
    zcols, zcost, terms, shift = [], [], [], np.zeros(nvar)
    const = lp.offset
    ub_rows = []                                        # (z index, bound)
    for j in range(nvar):
        a, cj, l, u = Ag[:, j], cost[j], col_lo[j], col_up[j]
        if l == u:                                      # fixed
            shift[j] = l
            bg = bg - a * l
            const += cj * l
            terms.append([])
        elif l > -INF:                                  # x = l + p
            shift[j] = l
            bg = bg - a * l
            const += cj * l
            terms.append([(len(zcols), 1.0)])
            if u < INF:
                ub_rows.append((len(zcols), u - l))
            zcols.append(a)
            zcost.append(cj)
        elif u < INF:                                   # x = u - p
            shift[j] = u
            bg = bg - a * u
            const += cj * u
            terms.append([(len(zcols), -1.0)])
            zcols.append(-a)
            zcost.append(-cj)
        else:                                           # free: x = p - q
            terms.append([(len(zcols), 1.0), (len(zcols) + 1, -1.0)])
            zcols += [a, -a]
            zcost += [cj, -cj]
    nz = len(zcols)
    Az = np.array(zcols).T if zcols else np.zeros((Ag.shape[0], 0))
    if ub_rows:                                         # p + w = u - l
        extra = np.zeros((len(ub_rows), nz + len(ub_rows)))
        for r, (k, bound) in enumerate(ub_rows):
            extra[r, k] = 1.0
            extra[r, nz + r] = 1.0
        Az = np.vstack([np.hstack([Az, np.zeros((Az.shape[0], len(ub_rows)))]), extra])
        bg = np.concatenate([bg, [bd for _, bd in ub_rows]])
        zcost += [0.0] * len(ub_rows)
    sf = StandardForm(Az, bg, np.array(zcost, float), float(const), ncol, terms[:ncol], shift[:ncol])
    return sf


def highs_model(lp: GeneralLP):
    """HiGHS's model (`highspy.HighsLp`) of lp: its columns by CSC, infinite bounds as HiGHS's
    infinity (crossover.py hands it to HiGHS's crossover; the benchmarks time HiGHS on it)."""
    highspy = optional_import("highspy", "lp", "HiGHS's model of an LP")
    A = sp.csc_matrix(lp.A, dtype=np.float64)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = A.shape[1], A.shape[0]
    inf = highspy.kHighsInf

    def bound(v):
        return np.clip(np.asarray(v, np.float64), -inf, inf)
    model.col_cost_ = np.asarray(lp.c, np.float64)
    model.col_lower_, model.col_upper_ = bound(lp.col_lo), bound(lp.col_up)
    model.row_lower_, model.row_upper_ = bound(lp.row_lo), bound(lp.row_up)
    model.offset_ = float(lp.offset)
    model.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    model.a_matrix_.start_ = A.indptr.astype(np.int32)
    model.a_matrix_.index_ = A.indices.astype(np.int32)
    model.a_matrix_.value_ = A.data
    model.a_matrix_.num_col_, model.a_matrix_.num_row_ = A.shape[1], A.shape[0]
    return model


def objective(lp: GeneralLP, x: np.ndarray) -> float:
    return float(lp.c @ x + lp.offset)


def max_violation(lp: GeneralLP, x: np.ndarray) -> float:
    """Largest bound or row violation of x in the general form (absolute)."""
    ax = np.asarray(lp.A @ x).ravel() if min(lp.A.shape) else np.zeros(lp.A.shape[0])
    v = [np.maximum(lp.col_lo - x, 0), np.maximum(x - lp.col_up, 0),
         np.maximum(lp.row_lo - ax, 0), np.maximum(ax - lp.row_up, 0)]
    return float(max((np.max(a) if a.size else 0.0) for a in v))
