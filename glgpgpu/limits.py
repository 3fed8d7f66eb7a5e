"""Every internal size limit, in one table, and the one way to make them small.

Each limit lives beside the code it shapes (a module constant read at call time,
with the comment that says why it has that value); this table names them all,
says what each bounds, and gives a *small* value at which a 100-300-column problem
crosses it.  A bug that shows only past a limit reached at 4,096 columns on a GPU
can then be caught at 200 on any machine:

    with glgpgpu.limits.override("small"):            # every limit at its small value
        glgpgpu.qr(A, method="compute")
    with glgpgpu.limits.override({"compute.qr.PANEL_ROWS": 64}):
        ...

or, for a whole process (a test run, a script, a benchmark), the environment
variable read when glgpgpu is imported:

    GLGPGPU_LIMITS=small                               # every limit small
    GLGPGPU_LIMITS="compute.qr.PANEL_ROWS=64,layouts.tiles.DEFAULT_TILE=128"

Two limits are the driver's: `gl.context.TEXTURE_SIZE` and
`gl.context.STORAGE_BLOCK` cap what every context reports (`Context.max_texture_size`,
`Context.max_storage_block`); the others are module constants of glgpgpu.
`tests/limits/` crosses each of them at limit - 1, limit and limit + 1.
"""
from __future__ import annotations

import importlib
import os
from contextlib import contextmanager
from dataclasses import dataclass

#: the environment variable read when glgpgpu is imported
ENV = "GLGPGPU_LIMITS"


@dataclass(frozen=True)
class Limit:
    """One internal size limit: the constant `attr` of glgpgpu.`module`."""

    module: str     # under glgpgpu, e.g. "compute.qr"
    attr: str       # the module constant, e.g. "PANEL_ROWS"
    small: int      # a value at which a 100-300-column problem crosses it
    what: str       # what it bounds, in a user's words
    multiple: int = 1   # values must be multiples of this
    most: int | None = None   # values must not exceed this (what the kernels' shared memory holds)

    @property
    def name(self) -> str:
        return f"{self.module}.{self.attr}"

    def _module(self):
        return importlib.import_module(f"glgpgpu.{self.module}")

    @property
    def value(self) -> int | None:
        return getattr(self._module(), self.attr)

    def set(self, value) -> None:
        if value is not None:
            value = int(value)
            if value < 0 or value % self.multiple:
                raise ValueError(f"{self.name} must be a non-negative multiple of {self.multiple}, not {value}")
            if self.most is not None and value > self.most:
                raise ValueError(f"{self.name} may be at most {self.most} ({self.what}), not {value}")
        setattr(self._module(), self.attr, value)


