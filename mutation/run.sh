#!/usr/bin/env bash
# Mutation testing of one module group with cosmic-ray: mutation/run.sh NAME [SESSION]
#
# NAME is a config of this folder (mutation/NAME.toml: the modules to mutate and the tests that
# cover them). SESSION is the session database (default: mutation/NAME.sqlite, which a later run
# resumes). Run it from the repository root, with the python that has gojax's test extra and
# cosmic-ray first on PATH (the configs' test command is "python -m pytest ..."). cosmic-ray
# writes each mutant into the source file itself and puts the file back after its tests: do not
# edit or test the same checkout meanwhile, and after an interrupted run restore the sources
# (git checkout -- gojax).
set -euo pipefail
name=${1:?usage: mutation/run.sh NAME [SESSION] (NAME: a config mutation/NAME.toml)}
config=mutation/$name.toml
session=${2:-mutation/$name.sqlite}
[[ -f $config ]] || { echo "mutation/run.sh: no config $config" >&2; exit 2; }
git diff --quiet -- gojax || { echo "mutation/run.sh: gojax/ has uncommitted changes; commit or stash them first" >&2; exit 2; }
if [[ ! -f $session ]]; then
  cosmic-ray init "$config" "$session"
  cr-filter-pragma "$session"  # lines marked "# pragma: no mutate"
  cr-filter-operators "$session" "$config"  # the config's [cosmic-ray.filters.operators-filter], if any
fi
cosmic-ray --verbosity=WARNING baseline "$config"  # the tests pass on the unmutated code
cosmic-ray exec "$config" "$session"
git diff --quiet -- gojax || { echo "mutation/run.sh: the sources were left changed" >&2; exit 1; }
cr-report --show-pending "$session"
cr-rate "$session"
