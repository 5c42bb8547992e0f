#!/usr/bin/env bash
# Rendering throughput of squeue and sacct over synthetic records (benches/render.rs):
# prints, for each size, the best time and the time per 10,000 output rows, then how the
# per-10k time scales from the smallest to the largest size (1.0 = linear).
#
#   scripts/bench.sh                 # 10,000 and 100,000 jobs
#   scripts/bench.sh 10000 300000    # other sizes
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo bench --quiet --bench render -- "$@"
