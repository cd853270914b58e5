#!/usr/bin/env bash
# `cmake --install BUILD --prefix PREFIX` gives a working tool (cmake/Install.cmake): the binary
# runs from PREFIX and checks a file, the man pages render with man(1), the completion scripts are
# where bash-completion and zsh look for PREFIX, the docs are there, and a CMake project finds the
# package with find_package(LayoutProof VERSION) and runs LayoutProof::layoutproof in its build.
# usage: test_install.sh BUILD_DIR SOURCE_DIR VERSION
set -euo pipefail
build=$1 src=$2 version=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"

# No `| grep -q` under pipefail: grep's early exit would give the writer SIGPIPE, a false failure.
"$prefix/bin/layoutproof" --version >"$work/version.txt"
[[ $(head -1 "$work/version.txt") == "layoutproof $version" ]]
printf 'smem sA : f16 = (_8,_8):(_8,_1)\n' >"$work/good.lp"
printf 'smem sB : f16 = (_8,_8):(_1,_1)\n' >"$work/bad.lp"
"$prefix/bin/layoutproof" check "$work/good.lp" --no-cache --no-progress
rc=0
"$prefix/bin/layoutproof" check "$work/bad.lp" --no-cache --no-progress >"$work/bad.txt" || rc=$?
[[ $rc == 1 ]] && grep -q "LP001" "$work/bad.txt"

# Man pages: the driver's and one per subcommand, rendered by man itself.
for page in layoutproof layoutproof-check layoutproof-prove layoutproof-eval; do
  f=$prefix/share/man/man1/$page.1.gz
  [[ -s $f ]] || { echo "missing $f"; exit 1; }
done
MANWIDTH=100 man -l "$prefix/share/man/man1/layoutproof-check.1.gz" >"$work/man.txt" 2>/dev/null
grep -q -- "--baseline" "$work/man.txt"
grep -q "EXIT STATUS" "$work/man.txt"
MANWIDTH=100 man -l "$prefix/share/man/man1/layoutproof.1.gz" >"$work/man-driver.txt" 2>/dev/null
grep -q "check" "$work/man-driver.txt"
# Completion: bash-completion's per-prefix directory; zsh's site-functions for a prefix other than /usr.
grep -q "complete -F _layoutproof layoutproof" "$prefix/share/bash-completion/completions/layoutproof"
[[ $(head -1 "$prefix/share/zsh/site-functions/_layoutproof") == "#compdef layoutproof" ]]
# Docs: the rule pages and the CI page.
for doc in README.md annotations.md ci.md install.md rules/README.md rules/LP001.md; do
  [[ -s $prefix/share/doc/layoutproof/$doc ]] || { echo "missing doc $doc"; exit 1; }
done
if [[ -d $src/include/layoutproof ]]; then
  diff -r "$src/include/layoutproof" "$prefix/include/layoutproof"
fi

# The CMake package, from a project that knows only the prefix.
mkdir -p "$work/consumer"
cp "$work/good.lp" "$work/consumer/"
cat >"$work/consumer/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(consumer LANGUAGES NONE)
find_package(LayoutProof $version REQUIRED CONFIG)
if(NOT LayoutProof_VERSION VERSION_EQUAL $version)
  message(FATAL_ERROR "found LayoutProof \${LayoutProof_VERSION}")
endif()
get_target_property(imported LayoutProof::layoutproof IMPORTED)
if(NOT imported)
  message(FATAL_ERROR "LayoutProof::layoutproof is not an imported target")
endif()
if(EXISTS "$src/include/layoutproof" AND NOT TARGET LayoutProof::cute)
  message(FATAL_ERROR "no LayoutProof::cute target")
endif()
add_custom_target(check_layouts ALL
  COMMAND LayoutProof::layoutproof check \${CMAKE_SOURCE_DIR}/good.lp --no-cache --no-progress --output \${CMAKE_BINARY_DIR}/report.txt)
CMAKE
# A project asking for a newer minor version than the installed one must not find it.
sed "s/find_package(LayoutProof $version /find_package(LayoutProof 99.0 /" "$work/consumer/CMakeLists.txt" >"$work/too-new.txt"
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >"$work/consumer.log"
cmake --build "$work/consumer/build" >>"$work/consumer.log"
[[ -f $work/consumer/build/report.txt ]]
mkdir -p "$work/too-new" && cp "$work/too-new.txt" "$work/too-new/CMakeLists.txt" && cp "$work/good.lp" "$work/too-new/"
if cmake -S "$work/too-new" -B "$work/too-new/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null 2>&1; then
  echo "find_package(LayoutProof 99.0) accepted version $version"
  exit 1
fi
echo "installed to $prefix: $(cd "$prefix" && find . -type f | wc -l) files; man, completion, docs and the CMake package work"
