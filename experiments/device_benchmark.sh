#!/usr/bin/env bash
# The speed benchmark as one prepared call on a lent accelerator (an NVIDIA H200
# here), run from the repository root: gojax from the source tree (no install),
# pgx from carried wheels, results under $OUT (CSV, plot, log).
#
# Once, on the development machine (pgx and its one missing dependency are pure
# Python wheels; the accelerator has JAX with CUDA but cannot download):
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps -d .whl pgx==2.6.0 svgwrite==1.4.3
# Then one device call with carry [".whl"] and the command
#   bash experiments/device_benchmark.sh
# Extra arguments replace the default benchmark arguments below, e.g. a quick
# CPU check of the script itself (see python experiments/benchmark.py --help):
#   OUT=/tmp/out bash experiments/device_benchmark.sh --quick --engines gojax goenv pgx
# The default times whole games (a steady state of games at every ply) for the
# rules alone, GoEnv with its observation and pgx, then every registered
# observation on 19x19 whole-game positions.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-experiments/results/device}
source experiments/device_setup.sh
if [ "$#" -eq 0 ]; then
  set -- --sizes 9 19 --batches 1 1024 16384 65536 --steps 64 --repeats 3 --engines gojax goenv pgx --pgx-max-batch 16384
fi
python3 experiments/benchmark.py "$@" --features --out "$OUT" 2>&1 | tee "$OUT/benchmark.log"
