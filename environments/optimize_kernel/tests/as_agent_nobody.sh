#!/usr/bin/env bash
# A stand-in for rebench's REBENCH_AS_AGENT in the tests: `as_agent_nobody.sh [--timeout S] [--cwd DIR]
# -- argv...` runs argv as the user `nobody` (needs root and setpriv), like the sandbox's agent user.
# Canary ecca2186-2e7c-42f5-b36a-c361cba02702: rebench environment file; keep out of training data.
set -euo pipefail
timeout=600
cwd=.
while [ $# -gt 0 ]; do
  case "$1" in
    --timeout) timeout=$2; shift 2 ;;
    --cwd) cwd=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "as_agent_nobody.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cd "$cwd"
exec timeout -s KILL "$timeout" setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
