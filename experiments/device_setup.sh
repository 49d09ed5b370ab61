# Sourced by the device scripts (experiments/device_*.sh) from the repository root, with OUT set:
# makes $OUT, installs the carried wheels (.whl/, if any) under /tmp/site, puts them and the
# source tree on PYTHONPATH, and writes JAX's version and devices to $OUT/devices.txt.
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1
if compgen -G ".whl/*.whl" > /dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site:${PYTHONPATH:-}
fi
export PYTHONPATH=$PWD:${PYTHONPATH:-}
python3 -c "import jax; print('JAX', jax.__version__, jax.devices())" 2>&1 | tee "$OUT/devices.txt"
