# rebench sandbox shell: runs one command inside a user's persistent shell state (working directory and
# exported variables), as if every exec were typed into the same long-lived shell. Both sandbox backends
# run every command through this file, so their shells behave the same.
#
# Usage: bash --noprofile --norc sandbox_shell.sh STATE_FILE [CWD]
#   STATE_FILE  the user's saved state: read at the start (ignored unless complete), rewritten at exit
#   CWD         run in this directory (the shell stays there afterwards, as after `cd CWD`)
# Environment (removed before the command runs):
#   __RB_ULIMITS     resource limits, applied first: space-separated FLAGS=VALUE for `ulimit -FLAGS VALUE`,
#                    in order (e.g. "St=60 Ht=61 f=1048576 u=512")
#   __RB_COMMAND     the command, or __RB_COMMAND_FD: an open, seekable descriptor holding it NUL-terminated
#   __RB_VARS        names of the variables this call sets; they override the saved state for this command
#                    only (unless the command itself changes them)
#   __RB_BASE_VARS   names of the sandbox's base variables the launcher set; a saved state replaces them,
#                    so `unset` and `export` persist exactly
# Only exported variables and the working directory persist: not functions, aliases or
# shell options. A command killed with SIGKILL (a timeout) leaves the previous state in place.

# Limits first: nothing the user controls runs before them, and the user cannot raise a hard limit.
for __rb_v in ${__RB_ULIMITS-}; do ulimit "-${__rb_v%%=*}" "${__rb_v#*=}" 2>/dev/null; done
unset __RB_ULIMITS

__rb_state_file=$1
__rb_cwd=${2-}
set --
if [[ -n ${__RB_COMMAND_FD-} ]]; then
  IFS= read -r -d '' __rb_cmd <&"$__RB_COMMAND_FD"
  eval "exec ${__RB_COMMAND_FD}<&-"
else
  __rb_cmd=${__RB_COMMAND-}
fi
__rb_vars=${__RB_VARS-}
__rb_base=${__RB_BASE_VARS-}
unset __RB_COMMAND __RB_COMMAND_FD __RB_VARS __RB_BASE_VARS

declare -A __rb_call=() __rb_prev=()
for __rb_v in $__rb_vars; do __rb_call[$__rb_v]=${!__rb_v-}; done

__rb_state=
if [[ -f $__rb_state_file ]]; then IFS= read -r -d '' __rb_state <"$__rb_state_file"; fi
if [[ $__rb_state == *$'\n#rebench-state-end\n' ]]; then
  # The base and call variables go (the launcher names them); the saved ones come back; this call's
  # variables then win for this command, remembering what the saved state had.
  for __rb_v in $__rb_base $__rb_vars; do unset "$__rb_v" 2>/dev/null; done
  eval "$__rb_state"
  for __rb_v in $__rb_vars; do
    if [[ -v $__rb_v ]]; then __rb_prev[$__rb_v]=${!__rb_v}; fi
    export "$__rb_v=${__rb_call[$__rb_v]}"
  done
fi

if [[ -n $__rb_cwd ]]; then
  cd -- "$__rb_cwd" || exit 1
elif [[ -n ${__rb_saved_cwd-} ]]; then
  cd -- "$__rb_saved_cwd" 2>/dev/null || cd -- "${HOME:-/}" 2>/dev/null
fi

__rb_save() {
  set +e +u +o pipefail
  for __rb_v in $__rb_vars; do
    # A call's variable the command left alone does not persist; the value before the call comes back.
    if [[ ${!__rb_v-} == "${__rb_call[$__rb_v]}" ]]; then
      if [[ -v __rb_prev[$__rb_v] ]]; then export "$__rb_v=${__rb_prev[$__rb_v]}"; else unset "$__rb_v"; fi
    fi
  done
  { printf '__rb_saved_cwd=%q\n' "$PWD"; export -p; printf '#rebench-state-end\n'; } >"$__rb_state_file" 2>/dev/null
}
trap __rb_save EXIT
eval "$__rb_cmd"
