"""Plot the tiled Cholesky results (benchmarks/gpu_tiled.py CSV) beside the PLSSVM
thesis's N = 60,000 times.   python3 benchmarks/plot_tiled.py CSV PNG"""
import sys

if {"-h", "--help"} & set(sys.argv[1:]):       # usage: this docstring
    print(__doc__)
    sys.exit(0)
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
N = [int(r["N"]) for r in rows]
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for key, label in (("factor_s", "tiled Cholesky, resident tiles"), ("end_to_end_s", "glgpgpu.cholesky, end to end"),
                   ("form_LLt_s", "forming L L^T (tiled product)")):
    ax.plot(N, [float(r[key]) for r in rows], "o-", label=label)
ax.plot([60000], [25], "k*", ms=12, label="thesis, A30, optimised (25 s)")
ax.plot([60000], [5600], "kx", ms=10, label="thesis, A30, first version (5,600 s)")
ax.set_xlabel("N")
ax.set_ylabel("seconds")
ax.set_yscale("log")
ax.set_title(f"Cholesky beyond one texture, {rows[0]['device'].split('/')[0]}, {rows[0]['date']}")
ax.grid(True, alpha=0.3)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=120)
