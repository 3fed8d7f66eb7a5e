#!/usr/bin/env bash
# The NETLIB run on a GPU machine (benchmarks/README.md):
#   benchmarks/gpu_netlib.sh DIR [MIN_ROWS MAX_ROWS] [METHOD]
# solves every problem of DIR (with optima.csv) whose row count is in
# [MIN_ROWS, MAX_ROWS], mixed precision, and writes the table + CSV to $OUT.
case "${1:-}" in -h|--help) sed -n "2,/^set -u/p" "$0" | grep "^#" | cut -c3-; exit 0;; esac
set -u
DIR=$1; LO=${2:-0}; HI=${3:-100000}; METHOD=${4:-blocked}
OUT=${OUT:-benchmarks/results}
names=$(python3 - "$DIR" "$LO" "$HI" <<'PY'
import csv, sys
d, lo, hi = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rows = [r for r in csv.DictReader(open(f"{d}/optima.csv")) if lo <= int(r["rows"]) <= hi]
print(",".join(r["problem"] for r in rows))
PY
)
python3 -m glgpgpu.cli lp --netlib "$DIR" --problems "$names" --method "$METHOD" --out "$OUT"
