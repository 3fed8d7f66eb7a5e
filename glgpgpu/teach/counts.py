"""Fragment and byte counts of each kernel, from the draws the algorithms issue.

These are the 2006 paper's Table 1 (memory traffic) and Table 2 (operations)
for our loop structure; the demo's recorder and the tests compare the GPU's own
occlusion-query counts with them, and the benchmarks turn them into G
fragments/s and GB/s.  Bytes per fragment = 4 x (texels read + texel written).
"""
from __future__ import annotations


def assembly(m: int, n: int) -> dict:
    """Algorithm 3, full or packed (the same fragments: that is the point)."""
    return {
        "column_scaling": dict(fragments=n * m, bytes_per=12),
        "outer_product_add": dict(fragments=n * m * (m + 1) // 2, bytes_per=16),
    }


def cholesky(m: int, variant: str = "outer") -> dict:
    """Algorithm 5 (outer / triad) or the inner-product form."""
    tri = (m - 1) * m // 2
    out = {
        "sqrt": dict(fragments=m, bytes_per=8),
        "copy (diagonal)": dict(fragments=m - 1, bytes_per=8),
        "normalize": dict(fragments=tri, bytes_per=12),
    }
    if variant == "inner":
        # column c = k+1 has m-c fragments, each reading 1 + 2c texels
        frags = sum(m - c for c in range(1, m))
        byts = sum((m - c) * 4 * (2 * c + 2) for c in range(1, m))
        out["inner_product_sub"] = dict(fragments=frags, bytes_per=byts / max(frags, 1))
    else:
        out["copy (column)"] = dict(fragments=tri, bytes_per=8)
        out["outer_product_sub"] = dict(fragments=(m - 1) * m * (m + 1) // 6, bytes_per=16)
    return out


def lu(m: int) -> dict:
    """Galoppo et al.'s LU as in lu.py (Table 1(a) of the 2006 paper)."""
    tri = (m - 1) * m // 2
    return {
        "copy (row)": dict(fragments=sum(m - k for k in range(m - 1)), bytes_per=8),
        "normalize": dict(fragments=tri, bytes_per=12),
        "copy (column)": dict(fragments=tri, bytes_per=8),
        "lu_elimination": dict(fragments=(m - 1) * m * (2 * m - 1) // 6, bytes_per=16),
    }


def draws_cholesky(m: int, variant: str = "outer") -> int:
    """Dependent draws: 5 per column (4 for inner) plus the final square root."""
    return (4 if variant == "inner" else 5) * (m - 1) + 1


def draws_assembly(n: int) -> int:
    return 2 * n


def draws_lu(m: int) -> int:
    return 4 * (m - 1)


def total(table: dict):
    """(fragments, bytes) of a table."""
    f = sum(v["fragments"] for v in table.values())
    b = sum(v["fragments"] * v["bytes_per"] for v in table.values())
    return f, b
