#!/usr/bin/env bash
# The CI examples of docs/ci.md, linted and validated (their commands run, in order, in a clean
# Debian 12 root by scripts/test-deb.sh):
#   docs/ci/github-workflow.yml, docs/ci/github-workflow-cuda.yml
#                                GitHub's workflow schema (check-jsonschema's vendored copy)
#   docs/ci/gitlab-ci.yml        GitLab CI's schema (likewise)
#   .pre-commit-hooks.yaml       pre-commit's own manifest validation
#   all three                    yamllint; every shell command they run, shellcheck
# Exit 77 when check-jsonschema, pre-commit, yamllint or shellcheck is missing (scripts/install-deps.sh).
# usage: test_ci_examples.sh SOURCE_DIR
set -euo pipefail
src=$1
for tool in yamllint shellcheck; do
  command -v $tool >/dev/null || { echo "$tool is not installed (scripts/install-deps.sh)"; exit 77; }
done
for module in check_jsonschema pre_commit yaml; do
  python3 -c "import $module" 2>/dev/null || { echo "python module $module is missing (scripts/install-deps.sh)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
github=$src/docs/ci/github-workflow.yml github_cuda=$src/docs/ci/github-workflow-cuda.yml gitlab=$src/docs/ci/gitlab-ci.yml hooks=$src/.pre-commit-hooks.yaml

python3 -m check_jsonschema --builtin-schema vendor.github-workflows "$github" "$github_cuda"
python3 -m check_jsonschema --builtin-schema vendor.gitlab-ci "$gitlab"
python3 -m pre_commit validate-manifest "$hooks"
# `on:` is GitHub's key, not a boolean.
yamllint --strict -d '{extends: default, rules: {line-length: {max: 140}, document-start: disable, truthy: {check-keys: false}}}' \
  "$github" "$github_cuda" "$gitlab" "$hooks"

# Every shell command, as the runner gives it to bash.
python3 - "$github" "$github_cuda" "$gitlab" "$hooks" "$work" <<'PY'
import sys, yaml
github, github_cuda, gitlab, hooks, work = sys.argv[1:]
scripts = []
for workflow in (github, github_cuda):
    for name, job in yaml.safe_load(open(workflow))["jobs"].items():
        for i, step in enumerate(job["steps"]):
            if "run" in step:
                scripts.append((f"github-{name}-{i}", step["run"]))
for name, job in yaml.safe_load(open(gitlab)).items():
    if isinstance(job, dict) and "script" in job:
        scripts.append((f"gitlab-{name}", "\n".join(job["script"])))
for hook in yaml.safe_load(open(hooks)):
    scripts.append((f"hook-{hook['id']}", hook["entry"] + ' "$@"'))
assert scripts, "no commands found"
for name, text in scripts:
    with open(f"{work}/{name}.sh", "w") as f:
        f.write("#!/bin/bash\n" + text + "\n")
print(f"{len(scripts)} command blocks")
PY
shellcheck -s bash "$work"/*.sh
echo "CI examples valid: GitHub and GitLab schemas, pre-commit manifest, yamllint, shellcheck"
