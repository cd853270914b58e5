#!/usr/bin/env bash
# Set-up and the whole test suite on a fresh machine (the CI job, .ci/run):
#   1. dependencies (scripts/install-deps.sh);
#   2. the whole ctest suite built with AddressSanitizer and UBSan (build-asan/, LP_SANITIZE=ON):
#      every test, and the `layoutproof` binary the tests run, sanitized; any report fails; the
#      Python module (LP_PYTHON=ON) and its pytest suite with it;
#   3. scripts/fuzz.sh: every libFuzzer target (build-fuzz/, clang) for FUZZ_SECONDS each;
#   4. scripts/test-deb.sh: the Release build (build-release/) packaged as a .deb, installed and
#      used in a clean Debian 12 root, with the CI examples run there (measured from a fresh
#      clone: 724 s on a shared 2-core machine, 510 s of CPU: the build 586 s, debootstrap 73 s).
# The plain RelWithDebInfo build/ is what scripts/build.sh makes (scripts/run-corpus.sh makes a
# Release build/ of the binary alone); the sanitized build replaces it for the tests, so CI
# compiles the project three times (sanitized, fuzz, release) rather than four. Measured from a fresh clone on 2 cores (before -g1 and 10 s fuzzing):
# sanitized build 887 s, sanitized tests 263 s, fuzz build and runs 284 s.
#   LP_TEST_PLAIN=1   test the plain build/ instead (no sanitizers, no fuzzing): the quick loop
#   LP_NO_FUZZ=1      skip step 3
#   LP_NO_DEB=1       skip step 4
#   FUZZ_SECONDS      per fuzz target (default 10 here)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
if [[ ${LP_TEST_PLAIN:-0} == 1 ]]; then
  ./scripts/build.sh
  ctest --test-dir build --output-on-failure -j"$jobs"
  exit
fi

./scripts/install-deps.sh
# halt_on_error: the first report fails the test; LSan's suppressions name third-party code only.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Triton and the CuTe DSL are installed above: their tests must run, not skip (tests/python).
export LP_REQUIRE_TRITON=1 LP_REQUIRE_CUTE_DSL=1
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/scripts/sanitizers/lsan.supp:print_suppressions=0}
SECONDS=0
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLP_SANITIZE=ON -DLP_PYTHON=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "sanitized build: ${SECONDS}s"
SECONDS=0
# The sanitized tests run about twice as long: the timeouts of ctest stay as the tests set them.
ctest --test-dir build-asan --output-on-failure -j"$jobs"
echo "sanitized tests: ${SECONDS}s"

if [[ ${LP_NO_FUZZ:-0} != 1 ]]; then
  SECONDS=0
  FUZZ_SECONDS=${FUZZ_SECONDS:-10} ./scripts/fuzz.sh
  echo "fuzzing (build and runs): ${SECONDS}s"
fi

if [[ ${LP_NO_DEB:-0} != 1 ]]; then
  SECONDS=0
  ./scripts/test-deb.sh
  echo "package in a clean Debian 12 (build, debootstrap, install, corpus, workflow): ${SECONDS}s"
fi
