"""Train an AlphaZero Go agent by self-play: a first Go AI in 30 minutes on a CPU.

    python experiments/train.py                          # 9x9, 30 minutes, run dir runs/alphazero
    python experiments/train.py --minutes 5 --run-dir runs/quick
    python experiments/train.py --run-dir runs/quick --resume      # continue after a kill
    python experiments/train.py --host-devices 4 --batch-per-device 32   # 4 virtual CPU devices

The same command as ``gojax-train`` (:func:`gojax.training.main`): every
:class:`gojax.training.TrainConfig` field is a flag (``--help`` lists them
with their defaults). See :mod:`gojax.training.loop` for what is written
under ``--run-dir``.
"""

from __future__ import annotations

import sys

from gojax.training import main

if __name__ == "__main__":
    sys.exit(main())
