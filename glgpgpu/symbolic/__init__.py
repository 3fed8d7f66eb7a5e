"""Sparse QR's symbolic analysis on the host (no GL): the column ordering, the
column elimination tree, the fronts and their assembly maps, the flop count and
the stages of Yeralan, Davis, Sid-Lakhdar and Ranka (2015), sections 2.1.1 and 3.4.

    ordering.py   fill-reducing column orderings (COLAMD through the system library)
    etree.py      the column elimination tree of A^T A from A, and its postorder
    singletons.py column singletons: rows of R as they stand in A, ordered first
    fronts.py     fronts, rows per front, staircases, assembly maps, flops (`analyze`); other
                  amalgamation on the same tree (`reamalgamated`)
    stages.py     fronts grouped into stages that fit a memory budget (section 3.4), and rounds
"""
from .ordering import ORDERINGS, column_order, colamd_available
from .etree import column_etree, postorder
from .fronts import Analysis, analyze, block_rows, own_entries, reamalgamated, rows_only
from .singletons import column_singletons, leading_singletons
from .stages import depths, front_bytes, front_levels, front_rounds, plan_stages

__all__ = ["ORDERINGS", "column_order", "colamd_available", "column_etree", "postorder", "column_singletons",
           "leading_singletons", "Analysis", "analyze", "block_rows", "own_entries", "reamalgamated", "rows_only", "depths",
           "front_bytes", "front_levels", "front_rounds", "plan_stages"]
