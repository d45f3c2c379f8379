#!/usr/bin/env bash
# rebench calibrate on a GPU machine without Node (scripts/device/bundle made .gpu/main first):
#   the device tool's run: command "bash scripts/device/calibrate.sh NAME [--runs 3 --concurrency 2 ...]",
#   carry [".gpu/main", ".gpu/assets"]
# Assets the variant stages come from .gpu/assets/<name>/ (asset.json beside the files; a train.bin.xz is
# decompressed there). Writes under $OUT: calibrate.json (the --json output), calibration.json (the
# environment's, updated when --write is given and the rule holds), calibrate.log, and the store (runs.db).
DEVICE_LOG=calibrate source "$(dirname "$0")/setup.sh"
name=${1:?usage: calibrate.sh NAME [rebench calibrate options]}; shift
for asset in .gpu/assets/*/; do
  [ -f "$asset/asset.json" ] || continue
  for xz in "$asset"*.xz; do
    [ -f "$xz" ] && python3 -c "import lzma, os, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[1][:-3], 'wb')); os.remove(sys.argv[1])" "$xz"
  done
  ln -sfn "$(cd "$asset" && pwd)" "$REBENCH_HOME/assets/$(basename "$asset")" && el "asset $(basename "$asset")"
done
el "calibrate $name $*"
node bin/rebench.js calibrate "$name" --db "$OUT/runs.db" --progress 30 --json "$@" > "$OUT/calibrate.json"
echo "calibrate exit $?"
cat "$OUT/calibrate.json"
cp "environments/$name/calibration.json" "$OUT/"
el done
