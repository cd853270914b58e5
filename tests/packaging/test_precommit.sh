#!/usr/bin/env bash
# The hook of .pre-commit-hooks.yaml, run by pre-commit itself (pinned in scripts/install-deps.sh)
# as a user's repository runs it: a scratch git repository lists the hook in its
# .pre-commit-config.yaml, `pre-commit install` sets up the git hook, and `git commit` runs it on
# the staged files. The hook repository is a git repository holding this tree's
# .pre-commit-hooks.yaml (pre-commit clones it by path: no network), so the file under test is
# the working tree's. A commit of a correct annotated file goes in; a commit adding a
# non-injective layout is refused, with the finding in the output, and is not recorded.
# Exit 77 without pre-commit.
# usage: test_precommit.sh LAYOUTPROOF SOURCE_DIR
set -euo pipefail
lp=$(readlink -f "$1") src=$(readlink -f "$2")
python3 -c "import pre_commit" 2>/dev/null || { echo "pre-commit is not installed (scripts/install-deps.sh)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bindir=$(dirname "$lp")
export PATH="$bindir:$PATH" PRE_COMMIT_HOME=$work/cache XDG_CACHE_HOME=$work/xdg
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

hooks=$work/hook-repo
git init -q "$hooks"
cp "$src/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" add .pre-commit-hooks.yaml
git -C "$hooks" commit -qm hooks
rev=$(git -C "$hooks" rev-parse HEAD)

repo=$work/project
git init -q "$repo"
cd "$repo"
cat >.pre-commit-config.yaml <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: layoutproof
YAML
git add .pre-commit-config.yaml
git commit -qm config
python3 -m pre_commit install >/dev/null

# A correct file: the 8x8 f16 tile, row-major, is injective (offset 8*i + j).
mkdir -p kernels
cat >kernels/good.cu <<'CU'
// layoutproof: smem sA : f16 = (_8,_8):(_8,_1)
__global__ void good() {}
CU
git add kernels/good.cu
git commit -qm good >"$work/good.log" 2>&1 || { cat "$work/good.log"; echo "the correct file was refused"; exit 1; }
grep -q "layoutproof check.*Passed" "$work/good.log" || { cat "$work/good.log"; echo "the hook did not run on good.cu"; exit 1; }

# A wrong file: strides (1,1) send (1,0) and (0,1) to the same offset 1.
cat >kernels/bad.cu <<'CU'
// layoutproof: smem sB : f16 = (_8,_8):(_1,_1)
__global__ void bad() {}
CU
git add kernels/bad.cu
rc=0
git commit -qm bad >"$work/bad.log" 2>&1 || rc=$?
cat "$work/bad.log"
[[ $rc != 0 ]] || { echo "the commit with a non-injective layout went in"; exit 1; }
grep -q "layoutproof check.*Failed" "$work/bad.log"
grep -q "kernels/bad.cu:1:.*error:.*\[LP001\]" "$work/bad.log" || { echo "the finding is not shown"; exit 1; }
[[ $(git rev-list --count HEAD) == 2 ]]
[[ $(git log --format=%s) == $'good\nconfig' ]]
echo "pre-commit $(python3 -m pre_commit --version | cut -d' ' -f2): good.cu committed, bad.cu refused with its LP001 finding"
