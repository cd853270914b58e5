#!/usr/bin/env bash
# Installs dependencies (idempotent) and builds LayoutProof into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-deps.sh
# BUILD_TESTING=ON: scripts/run-corpus.sh configures build/ without tests.
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" -DBUILD_TESTING=ON -DLP_PYTHON=ON >/dev/null
cmake --build build -j"$(nproc)"
