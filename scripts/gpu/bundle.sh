#!/usr/bin/env bash
# Packs `layoutproof` for a device call: the build's `bundle` target (cmake/Bundle.cmake: the
# stripped Release binary, the shared libraries it needs beyond glibc, and a `layoutproof` that
# starts it through the system loader with `--library-path`) copied to a folder a device call
# carries, because the device machine lacks libz3, spdlog, fmt, toml++ and xxhash.
# usage: scripts/gpu/bundle.sh [BUILD_DIR (build-release)] [DIR (.gpu-bundle)]
# The device needs glibc >= the bundle's GLIBC_NEEDED (printed below).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-release}
dir=${2:-.gpu-bundle}
[[ -f $build/CMakeCache.txt ]] || cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" --target bundle
exclude=$(git rev-parse --git-path info/exclude)
mkdir -p "$(dirname "$exclude")"
grep -qxF "/$dir/" "$exclude" 2>/dev/null || echo "/$dir/" >>"$exclude"
rm -rf "$dir"
cp -r "$build/bundle" "$dir"
du -sh "$dir"
ls -l "$dir/lib"
echo "bundle needs $(cat "$dir/GLIBC_NEEDED") or later (here: $(ldd --version | head -1))"
