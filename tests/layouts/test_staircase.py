"""The rows a QR panel reaches on a staircase (no GL)."""
import numpy as np

from glgpgpu.layouts.staircase import rows_reached


def test_rows_reached():
    left = np.array([0, 0, 1, 3, 3, 7, 9])            # rows sorted by leftmost column
    assert rows_reached(7, 2, None) == 7               # no staircase: every row
    assert rows_reached(7, 1, left) == 2               # column 0 reaches rows 0, 1
    assert rows_reached(7, 2, left) == 3
    assert rows_reached(7, 4, left) == 5
    assert rows_reached(7, 6, left) == 6               # at least the panel's own rows
    assert rows_reached(7, 10, left) == 7
    assert rows_reached(3, 8, left[:3]) == 3           # never past m
