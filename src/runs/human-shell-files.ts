/**
 * @module
 * The files the human baseline mode puts in the sandbox (in a directory of the agent user's, named by
 * `$REBENCH_HUMAN` in the shell): the `score`, `score-log` and `submit` commands, the shell's rcfile
 * (PATH, the prompt with the time left, the banner) and the spool protocol they share with rebench:
 *
 * - a command writes its arguments to `spool/ID.COMMAND.req` (atomically: written as `ID.tmp`, renamed);
 * - rebench takes the request, runs the tool call, writes the text to print to `spool/ID.out` and then
 *   the exit code to `spool/ID.done`; the command prints the one and exits with the other;
 * - `deadline` holds the epoch second at which working time runs out (rewritten after each pause).
 */

export const COMMAND_SCRIPT = `#!/usr/bin/env bash
# rebench human mode: score | score-log | submit [-y] [NOTES]
# Each asks the rebench process that runs this attempt, through files in $REBENCH_HUMAN/spool.
set -u
cmd="$(basename "$0")"
spool="\${REBENCH_HUMAN:?not inside a rebench human session}/spool"
if [ "$cmd" = submit ]; then
  if [ "\${1:-}" = "-y" ]; then
    shift
  else
    read -r -p "Submit and end your attempt now? [y/N] " answer
    case "$answer" in y|Y|yes) ;; *) echo "not submitted"; exit 1 ;; esac
  fi
fi
id="$(date +%s%N)-$$"
printf '%s' "$*" > "$spool/$id.tmp" && mv "$spool/$id.tmp" "$spool/$id.$cmd.req"
[ "$cmd" = score ] && echo "scoring... (the clock is paused while the scorer runs; Ctrl-C stops waiting)"
while [ ! -e "$spool/$id.done" ]; do sleep 0.2; done
cat "$spool/$id.out"
echo
code="$(cat "$spool/$id.done")"
rm -f "$spool/$id.out" "$spool/$id.done"
if [ "$cmd" = submit ] && [ "$code" = 0 ]; then kill -HUP "$PPID" 2>/dev/null; fi
exit "$code"
`;

export const RCFILE = `# rebench human mode: the shell of one attempt
export PATH="$REBENCH_HUMAN/bin:$PATH"
export REBENCH_INSTRUCTIONS="$REBENCH_HUMAN/instructions.txt"
export HISTFILE="$REBENCH_HUMAN/bash_history"
cd "\${REBENCH_WORKSPACE:-$PWD}" 2>/dev/null
__rebench_left() {
  local deadline left
  deadline="$(cat "$REBENCH_HUMAN/deadline" 2>/dev/null)"
  if [ -z "$deadline" ]; then printf 'no time limit'; return; fi
  left=$(( deadline - $(date +%s) ))
  [ "$left" -lt 0 ] && left=0
  if [ "$left" -lt 120 ]; then printf '%ds' "$left"; else printf '%dh%02dm' $(( left / 3600 )) $(( left % 3600 / 60 )); fi
}
PS1='[$(__rebench_left) left] \\w\\$ '
cat "$REBENCH_HUMAN/banner.txt"
echo "Time left: $(__rebench_left)."
`;

/**
 * Wait up to `seconds` for requests in the spool; print each as `NAME<TAB>BASE64-ARGS` and remove it.
 * Run with the spool as working directory.
 */
export function pollScript(seconds: number): string {
  const rounds = Math.max(1, Math.round(seconds / 0.2));
  return [
    `for _ in $(seq ${rounds}); do`,
    "  found=0",
    "  for f in *.req; do",
    '    [ -e "$f" ] || continue',
    "    found=1",
    '    printf "%s\\t%s\\n" "$f" "$(base64 -w0 < "$f")"',
    '    rm -f -- "$f"',
    "  done",
    '  [ "$found" = 1 ] && exit 0',
    "  sleep 0.2",
    "done",
  ].join("\n");
}
