#!/usr/bin/env bash
# The Debian package, installed and used on a clean Debian 12 (a CI step of scripts/test.sh;
# docs/install.md, docs/ci.md):
#   1. a Release build (build-release/: no debug info, no tests), its relocatable bundle and
#      `cpack -G DEB`;
#   2. a minimal Debian 12 root from Debian's mirror (debootstrap --variant=minbase bookworm);
#   3. the bundle run in that root before anything is installed (it has no libz3, spdlog, fmt):
#      the bundle brings what it needs;
#   4. `apt-get install ./layoutproof_VERSION_amd64.deb` in the root (apt takes the dependencies
#      dpkg-shlibdeps derived from the mirror), then there: --version, the corpus checked (exactly
#      the findings of corpus/known-findings.baseline.json, and the gate passing with it), the man
#      page and the bash completion;
#   5. docs/ci/github-workflow.yml's job run step by step in the root (scripts/ci/run-workflow.py)
#      on a scratch repository holding the corpus and its baseline: with a new finding the job
#      fails and uploads a valid SARIF naming it; without, it passes. docs/ci/gitlab-ci.yml's
#      script, with the new finding, fails and leaves a code quality report naming it.
# Prints the time of each part. Needs root (debootstrap, chroot, mount).
#   LP_DEBIAN_MIRROR  the mirror (default http://deb.debian.org/debian)
#   LP_DEB_BUILD      the build directory (default build-release)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${LP_DEB_BUILD:-build-release}
mirror=${LP_DEBIAN_MIRROR:-http://deb.debian.org/debian}
[[ $(id -u) == 0 ]] || { echo "test-deb: needs root (debootstrap, chroot)"; exit 2; }
step() { echo "== test-deb: $* (${SECONDS}s)"; }
SECONDS=0

step "Release build, bundle and package in $build"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)"
cmake --build "$build" --target bundle
rm -f "$build"/layoutproof_*.deb
(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/layoutproof_*.deb)
dpkg-deb --field "$deb" Package Version Architecture Depends
build_s=$SECONDS

root=$(mktemp -d /tmp/lp-bookworm.XXXXXX)
cleanup() {
  umount "$root/proc" 2>/dev/null || true
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
step "debootstrap --variant=minbase bookworm $root $mirror"
t0=$SECONDS
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -20 "$root.log"; exit 1; }
rm -f "$root.log"
debootstrap_s=$((SECONDS - t0))
mount -t proc proc "$root/proc"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/root DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 "$@"; }
mkdir -p "$root/work"
cp -r corpus "$root/work/"

step "the bundle in the bare root"
in_root sh -c '! ldconfig -p | grep -q libz3'  # nothing of the tool's is installed yet
cp -r "$build/bundle" "$root/opt/layoutproof-bundle"
in_root /opt/layoutproof-bundle/layoutproof --version
in_root sh -c 'cd /work && /opt/layoutproof-bundle/layoutproof check corpus/ --no-progress --no-cache \
  --baseline corpus/known-findings.baseline.json'
rm -rf "$root/opt/layoutproof-bundle"

step "apt-get install ./$(basename "$deb")"
cp "$deb" "$root/tmp/"
in_root apt-get update -q >/dev/null
in_root sh -c "cd /tmp && apt-get install -y -q --no-install-recommends ./$(basename "$deb")" | tail -3
in_root dpkg -s layoutproof | grep -E '^(Status|Version|Depends):'

