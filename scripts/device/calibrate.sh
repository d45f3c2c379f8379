#!/usr/bin/env bash
# rebench calibrate on a GPU machine without Node (scripts/device/bundle made .gpu/main first):
#   the device tool's run: command "bash scripts/device/calibrate.sh NAME [--runs 3 --concurrency 2 ...]",
#   carry [".gpu/main", ".gpu/assets"]
# Assets the variant stages come from .gpu/assets/<name>/ (setup.sh). Writes under $OUT: calibrate.json (the --json output), calibration.json (the
# environment's, updated when --write is given and the rule holds), calibrate.log, and the store (runs.db).
# A calibration split over calls (--resume --max-new-runs N) carries the last call's store back as
# .gpu/state/runs.db (add .gpu/state to carry); it is copied to $OUT/runs.db before the runs.
# CALIBRATE_BUILD=a,b builds those assets here first (`rebench assets build --only`), for what is too large to carry
# (finetune_gpt2_qa gpu: CALIBRATE_BUILD=gpu-small,gpu-chat, about 240 s on an H200).
# CALIBRATE_FILL="SECONDS ARGS" fills the rest of a call: after the calibration above, `calibrate NAME ARGS --resume
# --max-new-runs 1` again and again while fewer than SECONDS have passed since the call began and it says
# 'incomplete' (e.g. CALIBRATE_FILL="420 --variant gpu --runs 3 --write --only start" after one reference run).
DEVICE_LOG=calibrate source "$(dirname "$0")/setup.sh"
name=${1:?usage: calibrate.sh NAME [rebench calibrate options]}; shift
[ -f .gpu/state/runs.db ] && cp .gpu/state/runs.db "$OUT/runs.db" && el "resuming from the carried store .gpu/state/runs.db"
if [ -n "${CALIBRATE_BUILD:-}" ]; then
  node bin/rebench.js assets build --only "$CALIBRATE_BUILD" || { echo "assets build failed"; exit 1; }
  el "built $CALIBRATE_BUILD"
fi
el "calibrate $name $*"
node bin/rebench.js calibrate "$name" --db "$OUT/runs.db" --progress 30 --json "$@" > "$OUT/calibrate.json"
echo "calibrate exit $?"
cat "$OUT/calibrate.json"
if [ -n "${CALIBRATE_FILL:-}" ]; then
  read -r until fill <<<"$CALIBRATE_FILL"
  i=0; before=
  while [ $(( $(date +%s) - t0 )) -lt "$until" ]; do
    i=$((i + 1)); el "fill $i: calibrate $name $fill --resume --max-new-runs 1"
    # shellcheck disable=SC2086 # the words of CALIBRATE_FILL are options
    node bin/rebench.js calibrate "$name" --db "$OUT/runs.db" --progress 30 --json $fill --resume --max-new-runs 1 > "$OUT/fill.json"
    code=$?; echo "fill $i exit $code"; cat "$OUT/fill.json"
    have=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("have", ""))' "$OUT/fill.json" 2>/dev/null)
    # stop when done, failed, or a piece started nothing (its --only solution has all its runs)
    { [ "$code" = 1 ] && [ -n "$have" ] && [ "$have" != "$before" ]; } || break
    before=$have
  done
fi
cp "environments/$name/calibration.json" "$OUT/"
el done
