"""Figures without matplotlib's global state: no backend switched, no pyplot figure
registry -- a notebook user's session is left as it was.  Each function that draws takes
its figure from here and writes it with `Figure.savefig` (the Agg canvas, by itself)."""
from __future__ import annotations


def subplots(nrows: int = 1, ncols: int = 1, **figure_kw):
    """(Figure, Axes or array of Axes), like pyplot.subplots but owned by the caller only."""
    from matplotlib.figure import Figure

    fig = Figure(**figure_kw)
    return fig, fig.subplots(nrows, ncols)


def colormap(name: str, n: int | None = None):
    """A registered colormap, resampled to n colours where n is given (pyplot.get_cmap's form)."""
    import matplotlib

    cmap = matplotlib.colormaps[name]
    return cmap.resampled(n) if n else cmap