LIMITS = (
    # the driver's limits (None: as the driver reports)
    Limit("gl.context", "TEXTURE_SIZE", 128, "the largest texture side a context uses (the tiled path past it)"),
    Limit("gl.context", "STORAGE_BLOCK", 64 << 10, "bytes one shader storage block may span (compute tiles past it)",
          4),
    Limit("compute.blas", "SPREAD_GROUPS", 7, "workgroups along x before a 1-D dispatch folds into y"),
    Limit("compute.blas", "LOWER_BAND_ROWS", 16, "rows of one band of a compute lower-triangle read-back"),
    # tiles beyond one texture
    Limit("layouts.tiles", "DEFAULT_TILE", 64, "the tile order of a matrix past one texture", 16),
    Limit("layouts.tiles", "MAX_ONE_TILE", 128, "the largest matrix order kept in one tile"),
    # the compute method
    Limit("compute.qr", "PANEL_ROWS", 64, "QR panels with this many rows are spread over workgroups"),
    Limit("compute.qr", "PANEL_CHUNKS", 3, "the chunks a tall QR panel's rows are split into"),
    Limit("compute.qr", "APPLY_GROUPS", 8, "workgroups the QR's Apply V^T C aims for (chunks of rows x columns)"),
    Limit("compute.qr", "CHUNK_ROWS", 16, "the fewest rows one chunk of the QR's Apply sums", 16),
    Limit("compute.dense", "UPDATE_COLUMNS", 128, "columns of one block column of the compute float32 Cholesky "
          "(the rest takes one update of that rank)", 64),
    Limit("compute.dense", "BLOCK_COLUMNS_FROM", 200, "the order from which the compute float32 Cholesky goes by "
          "block columns, each factored in a packed buffer of its own"),
    Limit("compute.float64", "SUM_TERMS", 40, "the most terms the float64 normal-matrix kernel sums for one entry"),
    Limit("compute.fronts", "SMALL", 600, "entries of a sparse-QR front factored with others in one dispatch "
          "(in shared memory)", most=6144),
    Limit("compute.fronts", "SMALL_COLS", 12, "columns of a sparse-QR front factored with others in one dispatch",
          most=256),
    Limit("compute.kernel_products", "TERMS", 40, "loop iterations of one LS-SVM float64 product invocation "
          "(columns x (features + right-hand sides))"),
    Limit("compute.kernel_products", "MOST_COLUMNS", 2, "right-hand sides one float64 kernel product carries"),
    Limit("compute.kernel_products", "ROWS_AT_ONCE", 7, "points one float64 prediction pass takes"),
    Limit("compute.kernel_products", "AIM_GROUPS", 3, "workgroups x column chunks one float64 kernel product "
          "aims for"),
    Limit("compute.kernel_products", "PART_BYTES", 256, "bytes of one pass's partial sums of a float64 kernel "
          "product"),
    Limit("compute.kernel_products", "REGISTER_FEATURES", 4, "features up to which a float64 kernel product "
          "holds each point in registers"),
    Limit("compute.chain", "MOST_COLUMNS", 1, "right-hand sides the LS-SVM's float32 solves take a column "
          "at a time by the chained solve"),
    Limit("solvers.lssvm", "GPU_DECISION_FROM", 1, "test x training points from which decision values go to the GPU"),
    # the blocked method
    Limit("blocked.sizes", "SLAB_FROM", 64, "the Cholesky order from which updates go by slabs", 16),
    Limit("blocked.sizes", "SLAB", 32, "Cholesky columns per slab", 16),
    Limit("blocked.tile_kernels", "TRSM_SLAB", 32, "columns of a tile TRSM slab", 16),
    Limit("blocked.adat", "GPU_UNPACK_BYTES", 16 << 10, "bytes of a packed result expanded on the GPU"),
    # transfers and host-side pieces
    Limit("gl.transfer", "LOWER_BAND", 16, "rows per band of a lower-triangle read-back"),
    Limit("gl.staging", "STAGING_BYTES", 64 << 10, "bytes of one staging ring of mapped transfers", 256),
    Limit("gl.staging", "THREADED_COPY_FROM", 4 << 10, "bytes from which a staged copy uses several threads"),
    Limit("layouts.rgba", "BAND_BYTES", 4 << 10, "bytes of a packed result expanded per host thread"),
    Limit("validate", "PARALLEL_FROM", 1 << 10, "elements from which the finite check uses several threads"),
    Limit("methods.points", "MAX_POINTS", 500, "points of a sparse assembly's vertex table"),
    Limit("solvers.sparse_qr", "DENSE_TRIANGLE", 16, "columns of an R whose solves go dense"),
    Limit("solvers.lp.mixed.normal_pattern", "MAX_PAIRS", 2000, "column pairs of an LP's sparse normal pattern"),
    Limit("solvers.lp.mixed.normal_pattern", "DENSE_PLACES", 256, "entries of the normal pattern's dense place map"),
    Limit("solvers.lp.presolve", "GROUP_ROWS", 12, "rows of one group of the LP presolve's rank work (components packed)"),
)

_BY_NAME = {lim.name: lim for lim in LIMITS}


def get(name: str) -> Limit:
    """The limit called `name` (module.ATTR under glgpgpu); KeyError naming the known ones."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no internal limit {name!r}; the limits are: {', '.join(_BY_NAME)}") from None


def current() -> dict:
    """{name: value} of every limit now (None: the driver's)."""
    return {lim.name: lim.value for lim in LIMITS}


def _values(spec) -> dict:
    if isinstance(spec, str):
        if spec.strip() == "small":
            return {lim.name: lim.small for lim in LIMITS}
        out = {}
        for item in filter(None, (s.strip() for s in spec.split(","))):
            name, sep, value = item.partition("=")
            if not sep:
                raise ValueError(f"{ENV}: {item!r} is not NAME=VALUE (or the word 'small')")
            out[name.strip()] = int(value)
        return out
    return dict(spec)


def set_limits(spec) -> dict:
    """Set limits from {name: value} or a GLGPGPU_LIMITS string ("small", or
    "NAME=VALUE,..."); returns the values they had (to restore)."""
    values = _values(spec)
    for name in values:
        get(name)                     # every name checked before any is set
    before = {name: get(name).value for name in values}
    for name, value in values.items():
        get(name).set(value)
    return before


@contextmanager
def override(spec):
    """Limits set for the block's duration, then restored (not thread-safe: the
    limits are the process's)."""
    before = set_limits(spec)
    try:
        yield current()
    finally:
        for name, value in before.items():
            get(name).set(value)


def from_environment() -> None:
    """Apply GLGPGPU_LIMITS (glgpgpu's import calls this)."""
    spec = os.environ.get(ENV, "").strip()
    if spec:
        set_limits(spec)
