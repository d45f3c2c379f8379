#!/usr/bin/env bash
# Sourced by the other scripts/device/*.sh on a GPU machine without Node: unpack what scripts/device/bundle
# made (.gpu/main/bundle.tar.xz, dist.tar.xz), put node and bwrap on PATH, use the machine's Python (the one
# with torch) as .venv, create the sandbox users, set REBENCH_HOME=/tmp/rh, and make every carried
# .gpu/assets/<name>/ (asset.json beside the files; *.xz decompressed there) a built asset of that home. Defines `el` (a log line
# with the seconds since the start). Logs go to $OUT/<name>.log.
set -u
exec > >(tee "$OUT/${DEVICE_LOG:-device}.log") 2>&1
t0=$(date +%s); el() { echo "[$(( $(date +%s) - t0 )) s] $*"; }
bundle=${DEVICE_BUNDLE:-.gpu/main}  # another folder of scripts/device/bundle's output, e.g. a full one beside a --bwrap-only .gpu/main
mkdir -p /tmp/b && tar -xJf "$bundle/bundle.tar.xz" -C /tmp/b && el "unpacked $bundle"
rm -rf dist && tar -xJf "$bundle/dist.tar.xz" && ln -sfn /tmp/b/node_modules node_modules
export PATH=/tmp/b/pkg/bin:$PATH
bwrap --version >/dev/null 2>&1 || export LD_LIBRARY_PATH=/tmp/b/pkg/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
bwrap --version
PY=$(command -v python3); VENV=$(dirname "$(dirname "$PY")")
[ -f "$VENV/pyvenv.cfg" ] && ln -sfn "$VENV" .venv && echo "python: $VENV"
nvidia-smi -L
scripts/setup-users
export REBENCH_HOME=/tmp/rh
source "$(dirname "${BASH_SOURCE[0]}")/stage-assets.sh"
stage_assets "$REBENCH_HOME/assets"
el assets