step "the installed tool in the root"
in_root layoutproof --version | tee "$root/tmp/version.txt"
[[ $(head -1 "$root/tmp/version.txt") == "layoutproof $(dpkg-deb --field "$deb" Version)" ]]
rc=0
in_root sh -c 'cd /work && layoutproof check corpus/ --no-progress --format json --output /tmp/findings.json' || rc=$?
[[ $rc == 1 ]] || { echo "check of the corpus exited $rc, expected 1 (its documented findings)"; exit 1; }
python3 - "$root/tmp/findings.json" corpus/known-findings.baseline.json <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
base = json.load(open(sys.argv[2]))
found = sorted((f["rule"], f["file"], f["fingerprint"]) for f in run["findings"])
known = sorted((f["rule"], f["file"], f["fingerprint"]) for f in base["findings"])
missing = set(known) - set(found)
extra = set(found) - set(known)
print(f"corpus in the root: {len(found)} findings, {len(known)} in the baseline, {len(missing)} missing, {len(extra)} new")
sys.exit(1 if missing or extra else 0)
PY
in_root sh -c 'cd /work && layoutproof check corpus/ --no-progress --baseline corpus/known-findings.baseline.json'
in_root sh -c 'test -s /usr/share/man/man1/layoutproof.1.gz && test -s /usr/share/man/man1/layoutproof-check.1.gz'
in_root test -s /usr/share/zsh/vendor-completions/_layoutproof
in_root test -s /usr/share/doc/layoutproof/rules/LP001.md
# The shells find the completion where the package put it: bash-completion's loader, zsh's
# compinit on Debian's default $fpath.
in_root apt-get install -y -q --no-install-recommends bash-completion zsh >/dev/null
completion=$(in_root bash -c 'source /usr/share/bash-completion/bash_completion
  _completion_loader layoutproof
  COMP_WORDS=(layoutproof check --format ""); COMP_CWORD=3; _layoutproof; echo "${COMPREPLY[*]}"')
echo "bash completion of 'layoutproof check --format ': $completion"
[[ $(tr ' ' '\n' <<<"$completion" | sort | tr '\n' ' ') == "codequality json junit sarif text " ]]
zsh_function=$(in_root zsh -fc 'autoload -Uz compinit; compinit -u -D; print -r -- $_comps[layoutproof]')
echo "zsh completion function of layoutproof: $zsh_function"
[[ $zsh_function == _layoutproof ]]

step "docs/ci/github-workflow.yml in the root"
ws=/github/workspace
mkdir -p "$root$ws"
cp -r corpus "$root$ws/"
in_root sh -c "cd $ws && layoutproof check . --no-progress --write-baseline .layoutproof-baseline.json >/dev/null" || true
mkdir -p "$root$ws/kernels"
printf '// layoutproof: smem sB : f16 = (_8,_8):(_1,_1)\n__global__ void k() {}\n' >"$root$ws/kernels/new.cu"
out=$(mktemp -d)
run_job() { python3 scripts/ci/run-workflow.py docs/ci/github-workflow.yml layoutproof --root "$root" \
  --workspace "$ws" --out "$out" --env "LAYOUTPROOF_DEB_URL=file:///tmp/$(basename "$deb")"; }
rc=0
run_job || rc=$?
[[ $rc == 1 ]] || { echo "the job with a new finding concluded $rc, expected failure"; exit 1; }
python3 - "$out/uploaded.sarif" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["runs"][0]["results"]
where = [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results]
print(f"uploaded: {where}")
sys.exit(0 if where == [("LP001", "kernels/new.cu")] else 1)
PY

step "docs/ci/gitlab-ci.yml's job in the root"
# GitLab runs the script's lines in order in one shell and fails the job at the first that fails;
# LAYOUTPROOF_DEB_URL is pointed at the local .deb after the job's own variables.
python3 - docs/ci/gitlab-ci.yml "$root/tmp/gitlab-job.sh" "file:///tmp/$(basename "$deb")" <<'PY'
import shlex, sys, yaml
job = yaml.safe_load(open(sys.argv[1]))["layoutproof"]
with open(sys.argv[2], "w") as f:
    for name, value in job.get("variables", {}).items():
        f.write(f"export {name}={shlex.quote(str(value))}\n")
    f.write(f"export LAYOUTPROOF_DEB_URL={shlex.quote(sys.argv[3])}\n")
    f.write("\n".join(job["script"]) + "\n")
PY
rc=0
in_root bash --noprofile --norc -e -c "cd $ws && . /tmp/gitlab-job.sh" >"$out/gitlab.log" 2>&1 || rc=$?
[[ $rc == 1 ]] || { cat "$out/gitlab.log"; echo "the GitLab job with a new finding exited $rc, expected 1"; exit 1; }
python3 - "$root$ws/gl-code-quality-report.json" <<'PY'
import json, sys
issues = json.load(open(sys.argv[1]))
print(f"code quality report: {issues}")
assert isinstance(issues, list) and len(issues) == 1, "expected exactly the new finding"
i = issues[0]
assert {"description", "check_name", "fingerprint", "severity", "location"} <= set(i)
assert i["check_name"] == "LP001" and i["severity"] == "critical"
assert i["location"] == {"path": "kernels/new.cu", "lines": {"begin": 1}}, i["location"]
PY
rm -rf "$root$ws/kernels" "$out"
step "docs/ci/github-workflow.yml in the root, without the new finding"
run_job
step "done: build and package ${build_s}s, debootstrap ${debootstrap_s}s, the rest $((SECONDS - build_s - debootstrap_s))s"
