#!/usr/bin/env bash
# The zsh completion of `layoutproof completion zsh`, run by zsh's own completion system: an
# interactive zsh on a pseudo-terminal (zsh/zpty) with compinit and the generated _layoutproof on
# $fpath, where a line is typed and TAB pressed; every match the completion system adds is
# captured (compadd wrapped, as zsh's test harnesses do). The expected words are written by hand
# from the commands' definitions in cli/*Command.cpp. Exit 77 without zsh.
# usage: test_completion_zsh.sh LAYOUTPROOF
set -euo pipefail
export LC_ALL=C
lp=$1
command -v zsh >/dev/null || { echo "zsh is not installed (scripts/install-deps.sh)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/fpath" "$work/files/reports"
touch "$work/files/report.sarif" "$work/files/kernel.cu"
"$lp" completion zsh >"$work/fpath/_layoutproof"
zsh -n "$work/fpath/_layoutproof"

# Prints the matches offered at the end of LINE, one per line.
cat >"$work/capture.zsh" <<'ZSH'
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1= PROMPT= RPROMPT=; unsetopt zle_bracketed_paste 2>/dev/null; fpath=($FPATH_DIR \$fpath)"
zpty -w z "autoload -Uz compinit; compinit -u -D"
zpty -w z "zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
zpty -w z "bindkey '^I' complete-word"
# Each match the completion system adds is printed as MATCH:word, then END-OF-MATCHES. The markers
# are spelled in pieces here, so the terminal's echo of these definitions never contains them.
zpty -w z 'compadd() { local -a __m; builtin compadd -O __m "$@"; local m; for m in $__m; do print -r -- "MA""TCH:$m"; done; builtin compadd "$@" }'
zpty -w z 'comppostfuncs=(__done); __done() { print -r -- "END-OF""-MATCHES"; exit }'
zpty -w z "cd $FILES_DIR"
zpty -w -n z "$LINE"$'\t'
local out line
while zpty -r z line; do
  out+=$line
  [[ $out == *END-OF-MATCHES* ]] && break
done
print -r -- "$out" | tr -d '\r' | grep -o 'MATCH:[^[:cntrl:]]*' | sed 's/^MATCH://' | sort -u
zpty -d z
ZSH

failures=0
expect() {
  local line=$1 want=$2 got
  got=$(FPATH_DIR="$work/fpath" FILES_DIR="$work/files" LINE="$line" timeout 20 zsh -f "$work/capture.zsh" | sort -u | tr '\n' ' ')
  got=${got% }
  if [[ $got == "$want" ]]; then
    echo "ok   '$line' -> $got"
  else
    echo "FAIL '$line' -> '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}

expect "layoutproof " "algebra banks bench check eval explain extract fragment print prove replay report"
expect "layoutproof ch" "check"
expect "layoutproof check --fo" "--format"
expect "layoutproof check --format " "codequality json junit sarif text"
expect "layoutproof check --format=s" "sarif"
expect "layoutproof -v check --fail-on " "error note warning"
expect "layoutproof prove " "compose conflict-free covers injective"
expect "layoutproof prove conflict-free --in" "--instr"
expect "layoutproof prove injective --engine " "auto enum f2 z3"
expect "layoutproof algebra left" "left_inverse"
expect "layoutproof check ker" "kernel.cu"
echo "$failures failed"
((failures == 0))
