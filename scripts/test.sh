#!/usr/bin/env bash
# Set-up and the whole test suite on a fresh machine: dependencies, build, ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
