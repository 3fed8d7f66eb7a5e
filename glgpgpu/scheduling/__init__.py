"""Scheduling: which pieces of work run together in each launch -- host logic, no GL.

buckets  the bucket scheduler of Yeralan, Davis, Sid-Lakhdar and Ranka (2015,
         section 3.1, Figs. 6-8): bundles of row tiles of dense fronts, Factorize /
         Apply / Apply-Factorize tasks, pipelining, many fronts merged per launch
tree     the same across a tree of fronts: each front starts right after its last
         child (no level barrier), against round-by-round
"""
from . import buckets, tree

__all__ = ["buckets", "tree"]
