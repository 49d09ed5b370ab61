#!/usr/bin/env bash
# The GPU training recipe of docs/training.md ("On a GPU") for a few minutes, as one
# prepared call on a lent accelerator, run from the repository root: gojax from the
# source tree (no install), mctx from a carried wheel (the accelerator's image has
# JAX with CUDA, flax, optax and orbax, and cannot download). The run folder
# (metrics.csv: positions/s in self-play, training steps; the log) lands under $OUT.
#
# Once, on the development machine (mctx is a pure Python wheel):
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps -d .whl mctx==0.0.71
# Then one device call with carry [".whl"] and the command
#   bash experiments/device_training.sh
# MINUTES (default 4) is the training budget; extra arguments are added to the
# recipe's flags (a later flag wins), e.g. a quick CPU check of the script itself:
#   OUT=/tmp/out MINUTES=0.5 bash experiments/device_training.sh --batch 8 --train-batch 16 \
#     --blocks 1 --channels 8 --replay-capacity 2048 --min-replay 64 --simulations 4
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-experiments/results/device_training}
MINUTES=${MINUTES:-4}
source experiments/device_setup.sh
recipe=(--batch 1024 --train-batch 4096 --blocks 6 --channels 128 --replay-capacity 524288 --min-replay 65536)
python3 experiments/train.py --run-dir "$OUT/run" --minutes "$MINUTES" "${recipe[@]}" \
  --eval-every 0 --final-eval-games 0 --checkpoint-every 60 --no-progress "$@" 2>&1 | tee "$OUT/train.log"
