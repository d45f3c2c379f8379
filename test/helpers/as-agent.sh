#!/usr/bin/env bash
# TEST-ONLY stand-in for the sandbox's REBENCH_AS_AGENT (the process sandbox of test/helpers has no users):
#   as-agent.sh [--timeout S] [--cwd DIR] -- argv...
# runs argv with a hard timeout (SIGKILL, exit 137). The real `local` backend runs argv as the agent user.
set -euo pipefail
timeout_s=""
cwd=""
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout_s=$2; shift 2 ;;
    --cwd) cwd=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: as-agent.sh [--timeout S] [--cwd DIR] -- argv..." >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "as-agent.sh: no command after --" >&2; exit 2; }
[ -z "$cwd" ] || cd "$cwd"
if [ -n "$timeout_s" ]; then exec timeout -s KILL "$timeout_s" "$@"; fi
exec "$@"
