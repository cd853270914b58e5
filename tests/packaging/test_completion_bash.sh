#!/usr/bin/env bash
# The bash completion of `layoutproof completion bash`, loaded into bash and asked as bash asks it
# (COMP_WORDS, COMP_CWORD, then the registered function). The expected words are written by hand
# from the commands' definitions in cli/*Command.cpp.
# usage: test_completion_bash.sh LAYOUTPROOF
set -euo pipefail
export LC_ALL=C
lp=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$lp" completion bash >"$work/layoutproof"
bash -n "$work/layoutproof"
# shellcheck source=/dev/null
source "$work/layoutproof"
[[ $(complete -p layoutproof) == "complete -F _layoutproof layoutproof" ]]

failures=0
# expect LINE WORDS: completing at the end of LINE (a trailing space starts a new word) offers
# exactly WORDS (sorted, space-separated).
expect() {
  local line=$1 want=$2 got
  read -ra COMP_WORDS <<<"$line"
  [[ $line == *" " ]] && COMP_WORDS+=("")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _layoutproof
  got=$(printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ')
  got=${got% }
  if [[ $got == "$want" ]]; then
    echo "ok   '$line' -> $got"
  else
    echo "FAIL '$line' -> '$got', expected '$want'"
    failures=$((failures + 1))
  fi
}

# Subcommands: every visible one, not the hidden `completion`.
expect "layoutproof " "algebra banks bench check eval explain extract fragment print prove replay report"
expect "layoutproof ch" "check"
expect "layoutproof --v" "--verbose --version"
expect "layoutproof -" "--help --verbose --version -h -v"
# Options of a subcommand, after global flags too.
expect "layoutproof -v check --fo" "--format"
expect "layoutproof check --fa" "--fail-on"
# IsMember choices of an option's value, and of a positional (algebra's operation).
expect "layoutproof check --format " "codequality json junit sarif text"
expect "layoutproof check --format s" "sarif"
expect "layoutproof -v check --fail-on " "error note warning"
expect "layoutproof algebra left" "left_inverse"
expect "layoutproof algebra f" "filter filter_zeros flat_divide"
# A value is skipped when finding the subcommand path: `sarif` is not a subcommand word.
expect "layoutproof check --format sarif --bas" "--baseline"
# Nested subcommands and their own options.
expect "layoutproof prove " "compose conflict-free covers injective"
expect "layoutproof prove conflict-free --in" "--instr"
expect "layoutproof prove injective --engine " "auto enum f2 z3"
expect "layoutproof prove covers --t" "--target --timeout-ms"
# Values without choices and positional paths complete file names.
mkdir -p "$work/files/reports"
touch "$work/files/report.sarif" "$work/files/kernel.cu"
cd "$work/files"
expect "layoutproof check --output rep" "report.sarif reports"
expect "layoutproof check ker" "kernel.cu"
echo "$failures failed"
((failures == 0))
