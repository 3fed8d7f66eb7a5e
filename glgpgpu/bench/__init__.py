"""Benchmarks and the papers' table reproductions, one run each.

common      timing, result rows, CSV and plots
ceiling     the fragment pipeline's own limits (copy fill rate, FMA peak, dependent draw)
assembly    Fig. 8 (A D^2 A^T)          cholesky  Fig. 9 (Cholesky, LU comparator)
tune        the blocked kernels' tile and panel sizes
suites      `glgpgpu bench SUITE`: a suite plus its ceiling, CSV + PNG
wls_tables  Tables 1 and 2 of the 2008 paper (weighted least squares)
lp_table3   Table 3 of the 2006 paper (NETLIB LPs)
"""
from .common import device_slug, plot, write_csv
from .suites import FIGURES, run_suite

__all__ = ["device_slug", "plot", "write_csv", "FIGURES", "run_suite"]
