#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ into build-fuzz/ (clang-14, LP_FUZZ=ON) and runs each for a
# bounded time from its seed corpus (fuzz/seeds/<target>/). Fails on any finding: a crash, an
# uncaught exception, a sanitizer report, a timeout (-timeout) or a memory blow-up (-rss_limit_mb).
# The reproducer is left in build-fuzz/findings/<target>/ (crash-*, timeout-*, leak-*, oom-*).
#   FUZZ_SECONDS  seconds per target (default 20)
#   FUZZ_TARGETS  space-separated subset of the targets (default: all)
#   FUZZ_MAX_LEN  -max_len (default 4096)
# Assumes the dependencies are installed (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
max_len=${FUZZ_MAX_LEN:-4096}
cxx=${FUZZ_CXX:-clang++-14}
all=(layout_cute layout_cpp layout_tirx layout_descriptor tiler annotations_lp annotations_cu annotations_py config baseline findings ptx
     compile_database sass host_launches)
read -r -a targets <<<"${FUZZ_TARGETS:-${all[*]}}"

cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLP_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

# A leak or UB report is a finding as much as a crash.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  work=build-fuzz/corpus/$t findings=build-fuzz/findings/$t
  mkdir -p "$work" "$findings"
  echo "== fuzz_$t: ${seconds}s"
  # New inputs go to build-fuzz/corpus/<target> (kept between runs); fuzz/seeds/<target> is read only.
  if ! build-fuzz/fuzz/fuzz_"$t" "$work" "fuzz/seeds/$t" -max_total_time="$seconds" -max_len="$max_len" \
      -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$findings/" >"build-fuzz/fuzz_$t.log" 2>&1; then
    echo "fuzz_$t FAILED; the reproducer is in $findings/:"
    ls "$findings"
    tail -n 60 "build-fuzz/fuzz_$t.log"
    failed+=("$t")
  else
    grep -E "^stat::number_of_executed_units|^Done" "build-fuzz/fuzz_$t.log" | tr '\n' ' '
    echo
  fi
done
if ((${#failed[@]})); then
  echo "fuzzing found problems in: ${failed[*]}"
  exit 1
fi
echo "fuzzing: no findings in ${#targets[@]} targets (${seconds}s each)"
