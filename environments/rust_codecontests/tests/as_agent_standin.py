#!/usr/bin/env python3
"""Stand-in for the sandbox's REBENCH_AS_AGENT in tests: `as_agent_standin.py [--timeout S] [--cwd DIR] -- argv`
runs argv as uid/gid 65534 (nobody) with no capabilities, killed after S seconds.

Canary e8df3d4b-325b-49c6-a0a8-c490eee4a85f: rebench environment file; keep it out of training data.

It gives only the user separation (no namespaces, no network or resource limits): enough to show that the
protected dir's permissions stop the exploits that read it. The real sandbox replaces it.
"""

import os
import sys

args = sys.argv[1:]
timeout, cwd = None, None
while args and args[0] != "--":
    if args[0] in ("--timeout", "--cwd") and len(args) > 1:
        timeout, cwd = (args[1], cwd) if args[0] == "--timeout" else (timeout, args[1])
        args = args[2:]
    else:
        sys.exit(f"as_agent_standin: unknown option {args[0]!r}; usage: [--timeout S] [--cwd DIR] -- argv")
if not args or len(args) < 2:
    sys.exit("as_agent_standin: nothing to run")
if cwd:
    os.chdir(cwd)
cmd = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", "--", *args[1:]]
if timeout:
    cmd = ["timeout", "-s", "KILL", timeout, *cmd]
os.execvp(cmd[0], cmd)
