#!/usr/bin/env bash
# Everything the GPU run measures, in one go (run from the project root on the
# GPU machine (benchmarks/README.md); results land in $OUT, default
# benchmarks/results; set GLGPGPU_NETLIB where ../shared/data/netlib is not
# beside the checkout).  Each step prints its table; the CSV/PNG files are
# written as each suite finishes.
case "${1:-}" in -h|--help) sed -n "2,/^set -u/p" "$0" | grep "^#" | cut -c3-; exit 0;; esac
set -u
OUT=${OUT:-benchmarks/results}
g="python3 -m glgpgpu.cli"
python3 -m pytest -q tests -p no:cacheprovider 2>&1 | tail -3
$g info
$g bench tune --sizes 4096 --repeat 2 --out "$OUT"
$g bench assembly --sizes 512,1024,2048,3072,4096 --repeat 2 --out "$OUT"
$g bench cholesky --sizes 512,1024,2048,3072,4096 --repeat 2 --out "$OUT"
$g wls --table 1 --out "$OUT"
$g wls --table 2 --out "$OUT"
$g lp --table 3 --out "$OUT"
$g wls --table 1 --method blocked --out "$OUT"
$g wls --table 2 --method blocked --out "$OUT"
$g lp --table 3 --method blocked --out "$OUT"
