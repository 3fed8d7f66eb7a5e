"""Staircases (Yeralan et al. 2015, Fig. 4 and section 6): a sparse QR front's rows
sorted by their leftmost nonzero column.  A Householder panel ending at column e - 1
works only on the rows some column before e reaches -- below them the panel's
columns are zero, and so are its reflectors' entries and their updates."""
from __future__ import annotations

import numpy as np


def rows_reached(m: int, end: int, leftmost) -> int:
    """The rows a panel ending before column `end` works on: all m without a
    staircase, else down to the last row whose leftmost column is < end (at least
    the panel's own rows, `end`)."""
    if leftmost is None:
        return m
    return int(min(m, max(end, np.searchsorted(leftmost, end - 1, side="right"))))
